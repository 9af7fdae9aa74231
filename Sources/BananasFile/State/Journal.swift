#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore

/// One running instance's journal: the edits it confirmed that may not be in the list file yet.
///
/// Each edit is one line, `<fnv1a hex> <delta as compact JSON>`, appended and fsynced before
/// the edit is acknowledged. A delta is the part of the list the edit touched (see
/// `ShoppingList.delta(stampedWith:)`); merging deltas is idempotent and order-free, so a
/// journal can be replayed any number of times, in part or whole, by anyone.
///
/// The owner holds an exclusive `flock` on its journal for as long as it runs. The kernel drops
/// it when the process dies, however it dies, so a journal whose lock can be taken belongs to
/// a dead instance and is adopted (`Journal.orphans`) by the next instance on the same file.
public final class Journal {
    public let path: String
    /// The state folder (or spare) it is in.
    public let folder: StateFolder
    private let fd: Int32
    /// Lines appended since the journal was last cleared.
    public private(set) var count = 0

    /// Creates this instance's journal in the state folder's journals (created if needed), locked.
    public init(in state: StateFolder) throws(ListFileError) {
        folder = state
        if let failure = state.make(state.journalsPath, action: "create the journal folder") { throw failure }
        let name = "\(Sys.processID())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16)).journal"
        // Named after `make`: the spare's folder is named through its descriptor once made.
        path = state.journalsPath + "/" + name
        // Locked under another name first: a journal visible unlocked, even for a moment,
        // would look like a dead instance's.
        let fresh = path + ".new"
        fd = open(fresh, O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Sys.failure(errno, path: path, action: "create the journal") }
        Sys.giveToFolderOwner(fd, fresh)
        guard flock(fd, LOCK_EX | LOCK_NB) == 0, rename(fresh, path) == 0 else {
            let code = errno
            Glibc.close(fd)
            unlink(fresh)
            throw Sys.failure(code, path: path, action: "create the journal")
        }
        AtomicWrite.syncDirectory(of: path)
    }

    deinit { Glibc.close(fd) }

    /// Appends one edit and waits until it is on disk.
    public func append(_ delta: ShoppingList) throws(ListFileError) {
        let line = Journal.line(for: delta)
        let end = lseek(fd, 0, SEEK_END)
        guard Sys.writeAll(fd, line), fdatasync(fd) == 0 else {
            let code = errno
            // No torn line may stay: the next edit's line would be glued to it and lost.
            if end >= 0 { ftruncate(fd, end) }
            throw Sys.failure(code, path: path, action: "write the journal")
        }
        // A journal removed under us (its folder deleted or replaced) keeps taking lines that
        // no later start will find: that is no journal.
        var own = stat()
        guard fstat(fd, &own) == 0, own.st_nlink > 0, let there = Sys.linkStatus(path), there.st_ino == own.st_ino, there.st_dev == own.st_dev else {
            throw .folderMissing(path: Sys.directoryName(path))
        }
        count += 1
    }

    /// Empties the journal once its edits are in the list file. Replaying an edit twice is
    /// harmless, so a crash between the file write and this is harmless too.
    public func clear() {
        if ftruncate(fd, 0) == 0 { count = 0 }
    }

    /// Removes the journal at a clean exit, when everything in it has landed.
    public func remove() {
        if count == 0 { unlink(path) }
    }

    /// The most a journal is read to: twice the list's own limit. A journal is emptied at every
    /// write, so only a hostile file (or a sparse one of terabytes) is larger; it is left where
    /// it is, unread (`orphans`, `waiting`), never read without end.
    static let maxBytes = 2 * ListCodec.maxFileSize

    static func line(for delta: ShoppingList) -> [UInt8] {
        let json = Array(JSONText.compact(ListCodec.encodeValue(delta)).utf8)
        return Array(Hash.fnv1a(json).hex.utf8) + [0x20] + json + [0x0A]
    }

