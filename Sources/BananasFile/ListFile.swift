#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore
import Dispatch
import Synchronization

/// The list file on disk: reading without a lock, and read-modify-write under the lock.
/// Every surface goes through here; none writes the file itself.
public final class ListFile: Sendable {
    /// The file's path with any symlinks the user set up resolved once, at open: a symlink
    /// that appears later is not one we expected, and is refused.
    public let path: String
    public let lockPath: String
    /// Create the folder on first write (true for the default location only).
    public let createsFolder: Bool
    /// This machine's private state for the file (base, journals, conflict log); nil keeps none.
    public let state: StateFolder?
    /// Where the base for merging stampless writers is kept; nil keeps none.
    public let base: BaseStore?
    /// The file as this process last read or wrote it.
    private let lastSnapshot = Mutex<Snapshot?>(nil)
    /// Where replaced files are closed (freed), off the lock.
    private static let closing = DispatchQueue(label: "bananas.list-file.closing", qos: .utility)

    public init(path: String, createsFolder: Bool = false, stateDirectory: String? = nil) {
        self.path = ListFile.resolve(path)
        self.lockPath = self.path + ".lock"
        self.createsFolder = createsFolder
        let resolved = self.path
        let state = stateDirectory.map { StateFolder(listPath: resolved, stateDirectory: $0) }
        self.state = state
        self.base = state.map(BaseStore.init(folder:))
    }

    /// What `load` found.
    public struct Snapshot: Sendable {
        /// The file's bytes; nil when there is no file yet.
        public private(set) var bytes: [UInt8]?
        /// `Hash.content` of `bytes` (of no bytes when there is no file): computed once, as
        /// telling our own writes from others' asks for it at every read and flush.
        public private(set) var contentHash: UInt64
        public var decoded: DecodedList
        /// Where the rows sit in `bytes`, when they all have the plain shape: the next read
        /// and write splice instead of decoding or encoding the whole file.
        var layout: ItemLayout?
        /// When the file was last modified (its mtime, in nanoseconds), as read; nil when
        /// unknown. A stampless writer's changes in these bytes are stamped with it.
        public internal(set) var modifiedNanos: Int64?

        public init(bytes: [UInt8]?, decoded: DecodedList) {
            self.init(bytes: bytes, hash: Hash.content(bytes ?? []), decoded: decoded)
        }

        init(bytes: [UInt8]?, hash: UInt64, decoded: DecodedList) {
            self.bytes = bytes
            contentHash = hash
            self.decoded = decoded
        }

        var known: ListCodec.Known? {
            guard let bytes, let layout else { return nil }
            return ListCodec.Known(bytes: bytes, decoded: decoded, layout: layout)
        }

        public var list: ShoppingList { decoded.list }
        public var exists: Bool { bytes != nil }
        /// True when this bananas may write the file (its schema is not newer than ours).
        public var isWritable: Bool { decoded.schemaVersion <= ListCodec.currentSchemaVersion }
    }

    /// Reads and decodes the file. A missing file is an empty list; a missing folder is an
    /// empty list only where we would create it.
    public func load() throws(ListFileError) -> Snapshot {
        // The file as this process last read or wrote it (every flush of a running instance
        // finds it so): compared in place, without reading a copy of it first.
        if let last = lastSnapshot.withLock({ $0 }), let known = last.bytes, !known.isEmpty,
           Sys.fileMatches(path: path, known) {
            return last
        }
        let read = try readFile()
        return try snapshot(of: read.bytes, modifiedNanos: read.modifiedNanos)
    }

