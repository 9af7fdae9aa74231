#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore
import BananasFile
import Synchronization

/// The phones (and other browsers) paired with `bananas serve`, and the one-time pairing codes
/// waiting to be used: `$XDG_STATE_HOME/bananas/serve/devices.json`, mode 0600, never in the
/// list file (which sync engines copy to other machines).
///
/// One file per user, not per list: a phone paired once keeps working when the server is
/// started on another list. Every process that changes it (the server, `bananas devices
/// revoke`, `bananas pair`) holds `devices.lock` (flock) around read-change-write, and the
/// server reads it again whenever it changed on disk, so a revoke ends a device at once.
/// `serve/` and its files are opened as the state folder's are (`ServeFiles`): no symlink is
/// followed, no FIFO or device read, every file 0600.
public final class DeviceRegistry: Sendable {
    public struct Device: Sendable, Equatable {
        public var name: String
        public var token: String
        public var pairedMillis: Int64
        public var lastSeenMillis: Int64
    }

    public struct Code: Sendable, Equatable {
        public var code: String
        public var expiresMillis: Int64
        public var triesLeft: Int
    }

    struct Contents: Sendable, Equatable {
        var devices: [Device] = []
        var codes: [Code] = []
    }

    /// How long a pairing code lives, and how many wrong codes it survives.
    public static let codeLifetimeMillis: Int64 = 5 * 60 * 1000
    public static let codeTries = 5
    /// A device's last use is written at most this often (not at every request).
    static let lastSeenGranularityMillis: Int64 = 60 * 60 * 1000

    public let folder: String
    /// The state folder `serve/` is in.
    let stateDirectory: String
    public var path: String { folder + "/devices.json" }
    var lockPath: String { folder + "/devices.lock" }
    let now: @Sendable () -> Int64

    /// What the file held when last read, and its identity then (inode, size, mtime).
    private let cache = Mutex<(contents: Contents, identity: [Int64])?>(nil)

    public init(stateDirectory: String, now: @escaping @Sendable () -> Int64 = { SystemTime().nowMillis() }) {
        folder = stateDirectory + "/serve"
        self.stateDirectory = stateDirectory
        self.now = now
    }

    public enum Failure: Error, CustomStringConvertible, Equatable {
        case io(String)
        case noSuchDevice(String)
        public var description: String {
            switch self {
            case .io(let text): text
            case .noSuchDevice(let name): "no paired device is named \(TextRules.escaped(name)) (see bananas devices)"
            }
        }
    }

    // MARK: Reading

    public func devices() throws(Failure) -> [Device] { try current().devices }

    /// The device a token belongs to, or nil (compared in constant time per device).
    public func device(token: String) -> Device? {
        guard token.utf8.count == 64, let contents = try? current() else { return nil }
        var found: Device?
        for device in contents.devices where Self.equalInConstantTime(device.token, token) { found = device }
        if let device = found, now() - device.lastSeenMillis > Self.lastSeenGranularityMillis {
            _ = try? change { contents in
                if let index = contents.devices.firstIndex(where: { $0.token == device.token }) { contents.devices[index].lastSeenMillis = now() }
            }
        }
        return found
    }

    // MARK: Changing

    /// A new one-time code (and drops the expired ones).
    public func newCode() throws(Failure) -> Code {
        let code = Code(code: Self.randomCode(), expiresMillis: now() + Self.codeLifetimeMillis, triesLeft: Self.codeTries)
        try change { contents in
            contents.codes.removeAll { $0.expiresMillis <= now() }
            contents.codes.append(code)
        }
        return code
    }

    public enum PairOutcome: Sendable, Equatable {
        case paired(Device)
        /// Wrong, used or expired code: every live code loses a try (which one was meant is
        /// unknown), so guessing is bounded by 5 tries per code.
        case refused
    }

