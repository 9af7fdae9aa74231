#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore

/// The base: the last state of the list file that bananas on this machine wrote. Stampless
/// writers (Get Bananas, its MCP server, hand edits) are merged against it; see
/// `ShoppingList.absorbing`. It is replaced only while the list's lock is held.
///
/// It also remembers the hashes of the last files bananas wrote here. A reader without the
/// lock may read an older file and a newer base; were that file taken as a stampless
/// rewrite of the base, the rows added since would look deleted. A file whose hash is one
/// bananas wrote is no foreign write, so it is taken as it is.
public struct BaseStore: Sendable {
    public let path: String
    /// How many written files' hashes are remembered.
    static let hashesKept = 64
    /// The base file's top-level key for them (taken out of the list on load).
    static let hashesKey = "bananasWrittenHashes"

    public init(folder: StateFolder) {
        path = folder.basePath
    }

    public struct Base: Sendable {
        public var list: ShoppingList
        /// Hashes (FNV-1a) of the file contents bananas wrote, newest last.
        public var writtenHashes: [UInt64]
    }

    /// The stored base, or nil when there is none (or it is damaged: then the file is taken
    /// as it is, which loses nothing, it only cannot tell foreign deletes).
    public func load() -> Base? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let bytes = Sys.readAll(fd), var list = try? ListCodec.decode(bytes).list else { return nil }
        var hashes: [UInt64] = []
        if case .array(let values)? = list.extra.removeValue(forKey: BaseStore.hashesKey) {
            for case .string(let hex) in values { if let hash = UInt64(hex, radix: 16) { hashes.append(hash) } }
        }
        return Base(list: list, writtenHashes: hashes)
    }

    /// Replaces the base after bananas wrote `list` as `bytes`. Failing to save it is not
    /// fatal: the list itself is safe.
    public func save(_ list: ShoppingList, written bytes: [UInt8]) {
        Sys.makeDirectories(Sys.directoryName(path))
        AtomicWrite.removeAbandonedTemps(beside: path)
        let hashes = ((load()?.writtenHashes ?? []) + [Hash.fnv1a(bytes)]).suffix(BaseStore.hashesKept)
        var stored = list
        stored.extra[BaseStore.hashesKey] = .array(hashes.map { .string($0.hex) })
        // Not fsynced: a base lost to a power cut only means the next stampless write is taken
        // as it is (nothing lost), and a flush is faster without two more fsyncs.
        try? AtomicWrite.replace(path, with: ListCodec.encode(stored), durable: false) { _ in true }
    }
}
