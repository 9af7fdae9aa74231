import BananasCore
import BananasFile
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// The file side of sync, confined to one serial queue: reads the file when the watcher says
/// it may have changed, recognises our own writes by content hash, absorbs stampless writers'
/// changes, and runs flushes (lock, read, merge, write). It holds no list of its own: the
/// store sends what it has and takes back what the file holds.
///
/// Everything here runs on `queue` (or, for one-shot commands, on the caller's thread before
/// any watching starts); reports go to `deliver`.
final class SyncEngine: @unchecked Sendable {
    let file: ListFile
    let queue: DispatchQueue
    /// The file's time: stamps, and the retries below.
    var time: any TimeSource { file.time }
    private var deliver: @Sendable (FileReport) -> Void = { _ in }

    /// Hash of the bytes last read or written: a change event with these bytes is our own
    /// write (or nothing at all) and is ignored.
    private var lastSeenHash: UInt64?
    private var lastSeenWritable = true
    /// The list last made of a foreign file's bytes without the lock: read twice, judged once.
    private var lastJudged: (hash: UInt64, list: ShoppingList)?
    /// States this engine took in without publishing them (it takes nothing in, or the lock
    /// or the state folder kept it from it): kept in memory on top of the history on disk as
    /// it was then (`diskHead`), with the list they made, so each later save is judged
    /// against them, as a writer would have. Dropped once the history on disk moves on.
    private var unpublished: (diskHead: UInt64?, history: PublishedHistory, list: ShoppingList)?
    /// Stamps foreign writers' changes. Its own replica id: the store's clock is separate.
    private var clock = StampClock(replica: ReplicaID.random())
    private var watcher: FolderWatcher?
    /// False for the viewer and read commands: it reports copies it cannot read, merges
    /// nothing, and takes no state in (a foreign file is shown judged, not published).
    let mergesCopies: Bool
    /// How long taking a foreign file in waits for the lock before showing it judged for now.
    var takeInLockMillis: Int64 = 1_000
    private var takeInRetryScheduled = false
    /// How long merging a conflict copy waits for the lock.
    var copyLockTimeoutMillis: Int64 = 1_000
    /// How long a read waits for a lock holder to finish before judging a file it does not
    /// know (a bananas writer saves its base last, after the list).
    var writerFinishMillis: Int64 = 250
    /// Copies last reported as not merged, and whether a merge is owed (the lock was busy).
    private var reportedUnmerged: [UnmergedCopy] = []
    private var copiesWaiting = false
    private var copyRetryScheduled = false

    /// False for an engine that only shows foreign states (judged in memory): the viewer, and
    /// a command, whose one flush takes the file in with its edit.
    let takesIn: Bool

    init(file: ListFile, mergesCopies: Bool = true, takesIn: Bool? = nil) {
        self.file = file
        self.mergesCopies = mergesCopies
        self.takesIn = takesIn ?? mergesCopies
        queue = DispatchQueue(label: "bananas.sync")
    }

    // MARK: Reading

