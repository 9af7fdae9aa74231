#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore
import Synchronization

/// The base: the last state of the list file that bananas on this machine wrote. Stampless
/// writers (Get Bananas, its MCP server, hand edits) are merged against it; see
/// `ShoppingList.absorbing`. It is replaced only while the list's lock is held.
///
/// It also remembers the hashes of the last files bananas wrote here. A reader without the
/// lock may read an older file and a newer base; were that file taken as a stampless
/// rewrite of the base, the rows added since would look deleted. A file whose hash is one
/// bananas wrote is no foreign write, so it is taken as it is.
///
/// Two files in the state folder: `base.json` holds the exact bytes last written to the list
/// (so saving costs no second encoding), `written-hashes` the hashes, one per line, newest
/// last (so telling our own write from a foreign one costs no parse of the base). The parsed
/// base is kept in memory by its content hash: most reads and flushes parse nothing.
///
/// The base and the written hashes are replaced through a temp file and a rename, never
/// written in place: a reader sees an old file or a new one. A base is taken only when its
/// bytes hash to a written hash the reader glanced.
public struct BaseStore: Sendable {
    /// How many written files' hashes are remembered.
    static let hashesKept = 64
    /// Where bases before the `written-hashes` file kept them: a top-level key of base.json.
    static let legacyHashesKey = "bananasWrittenHashes"
    fileprivate let cache = BaseCache()
    /// The history as last read or saved by this process, by its file's path and signature.
    let historyCache = HistoryCache()

    /// The files in the state folder, and in its spare (`StateFolder.spare`): a write the
    /// state folder cannot take (full, read-only, not this user's, a symlink in it) saves its
    /// base in the spare instead, and the list is written all the same. The spare is the state
    /// while it holds written hashes; the next write the state folder takes empties it.
    let main: Files
    let spare: Files?

    struct Files: Sendable {
        let state: StateFolder
        var base: String { state.basePath }
        var hashes: String { state.path + "/written-hashes" }
        /// The hash of the file a bananas writer is renaming into place (see `announce`).
        var incoming: String { state.path + "/incoming-hash" }
        /// The published history (`PublishedHistory`, rule 5; HistoryFiles.swift): saved with
        /// the base, under the lock.
        var history: String { state.path + "/published.json" }
        var log: String { state.path + "/published.log" }
        var sightings: String { state.path + "/deletes-seen" }
        /// This device's replica id for commands (`commandReplica`).
        var replica: String { state.path + "/replica" }
    }

    /// The state folder's files (the spare's are named alike).
    public var path: String { main.base }
    public var hashesPath: String { main.hashes }
    public var incomingPath: String { main.incoming }
    public var historyPath: String { main.history }
    /// The state folder it lives in.
    public var folder: String { main.state.path }

    /// The history's bound in bytes, for a list file of `size` bytes: room for the list's
    /// own rows a few times over, never less than 1 MiB.
    public static func historyMaxBytes(listSize: Int) -> Int { max(1 << 20, 4 * listSize) }

    public init(folder: StateFolder) {
        main = Files(state: folder)
        spare = folder.spare.map(Files.init(state:))
    }

