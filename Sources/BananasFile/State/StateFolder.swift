#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    public let path: String
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
        path = root + "/files/" + key
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
    var folders: [String] { [root + "/files", path, journalsPath, mergedCopiesPath] }

    /// Why this state folder must not be used now: one of its folders is a symlink or not a
    /// folder (or, for the spare, its root is not this user's alone). Nil when all is well,
    /// or when they are not there yet.
    public func problem() -> ListFileError? {
        if isSpare, let st = Sys.linkStatus(root) {
            guard Sys.isDirectory(st) else { return Sys.isSymlink(st) ? .symlinkRefused(path: root) : .notARegularFile(path: root, kind: Sys.kind(st)) }
            guard st.st_uid == geteuid(), st.st_mode & 0o077 == 0 else { return .permissionDenied(path: root, action: "use (not this user's alone)") }
        }
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
        if let problem = problem() { return problem }  // before mkdir follows a symlink
        if let failure = Sys.makeDirectories(folder) { return Sys.failure(failure.code, path: failure.path, action: action) }
        return problem()
    }

    /// FNV-1a of the path, 16 hex digits: a stable folder name for any path.
    static func key(_ listPath: String) -> String {
        Hash.fnv1a(Array(listPath.utf8)).hex
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
