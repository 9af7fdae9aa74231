import Foundation
import PropertyBased
import Testing

/// Issue 55, item 1: no part of a file makes reading it super-linear. Each part of the file
/// (`bananas-test hostile-file`: sections, section entries, items, items in unlisted
/// sections, deletes, deleted rows and items, memory, conflicts) is read by the real
/// `bananas list --json` at n and at 4n entries, and the work is counted in instructions by
/// valgrind's callgrind: the same count on every run, however loaded the machine. The
/// work of the same part at no entries (the start-up, the empty list) is taken off both.
/// A read that is linear does at most 4 times the work at 4n; sorting adds a little
/// (n log n), and anything quadratic does about 16 times.
@Suite("Hostile sizes: every part of the file is read in linear work", .serialized)
struct HostileSizesTests {
    static let parts = ["sections", "section-entries", "unlisted-sections", "items", "deletes", "deleted-rows", "deleted-items", "memory", "conflicts"]

    /// At most this many times the work for 4 times the entries.
    static let bound = 5.0

    @Test("n and 4n entries: at most linear work", .enabled(if: Callgrind.isAvailable), arguments: parts)
    func linear(part: String) async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let empty = try await Callgrind.instructions(reading: part, count: 1, in: cli)
        // Sizes drawn from a fixed seed per part: the same runs every time.
        var random = Xoshiro(seed: (0x9E37_79B9_7F4A_7C15, 55 &+ UInt64(Self.parts.firstIndex(of: part)!), 0xD1B5_4A32_D192_ED03, 0x94D0_49BB_1331_11EB))
        for _ in 0..<2 {
            let n = Int.random(in: 150...400, using: &random)
            let small = try await Callgrind.instructions(reading: part, count: n, in: cli) - empty
            let large = try await Callgrind.instructions(reading: part, count: 4 * n, in: cli) - empty
            let ratio = Double(large) / Double(max(small, 1))
            print("\(part): \(n) entries \(small) instructions, \(4 * n) entries \(large): \(String(format: "%.2f", ratio)) times")
            #expect(ratio <= Self.bound, "\(part): \(4 * n) entries cost \(ratio) times the work of \(n) (\(large) against \(small) instructions)")
        }
    }
}

/// valgrind's callgrind, counting the instructions of a whole `bananas` process.
enum Callgrind {
    static let valgrind = Tmux.which("valgrind")
    static var isAvailable: Bool { valgrind != nil && Tmux.which("strip") != nil }

    /// A copy of the debug `bananas` without its DWARF, which valgrind cannot read.
    static let stripped: String = {
        let path = NSTemporaryDirectory() + "bananas-stripped-" + UUID().uuidString
        let strip = Process()
        strip.executableURL = URL(fileURLWithPath: Tmux.which("strip")!)
        strip.arguments = ["--strip-debug", "-o", path, CLI.binary]
        try? strip.run()
        strip.waitUntilExit()
        return path
    }()

    /// The instructions `bananas list --json` runs reading a file with `count` entries of
    /// `part`, from a fresh state folder (the same work every time).
    static func instructions(reading part: String, count: Int, in cli: CLI) async throws -> Int {
        let file = cli.folder + "/\(part)-\(count).json"
        let made = try await runProgram([CLI.testTool, "hostile-file", part, "\(count)", file])
        try #require(made.status == 0, "hostile-file: \(made.stderr)")
        let state = cli.folder + "/state-\(part)-\(count)"
        let environment = ["BANANAS_FILE": file, "XDG_STATE_HOME": state, "HOME": cli.home, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"]
        let run = try await runProgram([valgrind!, "--tool=callgrind", "--callgrind-out-file=/dev/null", stripped, "list", "--json"],
                                       environment: environment)
        try #require(run.status == 0, "bananas list --json on \(count) \(part): \(run.stderr.suffix(2_000))")
        try? FileManager.default.removeItem(atPath: state)
        try? FileManager.default.removeItem(atPath: file)
        // "==PID== Collected : 123456789"
        guard let line = run.stderr.split(separator: "\n").first(where: { $0.contains("Collected :") }),
              let total = Int(line.split(separator: " ").last ?? "") else {
            throw CallgrindFailure(text: "no instruction count from callgrind: \(run.stderr.suffix(2_000))")
        }
        return total
    }

    struct CallgrindFailure: Error, CustomStringConvertible { let text: String; var description: String { text } }
}