    /// Reads the file. `.unchanged` when its bytes are the ones last seen.
    ///
    /// Cheap when nothing changed (our own write, a rescan): read and hash, no parse. Bytes
    /// bananas wrote carry every change as stamps and are taken as they are. Any other state
    /// (a stampless save, a Get Bananas server save, another device's write) is taken in under
    /// the lock: judged against the published history, published, and written back when it
    /// was a save (`absorb`). An engine that takes nothing in (`mergesCopies` false), or one
    /// that cannot have the lock now, shows it judged in memory the same way.
    func read(retryingUnparseable: Bool = true) -> FileReport {
        // The base's glance before the file: a base newer than the file would judge rows
        // added since as deleted.
        let glance = file.base?.glance()
        let snapshot: ListFile.Snapshot
        let hash: UInt64
        do {
            let read = try file.readFile()
            var same: ListFile.Snapshot?
            if let bytes = read.bytes { same = file.lastSnapshot(ifSameAs: bytes) }
            hash = same?.contentHash ?? Hash.content(read.bytes ?? [])
            if hash == lastSeenHash, lastSeenWritable { return .unchanged }
            if let same { snapshot = same } else {
                snapshot = try file.snapshot(of: read.bytes, hash: hash, modifiedNanos: read.modifiedNanos)
            }
        } catch {
            if case .unparseable = error, retryingUnparseable {
                // A writer may be halfway through writing in place: look again shortly
                // before calling the file broken.
                usleep(150_000)
                return read(retryingUnparseable: false)
            }
            lastSeenHash = nil
            return .failed(error)
        }
        lastSeenHash = hash
        lastSeenWritable = snapshot.isWritable
        // A missing file is no state a writer changed: a sync engine that deletes the file
        // and then renames the new one in made one replacement.
        guard snapshot.exists, snapshot.isWritable else { return .state(FileState(list: snapshot.list, snapshot: snapshot)) }
        switch ownership(hash, glance: glance) {
        case .newest: return .state(FileState(list: snapshot.list, snapshot: snapshot))
        case .older:
            // A state held here before (a sync engine put it back, or brought back a file taken
            // in earlier): shown with what came after it; a running instance also writes that
            // back, so the file carries it again (when the lock is busy, its next write does).
            if takesIn, let outcome = try? flush(local: nil, lockTimeoutMillis: takeInLockMillis) {
                return .state(FileState(list: outcome.written, snapshot: outcome.snapshot))
            }
            return .state(FileState(list: Self.own(snapshot.list, newest: glance?.list()), snapshot: snapshot))
        case .foreign: break
        }
        if takesIn {
            do {
                let outcome = try flush(local: nil, lockTimeoutMillis: takeInLockMillis)
                return .state(FileState(list: outcome.written, snapshot: outcome.snapshot))
            } catch {
                scheduleTakeIn()
                // Not shown until taken in: a state shown here is merged into what this
                // instance writes, and must be in the history before anyone judges a later
                // save (another process may take the lock next and judge one without it).
                let failure = ListFileError.wrap(error, path: file.path)
                switch failure {
                case .lockHeld, .lockUnusable:
                    lastSeenHash = nil  // the next read tries again
                    return .failed(failure)
                default: break  // the state folder or the file cannot be written: judged in memory
                }
            }
        }
        if lastJudged?.hash != hash { lastJudged = (hash, judgeUnpublished(snapshot, glance: glance)) }
        return .state(FileState(list: lastJudged!.list, snapshot: snapshot))
    }

    /// A foreign file judged without the lock, its state kept in memory (`unpublished`).
    private func judgeUnpublished(_ snapshot: ListFile.Snapshot, glance: BaseStore.Glance?) -> ShoppingList {
        let disk = file.base?.history() ?? PublishedHistory()
        var history = disk
        var head = Self.head(base: file.unsavedBase?.list ?? glance?.list(), history: disk)
        if let unpublished, unpublished.diskHead == disk.head?.hash {
            history = unpublished.history
            head = unpublished.list
        }
        let judgment = judge(snapshot, history: history, head: head)
        if history.state(hashed: snapshot.contentHash) == nil {
            history.publish(judgment.held, hash: snapshot.contentHash, kind: Self.kind(of: snapshot.list, in: history), now: time.nowMillis())
        }
        unpublished = (disk.head?.hash, history, judgment.merged)
        return judgment.merged
    }

    /// The list a save is judged against and merged into: the base (the last write here),
    /// with the newest state published here when that is one taken in without a write since.
    private static func head(base: ShoppingList?, history: PublishedHistory) -> ShoppingList {
        guard let newest = history.head, newest.kind != .write(mark: base?.writeMark ?? .zero) else { return base ?? ShoppingList() }
        let published = history.list(at: newest.number)
        return base.map { $0.merged(with: published) } ?? published
    }

    /// How a state bananas did not write here is published.
    private static func kind(of save: ShoppingList, in history: PublishedHistory) -> PublishedHistory.Kind {
        save.isStampless ? .save(marked: false)
            : history.state(marked: save.writeMark) != nil ? .save(marked: true) : .received(mark: save.writeMark)
    }

    /// Whether bananas wrote these bytes here: in this process, or another that named them (its
    /// written hashes, or the hash it announced before its rename). A writer renames its file
    /// before it saves its base: one holding the lock is waited for briefly.
    private func ownership(_ hash: UInt64, glance: BaseStore.Glance?) -> Ownership {
        if file.unsavedBase?.hash == hash || glance?.writtenHashes.last == hash { return .newest }
        if glance?.writtenHashes.contains(hash) == true { return .older }
        guard let store = file.base else { return .foreign }
        if store.announces(hash) { return .newest }
        if FileLock.waitUntilFree(path: file.lockPath, timeoutMillis: writerFinishMillis),
           store.glance().writtenHashes.contains(hash) {
            return .newest
        }
        return .foreign
    }

