#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CPlatform
import Synchronization

/// The calls the atomic replace makes, in the order that matters for a power cut. Production
/// uses `PosixFileCalls` (a generic parameter, so it compiles to the plain calls); the
/// power-loss tests stand in a simulated disk that forgets whatever was not fsynced.
/// Each call reports failure the POSIX way: false or -1 with errno set.
protocol FileCalls {
    func linkStatus(_ path: String) -> stat?
    /// open(O_RDWR|O_CREAT|O_EXCL|O_NOFOLLOW) with exactly `mode` (fchmod, whatever the umask).
    func createExclusive(_ path: String, mode: mode_t) -> Int32
    func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool
    /// Asks the disk to start writing the file's new bytes now, without waiting for them
    /// (the `sync` that follows waits for less). Only a hint: it may do nothing.
    func startWriteback(_ fd: Int32)
    func sync(_ fd: Int32) -> Bool
    /// The whole file from its start.
    func readBack(_ fd: Int32, sizeHint: Int) -> [UInt8]?
    /// Whether the file holds exactly `bytes`; nil when it cannot be read.
    func readBackMatches(_ fd: Int32, _ bytes: [UInt8]) -> Bool?
    func close(_ fd: Int32)
    func rename(_ from: String, _ to: String) -> Bool
    func unlink(_ path: String)
    /// fsync of the folder holding `path`, so a rename in it survives a power cut.
    func syncDirectory(of path: String)
}

extension FileCalls {
    func startWriteback(_ fd: Int32) {}

    func readBackMatches(_ fd: Int32, _ bytes: [UInt8]) -> Bool? {
        readBack(fd, sizeHint: bytes.count).map { Bytes.equal($0, bytes) }
    }
}

/// The real file system.
struct PosixFileCalls: FileCalls {
    func linkStatus(_ path: String) -> stat? { Sys.linkStatus(path) }

    func createExclusive(_ path: String, mode: mode_t) -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        if fd >= 0 { fchmod(fd, mode) }  // the umask must not loosen or tighten the file's mode
        return fd
    }

    func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool { Sys.writeAll(fd, bytes) }
    func startWriteback(_ fd: Int32) { bananas_start_writeback(fd) }
    func sync(_ fd: Int32) -> Bool { fsync(fd) == 0 }

    func readBack(_ fd: Int32, sizeHint: Int) -> [UInt8]? {
        guard lseek(fd, 0, SEEK_SET) == 0 else { return nil }
        return Sys.readAll(fd, sizeHint: sizeHint)
    }

    /// Compared where the file's pages already are (a mapping of the page cache): reading a
    /// large file back into an array of its own costs more than comparing them.
    func readBackMatches(_ fd: Int32, _ bytes: [UInt8]) -> Bool? {
        Sys.fileMatches(fd, bytes)
    }

    func close(_ fd: Int32) { posixClose(fd) }
    func rename(_ from: String, _ to: String) -> Bool { posixRename(from, to) }
    func unlink(_ path: String) { posixUnlink(path) }

    func syncDirectory(of path: String) {
        let dir = open(Sys.directoryName(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            fsync(dir)
            posixClose(dir)
        }
    }
}

// The C calls under names the methods above do not shadow.
private func posixClose(_ fd: Int32) { _ = close(fd) }
private func posixRename(_ from: String, _ to: String) -> Bool { rename(from, to) == 0 }
private func posixUnlink(_ path: String) { _ = unlink(path) }

/// Replaces a file so that a reader, a crash or a power cut sees either the old bytes or
/// the new ones, never a mix: temp file in the same folder (O_EXCL, the target's mode or
/// 0600), write, fsync, read back and check, rename over the target, fsync the folder.
/// The temp file is removed on every failure path. (Tests/BananasFileTests/PowerLossTests
/// crashes a simulated disk at every step of this and checks the outcome.)
public enum AtomicWrite {
    /// The write protocol alone, durable and checked: what every write of the list pays
    /// whatever else it does (the benchmark measures it as the floor of a write).
    public static func replace(_ path: String, with bytes: [UInt8]) throws(ListFileError) {
        try replace(path, with: bytes) { _ in true }
    }

    /// From this size a cache's old file is removed before the new one is renamed in.
    static let removedFirstFrom = 64 * 1024

    /// Suffix of our temp files; others' (`.tmp.<pid>` from the Get Bananas server) match too.
    static let tempMarker = ".tmp."

    /// - Parameter durable: false skips the fsyncs and the read-back (which, unsynced, would
    ///   only read the page cache back), and removes a large old file before the rename, for
    ///   caches whose loss costs nothing but a recomputation (the base): readers see the old
    ///   bytes, the new ones, or (for a large file) no file, never a mix.
    static func replace(_ path: String, with bytes: [UInt8], durable: Bool = true, verify: ([UInt8]) -> Bool) throws(ListFileError) {
        try replace(path, with: bytes, durable: durable, calls: PosixFileCalls(), verify: verify)
    }

