#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore
import CPlatform
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
    /// This machine's private state for the file (base, journals, retired conflict copies); nil keeps none.
    public let state: StateFolder?
    /// Where the base for merging stampless writers is kept; nil keeps none.
    public let base: BaseStore?
    /// Rows in the encoder's own shape are left in the bytes read until a field of theirs is
    /// asked for (`ListCodec.decode(_:after:rowsOnDemand:)`): for a whole-process command,
    /// which looks at few rows once. A long-running instance reads them at once.
    public let decodesRowsOnDemand: Bool
    /// The file as this process last read or wrote it.
    private let lastSnapshot = Mutex<Snapshot?>(nil)
    /// A write of this process whose base could not be saved (see `update`).
    private let pendingBase = Mutex<UnsavedBase?>(nil)

    /// The base of a write that landed while the state folder could not take it (its rename
    /// failed after the list's). Nothing may rely on the base on disk then (it was removed
    /// if the folder allowed): this process absorbs against this one (`SyncEngine.read`), and
    /// writes nothing more until it is saved (`update` saves it first).
    public struct UnsavedBase: Sendable {
        public let list: ShoppingList
        let bytes: [UInt8]
        public let hash: UInt64
        /// Why it could not be saved (`stateNotSaved`).
        public let failure: ListFileError
    }

    public var unsavedBase: UnsavedBase? { pendingBase.withLock { $0 } }
    /// Where replaced files are closed (freed), off the lock.
    private static let closing = DispatchQueue(label: "bananas.list-file.closing", qos: .utility)

    /// The time this file's writes are stamped and published with, and its instance's delays.
    public let time: any TimeSource

    /// `spareDirectory`: where the state goes while `stateDirectory` cannot take it
    /// (`Locations.spareStateDirectory`); nil has no spare, and writes wait for the state folder.
    public init(path: String, createsFolder: Bool = false, stateDirectory: String? = nil, spareDirectory: String? = nil,
                time: any TimeSource = SystemTime()) {
        self.time = time
        self.path = ListFile.resolve(path)
        self.lockPath = self.path + ".lock"
        self.createsFolder = createsFolder
        let resolved = self.path
        let state = stateDirectory.map { StateFolder(listPath: resolved, stateDirectory: $0, spareDirectory: spareDirectory) }
        self.state = state
        self.base = state.map(BaseStore.init(folder:))
        self.decodesRowsOnDemand = false
    }

    private init(_ file: ListFile, rowsOnDemand: Bool) {
        (path, lockPath, createsFolder, state, base, time) = (file.path, file.lockPath, file.createsFolder, file.state, file.base, file.time)
        decodesRowsOnDemand = rowsOnDemand
    }

    /// The same file, read by a whole-process command (`decodesRowsOnDemand`).
    public func readingRowsOnDemand() -> ListFile { ListFile(self, rowsOnDemand: true) }

    /// For a whole-process command about to read this file: when it is large, the heap grows
    /// once to hold what reading and writing it take, in huge pages where the system allows.
    /// A 10,000-item list took 3,400 page faults, a fifth of `bananas add` (docs/performance.md).
    public func reserveMemoryForOneCommand() {
        guard let size = Sys.linkStatus(path).map({ Int($0.st_size) }), size >= 1 << 20 else { return }
        _ = bananas_reserve_heap(size * 8)
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

    /// The file as this process last read or wrote it, when `bytes` are its bytes: the list
    /// decoded then, and their hash, are still right. Every flush and every event of this
    /// process's own write bring those bytes back; comparing them costs a fraction of hashing
    /// them and a small part of decoding them.
    public func lastSnapshot(ifSameAs bytes: [UInt8]) -> Snapshot? {
        guard let last = lastSnapshot.withLock({ $0 }), let known = last.bytes, Bytes.equal(known, bytes) else { return nil }
        return last
    }

    /// Decodes bytes read by `readBytes` (nil: no file) that the caller found are not the
    /// last snapshot's (`lastSnapshot(ifSameAs:)`, or `load`'s compare in place); `hash` is
    /// their `Hash.content` when the caller has it already.
    public func snapshot(of bytes: [UInt8]?, hash: UInt64? = nil, modifiedNanos: Int64? = nil) throws(ListFileError) -> Snapshot {
        guard let bytes else {
            return Snapshot(bytes: nil, decoded: DecodedList(list: ShoppingList(), schemaVersion: ListCodec.currentSchemaVersion, problems: []))
        }
        let last = lastSnapshot.withLock { $0 }
        // Another version: only the rows whose bytes changed are decoded again, when it can.
        let decoded: DecodedList, layout: ItemLayout?
        do {
            (decoded, layout) = try ListCodec.decode(bytes, after: last?.known, rowsOnDemand: decodesRowsOnDemand)
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

    /// A whole list handed over in bytes rather than found in the file (MCP's
    /// `update_shopping_list`), decoded with the list's rules and dated `modifiedNanos`, as if
    /// its writer had just saved it: the sync engine takes it in the way it takes in a file.
    public static func handedSave(_ bytes: [UInt8], path: String, modifiedNanos: Int64) throws(ListFileError) -> Snapshot {
        var snapshot = try decodeSnapshot(bytes, path: path)
        snapshot.modifiedNanos = modifiedNanos
        return snapshot
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
        /// The file as read under the lock, as `absorb` made it.
        public var fileState: ShoppingList
        /// The list as it now is in the file.
        public var list: ShoppingList
        public var snapshot: Snapshot
        /// Why the base could not be put in place after this write (it was written before
        /// the list, so only its rename can fail: the state folder went read-only or away in
        /// between): a `stateNotSaved` error; nil when it was, or when nothing was written.
        /// The file holds the write; the older base was removed (`BaseStore.PreparedSave`),
        /// this one is kept in memory (`unsavedBase`) and the next `update` saves it before
        /// anything else, or throws.
        /// The caller pauses with this reason, keeping its later edits queued.
        public var baseSaveFailure: ListFileError?
    }

    /// Read-modify-write under the lock: reads the file, lets `absorb` make the list of it
    /// (the sync layer's `WriteOrigin` decides whose write it is and stamps a foreign one
    /// against the base, loaded before the file; by default the list as read), lets `body`
    /// change the list, and writes it back only if the bytes differ. A file we cannot parse, or one from a
    /// newer version, is never written. `onDisk` runs once the file on disk holds the result
    /// (written and fsynced, or already equal), still under the lock.
    public func update<Value>(
        lockTimeoutMillis: Int64 = 5_000,
        absorb: (Snapshot, BaseStore.Base?, inout LockedHistory) -> ShoppingList = { snapshot, _, _ in snapshot.list },
        onDisk: ((UpdateResult<Value>) -> Void)? = nil,
        _ body: (inout ShoppingList, Snapshot) throws -> Value
    ) throws -> UpdateResult<Value> {
        if createsFolder { try makeFolder() }
        // Not even the lock is taken through a folder swapped for a symlink (see below).
        if let swapped = Sys.firstSymlink(in: Sys.directoryName(path)) { throw ListFileError.symlinkRefused(path: swapped) }
        let lock = try FileLock.acquire(path: lockPath, timeoutMillis: lockTimeoutMillis)
        defer { lock.release() }
        let result = try updateLocked(absorb: absorb, body)
        onDisk?(result)
        return result
    }

    // Long because the write protocol (read, absorb, change, write, save the base) in one function, so its order is seen at once.
    private func updateLocked<Value>(
        absorb: (Snapshot, BaseStore.Base?, inout LockedHistory) -> ShoppingList,
        _ body: (inout ShoppingList, Snapshot) throws -> Value
    ) throws -> UpdateResult<Value> {
        try saveUnsavedBase()
        let knownBase = base?.load()
        var history = base?.lockedHistory() ?? .none
        let snapshot = try load()
        guard snapshot.isWritable else {
            throw ListFileError.newerSchema(path: path, found: snapshot.decoded.schemaVersion, supported: ListCodec.currentSchemaVersion)
        }
        let now = time.nowMillis()
        let absorbed = absorb(snapshot, knownBase, &history)
        let tookIn = history.tookIn
        var list = absorbed
        let value = try body(&list, snapshot)
        func unchanged() -> UpdateResult<Value> {
            // A state taken in is published even when no write follows (rule 5), and becomes
            // the base: the next save is judged against it and merged into it, deletes and
            // records included, which the history does not keep and only the file holds.
            let failure = tookIn ? base?.saveTakenIn(absorbed, history: history.update(
                now: now, maxBytes: BaseStore.historyMaxBytes(listSize: snapshot.bytes?.count ?? 0), head: absorbed)) : nil
            return UpdateResult(value: value, wrote: false, fileState: absorbed, list: absorbed, snapshot: snapshot,
                                baseSaveFailure: failure.map { ListFileError.stateNotSaved($0, folder: base!.folder) })
        }
        // An unchanged list is not rewritten: a version-1 file stays version 1 until edited.
        // But a file that lacks what we hold (a sync engine put back an older copy; the
        // absorbed list has it from the base) is, and so is a save taken in: its judgment
        // (stamps, deletes, records) reaches every device through the file.
        let savedBySomeoneElse = tookIn && history.head.map { if case .save = $0.kind { true } else { false } } == true
        guard list != absorbed || Self.lacks(snapshot.list, list) || savedBySomeoneElse else { return unchanged() }
        list.collectGarbage(now: now, deleteFirstSeen: { history.deleteFirstSeen($0, hiding: $1) })
        // This write's own mark: a writer that keeps `sync` as found (the Node server) hands
        // it back, which says its save came from this state (docs/sync.md, rule 4).
        list.writeMark = Stamp(millis: max(now, list.writeMark.millis + 1), counter: 0, replica: ReplicaID.random())
        // Encoding copies the bytes of the rows that did not change from the file as read.
        let (bytes, layout) = ListCodec.encode(list, after: snapshot.known)
        if let old = snapshot.bytes, Bytes.equal(old, bytes) { return unchanged() }
        // The path was resolved when this file was opened (no symlink in it): one there now
        // is a folder swapped under a running instance, and would carry the write elsewhere.
        if let swapped = Sys.firstSymlink(in: Sys.directoryName(path)) { throw ListFileError.symlinkRefused(path: swapped) }
        AtomicWrite.removeAbandonedTemps(beside: path, now: now)
        // The replaced file's pages and blocks are freed at its last close, which the rename
        // would otherwise be, with the lock held: keep it open across the rename and close it
        // on another thread.
        let replaced = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        defer { if replaced >= 0 { ListFile.closing.async { _ = close(replaced) } } }
        // The new bytes go to their temp file first and the disk starts on them while the
        // base is prepared; the list's fsync then waits for less.
        let started = try AtomicWrite.start(path, with: bytes)
        let hash = Hash.content(bytes)
        // A write whose base cannot follow is not made: a base older than the file would take
        // a stampless writer's delete of a row this write added for a row it never saw. So
        // the base is written out before the list is renamed into place, and only renamed
        // into place after it.
        var preparedBase: BaseStore.PreparedSave?
        if let base {
            do throws(ListFileError) {
                if let failure = base.announce(hash) { throw failure }
                history.publish(list, hash: hash, kind: .write(mark: list.writeMark), now: now, born: !snapshot.exists,
                                replacing: snapshot.exists ? (snapshot.contentHash, snapshot.list) : nil)
                preparedBase = try base.prepare(list, written: bytes, hash: hash, history: history.update(
                    now: now, maxBytes: BaseStore.historyMaxBytes(listSize: bytes.count), head: list))
            } catch {
                started.abandon()
                throw ListFileError.stateNotSaved(error, folder: base.folder)
            }
        }
        do {
            // The read-back must equal the bytes encoded (AtomicWrite checks it): that proves
            // the disk holds them. That our encoder's bytes decode is proven by the round-trip
            // tests and checked here in debug builds; a full decode at every write was two
            // thirds of a flush (docs/performance.md).
            try started.finish { written in
                assert((try? ListCodec.decode(written)) != nil, "the encoder wrote bytes the decoder refuses")
                return true
            }
        } catch {
            preparedBase?.discard()
            throw error
        }
        var baseSaveFailure: ListFileError?
        if let base, let failure = preparedBase?.commit() {
            let error = ListFileError.stateNotSaved(failure, folder: base.folder)
            baseSaveFailure = error
            pendingBase.withLock { $0 = UnsavedBase(list: list, bytes: bytes, hash: hash, failure: error) }
        }
        var after = Snapshot(bytes: bytes, hash: hash, decoded: DecodedList(
            list: list, schemaVersion: ListCodec.currentSchemaVersion, problems: snapshot.decoded.problems))
        after.layout = after.decoded.problems.isEmpty ? layout : nil
        lastSnapshot.withLock { $0 = after }
        return UpdateResult(value: value, wrote: true, fileState: absorbed, list: list, snapshot: after, baseSaveFailure: baseSaveFailure)
    }

    /// The file lacks something `list` holds: what it shows, or, in a file with stamps, a
    /// stamp (an undo back to a value the file shows is an edit every device must see).
    static func lacks(_ file: ShoppingList, _ list: ShoppingList) -> Bool {
        guard list.hasSameVisibleContent(as: file) else { return true }
        guard !file.isStampless else { return false }
        var held = list
        held.writeMark = file.writeMark
        return held != file
    }

    /// Saves the base of a write that could not save it (see `UnsavedBase`), under the lock;
    /// throws `stateNotSaved` while the state folder still cannot take it.
    func saveUnsavedBase() throws(ListFileError) {
        guard let base, let unsaved = pendingBase.withLock({ $0 }) else { return }
        if let failure = base.announce(unsaved.hash) ?? base.save(unsaved.list, written: unsaved.bytes, hash: unsaved.hash) {
            throw ListFileError.stateNotSaved(failure, folder: base.folder)
        }
        pendingBase.withLock { if $0?.hash == unsaved.hash { $0 = nil } }
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