    /// Decodes bytes read by `readBytes` (nil: no file); `hash` is their `Hash.content` when
    /// the caller has it already.
    public func snapshot(of bytes: [UInt8]?, hash: UInt64? = nil, modifiedNanos: Int64? = nil) throws(ListFileError) -> Snapshot {
        guard let bytes else {
            return Snapshot(bytes: nil, decoded: DecodedList(list: ShoppingList(), schemaVersion: ListCodec.currentSchemaVersion, problems: []))
        }
        // The bytes this process last read or wrote come back at every flush and at every
        // event of its own write: the list decoded then is still right (equal bytes compare
        // in a fraction of a millisecond; a decode of 10,000 items takes tens).
        let last = lastSnapshot.withLock { $0 }
        if let last, let known = last.bytes, Bytes.equal(known, bytes) { return last }
        // Another version: only the rows whose bytes changed are decoded again, when it can.
        let decoded: DecodedList, layout: ItemLayout?
        do {
            (decoded, layout) = try ListCodec.decode(bytes, after: last?.known)
        } catch {
            throw .unparseable(path: path, detail: error.description)
        }
        try Self.checkIsList(decoded, bytes: bytes, path: path)
        let hash = hash ?? Hash.content(bytes)
        var snapshot = Snapshot(bytes: bytes, hash: hash, decoded: decoded)
        snapshot.layout = layout
        snapshot.modifiedNanos = modifiedNanos
        if var whole = layout, !whole.isCanonical, decoded.schemaVersion == ListCodec.currentSchemaVersion,
           let base, base.glance().writtenHashes.contains(hash) {
            // Bytes bananas wrote are what its encoder writes for the list they decode to, so
            // the next write may copy their unchanged rows: a whole-process command no longer
            // encodes the whole list again (a third of `bananas check` at 10,000 items). Were
            // they written by another version whose encoder spaced rows otherwise, a splice
            // mixes the two spacings: still the same JSON, and a whole encode evens it out.
            whole.isCanonical = true
            snapshot.layout = whole
        }
        lastSnapshot.withLock { $0 = snapshot }
        return snapshot
    }

    /// A JSON object with neither `items` nor `sections` (a settings file a symlink or a
    /// mistaken `--file` points at) is not a list, and must never be written as one. Only an
    /// empty decode can be one, so only then is the top level looked at again.
    static func checkIsList(_ decoded: DecodedList, bytes: [UInt8], path: String) throws(ListFileError) {
        guard decoded.list.rows.isEmpty, decoded.list.sections.isEmpty, decoded.list.unreadableRows.isEmpty,
              case .object(let top)? = try? JSONText.parse(bytes), top["items"] == nil, top["sections"] == nil else { return }
        throw ListFileError.notAList(path: path)
    }

    /// Bytes of a file beside the list (a conflict copy) decoded as a list, with the list's rules.
    static func decodeSnapshot(_ bytes: [UInt8], path: String) throws(ListFileError) -> Snapshot {
        let decoded: DecodedList
        do {
            decoded = try ListCodec.decode(bytes)
        } catch {
            throw .unparseable(path: path, detail: error.description)
        }
        try checkIsList(decoded, bytes: bytes, path: path)
        return Snapshot(bytes: bytes, decoded: decoded)
    }

    /// The raw bytes, nil when the file does not exist.
    public func readBytes() throws(ListFileError) -> [UInt8]? {
        try readFile().bytes
    }

    /// The raw bytes (nil when the file does not exist) and the file's mtime in nanoseconds,
    /// taken after the read: a writer that rewrote the file in place meanwhile gave it a
    /// later time, never an earlier one than the bytes read.
    /// `spare`: room kept in the array past the bytes (see `Sys.readAll`).
    public func readFile(spare: Int = 0) throws(ListFileError) -> (bytes: [UInt8]?, modifiedNanos: Int64?) {
        // O_NONBLOCK: a named pipe put where the list was must not block us until someone
        // writes to it (fstat then refuses it); reads of a regular file ignore the flag.
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            if code == ENOENT {
                let folder = Sys.directoryName(path)
                if !createsFolder, Sys.linkStatus(folder) == nil { throw .folderMissing(path: folder) }
                return (nil, nil)
            }
            if code == ELOOP { throw .symlinkRefused(path: path) }
            throw Sys.failure(code, path: path, action: ListFileError.readAction)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Sys.failure(errno, path: path, action: ListFileError.readAction) }
        guard Sys.isRegular(st) else { throw .notARegularFile(path: path, kind: Sys.kind(st)) }
        guard Int(st.st_size) <= ListCodec.maxFileSize else {
            throw .tooLarge(path: path, size: Int(st.st_size), limit: ListCodec.maxFileSize)
        }
        guard let bytes = Sys.readAll(fd, sizeHint: Int(st.st_size), spare: spare) else {
            throw Sys.failure(errno, path: path, action: ListFileError.readAction)
        }
        guard bytes.count <= ListCodec.maxFileSize else {
            throw .tooLarge(path: path, size: bytes.count, limit: ListCodec.maxFileSize)
        }
        guard fstat(fd, &st) == 0 else { return (bytes, nil) }
        return (bytes, Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
    }

