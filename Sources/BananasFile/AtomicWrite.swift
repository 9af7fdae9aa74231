#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file so that a reader, a crash or a power cut sees either the old bytes or
/// the new ones, never a mix: temp file in the same folder (O_EXCL, the target's mode or
/// 0600), write, fsync, read back and check, rename over the target, fsync the folder.
/// The temp file is removed on every failure path.
enum AtomicWrite {
    /// Suffix of our temp files; others' (`.tmp.<pid>` from the Get Bananas server) match too.
    static let tempMarker = ".tmp."

    /// - Parameter durable: false skips the fsyncs, for caches whose loss costs nothing but a
    ///   recomputation (the base); the rename still makes the replace atomic for readers.
    static func replace(_ path: String, with bytes: [UInt8], durable: Bool = true, verify: ([UInt8]) -> Bool) throws(ListFileError) {
        var mode: mode_t = 0o600
        if let st = Sys.linkStatus(path) {
            if Sys.isSymlink(st) { throw .symlinkRefused(path: path) }
            if !Sys.isRegular(st) { throw .notARegularFile(path: path, kind: Sys.kind(st)) }
            mode = st.st_mode & 0o7777
        }

        let temp = path + tempMarker + String(Sys.processID()) + "." + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let fd = open(temp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Sys.failure(errno, path: path, action: "write") }
        var closed = false
        func fail(_ code: Int32, _ action: String) -> ListFileError {
            if !closed { close(fd); closed = true }
            unlink(temp)
            return Sys.failure(code, path: path, action: action)
        }

        fchmod(fd, mode)  // the umask must not loosen or tighten the file's mode
        guard Sys.writeAll(fd, bytes) else { throw fail(errno, "write") }
        guard !durable || fsync(fd) == 0 else { throw fail(errno, "write") }
        guard lseek(fd, 0, SEEK_SET) == 0, let readBack = Sys.readAll(fd, sizeHint: bytes.count) else {
            throw fail(errno, "read back")
        }
        guard readBack == bytes, verify(readBack) else { throw fail(EIO, "verify the new contents of") }
        close(fd)
        closed = true
        guard rename(temp, path) == 0 else { throw fail(errno, "replace") }
        if durable { syncDirectory(of: path) }
    }

    /// fsync the folder so the rename itself survives a power cut.
    static func syncDirectory(of path: String) {
        let dir = open(Sys.directoryName(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            fsync(dir)
            close(dir)
        }
    }

    /// Removes temp files beside `path` left by writers that died mid-write (ours are
    /// `<name>.tmp.<pid>.<hex>`, the Get Bananas server's `<name>.tmp.<pid>`): only when that
    /// process is gone and the file is older than the lock's stale window. Call while holding
    /// the list's lock.
    static func removeAbandonedTemps(beside path: String, now: Int64 = Sys.nowMillis()) {
        let folder = Sys.directoryName(path)
        let prefix = Sys.baseName(path) + tempMarker
        let names = Sys.directoryEntries(folder).filter { $0.hasPrefix(prefix) }
        for name in names {
            let digits = name.dropFirst(prefix.count).prefix { $0.isASCII && $0.isNumber }
            guard let pid = Int32(digits), pid != Sys.processID(), !Sys.isAlive(pid) else { continue }
            let temp = folder + "/" + name
            guard let st = Sys.linkStatus(temp), Sys.isRegular(st) else { continue }
            let age = now - (Int64(st.st_mtim.tv_sec) * 1000 + Int64(st.st_mtim.tv_nsec) / 1_000_000)
            if age > FileLock.staleAfterMillis { unlink(temp) }
        }
    }
}
