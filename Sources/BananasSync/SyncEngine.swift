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
    private var deliver: @Sendable (FileReport) -> Void = { _ in }

    /// Hash of the bytes last read or written: a change event with these bytes is our own
    /// write (or nothing at all) and is ignored.
    private var lastSeenHash: UInt64?
    private var lastSeenWritable = true
    /// The absorbed list for `lastSeenHash`: a stampless file read twice is stamped once,
    /// so its foreign edits do not get newer stamps at every read and beat later local edits.
    ///
    /// `baseMark` is the newest hash in the base's written hashes when that file was read: the
    /// same mark later means no bananas write came between, so that file is newer than the base.
    private var absorbed: (hash: UInt64, list: ShoppingList, baseMark: UInt64?)?
    /// Rows stampless writers changed that no bananas write here has shown yet.
    private var foreignRowChanges = ForeignRowChanges()
    /// Stamps foreign writers' changes. Its own replica id: the store's clock is separate.
    private var clock = StampClock(replica: ReplicaID.random())
    private var watcher: FolderWatcher?
    private var lastRescan: Int64 = 0
    /// False for the viewer: it reports copies it cannot read, and merges nothing.
    let mergesCopies: Bool
    /// How long merging a conflict copy waits for the lock.
    var copyLockTimeoutMillis: Int64 = 1_000
    /// How long a read waits for a lock holder to finish before judging a file it does not
    /// know (a bananas writer saves its base last; 100,000 items take about 30 ms).
    static let writerSettleMillis: Int64 = 250
    /// Copies last reported as not merged, and whether a merge is owed (the lock was busy).
    private var reportedUnmerged: [UnmergedCopy] = []
    private var copiesWaiting = false
    private var copyRetryScheduled = false

    init(file: ListFile, mergesCopies: Bool = true) {
        self.file = file
        self.mergesCopies = mergesCopies
        queue = DispatchQueue(label: "bananas.sync")
    }

    // MARK: Reading

    /// Reads the file. `.unchanged` when its bytes are the ones last seen.
    ///
    /// Cheap when nothing changed (our own write, a rescan): read and hash, no parse. The base
    /// is parsed only for a foreign write, and then only if this process has not parsed it
    /// since it was saved.
    ///
    /// `glance`: the base as glanced earlier, for a reader that stops between its glance and
    /// the file (as a busy machine's scheduler may make it); a new one otherwise.
    func read(settling: Bool = true, attempts: Int = 3, glance earlier: BaseStore.Glance? = nil) -> FileReport {
        // The base's glance before the file: see `WriteOrigin.writtenHashes`.
        let glance = earlier ?? file.base?.glance()
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
            if case .unparseable = error, settling {
                // A writer may be halfway through writing in place: look again shortly
                // before calling the file broken.
                usleep(150_000)
                return read(settling: false, attempts: attempts)
            }
            lastSeenHash = nil
            return .failed(error)
        }
        // Our last write's base could not be saved: the one on disk is older than that write
        // and must not be merged against. The write's own list is the base (`unsavedBase`).
        let unsaved = file.unsavedBase
        var origin = WriteOrigin(hash: hash, exists: snapshot.exists,
                                 writtenHashes: unsaved.map { (glance?.writtenHashes ?? []) + [$0.hash] } ?? glance?.writtenHashes,
                                 settled: unsaved != nil, previous: previous, hasBase: glance == nil && unsaved == nil ? false : nil,
                                 mark: snapshot.list.writeStamp)
        var baseGlance = glance
        var keepsAbsorbed = true
        if origin.verdict == .unsettled, let store = file.base {
            settle(&origin, glance: &baseGlance, store: store)
        }
        var base: BaseStore.Base?
        if origin.verdict == .needsBase {
            // A foreign write: absorb it against the base as it was before the file was read
            // (with the states written before it, for a stampless save of an older one).
            if let unsaved {
                base = BaseStore.Base(list: unsaved.list, writtenHashes: origin.writtenHashes ?? [unsaved.hash])
            } else if let baseGlance, let list = baseGlance.list() {
                base = BaseStore.Base(list: list, glance: baseGlance)
            }
            // A file that came from a bananas write newer than the glanced base (saved between
            // the glance and the read) is not judged against the older one: its writer read
            // rows that base lacks, and its removing one would not count as a delete.
            let baseTooOld = base.map { snapshot.list.writeStamp > $0.list?.writeStamp ?? .zero } ?? false
            if base == nil || baseTooOld, unsaved == nil, baseGlance?.isStale == true {
                if attempts > 1 { return read(settling: settling, attempts: attempts - 1) }  // saved meanwhile: look again
                if baseTooOld { keepsAbsorbed = false }
            }
            origin.hasBase = base != nil
        }
        lastSeenHash = hash
        lastSeenWritable = snapshot.isWritable
        // A bananas write is absorbed without its base, which only a put-back older one needs.
        let list = absorb(snapshot, origin: origin, base: {
            base ?? baseGlance.flatMap { glance in glance.list().map { BaseStore.Base(list: $0, glance: glance) } }
        })
        // Out of looks, these bytes are taken in for now but not kept as the state last read:
        // a flush absorbs them again against the base it reads under the lock.
        if !keepsAbsorbed { absorbed = nil }
        return .state(FileState(list: list, snapshot: snapshot))
    }

    /// Whether another bananas process wrote the bytes `origin` names: it announces them
    /// before its rename; one that did not (an older version) is waited for to let go of the
    /// lock, and the base glanced at again.
    ///
    /// A bananas writer renames the file into place and then saves its base, with the lock
    /// held throughout: a watcher that fires at the rename reads the new file before its hash
    /// is in the base, and took another bananas process's write for a foreign one, parsing
    /// the whole base and merging against it (90% of propagation at 10,000 items). Whether
    /// bananas wrote some bytes may be judged by the newest base (a file bananas wrote holds
    /// no foreign change, however old); only a base to merge against must predate the read,
    /// so `glance` is replaced only when the bytes turn out to be bananas'.
    private func settle(_ origin: inout WriteOrigin, glance: inout BaseStore.Glance?, store: BaseStore) {
        origin.announced = store.announced()
        if origin.verdict != .own, FileLock.waitUntilFree(path: file.lockPath, timeoutMillis: SyncEngine.writerSettleMillis) {
            let settled = store.glance()
            if settled.writtenHashes.contains(origin.hash) {
                origin.writtenHashes = settled.writtenHashes
                glance = settled
            }
        }
        origin.settled = true
    }

    /// The file state this engine took in last, as `WriteOrigin` knows it.
    private var previous: WriteOrigin.Previous? {
        absorbed.map { WriteOrigin.Previous(hash: $0.hash, baseMark: $0.baseMark, mark: $0.list.writeStamp) }
    }

    /// The file's list as `origin` says to take it; `base` is asked for only to absorb
    /// against it.
    private func absorb(_ snapshot: ListFile.Snapshot, origin: WriteOrigin, base: () -> BaseStore.Base?) -> ShoppingList {
        var list: ShoppingList
        switch origin.verdict {
        case .seenBefore:
            return absorbed!.list
        case .absent:
            // A missing file is no state a writer changed: a sync engine that deletes the file
            // and then renames the new one in made one replacement, to be compared with the
            // file before it (compared with nothing, a Get Bananas delete came back).
            return snapshot.list
        case .own, .foreignWithoutBase:
            list = snapshot.list
        case .foreign(.lastRead):
            list = snapshot.absorbed(against: absorbed!.list, older: base()?.older ?? [], clock: &clock, now: Clock.nowMillis())
        case .foreign(.base):
            list = base().flatMap { known in
                known.list.map { snapshot.absorbed(against: $0, older: known.older, clock: &clock, now: Clock.nowMillis()) }
            } ?? snapshot.list
        case .unsettled, .needsBase:
            preconditionFailure("the origin of a file state is settled before it is absorbed")
        }
        // A state descending from a bananas write here: what stampless writers changed since
        // is in no base until a bananas write here shows it (`ForeignRowChanges`).
        let generation = snapshot.list.writeStamp
        let madeFrom = origin.verdict == .own ? nil : base().flatMap { known in known.list.flatMap { snapshot.writeMadeFrom(base: $0, older: known.older) } }
        let local = !generation.isZero && (origin.verdict == .own || madeFrom != nil)
        if local {
            // An older bananas write put back after a later one was made here: the later one
            // came after the changes noted, and tells which were removed.
            let later = origin.verdict == .own && !foreignRowChanges.isEmpty
                ? base()?.list.flatMap { $0.writeStamp > generation ? $0 : nil } : nil
            list = foreignRowChanges.settling(list, shownBy: later, generation: later?.writeStamp ?? generation,
                                              isThatWrite: origin.verdict == .own && later == nil,
                                              deleteStamp: { snapshot.foreignEditStamp(after: $0, now: Clock.nowMillis()) })
            // Only a foreign write has changes to note: a bananas write's base is not parsed.
            if origin.verdict != .own,
               let judgedAgainst = origin.verdict == .foreign(.lastRead) ? absorbed?.list : madeFrom {
                foreignRowChanges.note(changedFrom: judgedAgainst, to: list, generation: generation)
            }
        }
        absorbed = (origin.hash, list, origin.baseMark)
        return list
    }

    /// The origin of a file read under the lock, with the base loaded before it.
    private func origin(underLock snapshot: ListFile.Snapshot, base: BaseStore.Base?) -> WriteOrigin {
        WriteOrigin(hash: snapshot.contentHash, exists: snapshot.exists, writtenHashes: base?.writtenHashes, settled: true,
                    previous: previous, hasBase: base != nil, mark: snapshot.list.writeStamp)
    }

    // MARK: Flushing

    /// Lock, read, merge `local` if any (and whatever `prepare` adds under the lock), write if
    /// the bytes differ, save the base. Throws when the file cannot be read or written now.
    ///
    /// `mergingCopies`: the conflict copies beside the file are merged first, under the same
    /// lock (`mergeConflictCopies`), so `prepare` sees what they hold: a command that acts on
    /// what `bananas conflicts` showed (dismiss, restore) acts on it even when the copies could
    /// not be merged before, the lock being busy then.
    func flush(
        local: ShoppingList?, lockTimeoutMillis: Int64, mergingCopies: Bool = false,
        prepare: (inout ShoppingList) throws -> Void = { _ in }
    ) throws -> FlushOutcome {
        var copies = CopiesUnderLock()
        let result = try file.update(
            lockTimeoutMillis: lockTimeoutMillis,
            absorb: { snapshot, base in
                self.absorb(snapshot, origin: self.origin(underLock: snapshot, base: base), base: { base })
            },
            settled: { _ in copies.retire(archive: self.file.state) }
        ) { list, _ in
            if let local { list.merge(local) }
            if mergingCopies { copies = mergeCopiesUnderLock(into: &list) }
            try prepare(&list)
        }
        let hash = result.snapshot.contentHash
        lastSeenHash = hash
        if result.wrote {
            absorbed = (hash, result.list, file.base == nil ? nil : hash)  // its hash is the base's newest now
            foreignRowChanges.written(result.list)
        }
        return FlushOutcome(fileState: result.fileState, written: result.list, wrote: result.wrote, stateFailure: result.baseSaveFailure,
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

        mutating func retire(archive: StateFolder?) {
            for (copy, bytes) in merged where copy.retire(merged: bytes, archive: archive) {
                retired.append(copy.name)
            }
        }
    }

    /// Under the lock: every copy beside the file merged into `list`, listed again (another
    /// process may have merged some meanwhile).
    private func mergeCopiesUnderLock(into list: inout ShoppingList) -> CopiesUnderLock {
        var copies = CopiesUnderLock()
        let base = file.base?.load()
        for copy in ConflictCopy.find(beside: file.path) {
            switch inspect(copy, list: list) {
            case .unmerged(let problem): copies.unmerged.append(problem)
            case .skip: break
            case .copy(let snapshot, let bytes):
                mergeCopy(snapshot, bytes: bytes, into: &list, base: base)
                copies.merged.append((copy, bytes))
            }
        }
        return copies
    }

    /// The one rule for merging a copy into the list (`ShoppingList.mergingConflictCopy`).
    private func mergeCopy(_ snapshot: ListFile.Snapshot, bytes: [UInt8], into list: inout ShoppingList, base: BaseStore.Base?) {
        let now = Clock.nowMillis()
        clock.observe(max(list.newestStamp, snapshot.list.newestStamp), now: now)
        // Bytes bananas wrote here carry every change as stamps: nothing to absorb.
        let origin = WriteOrigin(hash: Hash.content(bytes), exists: true, writtenHashes: base?.writtenHashes,
                                 settled: true, previous: nil, hasBase: base != nil)
        let known = origin.verdict == .foreign(.base) ? base?.list : nil
        list = ShoppingList.mergingConflictCopy(snapshot.list, into: list, base: known, stamp: clock.next(now: now))
    }

    /// A read command's view of the copies beside the file: each one that can be merged is
    /// merged into `list` in memory only. Nothing is written and no copy is removed: a copy's
    /// deletes take effect only when a command or an instance that writes merges it
    /// (docs/sync.md, "Who merges"). Returns the copies waiting for that, and those that
    /// cannot be merged.
    func showingConflictCopies(in list: inout ShoppingList) -> (waiting: [String], unmerged: [UnmergedCopy]) {
        var waiting: [String] = [], unmerged: [UnmergedCopy] = []
        let found = ConflictCopy.find(beside: file.path)
        guard !found.isEmpty else { return ([], []) }
        let base = file.base?.load()
        for copy in found {
            switch inspect(copy, list: list) {
            case .unmerged(let problem): unmerged.append(problem)
            case .skip: break
            case .copy(let snapshot, let bytes):
                mergeCopy(snapshot, bytes: bytes, into: &list, base: base)
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
    private func settleConflictCopies() {
        let outcome = mergeConflictCopies(lockTimeoutMillis: copyLockTimeoutMillis)
        // Retried every second only for what time fixes (a held lock); a broken list file is
        // retried when the watcher sees it change.
        copiesWaiting = outcome.failure.map { !$0.isContentProblem } ?? false
        if copiesWaiting, !copyRetryScheduled, watcher != nil {
            copyRetryScheduled = true
            queue.asyncAfter(deadline: .now() + .seconds(1)) { [weak self] in
                guard let self else { return }
                self.copyRetryScheduled = false
                if self.copiesWaiting, self.watcher != nil { self.settleConflictCopies() }
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
            settleConflictCopies()
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
            settleConflictCopies()
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
        guard let folder = file.state?.journalsPath else { return [] }
        return Journal.orphans(in: folder, excluding: own)
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
