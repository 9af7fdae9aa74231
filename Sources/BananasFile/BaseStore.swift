#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore

/// The base: the last state of the list file that bananas on this machine wrote. Stampless
/// writers (Get Bananas, its MCP server, hand edits) are merged against it; see
/// `ShoppingList.absorbing`. It is read and replaced only while the list's lock is held, so
/// processes on one machine never race on it.
public struct BaseStore: Sendable {
    public let path: String

    public init(folder: StateFolder) {
        path = folder.basePath
    }

    /// The stored base, or nil when there is none (or it is damaged: then the file is taken
    /// as it is, which loses nothing, it only cannot tell foreign deletes).
    public func load() -> ShoppingList? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let bytes = Sys.readAll(fd) else { return nil }
        return try? ListCodec.decode(bytes).list
    }

    /// Replaces the base. Failing to save it is not fatal: the list itself is safe.
    public func save(_ list: ShoppingList) {
        Sys.makeDirectories(Sys.directoryName(path))
        try? AtomicWrite.replace(path, with: ListCodec.encode(list)) { _ in true }
    }
}