    /// The deltas in a journal's bytes. A line that fails its check (a torn write at a power
    /// cut, never acknowledged) is skipped.
    public static func entries(in bytes: [UInt8]) -> [ShoppingList] {
        var result: [ShoppingList] = []
        for line in bytes.split(separator: 0x0A) where line.count > 17 && line[line.startIndex + 16] == 0x20 {
            let json = Array(line.dropFirst(17))
            guard String(decoding: line.prefix(16), as: UTF8.self) == Hash.fnv1a(json).hex,
                  let decoded = try? ListCodec.decode(json)
            else { continue }
            result.append(decoded.list)
        }
        return result
    }

    /// A journal left by an instance that is no longer running, locked by us until discarded.
    public final class Orphan {
        public let path: String
        public let entries: [ShoppingList]
        private let fd: Int32

        init(path: String, fd: Int32, entries: [ShoppingList]) {
            self.path = path
            self.fd = fd
            self.entries = entries
        }

        deinit { Glibc.close(fd) }

        /// Deletes the journal: call only once its entries are safe elsewhere (in the list
        /// file, or in the adopter's own journal).
        public func discard() {
            unlink(path)
            AtomicWrite.syncDirectory(of: path)
        }
    }

    /// Edits waiting in the journals in `folder`, for a command that only looks (`bananas
    /// status`): those of running instances (their owner holds the journal's lock: edits not
    /// flushed yet, or held back by a busy lock or a full disk) and those of stopped ones (the
    /// next instance or writing command replays them). Nothing is removed, and no lock is kept:
    /// a journal is locked shared for the moment its lock is tried.
    public static func waiting(in state: StateFolder) -> (running: Int, stopped: Int) {
        var running = 0, stopped = 0
        guard state.problem() == nil else { return (0, 0) }
        let folder = state.journalsPath
        for name in Sys.directoryEntries(folder) where name.hasSuffix(".journal") {
            let path = folder + "/" + name
            let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { Glibc.close(fd) }
            var kind = stat()
            guard fstat(fd, &kind) == 0, Sys.isRegular(kind), kind.st_size <= maxBytes else { continue }  // never a pipe, a device or a giant
            let alive = flock(fd, LOCK_SH | LOCK_NB) != 0
            if !alive { flock(fd, LOCK_UN) }
            guard let bytes = Sys.readAll(fd) else { continue }
            let count = entries(in: bytes).count
            if alive { running += count } else { stopped += count }
        }
        return (running, stopped)
    }

    /// The journals in `folder` whose owners have died. Empty ones are removed on the spot.
    public static func orphans(in state: StateFolder, excluding own: String? = nil) -> [Orphan] {
        guard state.problem() == nil else { return [] }
        let folder = state.journalsPath
        let names = Sys.directoryEntries(folder).filter { $0.hasSuffix(".journal") || $0.hasSuffix(".journal.new") }

        var found: [Orphan] = []
        for name in names.sorted() {
            let path = folder + "/" + name
            if path == own { continue }
            let fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { continue }
            var kind = stat()
            guard fstat(fd, &kind) == 0, Sys.isRegular(kind), kind.st_size <= maxBytes else {  // never a pipe, a device or a giant
                Glibc.close(fd)
                continue
            }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0, let bytes = Sys.readAll(fd) else {
                Glibc.close(fd)  // its owner is alive (or it vanished under us)
                continue
            }
            // The owner may have removed it between our open and our lock.
            guard let st = Sys.linkStatus(path), Sys.isRegular(st) else {
                Glibc.close(fd)
                continue
            }
            let orphan = Orphan(path: path, fd: fd, entries: entries(in: bytes))
            // A `.new` journal's owner died before it was renamed: it never held an edit.
            if orphan.entries.isEmpty || name.hasSuffix(".new") {
                orphan.discard()
            } else {
                found.append(orphan)
            }
        }
        return found
    }
}