    /// Whose bytes a file holds: the newest bananas write here, an older one (a sync engine
    /// put it back), or someone else's.
    private enum Ownership { case newest, older, foreign }

    /// A bananas write as it is; an older one a sync engine put back (`newest`: the base, when
    /// it is not this write) with what came after it: absence is not deletion (rule 4).
    private static func own(_ list: ShoppingList, newest: ShoppingList?) -> ShoppingList {
        newest.map { list.merged(with: $0) } ?? list
    }

    /// A foreign state the lock kept from being taken in: tried again in a second.
    private func scheduleTakeIn() {
        guard !takeInRetryScheduled, watcher != nil else { return }
        takeInRetryScheduled = true
        time.schedule(afterMillis: 1_000, on: queue) { [weak self] in
            guard let self else { return }
            self.takeInRetryScheduled = false
            self.lastSeenHash = nil
            let report = self.read()
            if case .unchanged = report {} else { self.deliver(report) }
        }
    }

    /// A file state bananas did not write here, judged (rule 5, `ShoppingList.judging`):
    /// its writer's changes stamped, its deletes and the values kept for review recorded,
    /// merged into `head`. A file with stamps and a write mark unknown here (another
    /// device's bananas write) has nothing to judge but values whose stamps it kept.
    private func judge(_ snapshot: ListFile.Snapshot, history: PublishedHistory, head: ShoppingList) -> ShoppingList.Judgment {
        let save = snapshot.list
        let now = time.nowMillis()
        let stamp = snapshot.foreignEditStamp(after: max(save.newestStamp, head.newestStamp), now: now,
                                              judgedAgainst: history.head?.hash ?? 0)
        clock.observe(stamp, now: now)
        // The app omits sortOrder: a whole save without it writes no order.
        let ordered = !save.isStampless || snapshot.bytes.map { String(decoding: $0, as: UTF8.self).contains("\"sortOrder\"") } ?? false
        return ShoppingList.judging(save: save, hash: snapshot.contentHash, stamp: stamp, history: history, head: head,
                                    unwritten: { _, field in field == .sortOrder && !ordered })
    }

    /// Under the lock: the file's list as read, a state bananas did not write here taken in
    /// (judged and published).
    private func absorb(_ snapshot: ListFile.Snapshot, base: BaseStore.Base?, history: inout PublishedHistory) -> ShoppingList {
        if let list = unjudged(snapshot, base: base) { return list }
        let hash = snapshot.contentHash
        let newest = base?.writtenHashes.last == hash ? nil : file.unsavedBase?.list ?? base?.list
        if let known = history.state(hashed: hash) {
            switch known.kind {
            case .write, .received: return Self.own(snapshot.list, newest: newest)
            case .save: break
            }
        }
        let judged = judge(snapshot, history: history, head: Self.head(base: file.unsavedBase?.list ?? base?.list, history: history))
        if history.state(hashed: hash) == nil {
            history.publish(judged.held, hash: hash, kind: Self.kind(of: snapshot.list, in: history), now: time.nowMillis())
        }
        return judged.merged
    }

    /// The file's list when it needs no judging, known without the history: no file, or
    /// bytes bananas wrote here (as they are; an older write with what came after it).
    private func unjudged(_ snapshot: ListFile.Snapshot, base: BaseStore.Base?) -> ShoppingList? {
        let hash = snapshot.contentHash
        guard snapshot.exists else { return snapshot.list }
        guard file.unsavedBase?.hash == hash || base?.writtenHashes.contains(hash) == true else { return nil }
        return Self.own(snapshot.list, newest: base?.writtenHashes.last == hash ? nil : file.unsavedBase?.list ?? base?.list)
    }

    // MARK: Flushing

