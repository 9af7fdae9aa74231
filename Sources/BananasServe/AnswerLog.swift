import BananasCore
import BananasFile
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The answers `bananas serve` gave, by the idempotency key of the edit each answered: an edit
/// sent again (the page lost the answer, reloaded, the server was restarted in between) gets
/// the first answer and changes nothing twice.
///
/// Kept in memory and, so that a restart of the server forgets none, on disk: one file per list
/// under the state folder (`$XDG_STATE_HOME/bananas/serve/answers/<the list's state key>.jsonl`,
/// 0600 in a 0700 folder), a line appended and fsynced before the answer is sent. Bounded by age
/// and count: an answer older than a day is forgotten, and only the newest 1,000 are kept (the
/// page sends its edits one at a time, so a retry is of the last few); the file is rewritten
/// without the rest when it is read at start and whenever it holds twice that.
///
/// Its contents are hostile input like any file's: lines that do not parse are skipped, a file
/// over 16 MB is not read, and a failure to read or write it costs only the protection across a
/// restart (the answers stay in memory).
@MainActor
final class AnswerLog {
    static let kept = 1_000
    static let maxAgeMillis: Int64 = 24 * 3600 * 1000
    static let maxFileBytes = 16 << 20

    let path: String?
    private var answers: [String: (at: Int64, answer: WebList.Answer)] = [:]
    private var order: [String] = []
    private var linesInFile = 0
    private var descriptor: Int32 = -1

    /// The file of the list at `listPath`'s answers.
    nonisolated static func path(listPath: String, stateDirectory: String) -> String {
        let state = StateFolder(listPath: listPath, stateDirectory: stateDirectory)
        let key = state.path.split(separator: "/").last.map(String.init) ?? "list"
        return stateDirectory + "/serve/answers/" + key + ".jsonl"
    }

    /// Reads `path` (none: answers live in memory only), keeping the answers of the last day.
    init(path: String?, now: Int64) {
        self.path = path
        guard let path else { return }
        var seen = 0
        for line in Self.lines(in: path) {
            seen += 1
            guard let object = try? JSONText.parse(Array(line)).objectValue, let key = object["key"]?.stringValue,
                  case .number(let atText)? = object["at"], let at = Int64(atText),
                  case .number(let statusText)? = object["status"], let status = Int(statusText), let body = object["body"] else { continue }
            guard now - at < Self.maxAgeMillis, at <= now + Self.maxAgeMillis else { continue }
            if answers[key] == nil { order.append(key) }
            answers[key] = (at, WebList.Answer(status, body))
        }
        trim()
        if seen != order.count { rewrite() } else { linesInFile = seen }
    }

    /// The answer given to `key`, unless it is older than a day.
    func answer(_ key: String, now: Int64) -> WebList.Answer? {
        guard let kept = answers[key], now - kept.at < Self.maxAgeMillis else { return nil }
        return kept.answer
    }

    /// Keeps `answer` for `key`, on disk before it returns.
    func remember(_ key: String, _ answer: WebList.Answer, now: Int64) {
        if answers[key] == nil { order.append(key) }
        answers[key] = (now, answer)
        trim()
        guard path != nil else { return }
        if linesInFile + 1 > 2 * Self.kept {
            rewrite()
        } else if append(Self.line(key, now, answer)) {
            linesInFile += 1
        }
    }

    var count: Int { answers.count }

    private func trim() {
        guard order.count > Self.kept else { return }
        let dropped = order.prefix(order.count - Self.kept)
        for key in dropped { answers[key] = nil }
        order.removeFirst(dropped.count)
    }

    static func line(_ key: String, _ at: Int64, _ answer: WebList.Answer) -> String {
        JSONText.compact(.object(["key": .string(key), "at": .number(String(at)), "status": .number(String(answer.status)),
                                  "body": answer.body])) + "\n"
    }

    // MARK: The file

    private static func lines(in path: String) -> [ArraySlice<UInt8>] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += chunk[..<count]
            if bytes.count > maxFileBytes { return [] }
        }
        return bytes.split(separator: 0x0A)
    }

    private func makeFolder() -> Bool {
        guard let path else { return false }
        var prefix = ""
        for component in path.split(separator: "/").dropLast() {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST { return false }
        }
        return true
    }

    /// Appends a line and fsyncs it; false when it could not.
    private func append(_ line: String) -> Bool {
        guard let path else { return false }
        if descriptor < 0 {
            guard makeFolder() else { return false }
            descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { return false }
            fchmod(descriptor, 0o600)
        }
        let bytes = Array(line.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { return false }
        return fsync(descriptor) == 0
    }

    /// Writes the answers kept, and no others: a temporary file (0600), fsync, rename.
    private func rewrite() {
        guard let path, makeFolder() else { return }
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        let temp = path + ".tmp"
        unlink(temp)
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return }
        var text = ""
        for key in order { if let kept = answers[key] { text += Self.line(key, kept.at, kept.answer) } }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            written += count
        }
        fchmod(fd, 0o600)
        let synced = written == bytes.count && fsync(fd) == 0
        close(fd)
        guard synced, rename(temp, path) == 0 else {
            unlink(temp)
            return
        }
        linesInFile = order.count
    }
}