    /// Exchanges a code for a device token: the code is used up.
    public func pair(code given: String, name wanted: String) throws(Failure) -> PairOutcome {
        let typed = Self.normalized(given)
        return try change { contents in
            let time = now()
            contents.codes.removeAll { $0.expiresMillis <= time || $0.triesLeft <= 0 }
            guard let index = contents.codes.firstIndex(where: { Self.equalInConstantTime($0.code, typed) }) else {
                for index in contents.codes.indices { contents.codes[index].triesLeft -= 1 }
                contents.codes.removeAll { $0.triesLeft <= 0 }
                return .refused
            }
            contents.codes.remove(at: index)
            let device = Device(name: Self.uniqueName(wanted, taken: Set(contents.devices.map(\.name))), token: Self.randomToken(),
                                pairedMillis: time, lastSeenMillis: time)
            contents.devices.append(device)
            return .paired(device)
        }
    }

    /// Ends a device's access at once (its token no longer opens anything).
    public func revoke(name: String) throws(Failure) {
        try change { contents in
            guard let index = contents.devices.firstIndex(where: { $0.name == name }) else { throw Failure.noSuchDevice(name) }
            contents.devices.remove(at: index)
        }
    }

    // MARK: Rules

    /// A device's name: what the page sent, made safe and short; "phone" when empty; "-2",
    /// "-3"… when taken.
    static func uniqueName(_ wanted: String, taken: Set<String>) -> String {
        var base = String(String.UnicodeScalarView(wanted.unicodeScalars.filter { !TextRules.isUnsafe($0) && !TextRules.isInvisible($0) }))
            .trimmingWhitespace()
        base = String(base.prefix(40))
        if base.isEmpty || base.contains(where: { $0.isNewline }) { base = "phone" }
        var name = base
        var number = 2
        while taken.contains(name) {
            name = "\(base)-\(number)"
            number += 1
        }
        return name
    }

    /// Codes are read off a screen: no 0/O or 1/I/L; any case and dashes accepted.
    static let codeAlphabet = Array("23456789ABCDEFGHJKMNPQRSTUVWXYZ")

    static func randomCode() -> String {
        var rng = SystemRandomNumberGenerator()
        return String((0..<8).map { _ in codeAlphabet[Int.random(in: 0..<codeAlphabet.count, using: &rng)] })
    }

    static func normalized(_ code: String) -> String {
        String(code.uppercased().filter { $0 != "-" && $0 != " " }.prefix(64))
    }