    /// Lock, read, merge `local` if any (and whatever `prepare` adds under the lock), write if
    /// the bytes differ, save the base. Throws when the file cannot be read or written now.
    ///
    /// `mergingCopies`: the conflict copies beside the file are merged first, under the same
    /// lock (`mergeConflictCopies`), so `prepare` sees what they hold: a command that acts on
    /// what `bananas conflicts` showed (dismiss, restore) acts on it even when the copies could
    /// not be merged before, the lock being busy then.
    ///
    /// `handedSave`: a whole stampless list handed over rather than found in the file
    /// (`ListStore.takeIn(save:)`), taken in after the file, as if its writer had saved it
    /// over the file just now: the same `absorb` a foreign file goes through.
    func flush(
        local: ShoppingList?, lockTimeoutMillis: Int64, mergingCopies: Bool = false, handedSave: ListFile.Snapshot? = nil,
        prepare: (inout ShoppingList) throws -> Void = { _ in }
    ) throws -> FlushOutcome {
        var copies = CopiesUnderLock()
        let result = try file.update(
            lockTimeoutMillis: lockTimeoutMillis,
            absorb: { snapshot, base, history in
                // A running instance's states judged while the state folder could not take them
                // are published first, when no one published since: its list holds them (a
                // command's or the viewer's list is never written).
                if self.takesIn, let unpublished = self.unpublished, unpublished.diskHead == history.head?.hash {
                    history.whole = unpublished.history
                }
                // Bytes bananas wrote here need no judging, nor the whole history read.
                var list: ShoppingList
                if let own = self.unjudged(snapshot, base: base) { list = own } else { list = self.absorb(snapshot, base: base, history: &history.whole) }
                if let handedSave { list = self.absorb(handedSave, base: base, history: &history.whole) }
                // Judged (and published) with the file; merged below, as changes to write.
                if mergingCopies { copies = self.takeInCopies(onto: list, base: base, history: &history) }
                return list
            },
            onDisk: { _ in copies.retire(archive: self.file.state, now: self.time.nowMillis()) }
        ) { list, _ in
            if let local { list.merge(local) }
            if let merged = copies.list { list = merged.merged(with: list) }
            try prepare(&list)
        }
        lastSeenHash = result.snapshot.contentHash
        if result.baseSaveFailure == nil { (unpublished, lastJudged) = (nil, nil) }
        return FlushOutcome(fileState: result.fileState, written: result.list, wrote: result.wrote, stateFailure: result.baseSaveFailure,
                            stateInSpare: file.base?.keptInSpare()?.reason,
                            snapshot: result.snapshot, copiesMerged: copies.retired, copiesUnmerged: copies.unmerged)
    }

    // MARK: Conflict copies

    /// What became of the conflict copies beside the file.
    struct CopyOutcome {
        /// Names of the copies merged and retired.
        var merged: [String] = []
        /// Copies left in place, with why.
        var unmerged: [UnmergedCopy] = []
        /// The file as a merge left it, when this engine had not seen it yet.
        var written: FileState?
        /// A merge could not run now (lock held, file unreadable): try again later.
        var failure: ListFileError?
    }

    /// Merges every conflict copy beside the file into it (`ShoppingList.mergingConflictCopy`)
    /// under the lock, and retires each merged copy once the merged file is on disk, still
    /// under the lock: another process that sees the same copy waits for the lock and then
    /// finds it gone. A copy that cannot be read is left in place and reported.
    func mergeConflictCopies(lockTimeoutMillis: Int64) -> CopyOutcome {
        var outcome = CopyOutcome()
        let found = ConflictCopy.find(beside: file.path)
        guard !found.isEmpty else { return outcome }
        // Read them first without the lock: copies that cannot be merged must not make every
        // watcher event take the lock (a file created and removed in a synced folder).
        var mergeable = false
        for copy in found {
            switch inspect(copy) {
            case .unmerged(let problem): outcome.unmerged.append(problem)
            case .copy: mergeable = true
            case .skip: break
            }
        }
        guard mergeable, mergesCopies else { return outcome }
        let seenBeforeFlush = lastSeenHash
        do {
            let flushed = try flush(local: nil, lockTimeoutMillis: lockTimeoutMillis, mergingCopies: true)
            // Written here, or by another process that merged the copies first: either way a
            // state the store has not seen (and the next read would take for one it has).
            if flushed.wrote || flushed.fileHash != seenBeforeFlush {
                outcome.written = FileState(list: flushed.written, snapshot: flushed.snapshot)
            }
            outcome.merged = flushed.copiesMerged
            outcome.unmerged = flushed.copiesUnmerged
        } catch {
            outcome.failure = ListFileError.wrap(error, path: file.path)
        }
        return outcome
    }

