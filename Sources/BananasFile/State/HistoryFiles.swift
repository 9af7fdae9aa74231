#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore

/// The published history (rule 5) in the state folder, as three files:
///
/// - `published.json`: the history as of some state (`PublishedHistory.encoded`);
/// - `published.log`: each state published since, one line appended by each write
///   (`HistoryLog`);
/// - `deletes-seen`: when this device first saw each delete the list holds, rewritten when
///   that changes.
///
/// A write reads the log's first and last lines and the sightings, and appends one line: the
/// whole history is read only to judge a state bananas did not write here, and rewritten
/// (the log folded into it, old states pruned) when such a state was taken in, when the log
/// has grown to half the history file, when its oldest state is past its lifetime by a day,
/// or when the two together pass their bound.
extension BaseStore {
    /// How large the log may grow before it is folded, for a history file of `size` bytes.
    static func logMaxBytes(historySize size: Int) -> Int { max(32 << 10, size / 2) }

    /// The whole published history as saved, read without the lock too; empty when there is
    /// none or it does not decode (then stampless saves are judged as saves that saw nothing:
    /// nothing is lost).
    public func history() -> PublishedHistory {
        readHistory(in: current).history
    }

    /// The history as a write under the list's lock uses it: its log's ends and the
    /// sightings, the whole only when asked for.
    public func lockedHistory() -> LockedHistory {
        let files = current
        // A log without the history file it follows is no log: the next save writes both.
        let historySize = Sys.linkStatus(files.history).map { Int($0.st_size) }
        let logBytes = historySize == nil ? nil : readBytes(files.log, limit: BaseStore.historyMaxBytes(listSize: ListCodec.maxFileSize), in: files)
        let sightings = readBytes(files.sightings, in: files).flatMap(PublishedHistory.sightings(encoded:))
        var locked = LockedHistory(store: self, files: files, log: logBytes.flatMap(HistoryLog.init(summarizing:)),
                                   historySize: historySize ?? 0, sightings: sightings)
        if let cached = cachedHistory(in: files) { locked.adopt(cached) }
        return locked
    }

    /// The history in `files`, from the cache when its files did not change since it was
    /// read or saved here.
    func readHistory(in files: Files) -> (history: PublishedHistory, signature: [UInt8]?) {
        if let cached = cachedHistory(in: files) { return (cached, nil) }
        let signature = historySignature(in: files)
        let limit = BaseStore.historyMaxBytes(listSize: ListCodec.maxFileSize)
        var history = readBytes(files.history, limit: limit, in: files).flatMap(PublishedHistory.init(encoded:)) ?? PublishedHistory()
        if let log = readBytes(files.log, limit: limit, in: files), HistoryLog(summarizing: log) != nil {
            history.apply(HistoryLog.publications(in: log))
        }
        if let sightings = readBytes(files.sightings, in: files).flatMap(PublishedHistory.sightings(encoded:)) {
            history.deletesSeen = sightings
        }
        // Kept only if the files did not change while they were read.
        if let signature, historySignature(in: files) == signature {
            historyCache.entry.withLock { $0 = (files.history, signature, history) }
        }
        return (history, signature)
    }

    private func cachedHistory(in files: Files) -> PublishedHistory? {
        guard let cached = historyCache.entry.withLock({ $0 }), cached.path == files.history,
              cached.signature == historySignature(in: files) else { return nil }
        return cached.history
    }

    /// The three files' signatures together; nil when there is no history file.
    func historySignature(in files: Files) -> [UInt8]? {
        guard let history = FileSignature.of(files.history) else { return nil }
        return history + (FileSignature.of(files.log) ?? []) + (FileSignature.of(files.sightings) ?? [])
    }

    /// Remembers `history` as the one its files now hold.
    func cacheHistory(_ history: PublishedHistory, in files: Files) {
        guard let signature = historySignature(in: files) else { return }
        historyCache.entry.withLock { $0 = (files.history, signature, history) }
    }
}

/// The published history under the list's lock, read as far as a write needs it.
public struct LockedHistory: Sendable {
    let store: BaseStore?
    let files: BaseStore.Files?
    /// The log as read; nil when there is none, or it does not read.
    let log: HistoryLog?
    let historySize: Int
    /// When this device first saw each delete; nil until read (no `deletes-seen`: the whole
    /// history holds them, as its file did before the log).
    private var sightings: [UInt64: PublishedHistory.DeleteSighting]?
    private let storedSightings: [UInt64: PublishedHistory.DeleteSighting]?
    private var loaded: PublishedHistory?
    /// Another state than this write's was published (taken in): the history is rewritten.
    public private(set) var tookIn = false
    /// This write's publications, to append.
    private var pending: [PublishedHistory.Publication] = []

    init(store: BaseStore?, files: BaseStore.Files?, log: HistoryLog?, historySize: Int, sightings: [UInt64: PublishedHistory.DeleteSighting]?) {
        self.store = store
        self.files = files
        self.log = log
        self.historySize = historySize
        self.sightings = sightings
        storedSightings = sightings
    }

    /// No history (a list without a state folder).
    public static var none: LockedHistory { LockedHistory(store: nil, files: nil, log: nil, historySize: 0, sightings: [:]) }

    mutating func adopt(_ history: PublishedHistory) {
        loaded = history
        if sightings == nil { sightings = history.deletesSeen }
    }

    /// The newest state published.
    public var head: PublishedHistory.State? {
        loaded.map(\.head) ?? pending.last?.state ?? log?.head
    }

