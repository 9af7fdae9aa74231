#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// This machine's private state for one list file, under
/// `$XDG_STATE_HOME/bananas/files/<hash of the list's path>/`:
///
/// - `base.json`       the last state of the list bananas wrote here (merging stampless writers);
/// - `journals/`       one journal per running instance (edits not yet in the list file);
/// - `conflicts.jsonl` the conflict log (values that lost a concurrent edit).
///
/// Its contents are hostile input, like the list file's: a folder in it that is a symlink (or
/// anything but a folder) is never followed, so nothing outside it is ever read, written,
/// linked or removed through it (`problem`, `make`).
public struct StateFolder: Sendable, Hashable {
    /// The folder, as every access names it. For the spare, its root is the descriptor the
    /// spare's root was opened and checked through (`SpareRoot`), not its name.
    public var path: String { (isSpare ? SpareRoot.accessPath(root) : root) + "/files/" + key }
    /// The folder as it is shown to a user: for the spare, under its root's name.
    public var shownPath: String { root + "/files/" + key }
    /// `$XDG_STATE_HOME/bananas`, as the user set it up (it may be a symlink of theirs).
    public let root: String
    /// The list's folder name under `files/`.
    let key: String
    /// Where the state goes while this folder cannot take it (`spare`); nil for the spare itself.
    let spareRoot: String?
    /// True for the spare: its root is in a shared place (`/tmp`), so it is used only when it
    /// is a real folder of this user's that no one else may enter.
    public let isSpare: Bool

    public init(listPath: String, stateDirectory: String, spareDirectory: String? = nil) {
        self.init(key: StateFolder.key(listPath), root: stateDirectory, spareRoot: spareDirectory, isSpare: false)
    }

    private init(key: String, root: String, spareRoot: String?, isSpare: Bool) {
        self.key = key
        self.root = root
        self.spareRoot = spareRoot
        self.isSpare = isSpare
    }

    /// The same list's state in the spare place (`Locations.spareStateDirectory`): a full,
    /// read-only or foreign-owned state folder never blocks a write, and never costs an edit
    /// acknowledged by a journal. Every process reads both; see `BaseStore` and docs/sync.md.
    public var spare: StateFolder? {
        spareRoot.map { StateFolder(key: key, root: $0, spareRoot: nil, isSpare: true) }
    }

    public var basePath: String { path + "/base.json" }
    public var journalsPath: String { path + "/journals" }
    public var conflictLogPath: String { path + "/conflicts.jsonl" }
    /// Conflict copies bananas merged and removed from the list's folder, kept for a while.
    public var mergedCopiesPath: String { path + "/merged-copies" }

    /// The folders bananas makes below `root`, outermost first.
    var folders: [String] {
        let path = path
        return [String(path.dropLast(key.count + 1)), path, path + "/journals", path + "/merged-copies"]
    }

    /// Why this state folder must not be used now: one of its folders is a symlink or not a
    /// folder (or, for the spare, its root is not this user's alone). Nil when all is well,
    /// or when they are not there yet.
    public func problem() -> ListFileError? {
        if isSpare, let refusal = SpareRoot.problem(root) { return refusal }
        for folder in folders {
            guard let st = Sys.linkStatus(folder) else { continue }
            switch st.st_mode & S_IFMT {
            case S_IFDIR: continue
            case S_IFLNK: return .symlinkRefused(path: folder)
            default: return .notARegularFile(path: folder, kind: Sys.kind(st))
            }
        }
        return nil
    }

    /// Makes `folder` (one of `folders`, 0700) and those above it below `root`; nil when it is
    /// there and every folder on the way is a real one.
    public func make(_ folder: String, action: String = "create the state folder") -> ListFileError? {
        var folder = folder
        if isSpare {
            // The spare's root is made (0700) and opened the first time a write needs it; a
            // path named before that names no folder yet.
            let before = SpareRoot.accessPath(root)
            do { _ = try SpareRoot.descriptor(root, create: true) } catch { return error }
            let after = SpareRoot.accessPath(root)
            if before != after, folder.hasPrefix(before) { folder = after + folder.dropFirst(before.count) }
        }
        if let problem = problem() { return problem }  // before mkdir follows a symlink
        if let failure = Sys.makeDirectories(folder) { return Sys.failure(failure.code, path: failure.path, action: action) }
        return problem()
    }

    /// FNV-1a of the path, 16 hex digits: a stable folder name for any path.
    static func key(_ listPath: String) -> String {
        Hash.fnv1a(Array(listPath.utf8)).hex
    }
}

/// The spare's root (`Locations.spareStateDirectory`) sits in a place other users can write
/// to when no `$XDG_RUNTIME_DIR` is set (`/tmp`), so its name is not trusted past one open:
/// each process opens it once (`O_DIRECTORY|O_NOFOLLOW`, made 0700 first when a write needs
/// it and it is not there), checks on that descriptor that it is a folder of this user's that no one else may
/// enter, and from then on reaches it only through the descriptor (`/proc/self/fd/N`, which
/// the kernel resolves to the folder opened, whatever is renamed in or out of its name
/// since). A root that fails the check is refused: the spare is not used, and reads as empty.
/// Another user who takes the name first gets nothing of this user's state and puts nothing
/// in it; they can only keep the spare from being used (docs/reliability.md).
enum SpareRoot {
    /// The descriptors opened, by root; a failure is tried again at the next use.
    private static let opened = Mutex<[String: Int32]>([:])

    /// A path no file can be at: what a refused spare's folders are named (ENOENT on use).
    static let refusedPath = "/proc/self/fd/-1/bananas-spare-refused"