    /// The replica id this device's commands stamp with, read under the list's lock (made
    /// there the first time): one replica per device, not one per command, keeps what a
    /// delete saw (`Knowledge`) a stamp or two. The file names the machine it was made on, so
    /// a state folder copied to another machine makes a replica of its own there. Nil when
    /// the state folder cannot keep it (the caller stamps with a random replica then).
    public func commandReplica() -> String? {
        let files = current
        let machine = Self.machine()
        if let bytes = readBytes(files.replica, limit: 256, in: files) {
            let fields = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init)
            if fields.count == 2, ReplicaID.isValid(fields[0]), fields[1] == machine { return fields[0] }
        }
        guard files.state.make(files.state.path) == nil else { return nil }
        let replica = ReplicaID.random()
        do { try AtomicWrite.replace(files.replica, with: Array("\(replica) \(machine)\n".utf8)) } catch { return nil }
        return replica
    }

    /// This machine's id (systemd's machine-id, else the host name), as one word.
    static func machine() -> String {
        for path in ["/etc/machine-id", "/var/lib/dbus/machine-id"] {
            if let bytes = FileSystem.contents(atPath: path) {
                let id = String(decoding: bytes, as: UTF8.self).filter { $0.isLetter || $0.isNumber }
                if !id.isEmpty { return id }
            }
        }
        var name = [CChar](repeating: 0, count: 256)
        let bytes = gethostname(&name, name.count) == 0 ? name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) } : []
        let host = String(decoding: bytes, as: UTF8.self).filter { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }
        return host.isEmpty ? "unknown" : host
    }

    /// Where the state is now: the spare while it holds written hashes (one stat when it
    /// does not), else the state folder.
    var current: Files {
        if let spare, let st = Sys.linkStatus(spare.hashes), Sys.isRegular(st), spare.state.problem() == nil { return spare }
        return main
    }

    /// The spare folder when it holds the state now, and why the state folder could not take
    /// it (what a write met there, or what it meets now): for `bananas status` and the notes.
    public func keptInSpare() -> (folder: String, reason: ListFileError)? {
        guard let spare, current.state == spare.state else { return nil }
        let reason = problem(in: main) ?? .stateNotSaved(folder: main.state.path, reason: "state not saved", detail: "a write could not save it")
        return (spare.state.path, reason)
    }

    /// Says, before a write's rename, which bytes are about to be the list file. The base and
    /// its hashes are saved only after the rename, so a watcher that wakes at the rename
    /// would take this write for a foreign one (and parse the whole base to merge against
    /// it) or wait for the lock; with this it knows the bytes for ours at once. Only ever
    /// read to tell our own bytes: a write that never landed leaves a hash no file will have.
    ///
    /// Written in place (no temp file and rename: this runs at every write, and costs a
    /// whole-process command time): always the same length, so a reader sees the old hash,
    /// the new one, or in the worst case a torn one that matches no file and is waited out
    /// like an older version's write. Also clears away temp files that dead writers left in
    /// the state folder (`save` writes there next).
    ///
    /// Returns why neither the state folder nor its spare can take it (gone, a file in its
    /// place, read-only, full), nil when one did: the writer then writes nothing, since it
    /// could not save the base.
    @discardableResult
    public func announce(_ hash: UInt64) -> ListFileError? {
        guard let failure = announce(hash, in: main) else { return nil }
        guard let spare, announce(hash, in: spare) == nil else { return failure }
        return nil
    }

    private func announce(_ hash: UInt64, in files: Files) -> ListFileError? {
        if let failure = files.state.make(files.state.path) { return failure }
        AtomicWrite.removeAbandonedTemps(besideAll: [files.incoming, files.base, files.hashes])
        let text = Array((hash.hex + "\n").utf8)
        // O_NONBLOCK: a pipe put in its place fails at once (no reader) instead of waiting.
        let fd = open(files.incoming, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return Sys.failure(errno, path: files.incoming, action: "write") }
        defer { close(fd) }
        var kind = stat()
        guard fstat(fd, &kind) == 0, Sys.isRegular(kind) else { return Sys.failure(EINVAL, path: files.incoming, action: "write") }
        Sys.giveToFolderOwner(fd, files.incoming)
        let written = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == text.count else { return Sys.failure(written < 0 ? errno : ENOSPC, path: files.incoming, action: "write") }
        var st = stat()
        if fstat(fd, &st) == 0, Int(st.st_size) != text.count { _ = ftruncate(fd, off_t(text.count)) }
        return nil
    }

    /// Whether a writer announced `hash` (in the state folder or its spare).
    public func announces(_ hash: UInt64) -> Bool {
        announced(in: main) == hash || spare.map { announced(in: $0) == hash } == true
    }

    /// The hash last announced in the state folder, if any.
    public func announced() -> UInt64? { announced(in: main) }

    private func announced(in files: Files) -> UInt64? {
        guard let bytes = readBytes(files.incoming, limit: 64, in: files) else { return nil }
        return UInt64(String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self), radix: 16)
    }

    public struct Base: Sendable {
        /// Hashes (`Hash.content`) of the file contents bananas wrote, newest last.
        public var writtenHashes: [UInt64]
        private let source: Source

        private enum Source: Sendable {
            case list(ShoppingList?)
            case glance(Glance)
        }

        public init(list: ShoppingList, writtenHashes: [UInt64]) {
            self.writtenHashes = writtenHashes
            source = .list(list)
        }

        init(glance: Glance) {
            writtenHashes = glance.writtenHashes
            source = .glance(glance)
        }

        /// The base list; nil when there is none, or it is damaged (then the file is taken as
        /// it is, which loses nothing, it only cannot tell foreign deletes). Parsed only when
        /// asked for: a file bananas wrote itself (its hash is in `writtenHashes`) needs no
        /// base, and a whole-process command would otherwise decode the list twice.
        public var list: ShoppingList? {
            switch source {
            case .list(let list): list
            case .glance(let glance): glance.list()
            }
        }
    }

    /// The stored base, its list parsed on first use (`Base.list`).
    public func load() -> Base {
        Base(glance: glance())
    }

    /// What a reader needs before it reads the list file without the lock, at the cost of a
    /// small read and a stat: the written hashes, and the base file as it is now, parsed only
    /// if the list file turns out to be a foreign write.
    public struct Glance: Sendable {
        public let writtenHashes: [UInt64]
        let signature: [UInt8]?
        let store: BaseStore
        let files: Files

        /// The base as it was at the glance (one whose bytes hash to a written hash seen
        /// then); nil when there was none, it is damaged, or it has been replaced since (read
        /// the list file again, then glance again).
        public func list() -> ShoppingList? {
            guard signature != nil else { return nil }
            // The base is saved before its hash: the newest hash seen is the base then or
            // an older one, either fit to merge against (see `WriteOrigin`, in BananasSync).
            if let newest = writtenHashes.last, let cached = store.cache.list(for: newest) { return cached }
            return store.read(accepting: writtenHashes, in: files)?.list
        }

        /// True when the base was replaced after this glance.
        public var isStale: Bool {
            store.current.state != files.state || FileSignature.of(files.base) != signature
        }
    }

    /// A state taken in without a write becomes the base, saved with the history that
    /// published it, under the list's lock: the next save is judged against it and merged
    /// into it, its deletes and records included (the history keeps neither).
    public func saveTakenIn(_ list: ShoppingList, history: HistoryUpdate?) -> ListFileError? {
        do {
            return try prepare(list, written: ListCodec.encode(list), history: history).commit()
        } catch {
            return error
        }
    }

    public func glance() -> Glance {
        let files = current
        // The signature first: a base replaced after it is then never taken for this one.
        let signature = FileSignature.of(files.base)
        var hashes = readHashes(in: files)
        if hashes.isEmpty, signature != nil, let legacy = read(accepting: [], in: files)?.legacyHashes {
            hashes = legacy
        }
        return Glance(writtenHashes: hashes, signature: signature, store: self, files: files)
    }

    /// Replaces the base after bananas wrote `list` as `bytes`: `prepare` and `commit` at once.
    ///
    /// Returns why the base or its written hashes could not be saved (the state folder and
    /// its spare are on a full disk, read-only, or gone), nil when both were.
    @discardableResult
    public func save(_ list: ShoppingList?, written bytes: [UInt8], hash: UInt64? = nil) -> ListFileError? {
        do {
            return try prepare(list, written: bytes, hash: hash).commit()
        } catch {
            return error
        }
    }

    /// Writes the base of a write about to be made (and its written hashes) to temp files in
    /// the state folder, or its spare when the state folder cannot take them, before the list
    /// is written: what needs space and permission is done while a refusal still leaves
    /// everything as it was (`ListFile.update` then writes nothing). `commit` after the list's
    /// rename only renames them into place.
    /// `list` is kept in memory as the parsed base; nil (a row patch, which decoded only part
    /// of it) keeps none. Call after `announce` (which cleared dead writers' temp files), with
    /// the list's lock held.
    /// `history`: the published history with this write in it, saved beside the base.
    public func prepare(_ list: ShoppingList?, written bytes: [UInt8], hash: UInt64? = nil,
                        history: HistoryUpdate? = nil) throws(ListFileError) -> PreparedSave {
        let hash = hash ?? Hash.content(bytes)
        // The hashes of the state as it is now, wherever it is, go on with it.
        let hashes = glance().writtenHashes + [hash]
        do {
            return try prepare(list, written: bytes, hash: hash, hashes: hashes, history: history, in: main)
        } catch {
            guard let spare, let saved = try? prepare(list, written: bytes, hash: hash, hashes: hashes, history: history, in: spare) else {
                throw error
            }
            return saved
        }
    }

    private func prepare(_ list: ShoppingList?, written bytes: [UInt8], hash: UInt64, hashes: [UInt64],
                         history: HistoryUpdate?, in files: Files) throws(ListFileError) -> PreparedSave {
        if let problem = files.state.make(files.state.path) { throw problem }
        let text = hashes.suffix(BaseStore.hashesKept).map(\.hex).joined(separator: "\n") + "\n"
        let base = try AtomicWrite.prepare(files.base, with: bytes)
        var prepared: [AtomicWrite.Prepared] = []
        do {
            prepared.append(try AtomicWrite.prepare(files.hashes, with: Array(text.utf8)))
            var history = history
            // Lines for the log they were read from go nowhere else: elsewhere (the spare, or
            // back from it), the history is written whole.
            if case .append(_, _, let source, _)? = history?.change, source.log != files.log {
                history = history?.rewritten(by: self)
            }
            var historyFiles: [AtomicWrite.Prepared] = []
            var appended: (bytes: [UInt8], at: Int)?
            switch history?.change {
            case .rewrite(let file, let log)?:
                historyFiles.append(try AtomicWrite.prepare(files.history, with: file))
                historyFiles.append(try AtomicWrite.prepare(files.log, with: log))
            case .append(let bytes, let at, _, _)?: appended = (bytes, at)
            case nil: break
            }
            if let seen = history?.sightings { historyFiles.append(try AtomicWrite.prepare(files.sightings, with: seen)) }
            prepared += historyFiles
            return PreparedSave(store: self, files: files, list: list, hash: hash, base: base, hashes: prepared[0],
                                history: historyFiles, appended: appended, historyValue: history?.whole)
        } catch {
            base.discard()
            for file in prepared { file.discard() }
            throw error
        }
    }

    /// A base written beside the state folder's files, waiting for the list's rename.
    public struct PreparedSave: Sendable {
        let store: BaseStore
        /// The state folder, or its spare.
        let files: Files
        let list: ShoppingList?
        let hash: UInt64
        let base: AtomicWrite.Prepared
        let hashes: AtomicWrite.Prepared
        /// The history's files, renamed into place in this order (HistoryFiles.swift).
        let history: [AtomicWrite.Prepared]
        /// Lines to append to the log, at the end of its whole lines.
        let appended: (bytes: [UInt8], at: Int)?
        let historyValue: PublishedHistory?

        /// True when the state folder could not take it, and it went to the spare.
        public var isInSpare: Bool { files.state.isSpare }

        /// Renames the base and then its hashes into place (the base first: a reader that
        /// sees the hash sees this base or a newer one). Both through a rename, never in
        /// place: a reader that met the hashes halfway through a write read a mix of two
        /// lists that could end in an older hash (docs/reliability.md). Not fsynced: a base
        /// lost to a power cut only means the next stampless write is taken as it is.
        /// Saved in the state folder, it empties the spare: the state is back where it lives.
        ///
        /// Returns why it failed, nil when both landed. On failure the base file is removed
        /// (when the folder still lets it): a base older than the list must not be trusted by
        /// any process, and without one a stampless write is taken as it is, which loses nothing.
        @discardableResult
        public func commit() -> ListFileError? {
            do {
                try base.commit()
            } catch {
                hashes.discard()
                for file in history { file.discard() }
                store.cache.clear()
                unlink(files.base)
                return error
            }
            if let list { store.cache.store(list, hash: hash) } else { store.cache.clear() }
            do {
                try hashes.commit()
            } catch {
                for file in history { file.discard() }
                store.cache.clear()
                unlink(files.base)
                return error
            }
            if !files.state.isSpare, let spare = store.spare, Sys.linkStatus(spare.hashes) != nil {
                // The hashes first: without them the spare is not the state, whatever else stays.
                for path in [spare.hashes, spare.base, spare.history, spare.log, spare.sightings, spare.incoming] { unlink(path) }
            }
            do throws(ListFileError) {
                for (index, file) in history.enumerated() {
                    do { try file.commit() } catch {
                        for later in history[(index + 1)...] { later.discard() }
                        throw error
                    }
                }
                if let appended { try Self.append(appended.bytes, at: appended.at, to: files.log) }
                if let historyValue { store.cacheHistory(historyValue, in: files) }
            } catch {
                // An older history only proves less: it is kept.
                return error
            }
            return nil
        }

        /// Writes `bytes` at `offset` of the log, cutting off what follows it (a line a crash
        /// left unfinished). Not fsynced, like the base.
        static func append(_ bytes: [UInt8], at offset: Int, to path: String) throws(ListFileError) {
            guard !bytes.isEmpty else { return }
            let fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { throw Sys.failure(errno, path: path, action: "write") }
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0, Sys.isRegular(st) else { throw Sys.failure(EINVAL, path: path, action: "write") }
            if Int(st.st_size) != offset, ftruncate(fd, off_t(offset)) != 0 { throw Sys.failure(errno, path: path, action: "write") }
            let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
            guard written == bytes.count else {
                let code = written < 0 ? errno : ENOSPC
                _ = ftruncate(fd, off_t(offset))
                throw Sys.failure(code, path: path, action: "write")
            }
        }

        /// Removes the temp files: the write they were for was not made.
        public func discard() {
            base.discard()
            hashes.discard()
            for file in history { file.discard() }
        }
    }

    /// Why neither the state folder nor its spare could take a base now (a file where a
    /// folder should be, a read-only or full file system, no write permission), found without
    /// writing anything: what `bananas status` shows for a running instance that pauses for it.
    public func problem() -> ListFileError? {
        guard let failure = problem(in: main) else { return nil }
        if let spare, problem(in: spare) == nil { return nil }
        return .stateNotSaved(failure, folder: main.state.path)
    }

    private func problem(in files: Files) -> ListFileError? {
        if let refused = files.state.problem(), case .symlinkRefused = refused { return refused }
        var existing = files.state.path
        while Sys.linkStatus(existing) == nil, existing.count > 1 { existing = Sys.directoryName(existing) }
        guard let st = Sys.linkStatus(existing) else { return nil }
        var fs = statvfs()
        if (st.st_mode & S_IFMT) != S_IFDIR {
            return Sys.failure(ENOTDIR, path: existing + "/" + Sys.baseName(files.incoming), action: "write")
        } else if statvfs(existing, &fs) == 0, fs.f_flag & UInt(ST_RDONLY) != 0 {
            return .readOnlyFileSystem(path: existing)
        } else if statvfs(existing, &fs) == 0, fs.f_bavail == 0 {
            return .diskFull(path: existing)
        } else if access(existing, W_OK) != 0 {
            return .permissionDenied(path: existing, action: "write")
        }
        return files.state.problem()
    }

    private func readHashes(in files: Files) -> [UInt64] {
        guard let bytes = readBytes(files.hashes, limit: 65_536, in: files) else { return [] }
        return bytes.split(separator: UInt8(ascii: "\n")).compactMap(hexNumber)
    }

    /// A file's bytes in the state folder (or its spare), nil when there is none, it is not a
    /// regular file, or it is `limit` bytes or more: never a symlink followed, a pipe waited
    /// on, a device read without end, or a file read past what it may hold.
    func readBytes(_ path: String, limit: Int = ListCodec.maxFileSize, in files: Files) -> [UInt8]? {
        guard files.state.problem() == nil else { return nil }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        // Its size bounded before it is read: no state file is larger than the list may be.
        guard fstat(fd, &st) == 0, Sys.isRegular(st), st.st_size < limit else { return nil }
        return Sys.readAll(fd, sizeHint: Int(st.st_size))
    }

    /// The base file's bytes in the state folder (tests).
    func readBytes(_ path: String? = nil, limit: Int = ListCodec.maxFileSize) -> [UInt8]? {
        readBytes(path ?? main.base, limit: limit, in: main)
    }

    /// The base list parsed from base.json (and kept) when its bytes hash to one of `hashes`
    /// (any bytes when `hashes` is empty: a base from before the written-hashes file, which
    /// was only ever replaced by rename); nil otherwise, or when it does not decode. Such an
    /// old base named the hashes itself: `legacyHashes`.
    fileprivate func read(accepting hashes: [UInt64], in files: Files) -> (list: ShoppingList, legacyHashes: [UInt64]?)? {
        guard let bytes = readBytes(files.base, in: files) else { return nil }
        let hash = Hash.content(bytes)
        if !hashes.isEmpty, !hashes.contains(hash) { return nil }
        if let cached = cache.entry(for: hash) { return cached }
        guard var list = try? ListCodec.decode(bytes).list else { return nil }
        var legacy: [UInt64]?
        if case .array(let values)? = list.extra.removeValue(forKey: BaseStore.legacyHashesKey) {
            legacy = values.compactMap { if case .string(let hex) = $0 { UInt64(hex, radix: 16) } else { nil } }
        }
        cache.store(list, hash: hash, legacyHashes: legacy)
        return (list, legacy)
    }
}

/// The published history last read or saved in this process, by its file's signature.
final class HistoryCache: Sendable {
    let entry = Mutex<(path: String, signature: [UInt8], history: PublishedHistory)?>(nil)
}

/// The last base parsed (or saved) in this process, by the hash of its bytes.
final class BaseCache: Sendable {
    private struct Entry {
        var hash: UInt64
        var list: ShoppingList
        var legacyHashes: [UInt64]?
    }
    private let entry = Mutex<Entry?>(nil)

    func list(for hash: UInt64) -> ShoppingList? { entry(for: hash)?.list }

    func entry(for hash: UInt64) -> (list: ShoppingList, legacyHashes: [UInt64]?)? {
        entry.withLock { $0?.hash == hash ? ($0!.list, $0!.legacyHashes) : nil }
    }

    func clear() {
        entry.withLock { $0 = nil }
    }

    func store(_ list: ShoppingList, hash: UInt64, legacyHashes: [UInt64]? = nil) {
        entry.withLock { $0 = Entry(hash: hash, list: list, legacyHashes: legacyHashes) }
    }
}