    /// 256 random bits, hex.
    static func randomToken() -> String {
        var rng = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let word = rng.next() as UInt64
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    // MARK: The file

    /// The contents, read again only when the file changed on disk.
    func current() throws(Failure) -> Contents {
        let identity = Self.identity(path)
        if let cached = cache.withLock({ $0 }), cached.identity == identity { return cached.contents }
        let contents = try load()
        cache.withLock { $0 = (contents, identity) }
        return contents
    }

    /// Read, change, write under the lock; `body`'s result is returned.
    @discardableResult
    func change<T>(_ body: (inout Contents) throws -> T) throws(Failure) -> T {
        let folder = try openFolder(create: true)!
        defer { close(folder) }
        let lock = ServeFiles.openFile(folder, "devices.lock", O_RDWR | O_CREAT)
        guard lock >= 0 else { throw .io(ServeFiles.problem(lockPath, errno: errno, action: "open it").description) }
        defer { close(lock) }
        guard flock(lock, LOCK_EX) == 0 else { throw .io("cannot lock \(lockPath): \(String(cString: strerror(errno)))") }
        var contents = try load(in: folder)
        let before = contents
        let result: T
        do { result = try body(&contents) } catch let failure as Failure { throw failure } catch { throw .io(String(describing: error)) }
        if contents != before { try store(contents, in: folder) }
        cache.withLock { $0 = (contents, Self.identity(path)) }
        return result
    }

    /// `serve/`, opened without following a symlink (`ServeFiles`); nil when it is not there
    /// and `create` is false.
    func openFolder(create: Bool) throws(Failure) -> Int32? {
        do {
            return try ServeFiles.openFolder(root: stateDirectory, names: ["serve"], create: create)
        } catch {
            throw .io(error.description)
        }
    }

    public func makeFolder() throws(Failure) {
        if let fd = try openFolder(create: true) { close(fd) }
    }

    /// Replaces `name` in `serve/` (0600), e.g. the URL the server was last reached at.
    public func save(_ name: String, _ bytes: [UInt8]) throws(Failure) {
        let folder = try openFolder(create: true)!
        defer { close(folder) }
        do { try ServeFiles.replace(folder, name, path: self.folder + "/" + name, with: bytes) } catch { throw .io(error.description) }
    }

    /// The bytes of `name` in `serve/` (at most `limit`), nil when it is not there or cannot be read.
    public func saved(_ name: String, limit: Int) -> [UInt8]? {
        guard let folder = try? openFolder(create: false) else { return nil }
        defer { close(folder) }
        return try? ServeFiles.contents(folder, name, path: self.folder + "/" + name, limit: limit)
    }

    static func identity(_ path: String) -> [Int64] {
        var st = stat()
        guard lstat(path, &st) == 0 else { return [] }
        #if canImport(Darwin)
        let modified = Int64(st.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(st.st_mtimespec.tv_nsec)
        #else
        let modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        #endif
        return [Int64(st.st_ino), Int64(st.st_size), modified]
    }

    func load() throws(Failure) -> Contents {
        guard let folder = try openFolder(create: false) else { return Contents() }
        defer { close(folder) }
        return try load(in: folder)
    }

    func load(in folder: Int32) throws(Failure) -> Contents {
        let read: [UInt8]?
        do { read = try ServeFiles.contents(folder, "devices.json", path: path, limit: 4_000_000) } catch { throw .io(error.description) }
        guard let bytes = read else { return Contents() }
        guard let value = try? JSONText.parse(bytes), let object = value.objectValue else {
            throw .io("\(path) is not a device list (not JSON); remove it to pair again")
        }
        var contents = Contents()
        for entry in object["devices"]?.arrayValue ?? [] {
            guard let fields = entry.objectValue, let name = fields["name"]?.stringValue, let token = fields["token"]?.stringValue else { continue }
            contents.devices.append(Device(name: name, token: token, pairedMillis: Self.int(fields["paired"]), lastSeenMillis: Self.int(fields["lastSeen"])))
        }
        for entry in object["codes"]?.arrayValue ?? [] {
            guard let fields = entry.objectValue, let code = fields["code"]?.stringValue else { continue }
            contents.codes.append(Code(code: code, expiresMillis: Self.int(fields["expires"]), triesLeft: Int(Self.int(fields["tries"]))))
        }
        return contents
    }

    static func int(_ value: JSONValue?) -> Int64 {
        if case .number(let text)? = value { return Int64(text) ?? 0 }
        return 0
    }

    /// Written whole: a temporary file (0600), fsync, rename.
    func store(_ contents: Contents, in folder: Int32) throws(Failure) {
        let value = JSONValue.object([
            "devices": .array(contents.devices.map { device in
                .object(["name": .string(device.name), "token": .string(device.token),
                         "paired": .number(String(device.pairedMillis)), "lastSeen": .number(String(device.lastSeenMillis))])
            }),
            "codes": .array(contents.codes.map { code in
                .object(["code": .string(code.code), "expires": .number(String(code.expiresMillis)), "tries": .number(String(code.triesLeft))])
            }),
        ])
        let bytes = JSONText.serialize(value, keyOrder: ["devices", "codes", "name", "token", "paired", "lastSeen", "code", "expires", "tries"])
        do { try ServeFiles.replace(folder, "devices.json", path: path, with: bytes) } catch { throw .io(error.description) }
    }
}
