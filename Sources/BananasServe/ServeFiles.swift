#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's files under the state folder (`serve/`: the paired devices, the last URL, the
/// answers by key), opened as the state folder's own files are: its contents are hostile
/// input. A folder below the state folder that is a symlink is never followed, so nothing
/// outside it is read or written through it; a file that is not a regular one (a FIFO, a
/// device) is never read or written (opened with `O_NONBLOCK`, so a FIFO cannot hang the
/// open, and checked with `fstat` before any byte moves); files are made 0600, folders 0700.
/// Every access is relative to the folder's descriptor (`openat`, `renameat`), so a folder
/// swapped after it was opened changes nothing.
enum ServeFiles {
    /// What went wrong, in words, with the path it happened at.
    struct Problem: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "\(path): \(reason)" }

        init(_ path: String, errno code: Int32, action: String) {
            self.path = path
            switch code {
            case ELOOP, ENOTDIR: reason = "cannot \(action): it is a symlink or not a folder, which bananas does not follow (remove it)"
            default: reason = "cannot \(action): \(String(cString: strerror(code)))"
            }
        }

        init(_ path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// Opens `root` (the state folder, which may be a symlink of the user's) and then each of
    /// `names` below it without following a symlink, making what is missing when `create`.
    /// The descriptor of the last; nil when one is missing and `create` is false.
    static func openFolder(root: String, names: [String], create: Bool) throws(Problem) -> Int32? {
        if create, let failure = makeRoot(root) { throw failure }
        var fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT, !create { return nil }
            throw Problem(root, errno: errno, action: "open the folder")
        }
        var path = root
        for name in names {
            path += "/" + name
            var next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0, errno == ENOENT, create {
                if mkdirat(fd, name, 0o700) != 0, errno != EEXIST {
                    let code = errno
                    close(fd)
                    throw Problem(path, errno: code, action: "create the folder")
                }
                next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            let code = errno
            close(fd)
            if next < 0 {
                if code == ENOENT, !create { return nil }
                throw Problem(path, errno: code, action: "open the folder")
            }
            fd = next
        }
        return fd
    }

    /// Makes the state folder and those above it (0700 for the new ones).
    private static func makeRoot(_ root: String) -> Problem? {
        var prefix = ""
        for component in root.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST { return Problem(prefix, errno: errno, action: "create the folder") }
        }
        return nil
    }

    /// Opens `name` in `folder` with `flags` (`O_NOFOLLOW`, `O_NONBLOCK` and `O_CLOEXEC`
    /// added) and checks that it is a regular file; made 0600 with `O_CREAT`. -1 and `errno`
    /// set (`EINVAL` for a file that is not a regular one) when it cannot be.
    static func openFile(_ folder: Int32, _ name: String, _ flags: Int32) -> Int32 {
        let fd = openat(folder, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return -1 }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            errno = EINVAL
            return -1
        }
        // Reads and writes block as usual from here: it is a regular file.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        if flags & O_CREAT != 0 { fchmod(fd, 0o600) }
        return fd
    }

    /// The words for a failure of `openFile`.
    static func problem(_ path: String, errno code: Int32, action: String) -> Problem {
        code == EINVAL ? Problem(path, reason: "cannot \(action): it is not a regular file (a FIFO, a device or a folder); remove it")
            : Problem(path, errno: code, action: action)
    }

    /// The bytes of `name` in `folder`; nil when there is no such file. Throws for a file that
    /// is not a regular one, one over `limit` bytes, or a failed read.
    static func contents(_ folder: Int32, _ name: String, path: String, limit: Int) throws(Problem) -> [UInt8]? {
        let fd = openFile(folder, name, O_RDONLY)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw problem(path, errno: errno, action: "read it")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 { throw Problem(path, errno: errno, action: "read it") }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            if bytes.count > limit { throw Problem(path, reason: "it is too large (over \(limit) bytes) to be bananas'") }
        }
    }

    /// Replaces `name` in `folder` whole: a temporary file (0600), fsync, rename.
    static func replace(_ folder: Int32, _ name: String, path: String, with bytes: [UInt8]) throws(Problem) {
        let temp = name + ".tmp"
        unlinkat(folder, temp, 0)
        let fd = openFile(folder, temp, O_WRONLY | O_CREAT | O_EXCL)
        guard fd >= 0 else { throw problem(path + ".tmp", errno: errno, action: "write it") }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            written += count
        }
        let code = errno
        let synced = written == bytes.count && fsync(fd) == 0
        close(fd)
        guard synced else {
            unlinkat(folder, temp, 0)
            throw Problem(path + ".tmp", errno: code == 0 ? ENOSPC : code, action: "write it")
        }
        guard renameat(folder, temp, folder, name) == 0 else {
            let code = errno
            unlinkat(folder, temp, 0)
            throw Problem(path, errno: code, action: "replace it")
        }
    }
}