    /// The whole history, read on first use. Setting one with other states than it had
    /// (a state taken in) has the history rewritten at the next save.
    public var whole: PublishedHistory {
        mutating get { load() }
        set {
            let before = load()
            if newValue.states.count != before.states.count || newValue.head != before.head { tookIn = true }
            loaded = newValue
            sightings = newValue.deletesSeen
        }
    }

    private mutating func load() -> PublishedHistory {
        if let loaded { return loaded }
        var history = store.map { $0.readHistory(in: files!).history } ?? PublishedHistory()
        history.apply(pending)
        if let sightings { history.deletesSeen = sightings } else { sightings = history.deletesSeen }
        loaded = history
        return history
    }

    /// When this device first saw the delete kept under `key` hiding `hiding`.
    public mutating func deleteFirstSeen(_ key: UInt64, hiding: Stamp) -> Int64? {
        if sightings == nil { _ = load() }
        return sightings?[key]?.firstSeen(hiding: hiding)
    }

    /// Publishes `list` as the state its file now holds (`PublishedHistory.publish`).
    /// `replacing`: the file it replaces, as read (its hash and list). When that is the
    /// newest state published, and a write of ours, what it showed is what it holds: the
    /// whole history is not read.
    public mutating func publish(_ list: ShoppingList, hash: UInt64, kind: PublishedHistory.Kind, now: Int64, born: Bool,
                                 replacing file: (hash: UInt64, list: ShoppingList)?) {
        if loaded == nil, let head, case .write = head.kind, head.hash == file?.hash, let file, sightings != nil {
            let state = PublishedHistory.State(number: head.number + 1, hash: hash, kind: kind, firstSeen: now)
            pending.append(PublishedHistory.publication(of: list, over: file.list, state: state))
            // Deletes the write did not touch (one storage with the file's) were seen as they were.
            let untouched = withUnsafeBytes(of: list.tombstones) { a in withUnsafeBytes(of: file.list.tombstones) { b in a.elementsEqual(b) } }
            if !untouched { sightings = PublishedHistory.sightings(sightings!, of: list, now: now) }
            return
        }
        var history = load()
        pending.append(history.publish(list, hash: hash, kind: kind, now: now, born: born))
        loaded = history
        sightings = history.deletesSeen
    }

    /// Whether this write's publications follow the log's last line.
    private func continues(_ log: HistoryLog) -> Bool {
        guard let first = pending.first?.state.number else { return true }
        return first == log.head.number + 1 && loaded.map { $0.states.contains(log.head) } != false
    }

    /// What saving writes (`BaseStore.prepare`): this write's lines appended to the log, or
    /// the whole history rewritten (folded and pruned, `head` the list its newest state is of)
    /// when it must be; and the sightings, when they changed.
    public mutating func update(now: Int64, maxBytes: Int, head list: ShoppingList) -> HistoryUpdate? {
        guard store != nil else { return nil }
        let lines = pending.flatMap(HistoryLog.line)
        let seen = sightings.flatMap { $0 == storedSightings ? nil : PublishedHistory.encoded(sightings: $0) }
        if !tookIn, let log, continues(log), log.oldest >= now - PublishedHistory.lifetimeMillis - 86_400_000,
           log.length + lines.count <= BaseStore.logMaxBytes(historySize: historySize),
           historySize + log.length + lines.count <= maxBytes {
            return HistoryUpdate(change: .append(lines, at: log.length, of: files!, publications: pending), sightings: seen,
                                 deletesSeen: sightings, whole: loaded)
        }
        let history = load().pruned(now: now, maxBytes: maxBytes, head: list)
        loaded = history
        return HistoryUpdate(rewriting: history)
    }
}

/// What a save writes of the published history.
public struct HistoryUpdate: Sendable {
    enum Change: Sendable {
        /// Lines appended to the log of `of` (the files read), at its whole lines' end: the
        /// lines of `publications`.
        case append([UInt8], at: Int, of: BaseStore.Files, publications: [PublishedHistory.Publication])
        /// The history file and a log begun after it.
        case rewrite(file: [UInt8], log: [UInt8])
    }
    let change: Change?
    /// `deletes-seen`, when it changed.
    let sightings: [UInt8]?
    /// When this device first saw each delete, after it.
    let deletesSeen: [UInt64: PublishedHistory.DeleteSighting]?
    /// The whole history after it, when it was read.
    let whole: PublishedHistory?

    init(change: Change?, sightings: [UInt8]?, deletesSeen: [UInt64: PublishedHistory.DeleteSighting]?, whole: PublishedHistory?) {
        self.change = change
        self.sightings = sightings
        self.deletesSeen = deletesSeen
        self.whole = whole
    }

    /// The same update for other files than those it was read from (the spare, or back from
    /// it): the whole history, read from where it was, with this write's states in it.
    func rewritten(by store: BaseStore) -> HistoryUpdate {
        guard case .append(_, _, let files, let publications)? = change else { return self }
        var history = whole ?? store.readHistory(in: files).history
        if whole == nil { history.apply(publications) }
        if let deletesSeen { history.deletesSeen = deletesSeen }
        return HistoryUpdate(rewriting: history)
    }

    /// `history` written whole, with a log begun after it.
    public init(rewriting history: PublishedHistory) {
        let header = history.head.map { HistoryLog.header(folded: $0, oldest: history.states.first!.firstSeen) }
        self.init(change: header.map { .rewrite(file: history.encoded(), log: $0) },
                  sightings: PublishedHistory.encoded(sightings: history.deletesSeen), deletesSeen: history.deletesSeen, whole: history)
    }
}
