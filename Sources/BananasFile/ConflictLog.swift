#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore

/// The conflict log: values that lost to a concurrent edit, kept with both stamps so the
/// user can review them and restore one (`bananas conflicts`).
///
/// A JSON-lines file in the list's state folder, shared by every bananas process on this
/// machine. Writers take an exclusive `flock` on `conflicts.lock` around an append or a
/// compaction; readers need no lock (lines are appended whole; compaction replaces the file
/// atomically). The log is bounded: past `capacity` entries the oldest reviewed, then the
/// oldest unreviewed, are dropped.
public struct ConflictLog: Sendable {
    public let path: String
    public static let capacity = 200

    public init(folder: StateFolder) { path = folder.conflictLogPath }
    public init(path: String) { self.path = path }

    /// One logged conflict and what became of it.
    public struct Entry: Sendable, Hashable {
        /// Short, stable id (the same conflict logged by two processes is one entry).
        public var id: String
        public var loggedAt: Int64
        public var conflict: Conflict
        /// nil while it awaits review; "restored" or "dismissed" after.
        public var resolution: String?

        public var awaitsReview: Bool { resolution == nil }

        public init(id: String, loggedAt: Int64, conflict: Conflict, resolution: String? = nil) {
            self.id = id
            self.loggedAt = loggedAt
            self.conflict = conflict
            self.resolution = resolution
        }
    }

    /// Every entry kept, oldest first (at most `capacity`).
    public func entries() -> [Entry] {
        ConflictLog.trimmed(allEntries())
    }

    private func allEntries() -> [Entry] {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        return ConflictLog.parse(Sys.readAll(fd) ?? [])
    }

    /// The newest `capacity` entries: the oldest reviewed ones go first, then the oldest.
    static func trimmed(_ entries: [Entry]) -> [Entry] {
        var all = entries
        while all.count > capacity {
            let oldestReviewed = all.firstIndex { !$0.awaitsReview }
            all.remove(at: oldestReviewed ?? 0)
        }
        return all
    }

    public func awaitingReview() -> [Entry] { entries().filter(\.awaitsReview) }

    /// Logs conflicts (ignoring ones already logged).
    public func append(_ conflicts: [Conflict], at now: Int64) throws(ListFileError) {
        guard !conflicts.isEmpty else { return }
        try withLock { () throws(ListFileError) in
            let known = Set(allEntries().map(\.id))
            var lines: [UInt8] = []
            for conflict in conflicts where !known.contains(ConflictLog.id(of: conflict)) {
                lines += ConflictLog.record(conflict, at: now)
            }
            try appendLines(lines)
            try compactIfNeeded()
        }
    }

    /// Marks an entry reviewed ("restored" or "dismissed").
    public func resolve(_ id: String, as resolution: String, at now: Int64) throws(ListFileError) {
        try withLock { () throws(ListFileError) in
            let line = JSONText.compact(.object([
                "resolved": .string(id), "how": .string(resolution), "at": .number(String(now)),
            ]))
            try appendLines(Array(line.utf8) + [0x0A])
        }
    }

    // MARK: Format

    static func id(of conflict: Conflict) -> String {
        let key = conflict.itemID + "/" + conflict.field.rawValue + "/" + conflict.lostStamp.encoded + "/" + conflict.keptStamp.encoded
        return String(Hash.fnv1a(Array(key.utf8)).hex.prefix(8))
    }

    public static func json(_ value: FieldValue) -> JSONValue {
        switch value {
        case .text(let s): .string(s)
        case .flag(let b): .bool(b)
        case .order(let d): .number(d)
        }
    }

    static func value(_ json: JSONValue?, for field: ItemField) -> FieldValue? {
        switch (field, json) {
        case (.name, .string(let s)?), (.amount, .string(let s)?), (.section, .string(let s)?): .text(s)
        case (.checked, .bool(let b)?), (.optional, .bool(let b)?): .flag(b)
        case (.sortOrder, .number(let text)?): Double(text).map(FieldValue.order)
        default: nil
        }
    }

    static func record(_ c: Conflict, at now: Int64) -> [UInt8] {
        let line = JSONText.compact(.object([
            "id": .string(id(of: c)), "at": .number(String(now)),
            "item": .string(c.itemID), "name": .string(c.itemName), "field": .string(c.field.rawValue),
            "kept": json(c.kept), "keptStamp": .string(c.keptStamp.encoded),
            "lost": json(c.lost), "lostStamp": .string(c.lostStamp.encoded),
        ]))
        return Array(line.utf8) + [0x0A]
    }

    static func parse(_ bytes: [UInt8]) -> [Entry] {
        var entries: [Entry] = []
        var index: [String: Int] = [:]
        for line in bytes.split(separator: 0x0A) {
            guard case .object(let o)? = try? JSONText.parse(Array(line)) else { continue }
            if case .string(let id)? = o["resolved"], case .string(let how)? = o["how"] {
                if let at = index[id] { entries[at].resolution = how }
                continue
            }
            guard case .string(let id)? = o["id"], index[id] == nil,
                  case .number(let at)? = o["at"], let loggedAt = Int64(at),
                  case .string(let item)? = o["item"], case .string(let name)? = o["name"],
                  case .string(let f)? = o["field"], let field = ItemField(rawValue: f),
                  let kept = value(o["kept"], for: field), let lost = value(o["lost"], for: field),
                  case .string(let ks)? = o["keptStamp"], let keptStamp = Stamp(encoded: ks),
                  case .string(let ls)? = o["lostStamp"], let lostStamp = Stamp(encoded: ls)
            else { continue }
            index[id] = entries.count
            entries.append(Entry(id: id, loggedAt: loggedAt, conflict: Conflict(
                itemID: item, itemName: name, field: field, kept: kept, keptStamp: keptStamp,
                lost: lost, lostStamp: lostStamp)))
        }
        return entries
    }

    // MARK: Writing

    private func withLock<T>(_ body: () throws(ListFileError) -> T) throws(ListFileError) -> T {
        let folder = Sys.directoryName(path)
        if let failure = Sys.makeDirectories(folder) {
            throw Sys.failure(failure.code, path: failure.path, action: "create the state folder")
        }
        let lockPath = folder + "/conflicts.lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Sys.failure(errno, path: lockPath, action: "lock the conflict log") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR { throw Sys.failure(errno, path: lockPath, action: "lock the conflict log") }
        }
        return try body()
    }

    private func appendLines(_ lines: [UInt8]) throws(ListFileError) {
        guard !lines.isEmpty else { return }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Sys.failure(errno, path: path, action: "write the conflict log") }
        defer { close(fd) }
        guard Sys.writeAll(fd, lines), fdatasync(fd) == 0 else {
            throw Sys.failure(errno, path: path, action: "write the conflict log")
        }
    }

    /// Rewrites the file without the entries past capacity, once there are a quarter more
    /// (so a busy log is not rewritten at every append).
    private func compactIfNeeded() throws(ListFileError) {
        let everything = allEntries()
        guard everything.count > ConflictLog.capacity + ConflictLog.capacity / 4 else { return }
        let all = ConflictLog.trimmed(everything)
        var bytes: [UInt8] = []
        for entry in all {
            bytes += ConflictLog.record(entry.conflict, at: entry.loggedAt)
            if let how = entry.resolution {
                bytes += Array(JSONText.compact(.object([
                    "resolved": .string(entry.id), "how": .string(how), "at": .number(String(entry.loggedAt)),
                ])).utf8) + [0x0A]
            }
        }
        try AtomicWrite.replace(path, with: bytes) { _ in true }
    }
}
