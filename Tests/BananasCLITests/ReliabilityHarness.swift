import Foundation
import Synchronization
import Testing

// The reliability harness (docs/reliability.md): an operation log every writer records into,
// the checker that holds the file against it, the Get Bananas Node writer, and the settings
// that make the same tests short in `swift test` and long under `scripts/reliability --long`.

/// How long and how hard the reliability tests run. `swift test` uses the defaults (about a
/// minute in all); `scripts/reliability --long` sets the environment for the long runs.
enum Reliability {
    static let environment = ProcessInfo.processInfo.environment

    static func setting(_ key: String, _ fallback: Double) -> Double {
        environment[key].flatMap(Double.init) ?? fallback
    }

    /// Seconds the concurrent writers run.
    static var writeSeconds: Double { setting("BANANAS_RELIABILITY_SECONDS", 8) }
    /// kill -9 rounds in the crash test.
    static var kills: Int { Int(setting("BANANAS_RELIABILITY_KILLS", 24)) }
    /// Seconds the idle editors and MCP server are watched for writes.
    static var idleSeconds: Double { setting("BANANAS_RELIABILITY_IDLE", 6) }
    /// Bursts of edits in the runaway-loop test.
    static var bursts: Int { Int(setting("BANANAS_RELIABILITY_BURSTS", 2)) }

    /// Whether the Get Bananas writers remove rows too (an open bug: under load a removed row
    /// can come back; docs/reliability.md).
    static var stamplessRemoves: Bool { environment["BANANAS_RELIABILITY_STAMPLESS_REMOVES"] != "0" }

    /// The Get Bananas protocol writer, next to this file's folder.
    static let nodeWriter = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Reliability/getbananas-writer.js").path

    static var node: String? {
        ["/usr/bin/node", "/usr/local/bin/node"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? Tmux.which("node")
    }

    /// Prints one line of figures and, when BANANAS_RELIABILITY_REPORT names a file, appends
    /// them there as a JSON line (scripts/reliability collects them).
    static func report(_ test: String, _ figures: KeyValuePairs<String, Any>) {
        print("reliability \(test): " + figures.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        guard let path = environment["BANANAS_RELIABILITY_REPORT"] else { return }
        var object: [String: Any] = ["test": test, "at": ISO8601DateFormatter().string(from: Date())]
        for (key, value) in figures { object[key] = value }
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        line.append(0x0A)
        if let handle = FileHandle(forWritingAtPath: path) {
            handle.seekToEndOfFile()
            handle.write(line)
            handle.closeFile()
        } else {
            _ = FileManager.default.createFile(atPath: path, contents: line)
        }
    }
}

/// How long bananas processes waited for the lock, from the lines they log to
/// `BANANAS_LOCK_WAIT_LOG` (`<pid> <waited ms> acquired|gave-up`, FileLock's `WaitLog`).
struct LockWaits {
    var acquisitions = 0, gaveUp = 0
    var worstMillis = 0, p99Millis = 0, medianMillis = 0

    init(log path: String) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        var waits: [Int] = []
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 3, let waited = Int(parts[1]) else { continue }
            waits.append(waited)
            if parts[2] == "acquired" { acquisitions += 1 } else { gaveUp += 1 }
        }
        waits.sort()
        guard !waits.isEmpty else { return }
        worstMillis = waits.last!
        p99Millis = waits[min(waits.count - 1, waits.count * 99 / 100)]
        medianMillis = waits[waits.count / 2]
    }
}

/// Every operation any writer attempted, with its outcome, kept in memory and written as JSON
/// lines (to `path`) as it completes.
final class OperationLog: @unchecked Sendable {
    enum Kind: String { case add, check, remove, amount }

    enum Outcome: String {
        /// The writer said it is done: the CLI exited 0, the server or session answered, the
        /// editor shows it. It must be in the file at the end.
        case acknowledged
        /// The writer said it failed: the file must be as if it had not been tried.
        case failed
        /// No answer (a timeout, a kill): it may or may not have happened.
        case unknown
    }