    static func replace<Calls: FileCalls>(
        _ path: String, with bytes: [UInt8], durable: Bool = true, calls: Calls, verify: ([UInt8]) -> Bool
    ) throws(ListFileError) {
        let temp = try writeTemp(path, with: bytes, durable: durable, calls: calls, verify: verify)
        try rename(temp, over: path, size: bytes.count, durable: durable, calls: calls)
    }

    /// A durable `replace` begun: the new bytes are in a temp file beside `path` and on their
    /// way to the disk. What must precede the rename (the base's save) runs while the disk
    /// writes them, and `finish` then waits for less: the fsync was the longest step of a
    /// write at 10,000 items, with the processor idle throughout.
    struct Started<Calls: FileCalls> {
        let path: String
        let temp: String
        let fd: Int32
        let bytes: [UInt8]
        let calls: Calls

        /// The rest of `replace`: fsync, read back and check (`verify`), rename, fsync of the
        /// folder. On failure the temp file is gone and `path` is as it was.
        func finish(verify: ([UInt8]) -> Bool) throws(ListFileError) {
            try AtomicWrite.syncAndCheck(temp, fd: fd, bytes: bytes, path: path, calls: calls, verify: verify)
            try AtomicWrite.rename(temp, over: path, size: bytes.count, durable: true, calls: calls)
        }

        /// Gives the write up: the temp file is removed, `path` is as it was.
        func abandon() {
            calls.close(fd)
            calls.unlink(temp)
        }
    }

    /// Begins a durable replace of `path` with `bytes` (see `Started`).
    static func start(_ path: String, with bytes: [UInt8]) throws(ListFileError) -> Started<PosixFileCalls> {
        try start(path, with: bytes, calls: PosixFileCalls())
    }

    static func start<Calls: FileCalls>(_ path: String, with bytes: [UInt8], calls: Calls) throws(ListFileError) -> Started<Calls> {
        let (temp, fd) = try createTemp(path, with: bytes, durable: true, calls: calls)
        calls.startWriteback(fd)
        return Started(path: path, temp: temp, fd: fd, bytes: bytes, calls: calls)
    }

    /// A cache file's new bytes written to a temp file beside it, not yet renamed over it: the
    /// part of a replace that needs space and permission done first, so the rename, which
    /// needs neither, can follow another write (the base after the list, `BaseStore.prepare`).
    struct Prepared: Sendable {
        let path: String
        private let temp: String
        private let size: Int

        fileprivate init(path: String, temp: String, size: Int) {
            self.path = path
            self.temp = temp
            self.size = size
        }

        /// Renames the temp file over the path (on failure the temp file is gone).
        func commit() throws(ListFileError) {
            try AtomicWrite.rename(temp, over: path, size: size, durable: false, calls: PosixFileCalls())
        }

        func discard() { posixUnlink(temp) }
    }

    /// The first half of a non-durable `replace` (for caches): the temp file, written.
    static func prepare(_ path: String, with bytes: [UInt8]) throws(ListFileError) -> Prepared {
        let temp = try writeTemp(path, with: bytes, durable: false, calls: PosixFileCalls()) { _ in true }
        return Prepared(path: path, temp: temp, size: bytes.count)
    }

    /// Writes `bytes` to a new temp file beside `path` (and for `durable`, fsyncs and checks
    /// it); its path. Nothing is left behind when it throws.
    private static func writeTemp<Calls: FileCalls>(
        _ path: String, with bytes: [UInt8], durable: Bool, calls: Calls, verify: ([UInt8]) -> Bool
    ) throws(ListFileError) -> String {
        let (temp, fd) = try createTemp(path, with: bytes, durable: durable, calls: calls)
        if durable { try syncAndCheck(temp, fd: fd, bytes: bytes, path: path, calls: calls, verify: verify) } else { calls.close(fd) }
        return temp
    }

    /// A new temp file beside `path` holding `bytes`, still open; nothing is left behind when
    /// it throws.
    private static func createTemp<Calls: FileCalls>(
        _ path: String, with bytes: [UInt8], durable: Bool, calls: Calls
    ) throws(ListFileError) -> (temp: String, fd: Int32) {
        var mode: mode_t = 0o600
        var owner: (uid: uid_t, gid: gid_t)?
        if let st = calls.linkStatus(path) {
            owner = (st.st_uid, st.st_gid)
            if Sys.isSymlink(st) { throw .symlinkRefused(path: path) }
            if !Sys.isRegular(st) { throw .notARegularFile(path: path, kind: Sys.kind(st)) }
            mode = st.st_mode & 0o7777
            // A list its owner made read-only (0444) is respected, though the folder would let
            // a rename replace it (and root may write anything).
            if durable, mode & 0o222 == 0 { throw .permissionDenied(path: path, action: ListFileError.readOnlyFileAction) }
        }

        let temp = path + tempMarker + String(Sys.processID()) + "." + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let fd = calls.createExclusive(temp, mode: mode)
        guard fd >= 0 else { throw Sys.failure(errno, path: path, action: "write") }
        // Root writing another user's list (sudo, or a list reached through a symlink) leaves
        // it theirs: the replacement gets the replaced file's owner, as its mode.
        if let owner {
            if geteuid() == 0, owner.uid != 0 || owner.gid != 0 { _ = fchown(fd, owner.uid, owner.gid) }
        } else {
            Sys.giveToFolderOwner(fd, path)
        }
        func fail(_ code: Int32, _ action: String) -> ListFileError {
            calls.close(fd)
            calls.unlink(temp)
            return Sys.failure(code, path: path, action: action)
        }
        guard calls.writeAll(fd, bytes) else { throw fail(errno, "write") }
        return (temp, fd)
    }

