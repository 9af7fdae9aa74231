import Foundation
import Subprocess
import SystemPackage
import Testing
import BananasTestSupport

/// Runs `command` (a path and its arguments) to its end and returns what it wrote. Both pipes
/// are drained at once, so a chatty stderr cannot stall it. Async: blocking a thread until
/// Subprocess (on the cooperative pool) finishes deadlocks when every pool thread does so.
/// Subprocess resets the signal mask and dispositions in the child, so the test runner's
/// (blocked or ignored signals) do not leak into it.
func runProgram(_ command: [String], environment: [String: String]? = nil, input: String? = nil, workingDirectory: String? = nil) async throws -> CLI.Result {
    let variables: Subprocess.Environment = environment.map { .custom($0.map { Array("\($0.key)=\($0.value)\0".utf8) }) } ?? .inherit
    let limit = 256 << 20
    let outcome = try await Subprocess.run(
        .path(FilePath(command[0])), arguments: Arguments(Array(command.dropFirst())), environment: variables,
        workingDirectory: workingDirectory.map { FilePath($0) }, input: .string(input ?? ""), output: .bytes(limit: limit), error: .bytes(limit: limit))
    let status: Int32 = switch outcome.terminationStatus {
    case .exited(let code): code
    case .signaled(let signal): signal
    }
    return CLI.Result(status: status, stdout: String(decoding: outcome.standardOutput, as: UTF8.self),
                      stderr: String(decoding: outcome.standardError, as: UTF8.self))
}

/// JSON objects as JSONSerialization reads them from a child's output: values only, never
/// changed once read, so a reader thread may hand them to a test under a `Mutex`.
struct JSONObjects: @unchecked Sendable {
    var all: [[String: Any]] = []
}

/// Runs the real `bananas` binary, as a user's shell would.
struct CLI {
    let folder: String
    var listPath: String { folder + "/BananaList.json" }

    init() {
        _ = CLI.brokenPipesAreErrors
        folder = NSTemporaryDirectory() + "bananas-cli-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    /// Writing to a child that died (kill -9) must fail that write, not kill the test run
    /// with SIGPIPE. A handler, unlike SIG_IGN, is reset for the programs the tests start.
    static let brokenPipesAreErrors: Void = { signal(SIGPIPE) { _ in } }()

    /// HOME for the run, outside the list's folder (state and config go there).
    var home: String { folder + ".home" }

    /// Removes the list's folder (a drive unmounted under a running instance), reporting
    /// which call failed and why.
    func removeFolder() throws {
        var failures: [String] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            if unlink(folder + "/" + name) != 0 { failures.append("unlink \(name): \(String(cString: strerror(errno)))") }
        }
        if rmdir(folder) != 0 {
            let holder = (try? String(contentsOfFile: folder + "/BananaList.json.lock", encoding: .utf8)) ?? "?"
            let command = (try? String(contentsOfFile: "/proc/\(holder)/cmdline", encoding: .utf8))?.replacingOccurrences(of: "\0", with: " ") ?? "gone"
            failures.append("rmdir: \(String(cString: strerror(errno))); left: \((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []), lock held by \(holder): \(command)")
        }
        if !failures.isEmpty { throw RemoveFailure(text: failures.joined(separator: "; ")) }
    }

    struct RemoveFailure: Error, CustomStringConvertible { let text: String; var description: String { text } }

    func cleanUp() {
        try? FileManager.default.removeItem(atPath: folder)
        try? FileManager.default.removeItem(atPath: home)
    }

    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The binary `swift test` built next to the test bundle (or $BANANAS_BIN).
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["BANANAS_BIN"] { return path }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("bananas").path
    }

    /// `bananas-test` (Tests/BananasTestTool), always the one `swift test` built: it is not
    /// installed, so with $BANANAS_BIN the sessions are the debug build's.
    static var testTool: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("bananas-test").path
    }

    @discardableResult
    func run(_ arguments: [String], prefix: [String] = [], environment extra: [String: String] = [:]) async -> Result {
        let command = prefix.isEmpty ? [CLI.binary] + arguments : prefix + [CLI.binary] + arguments
        return try! await runProgram(command, environment: environment(extra))
    }

    /// A command on a device whose clock runs `clockOffset` ms ahead (negative: behind): the
    /// same command through the test tool, which injects the shifted time.
    @discardableResult
    func run(_ arguments: [String], clockOffset: Int64) async -> Result {
        try! await runProgram([CLI.testTool, "cli", "--clock-offset=\(clockOffset)", "--"] + arguments, environment: environment([:]))
    }

    @discardableResult
    func callAsFunction(_ arguments: String...) async -> Result { await run(arguments) }

    var fileBytes: Data? { FileManager.default.contents(atPath: listPath) }

    func writeFile(_ text: String) { createTestFile(atPath: listPath, contents: Data(text.utf8)) }

    var entries: [String] { (try? FileManager.default.contentsOfDirectory(atPath: folder).sorted()) ?? [] }

    /// The list as `bananas list --json` reports it.
    func items() async throws -> [[String: Any]] {
        let result = await run(["list", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        return object["items"] as! [[String: Any]]
    }
}

/// `seeded()`, `item(_:)` and `fileHas(_:_:)` for the end-to-end tests (BananasTestSupport).
extension CLI: ListCommands {
    func runCommand(_ arguments: [String]) async { await run(arguments) }
}