    struct Operation {
        let writer: String
        let kind: Kind
        let item: String
        let value: String?
        let start: Date
        let end: Date
        let outcome: Outcome
        let detail: String

        /// A CLI command or the Get Bananas server: it reads and writes under the lock, so its
        /// edits are ordered with every other such writer's.
        var writesUnderLock: Bool { writer.hasPrefix("cli") || writer.hasPrefix("node") }
    }

    private let operations = Mutex<[Operation]>([])
    private let handle: FileHandle?
    let path: String

    init(path: String) {
        self.path = path
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        handle = FileHandle(forWritingAtPath: path)
    }

    deinit { try? handle?.close() }

    /// Runs `body` and logs what it says happened; a thrown error is an unknown outcome.
    @discardableResult
    func record(_ writer: String, _ kind: Kind, _ item: String, value: String? = nil,
                _ body: () throws -> (Outcome, String)) -> Outcome {
        let start = Date()
        var outcome = Outcome.unknown
        var detail = ""
        do { (outcome, detail) = try body() } catch { detail = "\(error)" }
        return logged(writer, kind, item, value: value, start: start, outcome: outcome, detail: detail)
    }

    /// `record` for a writer that awaits (a process run through Subprocess).
    @discardableResult
    func recordAwaiting(_ writer: String, _ kind: Kind, _ item: String, value: String? = nil,
                _ body: () async throws -> (Outcome, String)) async -> Outcome {
        let start = Date()
        var outcome = Outcome.unknown
        var detail = ""
        do { (outcome, detail) = try await body() } catch { detail = "\(error)" }
        return logged(writer, kind, item, value: value, start: start, outcome: outcome, detail: detail)
    }

    private func logged(_ writer: String, _ kind: Kind, _ item: String, value: String?, start: Date,
                        outcome: Outcome, detail: String) -> Outcome {
        let operation = Operation(writer: writer, kind: kind, item: item, value: value, start: start, end: Date(),
                                  outcome: outcome, detail: detail)
        var object: [String: Any] = ["writer": writer, "op": kind.rawValue, "item": item, "outcome": outcome.rawValue,
                                     "start": start.timeIntervalSince1970, "end": operation.end.timeIntervalSince1970]
        if let value { object["value"] = value }
        if !detail.isEmpty { object["detail"] = String(detail.prefix(300)) }
        var line = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        line.append(0x0A)
        operations.withLock {
            $0.append(operation)
            handle?.write(line)
        }
        return outcome
    }

    var all: [Operation] { operations.withLock { $0 } }
}

/// Holds the file against the log. An acknowledged operation is reflected when:
/// - add: the item is in the file (once), unless its writer removed it later;
/// - check: the item is checked; remove: the item is gone;
/// - amount (on a shared item several writers set): the file holds its value, or a newer
///   acknowledged edit of that field (one that started after it was acknowledged, or a later
///   locked write when both wrote under the lock) came later, or it lost to a concurrent edit
///   and the conflict log has it as the lost value.
/// Operations with an unknown outcome promise nothing, and make the item's later state
/// indeterminate. A failed add must not be in the file.
struct Verdict {
    var operations = 0
    var acknowledged = 0
    var failed = 0
    var unknown = 0
    var lost: [String] = []
    var failedButApplied: [String] = []
    var duplicated: [String] = []
    var overwrittenByNewer = 0
    var overwrittenConcurrentLogged = 0
    var indeterminate = 0

