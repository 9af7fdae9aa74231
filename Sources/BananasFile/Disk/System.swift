#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin, errno-preserving wrappers over the POSIX calls the file layer needs.
enum SystemError {
    static func message(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

enum Sys {
    /// Wall-clock milliseconds since 1970.
    static func nowMillis() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// When a file was last modified, in milliseconds since 1970.
    static func modifiedMillis(_ st: stat) -> Int64 {
        #if canImport(Darwin)
        let time = st.st_mtimespec
        #else
        let time = st.st_mtim
        #endif
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// utimensat's UTIME_NOW and UTIME_OMIT (macros Swift does not import on Linux).
    #if os(Linux)
    static let timeNow = (1 << 30) - 1
    static let timeOmit = (1 << 30) - 2
    #else
    static let timeNow = Int(UTIME_NOW)
    static let timeOmit = Int(UTIME_OMIT)
    #endif

    /// A monotonic clock in nanoseconds, for measuring short spans.
    static func monotonicNanos() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Whether the open file `fd` holds exactly `bytes`, compared through a read-only mapping
    /// (no copy); nil when it cannot be examined.
    static func fileMatches(_ fd: Int32, _ bytes: [UInt8]) -> Bool? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        guard Int(st.st_size) == bytes.count else { return false }
        if bytes.isEmpty { return true }
        guard let map = mmap(nil, bytes.count, PROT_READ, MAP_SHARED, fd, 0), map != MAP_FAILED else { return nil }
        defer { munmap(map, bytes.count) }
        return bytes.withUnsafeBytes { memcmp(map, $0.baseAddress!, bytes.count) == 0 }
    }

    /// Whether the regular file at `path` holds exactly `bytes`, read a chunk at a time
    /// through one small buffer (no copy of the whole file); false when it cannot be read.
    /// Not a mapping: a file another writer truncates meanwhile would be a SIGBUS.
    static func fileMatches(path: String, _ bytes: [UInt8]) -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, isRegular(st), Int(st.st_size) == bytes.count else { return false }
        let chunk = 1 << 18
        var buffer = [UInt8](repeating: 0, count: chunk)
        var offset = 0
        return bytes.withUnsafeBytes { expected in
            buffer.withUnsafeMutableBytes { into in
                while true {
                    let count = pread(fd, into.baseAddress, chunk, off_t(offset))
                    if count < 0, errno == EINTR { continue }
                    if count <= 0 { return count == 0 && offset == expected.count }
                    guard offset + count <= expected.count,
                          memcmp(into.baseAddress!, expected.baseAddress! + offset, count) == 0 else { return false }
                    offset += count
                }
            }
        }
    }

    /// lstat(2): the status of the path itself, not of what a symlink points to.
    static func linkStatus(_ path: String) -> stat? {
        var st = stat()
        return lstat(path, &st) == 0 ? st : nil
    }

    static func isDirectory(_ st: stat) -> Bool { (st.st_mode & S_IFMT) == S_IFDIR }
    static func isSymlink(_ st: stat) -> Bool { (st.st_mode & S_IFMT) == S_IFLNK }
    static func isRegular(_ st: stat) -> Bool { (st.st_mode & S_IFMT) == S_IFREG }

    static func kind(_ st: stat) -> String {
        switch st.st_mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFLNK: "a symbolic link"
        case S_IFIFO: "a named pipe"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        default: "not a regular file"
        }
    }

    /// Reads the whole of an open descriptor.
    /// Faults in a large fresh buffer's pages with one call (Linux's MADV_POPULATE_WRITE)
    /// instead of one page fault per 4 KiB as it is filled: reading a 65 MB file into a new
    /// array took 16,000 faults. Where the call is not known, the pages fault in as before.
    static func populate(_ buffer: UnsafeMutableRawBufferPointer) {
        #if os(Linux)
        guard buffer.count >= 1 << 20, let base = buffer.baseAddress else { return }
        let page = Int(getpagesize())
        let start = (Int(bitPattern: base) + page - 1) & ~(page - 1)
        let end = (Int(bitPattern: base) + buffer.count) & ~(page - 1)
        guard end > start, let pointer = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(pointer, end - start, 23 /* MADV_POPULATE_WRITE, Linux 5.14 */)
        #endif
    }