    /// Copies merged into the list under the lock, to retire once the merged file is on disk
    /// (still under the lock: another process that sees the same copy waits for the lock and
    /// then finds it gone), and those that cannot be merged.
    private struct CopiesUnderLock {
        var merged: [(copy: ConflictCopy, bytes: [UInt8])] = []
        var unmerged: [UnmergedCopy] = []
        var retired: [String] = []
        /// The file's list with the copies merged in, when any were.
        var list: ShoppingList?

        mutating func retire(archive: StateFolder?, now: Int64) {
            for (copy, bytes) in merged where copy.retire(merged: bytes, archive: archive, now: now) {
                retired.append(copy.name)
            }
        }
    }

    /// Under the lock: every copy beside the file merged into `list`, listed again (another
    /// process may have merged some meanwhile). A copy bananas did not write is taken in like
    /// the file itself: judged and published.
    private func takeInCopies(onto main: ShoppingList, base: BaseStore.Base?, history: inout LockedHistory) -> CopiesUnderLock {
        var copies = CopiesUnderLock()
        var list = main
        for copy in ConflictCopy.find(beside: file.path) {
            switch inspect(copy, list: list) {
            case .unmerged(let problem): copies.unmerged.append(problem)
            case .skip: break
            case .copy(let snapshot, let bytes):
                list = ShoppingList.mergingConflictCopy(absorb(snapshot, base: base, history: &history.whole), into: list)
                copies.merged.append((copy, bytes))
            }
        }
        if !copies.merged.isEmpty { copies.list = list }
        return copies
    }

    /// A read command's view of the copies beside the file: each one that can be merged is
    /// merged into `list` in memory only (judged as a writer would take it in, published
    /// nowhere). Nothing is written and no copy is removed: a copy's deletes take effect only
    /// when a command or an instance that writes merges it (docs/sync.md, "Who merges").
    /// Returns the copies waiting for that, and those that cannot be merged.
    func showingConflictCopies(in list: inout ShoppingList) -> (waiting: [String], unmerged: [UnmergedCopy]) {
        var waiting: [String] = [], unmerged: [UnmergedCopy] = []
        let found = ConflictCopy.find(beside: file.path)
        guard !found.isEmpty else { return ([], []) }
        let base = file.base?.load()
        var history = file.base?.history() ?? PublishedHistory()
        for copy in found {
            switch inspect(copy, list: list) {
            case .unmerged(let problem): unmerged.append(problem)
            case .skip: break
            case .copy(let snapshot, _):
                list = ShoppingList.mergingConflictCopy(absorb(snapshot, base: base, history: &history), into: list)
                waiting.append(copy.name)
            }
        }
        return (waiting, unmerged)
    }

    private enum Inspection {
        case copy(ListFile.Snapshot, bytes: [UInt8])
        case unmerged(UnmergedCopy)
        /// Gone, or not a copy of this list after all.
        case skip
    }

    /// Reads a copy and says whether it can be merged. With `list`, an iCloud numbered
    /// duplicate must share a row with it to count as a copy of this list.
    private func inspect(_ copy: ConflictCopy, list: ShoppingList? = nil) -> Inspection {
        let snapshot: ListFile.Snapshot
        do {
            snapshot = try copy.load()
        } catch {
            return .unmerged(UnmergedCopy(name: copy.name, reason: error.pausedReason, detail: error.description))
        }
        guard let bytes = snapshot.bytes else { return .skip }
        guard snapshot.isWritable else {
            let error = ListFileError.newerSchema(path: copy.path, found: snapshot.decoded.schemaVersion, supported: ListCodec.currentSchemaVersion)
            return .unmerged(UnmergedCopy(name: copy.name, reason: error.pausedReason, detail: error.description))
        }
        if copy.engine == .icloud {
            let main = list ?? (try? file.load().list) ?? ShoppingList()
            guard snapshot.list.sharesRows(with: main) else { return .skip }
        }
        return .copy(snapshot, bytes: bytes)
    }

    /// Forgets the bytes last seen, so the next read reports the file's state (a command's
    /// first read after it merged copies).
    func forgetLastSeen() { lastSeenHash = nil }