    /// The outcome of `update`.
    public struct UpdateResult<Value> {
        public var value: Value
        /// False when the new bytes equalled the file's, so nothing was written.
        public var wrote: Bool
        /// The file as read under the lock, with stampless writers' changes absorbed.
        public var fileState: ShoppingList
        /// The list as it now is in the file.
        public var list: ShoppingList
        public var snapshot: Snapshot
        /// Why the base could not be saved after this write (the state folder is full,
        /// read-only or gone); nil when it was, or when nothing was written. The file holds
        /// the write, but the base does not: the caller must not rely on the base (see
        /// `BaseStore.save`), and should pause with this reason, keeping its edits queued.
        public var baseSaveFailure: ListFileError?
    }

    /// The file's list with changes by writers that keep no stamps stamped, against the base
    /// (see `ShoppingList.absorbing`). Their stamp is `Stamp.foreignEdit`: the time the file
    /// was written, past every stamp in sight (so a foreign edit always beats the value it
    /// replaced), and the same in every instance that reads these bytes. `clock` observes it.
    ///
    /// `known` must have been loaded *before* the file was read: a base newer than the file
    /// (read without the lock) would make the rows added since look deleted. A base older than
    /// the file is harmless: the file then holds stamps it has not seen.
    public func absorbing(_ snapshot: Snapshot, base known: BaseStore.Base?, clock: inout StampClock, now: Int64) -> ShoppingList {
        // A missing file (a folder that came back empty, a file removed by hand) is absence,
        // not a writer that deleted every row: whoever writes next writes what they have.
        guard snapshot.exists, let known else { return snapshot.list }
        // A file bananas wrote (perhaps older than the base, read without the lock) holds no
        // foreign change.
        if snapshot.bytes != nil, known.writtenHashes.contains(snapshot.contentHash) { return snapshot.list }
        guard let base = known.list else { return snapshot.list }
        // A file time far ahead of this clock (a file server's or a synced device's clock
        // running fast) is not used: the stamp is then just past what the edit replaced, the
        // same in every instance (where "now" would not be).
        let written = snapshot.modifiedNanos.flatMap { $0 / 1_000_000 <= now + StampClock.maxForwardJump ? $0 : nil }
        let stamp = Stamp.foreignEdit(
            writtenAtNanos: written, after: max(snapshot.list.newestStamp, base.newestStamp), content: snapshot.contentHash)
        clock.observe(stamp, now: now)
        // A stampless whole-list save (the Get Bananas app) may have read an older state than
        // the newest base: it is judged against the one it agrees with most.
        if snapshot.list.isStampless {
            let bases = [base] + known.older.filter { $0 != base }
            if bases.count > 1 { return ShoppingList.absorbing(stampless: snapshot.list, bases: bases, stamp: stamp) }
        }
        return ShoppingList.absorbing(file: snapshot.list, base: base, stamp: stamp)
    }

    /// Read-modify-write under the lock: reads the file, absorbs stampless writers' changes
    /// (with `absorb`, or against the base with a fresh clock), lets `body` change the list,
    /// and writes it back only if the bytes differ. A file we cannot parse, or one from a
    /// newer version, is never written. `settled` runs once the file on disk holds the result
    /// (written and fsynced, or already equal), still under the lock.
    public func update<Value>(
        lockTimeoutMillis: Int64 = 5_000,
        absorb: ((Snapshot, BaseStore.Base?) -> ShoppingList)? = nil,
        settled: ((UpdateResult<Value>) -> Void)? = nil,
        _ body: (inout ShoppingList, Snapshot) throws -> Value
    ) throws -> UpdateResult<Value> {
        if createsFolder { try makeFolder() }
        let lock = try FileLock.acquire(path: lockPath, timeoutMillis: lockTimeoutMillis)
        defer { lock.release() }
        let result = try updateLocked(absorb: absorb, body)
        settled?(result)
        return result
    }

