import Foundation
import Synchronization
import Testing
import BananasTestSupport

/// A running `bananas-test session`: a long-lived instance (the editor's store and sync engine
/// without a screen) driven by lines on stdin; it answers in JSON lines.
final class SessionProcess: @unchecked Sendable {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let lines = Mutex<(complete: JSONObjects, partial: Data)>((JSONObjects(), Data()))
    private var reader: PipeReader?

    init(_ cli: CLI, arguments: [String] = [], prefix: [String] = [], environment extra: [String: String] = [:]) throws {
        if prefix.isEmpty {
            process.executableURL = URL(fileURLWithPath: CLI.testTool)
            process.arguments = ["session"] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: prefix[0])
            process.arguments = Array(prefix.dropFirst()) + [CLI.testTool, "session"] + arguments
        }
        process.environment = cli.environment(extra)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        reader = PipeReader(output.fileHandleForReading) { [weak self] data in
            self?.received(data)
        }
        try process.run()
        _ = try wait(for: "ready") { $0["event"] as? String == "ready" }
    }

    deinit { stop() }

    private func received(_ data: Data) {
        lines.withLock { lines in
            lines.partial.append(data)
            while let newline = lines.partial.firstIndex(of: 0x0A) {
                let line = lines.partial[lines.partial.startIndex..<newline]
                lines.partial.removeSubrange(lines.partial.startIndex...newline)
                if let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] { lines.complete.all.append(object) }
            }
        }
    }

    /// Every line so far.
    var received: [[String: Any]] { lines.withLock { $0.complete }.all }

    struct Timeout: Error, CustomStringConvertible {
        let what: String
        /// The last messages seen, as text (a Sendable error cannot hold `Any`).
        let seen: String
        init(what: String, seen: [[String: Any]]) {
            self.what = what
            self.seen = "\(seen.suffix(6))"
        }
        var description: String { "timed out waiting for \(what); saw \(seen)" }
    }

    /// Waits for a line (after the first `after` lines) that satisfies `match`.
    func wait(for what: String, after: Int = 0, timeout: Double = 10, _ match: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let seen = received
            if let hit = seen.dropFirst(after).first(where: match) { return hit }
            if !process.isRunning, seen.dropFirst(after).first(where: match) == nil { break }
            usleep(2_000)
        }
        throw Timeout(what: what, seen: received)
    }

    /// Sends a command (arguments joined by tabs) and returns its answer.
    @discardableResult
    func send(_ parts: String..., timeout: Double = 10) throws -> [String: Any] {
        try send(parts[0], Array(parts.dropFirst()), timeout: timeout)
    }

    @discardableResult
    func send(_ command: String, _ arguments: [String], timeout: Double = 10) throws -> [String: Any] {
        let parts = [command] + arguments
        let mark = received.count
        // A session that died is a timeout below, not a crash of the whole test run.
        try? input.fileHandleForWriting.write(contentsOf: Data((parts.joined(separator: "\t") + "\n").utf8))
        // Answers are the lines that are not events.
        return try wait(for: parts[0], after: mark, timeout: timeout) { $0["event"] == nil }
    }

    func status() throws -> [String: Any] { try send("status") }

    /// Waits until `status` reports `state` (and, if given, `reason`).
    func waitForState(_ state: String, reason: String? = nil, timeout: Double = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let now = try status()
            if now["state"] as? String == state, reason == nil || (now["reason"] as? String)?.hasPrefix(reason!) == true { return }
            usleep(20_000)
        }
        throw Timeout(what: "state \(state) \(reason ?? "")", seen: received)
    }

    func items() throws -> [[String: Any]] {
        let answer = try send("list")
        guard let items = answer["items"] as? [[String: Any]] else { throw Timeout(what: "a list", seen: [answer]) }
        return items
    }

    func names() throws -> Set<String> { Set(try items().map { $0["name"] as! String }) }

    /// kill -9: no chance to flush or clean up.
    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func quit() throws {
        try? input.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(5_000) }
    }

    func stop() {
        if process.isRunning { kill() }
    }
}

extension CLI {
    /// The environment a run of the binary gets.
    /// Where the bananas processes of this test log how long each waited for the lock.
    var lockWaitLog: String { home + "/lock-waits.log" }

    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["BANANAS_FILE"] = listPath
        environment["HOME"] = home
        environment["XDG_STATE_HOME"] = nil
        environment["XDG_DATA_HOME"] = nil
        // The spare state folder (`Locations.spareStateDirectory`): the test's own, never /tmp's.
        environment["XDG_RUNTIME_DIR"] = home + "/run"
        // Every bananas this test starts logs its lock waits there (the reliability harness
        // reports the worst); written only when the folder exists.
        environment["BANANAS_LOCK_WAIT_LOG"] = lockWaitLog
        for (key, value) in extra { environment[key] = value }
        return environment
    }
}

/// The list's lock held by a live process that is not a bananas one (as Get Bananas's server
/// would hold it), until released: the test runner itself, alive as long as the test.
final class LockHolder {
    let pid = getpid()
    let lockPath: String

    init(_ cli: CLI) throws {
        lockPath = cli.listPath + ".lock"
        createTestFile(atPath: lockPath, contents: Data(String(pid).utf8))
    }

    func release() {
        try? FileManager.default.removeItem(atPath: lockPath)
    }

    deinit { release() }
}