    /// `spare`: room kept past the hinted size, for a caller that edits the bytes in place.
    static func readAll(_ fd: Int32, sizeHint: Int = 0, spare: Int = 0) -> [UInt8]? {
        // Straight into the array (no chunk copied over): a file of 6.5 MB is read at every
        // flush. One byte spare, so the end of a file of the hinted size is seen in one go.
        var capacity = max(sizeHint + 1 + spare, 4_096)
        var result: [UInt8] = []
        while true {
            var failed = false, ended = false
            let previous = result
            result = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                Sys.populate(UnsafeMutableRawBufferPointer(buffer))
                count = previous.withUnsafeBufferPointer { buffer.initialize(fromContentsOf: $0) }
                while count < capacity {
                    let n = read(fd, buffer.baseAddress! + count, capacity - count)
                    if n < 0 {
                        if errno == EINTR { continue }
                        failed = true
                        return
                    }
                    if n == 0 { ended = true; return }
                    count += n
                }
            }
            if failed { return nil }
            if ended { return result }
            capacity *= 2
        }
    }

    /// Writes all of `bytes`, retrying short writes; false with errno set on failure. With
    /// `atOffset`, from that position in the file (pwrite) instead of the descriptor's own.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], atOffset start: Int? = nil) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { buffer in
                let from = buffer.baseAddress! + offset, count = bytes.count - offset
                return start.map { pwrite(fd, from, count, off_t($0 + offset)) } ?? write(fd, from, count)
            }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }

    static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func baseName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    static func processID() -> Int32 { getpid() }

    /// The names in a folder (without `.` and `..`); empty when it cannot be read.
    static func directoryEntries(_ folder: String) -> [String] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The first component of the absolute `path` that is a symlink now, if any (lstat each).
    static func firstSymlink(in path: String) -> String? {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if let st = linkStatus(prefix), isSymlink(st) { return prefix }
        }
        return nil
    }

    /// mkdir -p with mode 0700; returns the errno and path of the first failure, if any.
    @discardableResult
    static func makeDirectories(_ path: String) -> (code: Int32, path: String)? {
        // Nearly always there already: one stat instead of a mkdir per component.
        if let st = linkStatus(path), (st.st_mode & S_IFMT) == S_IFDIR { return nil }
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) == 0 {
                giveToFolderOwner(path: prefix)
            } else if errno != EEXIST {
                return (errno, prefix)
            }
        }
        return nil
    }

    /// Root making a file or folder in another user's folder (one `sudo bananas` with their
    /// HOME) makes it theirs: their next run must be able to replace and remove it.
    static func giveToFolderOwner(_ fd: Int32, _ path: String) {
        guard geteuid() == 0, let folder = linkStatus(directoryName(path)), folder.st_uid != 0 else { return }
        _ = fchown(fd, folder.st_uid, folder.st_gid)
    }

    /// `giveToFolderOwner` for a folder just made at `path` (never following a symlink).
    static func giveToFolderOwner(path: String) {
        guard geteuid() == 0, let folder = linkStatus(directoryName(path)), folder.st_uid != 0 else { return }
        _ = lchown(path, folder.st_uid, folder.st_gid)
    }

    /// Whether a process with this id is alive on this host.
    static func isAlive(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    static func sleep(milliseconds: Int) {
        usleep(useconds_t(milliseconds * 1000))
    }

    /// Maps a failing call's errno to the user-facing error.
    static func failure(_ code: Int32, path: String, action: String) -> ListFileError {
        switch code {
        case ENOENT, ENOTDIR: .folderMissing(path: directoryName(path))
        case EACCES, EPERM: .permissionDenied(path: path, action: action)
        case EROFS: .readOnlyFileSystem(path: path)
        case ENOSPC, EDQUOT: .diskFull(path: path)
        case ELOOP: .symlinkRefused(path: path)
        default: .io(path: path, action: action, code: code)
        }
    }
}


/// A cheap fingerprint of a file's metadata (inode, size, change times), to notice that it
/// changed without reading it; nil when it does not exist.
public enum FileSignature {
    public static func of(_ path: String) -> [UInt8]? {
        guard let st = Sys.linkStatus(path) else { return nil }
        let parts: [Int64] = [
            Int64(st.st_ino), Int64(st.st_size), Int64(st.st_mtim.tv_sec), Int64(st.st_mtim.tv_nsec),
            Int64(st.st_ctim.tv_sec), Int64(st.st_ctim.tv_nsec),
        ]
        return parts.flatMap { value in withUnsafeBytes(of: value, Array.init) }
    }
}

/// The process environment, read from `environ` (what Foundation's `ProcessInfo` gives,
/// without linking Foundation: the CLI starts faster without it).
public enum Environment {
    /// Every variable; for a name given twice, the first.
    public static func current() -> [String: String] {
        var result: [String: String] = [:]
        #if canImport(Darwin)
        var entry = _NSGetEnviron()!.pointee!
        #else
        var entry = environ
        #endif
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "="), result[String(text[..<equals])] == nil {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return result
    }

    /// One variable, or nil when it is not set.
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}

/// The few file-system questions the editor's themes ask, with the names `FileManager` uses.
public enum FileSystem {
    /// The whole file, or nil when it cannot be read (missing, a folder, no permission).
    public static func contents(atPath path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, !Sys.isDirectory(st) else { return nil }
        return Sys.readAll(fd, sizeHint: Int(st.st_size))
    }

    public static func fileExists(atPath path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    /// The names in a folder (without `.` and `..`); nil when it cannot be read.
    public static func contentsOfDirectory(atPath path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        closedir(dir)
        return Sys.directoryEntries(path)
    }

    /// The working directory.
    public static var currentDirectoryPath: String {
        guard let pointer = getcwd(nil, 0) else { return "." }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// The user's home folder from the user database (what `NSHomeDirectory()` falls back to
    /// when HOME is not set).
    public static var homeDirectoryFromUserDatabase: String {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return "/" }
        return String(cString: directory)
    }
}
