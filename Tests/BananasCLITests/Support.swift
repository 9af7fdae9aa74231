import Foundation
import Testing
import BananasTestSupport

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
    func run(_ arguments: [String], prefix: [String] = [], environment extra: [String: String] = [:]) -> Result {
        let process = Process()
        if prefix.isEmpty {
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: prefix[0])
            process.arguments = Array(prefix.dropFirst()) + [CLI.binary] + arguments
        }
        process.environment = environment(extra)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try! process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    @discardableResult
    func callAsFunction(_ arguments: String...) -> Result { run(arguments) }

    var fileBytes: Data? { FileManager.default.contents(atPath: listPath) }

    func writeFile(_ text: String) { createTestFile(atPath: listPath, contents: Data(text.utf8)) }

    var entries: [String] { (try? FileManager.default.contentsOfDirectory(atPath: folder).sorted()) ?? [] }

    /// The list as `bananas list --json` reports it.
    func items() throws -> [[String: Any]] {
        let result = run(["list", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        return object["items"] as! [[String: Any]]
    }
}
