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
/// A key is the device's and the edit's: each answer is kept with the device that sent it (a
/// hash of its token) and the edit it carried (a hash of the request without its key), and
/// `WebList` refuses a key sent again by another device or with another edit, so no request is
/// ever answered with another's outcome.
///
/// Kept in memory and, so that a restart of the server forgets none, on disk: one file per list
/// under the state folder (`$XDG_STATE_HOME/bananas/serve/answers/<the list's state key>.jsonl`,
/// 0600 in a 0700 folder, opened as `ServeFiles` opens the server's files), a line appended and
/// fsynced before the answer is sent. Bounded by age and count: an answer older than a day is
/// forgotten, and only the newest 1,000 are kept (the page sends its edits one at a time, so a
/// retry is of the last few); the file is rewritten without the rest when it is read at start
/// and whenever it holds twice that.
///
/// Its contents are hostile input like any file's: lines that do not parse (or name no device
/// and edit) are skipped, a file over 16 MB or one that is not a regular file is not read, and
/// a failure to read or write it costs only the protection across a restart (the answers stay
/// in memory).
@MainActor
final class AnswerLog {
    static let kept = 1_000
    static let maxAgeMillis: Int64 = 24 * 3600 * 1000
    static let maxFileBytes = 16 << 20

    /// An answer, when it was given, and to whom for what.
    struct Entry: Equatable {
        var at: Int64
        var answer: WebList.Answer
        /// The hash of the token of the device that sent the edit.
        var device: String
        /// The hash of the edit, without its key.
        var edit: String
    }

    let path: String?
    private var answers: [String: Entry] = [:]
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
                  case .number(let statusText)? = object["status"], let status = Int(statusText), let body = object["body"],
                  let device = object["device"]?.stringValue, let edit = object["edit"]?.stringValue else { continue }
            guard now - at < Self.maxAgeMillis, at <= now + Self.maxAgeMillis else { continue }
            if answers[key] == nil { order.append(key) }
            answers[key] = Entry(at: at, answer: WebList.Answer(status, body), device: device, edit: edit)
        }
        trim()
        if seen != order.count { rewrite() } else { linesInFile = seen }
    }

    /// What was answered to `key`, unless it is older than a day.
    func entry(_ key: String, now: Int64) -> Entry? {
        guard let kept = answers[key], now - kept.at < Self.maxAgeMillis else { return nil }
        return kept
    }

    /// The answer given to `key`, unless it is older than a day.
    func answer(_ key: String, now: Int64) -> WebList.Answer? { entry(key, now: now)?.answer }

    /// Keeps `answer` for `key`, on disk before it returns.
    func remember(_ key: String, _ answer: WebList.Answer, device: String = "", edit: String = "", now: Int64) {
        if answers[key] == nil { order.append(key) }
        let entry = Entry(at: now, answer: answer, device: device, edit: edit)
        answers[key] = entry
        trim()
        guard path != nil else { return }
        if linesInFile + 1 > 2 * Self.kept {
            rewrite()
        } else if append(Self.line(key, entry)) {
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

    static func line(_ key: String, _ entry: Entry) -> String {
        JSONText.compact(.object(["key": .string(key), "at": .number(String(entry.at)), "status": .number(String(entry.answer.status)),
                                  "body": entry.answer.body, "device": .string(entry.device), "edit": .string(entry.edit)])) + "\n"
    }

    // MARK: The file

    /// The file's folder (`serve/answers`), opened without following a symlink in either of
    /// its two folders (`ServeFiles`); nil when it cannot be.
    private static func openFolder(_ path: String, create: Bool) -> Int32? {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 4 else { return nil }
        parts.removeLast()
        let names = Array(parts.suffix(2))
        let root = parts.dropLast(2).joined(separator: "/")
        return try? ServeFiles.openFolder(root: root.isEmpty ? "/" : root, names: names, create: create)
    }

    private static func name(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? "answers.jsonl"
    }

    /// The file's lines; none when it is missing, is not a regular file, or is too large.
    private static func lines(in path: String) -> [ArraySlice<UInt8>] {
        guard let folder = openFolder(path, create: false) else { return [] }
        defer { close(folder) }
        guard let bytes = try? ServeFiles.contents(folder, name(path), path: path, limit: maxFileBytes) else { return [] }
        return bytes.split(separator: 0x0A)
    }

    /// Appends a line and fsyncs it; false when it could not.
    private func append(_ line: String) -> Bool {
        guard let path else { return false }
        if descriptor < 0 {
            guard let folder = Self.openFolder(path, create: true) else { return false }
            descriptor = ServeFiles.openFile(folder, Self.name(path), O_WRONLY | O_APPEND | O_CREAT)
            close(folder)
            guard descriptor >= 0 else { return false }
        }
        let bytes = Array(line.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { return false }
        return fsync(descriptor) == 0
    }

    /// Writes the answers kept, and no others: a temporary file (0600), fsync, rename.
    private func rewrite() {
        guard let path, let folder = Self.openFolder(path, create: true) else { return }
        defer { close(folder) }
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        var text = ""
        for key in order { if let kept = answers[key] { text += Self.line(key, kept) } }
        guard (try? ServeFiles.replace(folder, Self.name(path), path: path, with: Array(text.utf8))) != nil else { return }
        linesInFile = order.count
    }
}