    static func check(_ operations: [OperationLog.Operation], items: [[String: Any]], conflicts: [[String: Any]]) -> Verdict {
        var verdict = Verdict()
        verdict.operations = operations.count
        verdict.acknowledged = operations.filter { $0.outcome == .acknowledged }.count
        verdict.failed = operations.filter { $0.outcome == .failed }.count
        verdict.unknown = operations.filter { $0.outcome == .unknown }.count

        var byName: [String: [[String: Any]]] = [:]
        for item in items { byName[item["name"] as? String ?? "", default: []].append(item) }
        verdict.duplicated = byName.filter { $0.value.count > 1 }.map(\.key).sorted()

        // Items each writer owns: its own adds, checks and removes, in the order it made them.
        let owned = operations.filter { $0.kind != .amount }
        for (name, history) in Dictionary(grouping: owned, by: \.item) {
            let ordered = history.sorted { $0.start < $1.start }
            guard let last = ordered.lastIndex(where: { $0.outcome == .acknowledged }) else {
                if ordered.allSatisfy({ $0.kind == .add && $0.outcome == .failed }), byName[name] != nil {
                    verdict.failedButApplied.append(name)
                }
                continue
            }
            if ordered[(last + 1)...].contains(where: { $0.outcome == .unknown }) {
                verdict.indeterminate += 1
                continue
            }
            let operation = ordered[last]
            let onDisk = byName[name]?.first
            let reflected: Bool = switch operation.kind {
            case .add: onDisk != nil
            case .check: onDisk?["checked"] as? Bool == true
            case .remove: onDisk == nil
            case .amount: true
            }
            // An acknowledged add whose item was later checked must be there too (checked).
            if !reflected { verdict.lost.append("\(operation.writer) \(operation.kind.rawValue) \(name)") }
        }

        // Shared fields written by everyone.
        let amounts = operations.filter { $0.kind == .amount }
        for (name, history) in Dictionary(grouping: amounts, by: \.item) {
            let final = byName[name]?.first?["amount"] as? String
            let acknowledged = history.filter { $0.outcome == .acknowledged }
            let winners = acknowledged.filter { $0.value == final }
            for operation in acknowledged {
                if operation.value == final { continue }
                // Two writers that write under the lock (a CLI command, the Get Bananas server)
                // read the file after taking it: the later one overwrote the other's value
                // knowingly, however long it waited for the lock.
                let bothLocked = operation.writesUnderLock && winners.contains { $0.writesUnderLock }
                // A writer under the lock that finished after this edit was acknowledged (an
                // instance acknowledges when it journals, and writes a moment later) read the
                // file after this edit reached it and replaced it knowingly, or wrote first with
                // a later stamp (which the instance logs as a conflict): last writer wins.
                let lockedLater = winners.contains { $0.writesUnderLock && $0.end > operation.end }
                if bothLocked || lockedLater || acknowledged.contains(where: { $0.start > operation.end }) {
                    verdict.overwrittenByNewer += 1
                } else if conflicts.contains(where: {
                    $0["name"] as? String == name && $0["field"] as? String == "amount" && $0["lost"] as? String == operation.value
                }) {
                    verdict.overwrittenConcurrentLogged += 1
                } else {
                    verdict.lost.append("\(operation.writer) amount \(name) = \(operation.value ?? "") (file has \(final ?? "nothing"))")
                }
            }
        }
        return verdict
    }
}

/// The Get Bananas Node server's file protocol in a process of its own
/// (Tests/Reliability/getbananas-writer.js), driven by JSON lines on stdin.
final class NodeWriter: @unchecked Sendable {
    let process = Process()
    private let input = Pipe(), output = Pipe()
    private let received = Mutex<(buffer: Data, answers: JSONObjects)>((Data(), JSONObjects()))
    private var reader: PipeReader?