    /// Merges copies (when any are there, or a merge is owed) and tells the store what
    /// became of them: the file if it was written, and the copies left in place.
    private func mergeWaitingCopies() {
        let outcome = mergeConflictCopies(lockTimeoutMillis: copyLockTimeoutMillis)
        // Retried every second only for what time fixes (a held lock); a broken list file is
        // retried when the watcher sees it change.
        copiesWaiting = outcome.failure.map { !$0.isContentProblem } ?? false
        if copiesWaiting, !copyRetryScheduled, watcher != nil {
            copyRetryScheduled = true
            time.schedule(afterMillis: 1_000, on: queue) { [weak self] in
                guard let self else { return }
                self.copyRetryScheduled = false
                if self.copiesWaiting, self.watcher != nil { self.mergeWaitingCopies() }
            }
        }
        if let written = outcome.written { deliver(.state(written)) }
        // A merge that could not save this machine's state wrote nothing: the copy waits
        // beside the file, and the store pauses with the reason until a retry merges it.
        if case .stateNotSaved? = outcome.failure { deliver(.failed(outcome.failure!)) }
        if outcome.unmerged != reportedUnmerged {
            reportedUnmerged = outcome.unmerged
            deliver(.copies(outcome.unmerged))
        }
    }

    // MARK: Watching

    /// Starts the watcher; reports go to `deliver` from the queue.
    func startWatching(options: FolderWatcher.Options, deliver: @escaping @Sendable (FileReport) -> Void) {
        queue.async { [self] in
            self.deliver = deliver
            let watcher = FolderWatcher(
                file: file.path, queue: queue, options: options,
                interesting: ConflictCopy.recogniser(forList: file.path),
                alsoWatching: []
            ) { [weak self] trigger in
                self?.changed(trigger)
            }
            watcher.start()
            self.watcher = watcher
            mergeWaitingCopies()
            // A change between the store's first read and the watch would go unseen until the
            // rescan: look once more now that events are on.
            let report = read()
            if case .unchanged = report {} else { deliver(report) }
        }
    }

    func stopWatching() {
        queue.sync {
            watcher?.stop()
            watcher = nil
            deliver = { _ in }
        }
    }

    var usesEvents: Bool { queue.sync { watcher?.usesEvents ?? false } }

    private func changed(_ trigger: FolderWatcher.Trigger) {
        if trigger != .tick || copiesWaiting {
            mergeWaitingCopies()
        }
        if trigger != .tick {
            let report = read()
            if case .unchanged = report {} else { deliver(report) }
        }
        housekeeping()
    }

    /// Cheap checks on every tick (every poll): the store's own housekeeping.
    private func housekeeping() {
        deliver(.tick)
    }

    /// Journals left by dead instances of this file.
    func orphans(excluding own: String?) -> [Journal.Orphan] {
        guard let state = file.state else { return [] }
        return Journal.orphans(in: state, excluding: own) + (state.spare.map { Journal.orphans(in: $0, excluding: own) } ?? [])
    }
}

/// A file as read: its list with foreign changes absorbed, and what the codec said.
struct FileState: @unchecked Sendable {
    var list: ShoppingList
    var snapshot: ListFile.Snapshot
}

struct FlushOutcome: Sendable {
    /// The file as read under the lock, before our changes.
    var fileState: ShoppingList
    /// The file now.
    var written: ShoppingList
    var wrote: Bool
    /// The write landed but this machine's sync state could not be saved after it
    /// (`ListFile.UpdateResult.baseSaveFailure`): pause with it until a flush saves it.
    var stateFailure: ListFileError?
    /// Why the state folder could not take this machine's sync state, which its spare holds.
    var stateInSpare: ListFileError?
    /// The file as it is now.
    var snapshot: ListFile.Snapshot
    /// Conflict copies merged and retired (`mergingCopies`), and those left in place.
    var copiesMerged: [String] = []
    var copiesUnmerged: [UnmergedCopy] = []

    var fileHash: UInt64 { snapshot.contentHash }
}

/// What the engine tells the store.
enum FileReport: @unchecked Sendable {
    case state(FileState)
    case unchanged
    case failed(ListFileError)
    /// The conflict copies beside the file that could not be merged (now all of them).
    case copies([UnmergedCopy])
    /// A quiet poll: time for the store's own housekeeping (retries, journals of dead instances).
    case tick
}