    /// The root as accesses name it: through its descriptor when it passed the checks (a
    /// root not made yet, or refused, names no folder: it reads as empty).
    static func accessPath(_ root: String) -> String {
        guard let fd = try? descriptor(root, create: false) else { return refusedPath }
        #if os(Linux)
        return "/proc/self/fd/\(fd)"
        #else
        // No descriptor paths: the name, checked at every `problem()`.
        _ = fd
        return root
        #endif
    }

    /// Why the root must not be used, nil when it passed (checked again on its descriptor: a
    /// user's own chmod counts).
    static func problem(_ root: String) -> ListFileError? {
        do {
            guard let fd = try descriptor(root, create: false) else { return nil }  // not there yet
            return check(fd, root)
        } catch {
            return error
        }
    }

    private static func check(_ fd: Int32, _ root: String) -> ListFileError? {
        var st = stat()
        guard fstat(fd, &st) == 0, Sys.isDirectory(st) else { return .notARegularFile(path: root, kind: "not a folder") }
        guard st.st_uid == geteuid(), st.st_mode & 0o077 == 0 else { return .permissionDenied(path: root, action: "use (not this user's alone)") }
        return nil
    }

    /// Opens the root once per process: made 0700 when missing and `create` (a name taken by
    /// no one yet is taken by this user first), then opened without following a symlink and
    /// checked. Nil when it is missing and `create` is false.
    static func descriptor(_ root: String, create: Bool) throws(ListFileError) -> Int32? {
        if let fd = opened.withLock({ $0[root] }) {
            var st = stat()
            if fstat(fd, &st) == 0, st.st_nlink > 0 { return fd }
            // Removed since (a temp cleaner, a reboot's tmpfs): opened again, by name. The old
            // descriptor stays open: a path naming it may still be in use, and a number reused
            // would name another file.
            opened.withLock { if $0[root] == fd { $0[root] = nil } }
        }
        var fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0, errno == ENOENT {
            guard create else { return nil }
            Sys.makeDirectories(Sys.directoryName(root))
            if mkdir(root, 0o700) != 0, errno != EEXIST { throw Sys.failure(errno, path: root, action: "create the spare state folder") }
            fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        guard fd >= 0 else {
            if errno == ELOOP || errno == ENOTDIR, let st = Sys.linkStatus(root) {
                throw Sys.isSymlink(st) ? .symlinkRefused(path: root) : .notARegularFile(path: root, kind: Sys.kind(st))
            }
            throw Sys.failure(errno, path: root, action: "open the spare state folder")
        }
        if let refusal = check(fd, root) {
            close(fd)
            throw refusal
        }
        return opened.withLock { opened in
            if let first = opened[root] {
                close(fd)
                return first
            }
            opened[root] = fd
            return fd
        }
    }
}

/// 64-bit FNV-1a: cheap, stable across runs and machines. Used to name folders, to check
/// journal lines and to name conflict-log entries; whole files use `content` (faster).
public enum Hash {
    public static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// XXH64 (seed 0) of a file's contents: to recognise bytes bananas wrote itself. Eight
    /// bytes at a time, four lanes: several times FNV-1a's speed on a large file.
    public static func content(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { XXH64.hash($0) }
    }
}

enum XXH64 {
    static let p1: UInt64 = 0x9E37_79B1_85EB_CA87, p2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    static let p3: UInt64 = 0x1656_67B1_9E37_79F9, p4: UInt64 = 0x85EB_CA77_C2B2_AE63, p5: UInt64 = 0x27D4_EB2F_1656_67C5

    @inline(__always) static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }
    @inline(__always) static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 { rotl(acc &+ input &* p2, 31) &* p1 }
    @inline(__always) static func merge(_ acc: UInt64, _ val: UInt64) -> UInt64 { (acc ^ round(0, val)) &* p1 &+ p4 }

    static func hash(_ data: UnsafeRawBufferPointer) -> UInt64 {
        let count = data.count
        var i = 0
        var h: UInt64
        @inline(__always) func word(_ at: Int) -> UInt64 { UInt64(littleEndian: data.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        if count >= 32 {
            var v1 = p1 &+ p2, v2 = p2, v3: UInt64 = 0, v4 = 0 &- p1
            while i + 32 <= count {
                v1 = round(v1, word(i)); v2 = round(v2, word(i + 8))
                v3 = round(v3, word(i + 16)); v4 = round(v4, word(i + 24))
                i += 32
            }
            h = rotl(v1, 1) &+ rotl(v2, 7) &+ rotl(v3, 12) &+ rotl(v4, 18)
            h = merge(h, v1); h = merge(h, v2); h = merge(h, v3); h = merge(h, v4)
        } else {
            h = p5
        }
        h = h &+ UInt64(count)
        while i + 8 <= count {
            h ^= round(0, word(i))
            h = rotl(h, 27) &* p1 &+ p4
            i += 8
        }
        if i + 4 <= count {
            h ^= UInt64(UInt32(littleEndian: data.loadUnaligned(fromByteOffset: i, as: UInt32.self))) &* p1
            h = rotl(h, 23) &* p2 &+ p3
            i += 4
        }
        while i < count {
            h ^= UInt64(data[i]) &* p5
            h = rotl(h, 11) &* p1
            i += 1
        }
        h ^= h >> 33; h = h &* p2
        h ^= h >> 29; h = h &* p3
        h ^= h >> 32
        return h
    }
}

extension UInt64 {
    /// 16 lowercase hex digits.
    var hex: String {
        let digits = String(self, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