    init(_ cli: CLI) throws {
        process.executableURL = URL(fileURLWithPath: Reliability.node ?? "/usr/bin/node")
        process.arguments = [Reliability.nodeWriter, cli.listPath]
        process.environment = cli.environment()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        reader = PipeReader(output.fileHandleForReading) { [weak self] data in
            self?.received.withLock { received in
                received.buffer.append(data)
                while let newline = received.buffer.firstIndex(of: 0x0A) {
                    let line = received.buffer[received.buffer.startIndex..<newline]
                    received.buffer.removeSubrange(received.buffer.startIndex...newline)
                    if let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] { received.answers.all.append(object) }
                }
            }
        }
        try process.run()
        _ = try next(after: 0, timeout: 10)  // {"event":"ready"}
    }

    deinit { stop() }

    private func next(after count: Int, timeout: Double) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let answers = received.withLock { $0.answers }.all
            let answer = answers.count > count ? answers[count] : nil
            if let answer { return answer }
            usleep(2_000)
        }
        throw MCPProcess.CLIError("the Node writer did not answer")
    }

    /// Sends one command and waits for its answer (answers come in order).
    func send(_ command: [String: Any], timeout: Double = 10) throws -> [String: Any] {
        let mark = received.withLock { $0.answers.all.count }
        var line = try JSONSerialization.data(withJSONObject: command)
        line.append(0x0A)
        try? input.fileHandleForWriting.write(contentsOf: line)  // a writer killed meanwhile: the answer times out
        return try next(after: mark, timeout: timeout)
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

extension CLI {
    /// `bananas conflicts --all --json`: every conflict logged on this machine, reviewed or not.
    func conflicts() async throws -> [[String: Any]] {
        let result = await run(["conflicts", "--all", "--json"])
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    /// The names in the folder besides the list: locks and temp files.
    var leftovers: [(name: String, ageSeconds: Double)] {
        entries.filter { $0 != "BananaList.json" }.map { name in
            let modified = (try? FileManager.default.attributesOfItem(atPath: folder + "/" + name))?[.modificationDate] as? Date
            return (name, modified.map { Date().timeIntervalSince($0) } ?? 0)
        }
    }

    /// Whether the file is a JSON object with an items array (or absent, before any write).
    var fileParses: Bool {
        guard let bytes = fileBytes else { return true }
        return ((try? JSONSerialization.jsonObject(with: bytes)) as? [String: Any])?["items"] is [Any]
    }
}

/// Watches the lock file: inotify gives each lock's creation and removal (so how long each
/// one was held, and how many were taken), and a stat every 2 ms gives the oldest mtime seen
/// on a held lock. A lock older than 5 s by its mtime is what the Get Bananas server breaks;
/// the holder's heartbeat keeps that age small.
final class LockWatch: @unchecked Sendable {
    private let path: String
    private let name: String
    private let fd: Int32
    private struct Seen {
        var running = true
        var holds = 0
        var longest = 0.0
        var oldest = 0.0
        var createdAt: Date?
    }
    private let seen = Mutex(Seen())

    init(path: String) {
        self.path = path
        name = (path as NSString).lastPathComponent
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        inotify_add_watch(fd, (path as NSString).deletingLastPathComponent, UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO))
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 8192)
            while isRunning {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                var offset = 0
                while n > 0, offset + 16 <= n {
                    let (mask, length) = buffer.withUnsafeBytes { raw in
                        (raw.load(fromByteOffset: offset + 4, as: UInt32.self), Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self)))
                    }
                    let entry = String(decoding: buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }, as: UTF8.self)
                    offset += 16 + length
                    guard entry == name else { continue }
                    seen.withLock { seen in
                        if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                            seen.createdAt = Date()
                            seen.holds += 1
                        } else if let since = seen.createdAt {
                            seen.longest = max(seen.longest, Date().timeIntervalSince(since))
                            seen.createdAt = nil
                        }
                    }
                }
                var st = stat()
                if lstat(path, &st) == 0 {
                    let age = Date().timeIntervalSince1970 - (Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)
                    seen.withLock { $0.oldest = max($0.oldest, age) }
                }
                usleep(2_000)
            }
            close(fd)
        }
    }

    private var isRunning: Bool { seen.withLock { $0.running } }

    func stop() { seen.withLock { $0.running = false } }

    /// Locks taken, the longest one held (s), the oldest mtime seen on a held lock (s).
    var figures: (holds: Int, longestHeld: Double, oldestMtime: Double) {
        seen.withLock { seen in
            let current = seen.createdAt.map { Date().timeIntervalSince($0) } ?? 0
            return (seen.holds, max(seen.longest, current), seen.oldest)
        }
    }
}