    /// fsyncs the open temp file, reads it back and checks it holds `bytes` (and `verify`),
    /// and closes it; on failure it is closed and removed.
    private static func syncAndCheck<Calls: FileCalls>(
        _ temp: String, fd: Int32, bytes: [UInt8], path: String, calls: Calls, verify: ([UInt8]) -> Bool
    ) throws(ListFileError) {
        func fail(_ code: Int32, _ action: String) -> ListFileError {
            calls.close(fd)
            calls.unlink(temp)
            return Sys.failure(code, path: path, action: action)
        }
        guard calls.sync(fd) else { throw fail(errno, "write") }
        guard let matches = calls.readBackMatches(fd, bytes) else { throw fail(errno, "read back") }
        guard matches, verify(bytes) else { throw fail(EIO, "verify the new contents of") }
        calls.close(fd)
    }

    /// The second half: renames the written temp file over `path`; on failure removes it.
    private static func rename<Calls: FileCalls>(
        _ temp: String, over path: String, size: Int, durable: Bool, calls: Calls
    ) throws(ListFileError) {
        // ext4 (auto_da_alloc) writes a file's data out at once when it is renamed over
        // another: for a cache that costs as much as an fsync. Renamed onto
        // no file, it is written back later like any other; readers meanwhile see no file for
        // a moment, which for a cache means only a recomputation. A small file costs nothing
        // either way, and is renamed over the old one, so readers always find one.
        if !durable, size >= AtomicWrite.removedFirstFrom { calls.unlink(path) }
        // Last look before the rename: the lock beside the file must still be ours and the
        // file the one we read under it (we may have been frozen past the stale window).
        let checked = Sys.monotonicNanos()
        if let refusal = FileLock.refusalBeforeReplacing(path) {
            calls.unlink(temp)
            throw refusal
        }
        guard calls.rename(temp, path) else {
            let code = errno
            calls.unlink(temp)
            throw Sys.failure(code, path: path, action: "replace")
        }
        lastCheckToRenameNanos.store(Sys.monotonicNanos() - checked, ordering: .relaxed)
        FileLock.replaced(path)
        if durable { calls.syncDirectory(of: path) }
    }

    /// How long the last replace took from the start of its last look (lock still ours, file
    /// unchanged) to the end of its rename: the window a frozen writer can still lose.
    public static let lastCheckToRenameNanos = Atomic<Int64>(0)

    /// fsync the folder so the rename itself survives a power cut.
    static func syncDirectory(of path: String) {
        PosixFileCalls().syncDirectory(of: path)
    }
    /// Removes temp files beside `path` left by writers that died mid-write (ours are
    /// `<name>.tmp.<pid>.<hex>`, the Get Bananas server's `<name>.tmp.<pid>`): only when that
    /// process is gone and the file is older than the lock's stale window. Call while holding
    /// the list's lock.
    static func removeAbandonedTemps(beside path: String, now: Int64 = Sys.nowMillis()) {
        removeAbandonedTemps(besideAll: [path], now: now)
    }

    /// `removeAbandonedTemps(beside:)` for several files in one folder, with one listing of it.
    static func removeAbandonedTemps(besideAll paths: [String], now: Int64 = Sys.nowMillis()) {
        guard let first = paths.first else { return }
        let folder = Sys.directoryName(first)
        assert(paths.allSatisfy { Sys.directoryName($0) == folder }, "files in one folder")
        let prefixes = paths.map { Sys.baseName($0) + tempMarker }
        for name in Sys.directoryEntries(folder) {
            guard let prefix = prefixes.first(where: { name.hasPrefix($0) }) else { continue }
            let digits = name.dropFirst(prefix.count).prefix { $0.isASCII && $0.isNumber }
            guard let pid = Int32(digits), pid != Sys.processID(), !Sys.isAlive(pid) else { continue }
            let temp = folder + "/" + name
            guard let st = Sys.linkStatus(temp), Sys.isRegular(st) else { continue }
            let age = now - (Int64(st.st_mtim.tv_sec) * 1000 + Int64(st.st_mtim.tv_nsec) / 1_000_000)
            if age > FileLock.staleAfterMillis { unlink(temp) }
        }
    }
}