    private func updateLocked<Value>(
        absorb: ((Snapshot, BaseStore.Base?) -> ShoppingList)?,
        _ body: (inout ShoppingList, Snapshot) throws -> Value
    ) throws -> UpdateResult<Value> {
        let knownBase = base?.load()
        let snapshot = try load()
        guard snapshot.isWritable else {
            throw ListFileError.newerSchema(path: path, found: snapshot.decoded.schemaVersion, supported: ListCodec.currentSchemaVersion)
        }
        let now = Clock.nowMillis()
        let absorbed: ShoppingList
        if let absorb {
            absorbed = absorb(snapshot, knownBase)
        } else {
            var clock = StampClock(replica: ReplicaID.random())
            absorbed = absorbing(snapshot, base: knownBase, clock: &clock, now: now)
        }
        var list = absorbed
        let value = try body(&list, snapshot)
        func unchanged() -> UpdateResult<Value> {
            UpdateResult(value: value, wrote: false, fileState: absorbed, list: absorbed, snapshot: snapshot)
        }
        // An unchanged list is not rewritten: a version-1 file stays version 1 until edited.
        // But a file that lacks what we hold (a sync engine put back an older copy; the
        // absorbed list has it from the base) is.
        guard list != absorbed || !list.hasSameVisibleContent(as: snapshot.list) else { return unchanged() }
        list.collectGarbage(now: now)
        // This write's own mark: a writer that keeps `sync` as found (the Node server) hands
        // it back, which says its save came from this state (docs/sync.md, rule 4).
        list.writeStamp = Stamp(millis: max(now, list.writeStamp.millis + 1), counter: 0, replica: ReplicaID.random())
        // Encoding copies the bytes of the rows that did not change from the file as read.
        let (bytes, layout) = ListCodec.encode(list, after: snapshot.known)
        if let old = snapshot.bytes, Bytes.equal(old, bytes) { return unchanged() }
        AtomicWrite.removeAbandonedTemps(beside: path, now: now)
        // The replaced file's pages and blocks are freed at its last close, which the rename
        // would otherwise be (2 ms at 6.5 MB, with the lock held): keep it open across the
        // rename and close it on another thread.
        let replaced = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        defer { if replaced >= 0 { ListFile.closing.async { _ = close(replaced) } } }
        // The read-back must equal the bytes encoded (AtomicWrite checks it): that proves the
        // disk holds them. That our encoder's bytes decode is proven by the round-trip tests
        // and checked here in debug builds; a full decode at every write was two thirds of a
        // flush (docs/performance.md).
        let hash = Hash.content(bytes)
        base?.announce(hash)
        try AtomicWrite.replace(path, with: bytes) { written in
            assert((try? ListCodec.decode(written)) != nil, "the encoder wrote bytes the decoder refuses")
            return true
        }
        let baseSaveFailure = base?.save(list, written: bytes, hash: hash)
        var after = Snapshot(bytes: bytes, hash: hash, decoded: DecodedList(
            list: list, schemaVersion: ListCodec.currentSchemaVersion, problems: snapshot.decoded.problems))
        after.layout = after.decoded.problems.isEmpty ? layout : nil
        lastSnapshot.withLock { $0 = after }
        return UpdateResult(value: value, wrote: true, fileState: absorbed, list: list, snapshot: after, baseSaveFailure: baseSaveFailure)
    }

    /// Creates the list's folder (and parents) with mode 0700.
    func makeFolder() throws(ListFileError) {
        if let failure = Sys.makeDirectories(Sys.directoryName(path)) {
            throw Sys.failure(failure.code, path: failure.path, action: "create the folder")
        }
    }

    /// An absolute path with the symlinks that exist now resolved.
    static func resolve(_ path: String) -> String {
        var absolute = path
        if !path.hasPrefix("/"), let cwd = getcwd(nil, 0) {
            defer { free(cwd) }
            absolute = String(cString: cwd) + "/" + path
        }
        if let real = realpath(absolute, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        // The file does not exist yet: resolve its folder.
        let folder = Sys.directoryName(absolute)
        if let real = realpath(folder, nil) {
            defer { free(real) }
            let resolved = String(cString: real)
            return (resolved == "/" ? "" : resolved) + "/" + Sys.baseName(absolute)
        }
        return absolute
    }
}
