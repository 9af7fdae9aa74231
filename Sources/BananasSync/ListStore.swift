import BananasCore
import BananasFile
import Dispatch
import Observation

/// The list every surface edits: an observable in-memory copy of the file, with its undo
/// history and its honest sync state.
///
/// - An edit is stamped, applied, appended to this instance's journal and fsynced before
///   `perform` returns: once it returns, the edit survives a crash (`kill -9` included).
/// - A flush follows a few milliseconds later (a burst of edits shares one): lock, read,
///   merge, write if the bytes differ. Then the journal is cleared.
/// - Changes by anyone else are merged in as soon as the watcher sees them; the store never
///   writes because of them (two idle instances write nothing, ever).
///
/// The store lives on the main actor: surfaces read `list` and `status` there, and observe
/// them with Observation or `subscribe`. File work happens on the sync engine's queue.
@MainActor
@Observable
public final class ListStore {
    public enum Mode: Sendable, Equatable {
        /// Editor and MCP server: journal, watch, flush.
        case live
        /// The read-only viewer: watches and shows; never writes anything, not even a lock.
        case viewer
    }

    public enum Change: Sendable, Equatable {
        /// An edit made through this store (or an undo/redo).
        case edited
        /// Changes from the file merged in.
        case merged
        /// Only the sync status changed.
        case status
    }

    /// The list as this instance sees it: the file's content plus edits not yet flushed.
    public private(set) var list: ShoppingList
    public private(set) var status = SyncStatus()
    /// Increases with every change to `list`.
    public private(set) var revision = 0
    /// What the codec noted about the file (rows it could not read, kept verbatim).
    public private(set) var fileProblems: [String] = []

    public let mode: Mode
    public let file: ListFile
    /// The file's time: stamps, status times, and the delays of flushes and retries.
    public var time: any TimeSource { file.time }

    /// How long a flush waits for a burst of edits to end. None by default: a flush starts
    /// once the main loop's current turn ends, so edits made together (a batch of an agent's,
    /// a burst) share one write, edits made while a flush runs share the next, and an edit
    /// alone reaches the file and every other instance sooner by the whole delay
    /// (docs/performance.md, propagation).
    @ObservationIgnored public var flushDelayMillis = 0
    /// How long a flush waits for a live lock holder before the state turns `paused`.
    @ObservationIgnored public var lockTimeoutMillis: Int64 = 1_000

    @ObservationIgnored let engine: SyncEngine
    @ObservationIgnored var clock = StampClock(replica: ReplicaID.random())
    @ObservationIgnored var journal: Journal?
    /// The file's content as last merged: the base for telling conflicts.
    @ObservationIgnored var lastSynced = ShoppingList()
    @ObservationIgnored var history = EditHistory()
    /// Edits confirmed, and how many of them the file holds.
    @ObservationIgnored var editCount = 0
    @ObservationIgnored var flushedCount = 0
    /// Edits whose journal append failed since the file last held every edit.
    @ObservationIgnored var unjournaled = 0
    @ObservationIgnored var flushScheduled = false
    @ObservationIgnored var retryScheduled = false
    @ObservationIgnored var flushRunning = false
    /// The pause came from writing (lock, permission, disk): only a flush can end it.
    @ObservationIgnored var pausedByWrite = false
    @ObservationIgnored var subscribers: [Int: @MainActor (Change) -> Void] = [:]
    @ObservationIgnored var nextSubscriber = 0
    @ObservationIgnored var closed = false
    /// The file lacks something this list shows (a sync engine put back an older copy, say):
    /// a flush is due even with no edit pending.
    @ObservationIgnored var fileBehind = false

    /// Opens a long-running store. It never fails: a file that cannot
    /// be read now is the `paused` state, and the store recovers when the cause goes away.
    public init(file: ListFile, mode: Mode, watch: FolderWatcher.Options = FolderWatcher.Options()) {
        self.file = file
        self.mode = mode
        self.list = ShoppingList()
        let engine = SyncEngine(file: file, mergesCopies: mode == .live)
        self.engine = engine
        handle(engine.queue.sync { engine.read(retryingUnparseable: false) })
        if mode == .live {
            adopt(engine.queue.sync { engine.orphans(excluding: nil) })
        }
        engine.startWatching(options: watch) { [weak self] report in
            DispatchQueue.main.async {
                MainActor.assumeIsolated { self?.handle(report) }
            }
        }
    }

    // MARK: Observing

    /// Calls `handler` once after every change, until the returned token is cancelled.
    public func subscribe(_ handler: @escaping @MainActor (Change) -> Void) -> Subscription {
        let id = nextSubscriber
        nextSubscriber += 1
        subscribers[id] = handler
        return Subscription { [weak self] in
            MainActor.assumeIsolated { _ = self?.subscribers.removeValue(forKey: id) }
        }
    }

    private func notify(_ change: Change) {
        for handler in subscribers.values { handler(change) }
    }

    // MARK: Editing

    /// Undo or redo met a value someone else wrote since the step: nothing was changed.
    public typealias UndoRefused = EditHistory.Refused

    public var canUndo: Bool { history.canUndo }
    public var canRedo: Bool { history.canRedo }
    public var undoLabel: String? { history.undoLabel }
    public var redoLabel: String? { history.redoLabel }

    /// Applies an edit: stamped, journaled and fsynced before this returns. Returns false
    /// when it changed nothing (and then nothing is recorded).
    @discardableResult
    public func perform(_ edit: ListEdit, label: String) throws -> Bool {
        guard let inverse = try commit(edit) else { return false }
        history.record(inverse: inverse, label: label)
        return true
    }

    /// Undoes the last edit made here; returns its label, or nil when there is nothing to
    /// undo. An edit whose item someone else has since deleted is skipped. An edit whose
    /// value someone else has since changed is not undone (undo never overwrites a value it
    /// did not write): it throws `EditError.changedSince`, changing nothing, and the step is
    /// dropped.
    @discardableResult
    public func undo() throws -> String? {
        try history.replay(.undo, apply: commit)
    }

    @discardableResult
    public func redo() throws -> String? {
        try history.replay(.redo, apply: commit)
    }

    /// Stamps, applies, journals; returns the inverse, or nil when nothing changed.
    private func commit(_ edit: ListEdit) throws -> ListEdit? {
        guard mode != .viewer else { throw StoreError.readOnly }
        guard !closed else { throw StoreError.closed }
        let now = time.nowMillis()
        let stamp = clock.next(now: now)
        var next = list
        let inverse = try next.apply(edit, stamp: stamp, modifiedAt: Timestamp.iso8601(millis: now))
        // A delta with anything in it is a change: the whole lists are compared only when
        // it is empty (one walk of the rows at each edit, not two).
        let delta = next.delta(from: list)
        guard delta != ShoppingList() || next != list else { return nil }
        list = next
        revision += 1
        editCount += 1
        journalDelta(delta)
        scheduleFlush()
        refreshStatus()
        notify(.edited)
        return inverse
    }

    private func journalDelta(_ delta: ShoppingList) {
        guard mode == .live, let state = file.state else { return }
        // A journal holding edits stays where it is; an empty one goes back to the state folder.
        var places = [state] + (state.spare.map { [$0] } ?? [])
        if let journal, journal.count > 0, let at = places.firstIndex(of: journal.folder), at > 0 { places.swapAt(0, at) }
        var failure: ListFileError?
        for place in places {
            do {
                try journal(delta, in: place)
                return
            } catch {
                failure = failure ?? error
            }
        }
        // The edit still goes to the file within milliseconds; the status says it is
        // not crash-safe until then, and every surface that acknowledges it says so. The
        // journal is made anew at the next edit (its folder may be back by then).
        status.journalProblem = failure
        journal = nil
        unjournaled += 1
    }

    /// Appends `delta` to this instance's journal in `state` (the state folder or its spare),
    /// made there when it is elsewhere or was lost. A journal made anew takes everything the
    /// file lacks, not this edit alone (the one before may have lost lines); one left behind
    /// with edits is adopted, like a dead instance's, by the next instance on this file.
    private func journal(_ delta: ShoppingList, in state: StateFolder) throws(ListFileError) {
        let fresh = journal?.folder != state
        if fresh {
            let made = try Journal(in: state)
            if let old = journal, old.count == 0 { old.remove() }
            journal = made
        }
        let whole = fresh && (unjournaled > 0 || status.journalProblem != nil || state.isSpare)
        try journal!.append(whole ? list.delta(from: lastSynced) : delta)
        status.journalProblem = nil
        unjournaled = 0
    }

    /// Edits not yet in the file that no journal holds either (it could not be written):
    /// lost if this instance stops before a write lands them. Surfaces say so instead of
    /// acknowledging them as saved.
    public var unsaved: Int { pending > 0 ? unjournaled : 0 }

    /// Takes over the journals of dead instances: their edits go into this list and this
    /// instance's journal, then their files are removed.
    private func adopt(_ orphans: [Journal.Orphan]) {
        guard mode == .live, !orphans.isEmpty, !closed else { return }
        var delta = ShoppingList()
        for orphan in orphans { for entry in orphan.entries { delta.merge(entry) } }
        let before = list
        list.merge(delta)
        clock.observe(delta.newestStamp, now: time.nowMillis())
        journalDelta(delta)
        if status.journalProblem == nil {
            for orphan in orphans { orphan.discard() }
        }
        editCount += 1
        if list != before {
            revision += 1
            notify(.edited)
        }
        refreshStatus()
        scheduleFlush()
    }

    // MARK: The file's side

    private func handle(_ report: FileReport) {
        guard !closed else { return }
        switch report {
        case .state(let state):
            // A missing file has nothing to merge, and is no state to tell conflicts against:
            // a sync engine replacing the file (Syncthing moving it aside as a conflict copy)
            // leaves it missing for a moment, and taking that for the last state merged would
            // make every field changed since look like a conflict.
            if state.snapshot.exists { absorb(state.list) }
            fileProblems = state.snapshot.decoded.problems
            if state.snapshot.isWritable {
                // A pause for state that could not be saved ends only when a flush saves it.
                if status.pausedBy != nil, !pausedByWrite || pending == 0 && file.unsavedBase == nil { status.pausedBy = nil }
            } else {
                status.pausedBy = .newerSchema(
                    path: file.path, found: state.snapshot.decoded.schemaVersion, supported: ListCodec.currentSchemaVersion)
                pausedByWrite = false
            }
            status.lastSyncMillis = time.nowMillis()
            if mode == .live, let unsaved = file.unsavedBase {
                // A write of this process (a conflict copy's merge, say) could not save this
                // machine's state: paused until a flush saves it.
                status.pausedBy = unsaved.failure
                pausedByWrite = true
                fileBehind = true
                scheduleRetry()
            }
            // Also when the merge recorded a value that lost: the record must reach the file
            // for every device to review it.
            if mode == .live, state.snapshot.isWritable,
               !list.hasSameVisibleContent(as: state.snapshot.list) || list.conflicts.keys != state.snapshot.list.conflicts.keys
               || list.conflictFolds != state.snapshot.list.conflictFolds {
                fileBehind = true
            }
            refreshStatus()
            if pending > 0 || fileBehind, state.snapshot.isWritable {
                // A file that went missing is written back after a moment, not at once: it is
                // usually on its way to being replaced (a sync engine moving it aside) or its
                // folder to being removed (`rm -rf`, which a write-back in between makes fail
                // with "Directory not empty").
                scheduleFlush(afterMillis: state.snapshot.exists ? nil : ListStore.missingFileGraceMillis)
            }
        case .unchanged:
            break
        case .failed(let error):
            status.pausedBy = error
            pausedByWrite = false
            refreshStatus()
        case .copies(let unmerged):
            if status.unmergedCopies != unmerged {
                status.unmergedCopies = unmerged
                notify(.status)
            }
        case .tick:
            if mode == .live {
                // Retry only what time can fix (a lock, a full disk, permissions); a file whose
                // content stops us is retried when the watcher sees it change.
                if pending > 0 || fileBehind, pausedByWrite { scheduleFlush() }
                let own = journal?.path
                let engine = engine
                engine.queue.async {
                    let orphans = engine.orphans(excluding: own)
                    guard !orphans.isEmpty else { return }
                    let box = OrphanBox(orphans: orphans)
                    DispatchQueue.main.async { MainActor.assumeIsolated { [weak self] in self?.adopt(box.orphans) } }
                }
            }
        }
    }

    /// Merges a state of the file into the list (the merge records what lost to what).
    private func absorb(_ fileList: ShoppingList) {
        lastSynced = fileList
        // Every stamp in `list` has been seen by the clock: only the file's others are new.
        clock.observe(fileList.newestStamp(besides: list), now: time.nowMillis())
        let merged = list.merged(with: fileList)
        let now = time.nowMillis()
        // Looked for in the whole list only when the clock saw a stamp ahead (a 10,000-item
        // scan at every read was a sixth of propagating an edit).
        let ahead = clock.mayHaveSeenStamp(aheadOf: now) ? merged.furthestAhead(of: now) : nil
        status.clockSkewMillis = max(clock.largestSkewSeen, ahead?.lead(over: now) ?? 0)
        status.clockSkewReplica = ahead.flatMap { $0.lead(over: now) > SyncStatus.skewWarningMillis ? $0.replica : nil }
        if merged != list {
            list = merged
            revision += 1
            let conflicts = list.conflictList()
            if conflicts != status.conflicts { status.conflicts = conflicts }
            notify(.merged)
        }
    }

    var pending: Int { editCount - flushedCount }

    private func refreshStatus() {
        var next = status
        next.pendingCount = pending
        next.conflicts = list.conflictList()
        if next != status {
            status = next
        }
        notify(.status)
    }

    // MARK: Flushing

    /// How long an instance waits before it writes back a file that went missing.
    static let missingFileGraceMillis = 500

    private func scheduleFlush(afterMillis delay: Int? = nil) {
        guard mode == .live, !flushScheduled, !closed else { return }
        flushScheduled = true
        let delay = delay ?? flushDelayMillis
        if delay == 0 {
            DispatchQueue.main.async { [weak self] in MainActor.assumeIsolated { self?.startFlush() } }
            return
        }
        time.schedule(afterMillis: Int64(delay), on: .main) { [weak self] in
            MainActor.assumeIsolated { self?.startFlush() }
        }
    }

    private func startFlush() {
        flushScheduled = false
        guard pending > 0 || fileBehind, !flushRunning, !closed else { return }
        flushRunning = true
        let local = list
        let upTo = editCount
        let timeout = lockTimeoutMillis
        let engine = engine
        engine.queue.async {
            let result = Result { () throws(ListFileError) in
                do { return try engine.flush(local: local, lockTimeoutMillis: timeout) } catch {
                    throw ListFileError.wrap(error, path: engine.file.path)
                }
            }
            DispatchQueue.main.async {
                MainActor.assumeIsolated { [weak self] in self?.finishFlush(result, upTo: upTo) }
            }
        }
    }

    private func finishFlush(_ result: Result<FlushOutcome, ListFileError>, upTo: Int) {
        flushRunning = false
        switch result {
        case .success(let outcome):
            absorb(outcome.fileState)
            // What was written is the file plus our own edits: nothing in it can conflict
            // with us (checking would take a burst of our own edits for a conflict).
            list.merge(outcome.written)
            lastSynced = outcome.written
            fileBehind = false
            flushedCount = max(flushedCount, upTo)
            if pending == 0 {
                journal?.clear()
                unjournaled = 0
            }
            status.lastSyncMillis = time.nowMillis()
            status.stateInSpare = outcome.stateInSpare
            if let failure = outcome.stateFailure {
                // The file holds the write, but this machine's state does not: paused, and
                // retried (saving the state first) like any write that time can fix.
                status.pausedBy = failure
                pausedByWrite = true
                fileBehind = true
                refreshStatus()
                scheduleRetry()
                return
            }
            status.pausedBy = nil
            pausedByWrite = false
            refreshStatus()
            if pending > 0 { scheduleFlush() }
        case .failure(let error):
            status.pausedBy = error
            pausedByWrite = !error.isContentProblem
            refreshStatus()
            // A second from now (or at a change in the folder) it tries again.
            if pausedByWrite { scheduleRetry() }
        }
    }

    /// While a write is paused by what time can fix (a held lock, a full disk, permissions),
    /// a flush is tried again every second: the watcher's quiet polls are seconds apart, and
    /// a lock's release is no event in the folder.
    private func scheduleRetry() {
        guard mode == .live, !retryScheduled, !closed else { return }
        retryScheduled = true
        time.schedule(afterMillis: 1_000, on: .main) { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.retryScheduled = false
                if self.pending > 0 || self.fileBehind, self.pausedByWrite { self.scheduleFlush() }
            }
        }
    }

    /// Stops watching and makes a last attempt to write pending edits. Returns the number of
    /// edits that stay in the journal (the next instance on this file replays them).
    @discardableResult
    public func close() -> Int {
        guard !closed else { return 0 }
        closed = true
        engine.stopWatching()
        if mode == .live, pending > 0 {
            let local = list
            let engine = engine
            let timeout = max(lockTimeoutMillis, 2_000)
            let outcome = engine.queue.sync { try? engine.flush(local: local, lockTimeoutMillis: timeout) }
            if let outcome {
                list.merge(outcome.written)
                flushedCount = editCount
            }
        }
        if pending == 0 {
            journal?.clear()
            journal?.remove()
        }
        return pending
    }

    /// For tests and the session command: waits (pumping the main queue) until nothing is
    /// pending or `timeoutMillis` passes. Returns true when nothing is pending.
    public func waitUntilFlushed(timeoutMillis: Int64 = 5_000) async -> Bool {
        // Real time: the wait is for the engine's queue, whatever time the file keeps.
        let deadline = ContinuousClock.now + .milliseconds(timeoutMillis)
        while pending > 0 || flushRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
        return pending == 0
    }
}

// MARK: Conditional edits

extension ListStore {
    public enum ConditionalOutcome: Sendable, Equatable {
        /// The condition held; `changed` says whether the edit changed anything. The file holds it.
        case done(changed: Bool)
        /// The condition did not hold: the edit was not made. The store has taken in the file.
        case refused
    }

    /// Performs `edit` (nil: only checks) only when `holds` accepts the list as the file holds
    /// it now, with this instance's edits not yet written merged in. The check and the write
    /// are one flush under the file's lock, so no other writer comes between them (MCP's
    /// `expected_revision`). Edits of this store still pending are written either way. Throws
    /// when the flush cannot run now (lock held past `lockTimeoutMillis`, unreadable file) or
    /// the edit does not apply: then the edit is not made.
    public func perform(
        _ edit: ListEdit?, label: String, if holds: @escaping @Sendable (ShoppingList) -> Bool
    ) async throws -> ConditionalOutcome {
        guard mode == .live else { throw StoreError.readOnly }
        guard !closed else { throw StoreError.closed }
        let local = list
        let upTo = editCount
        let timeout = lockTimeoutMillis
        let engine = engine
        let now = time.nowMillis()
        // Taken here, so no edit of this store can share it; a file with newer stamps gets
        // one past them (an edit beats what its author saw).
        let reserved = clock.next(now: now)
        let clockAfter = clock
        let modified = Timestamp.iso8601(millis: now)
        let result: Result<(FlushOutcome, ListEdit?), any Error> = await withCheckedContinuation { done in
            engine.queue.async {
                var inverse: ListEdit?
                var held = false
                var editError: (any Error)?
                var fallback = clockAfter
                let outcome = Result { () throws -> FlushOutcome in
                    try engine.flush(local: local, lockTimeoutMillis: timeout) { merged in
                        guard holds(merged) else { return }
                        held = true
                        guard let edit else { return }
                        var stamp = reserved
                        // The clock saw every stamp of `local` before reserving: only the
                        // file's other rows can hold a newer one.
                        let newest = merged.newestStamp(besides: local)
                        if newest >= reserved {
                            fallback.observe(newest, now: now)
                            stamp = fallback.next(now: now)
                        }
                        do { inverse = try merged.apply(edit, stamp: stamp, modifiedAt: modified) } catch {
                            editError = error
                            throw error
                        }
                    }
                }
                switch outcome {
                case .success(let flushed): done.resume(returning: held ? .success((flushed, inverse)) : .failure(Refused(flushed)))
                case .failure(let error): done.resume(returning: .failure(editError ?? ListFileError.wrap(error, path: engine.file.path)))
                }
            }
        }
        let flushed: FlushOutcome
        var inverse: ListEdit?
        var refused = false
        switch result {
        case .success(let (outcome, undo)): (flushed, inverse) = (outcome, undo)
        case .failure(let refusal as Refused): (flushed, refused) = (refusal.outcome, true)
        case .failure(let error):
            // Nothing was written; the next ordinary flush or read tells the status.
            throw error
        }
        let before = list
        finishFlush(.success(flushed), upTo: upTo)
        clock.observe(flushed.written.newestStamp(besides: before), now: time.nowMillis())
        let changed = inverse.map { !$0.isEmpty } ?? false
        if changed, let inverse { history.record(inverse: inverse, label: label) }
        if list != before {
            revision += 1
            notify(.edited)
        }
        return refused ? .refused : .done(changed: changed)
    }

    private struct Refused: Error {
        let outcome: FlushOutcome
        init(_ outcome: FlushOutcome) { self.outcome = outcome }
    }
}

// MARK: A whole-list save handed over

extension ListStore {
    /// Takes in `bytes`, a whole list as a writer without stamps saves it (version 1: the Get
    /// Bananas `sections` and `items`, MCP's `update_shopping_list`), as if that writer had
    /// just saved it over the file. Under the file's lock the file is read and taken in, then
    /// the save is taken in by the same judging a foreign file goes through (DESIGN rule 5):
    /// what it proves it saw and changed is its edit, what it never saw stays, omissions it
    /// cannot tell are recorded for review. The result is written and merged here. Edits of
    /// this store still pending are written too. Not an undo step: what the save deleted is
    /// restorable as any delete. Throws, changing nothing, when the bytes are no list or the
    /// flush cannot run now.
    public func takeIn(save bytes: [UInt8]) async throws {
        guard mode == .live else { throw StoreError.readOnly }
        guard !closed else { throw StoreError.closed }
        let save = try ListFile.handedSave(bytes, path: file.path, modifiedNanos: time.nowMillis() * 1_000_000)
        let local = list
        let upTo = editCount
        let timeout = lockTimeoutMillis
        let engine = engine
        let result: Result<FlushOutcome, ListFileError> = await withCheckedContinuation { done in
            engine.queue.async {
                done.resume(returning: Result { () throws(ListFileError) in
                    do { return try engine.flush(local: local, lockTimeoutMillis: timeout, handedSave: save) } catch {
                        throw ListFileError.wrap(error, path: engine.file.path)
                    }
                })
            }
        }
        let flushed = try result.get()
        let before = list
        finishFlush(.success(flushed), upTo: upTo)
        clock.observe(flushed.written.newestStamp(besides: before), now: time.nowMillis())
        if list != before {
            revision += 1
            notify(.merged)
        }
    }
}

/// Cancels a `subscribe` when cancelled or released.
public final class Subscription: Sendable {
    private let cancelAction: @Sendable () -> Void
    init(_ cancel: @escaping @Sendable () -> Void) { cancelAction = cancel }
    public func cancel() { cancelAction() }
}

public enum StoreError: Error, Equatable, CustomStringConvertible {
    case readOnly
    case closed

    public var description: String {
        switch self {
        case .readOnly: "this is the read-only viewer; open the editor to change the list"
        case .closed: "the list is closed"
        }
    }
}

private struct OrphanBox: @unchecked Sendable {
    let orphans: [Journal.Orphan]
}

extension ListFileError {
    /// Reading failed (as opposed to writing): the list itself is out of reach.
    public var isReadFailure: Bool {
        switch self {
        case .unparseable, .notARegularFile, .tooLarge, .folderMissing, .symlinkRefused, .permissionDenied, .io: true
        case .newerSchema, .lockHeld, .lockUnusable, .readOnlyFileSystem, .diskFull, .stateNotSaved: false
        }
    }

    /// The file's content stops us (not the moment): retrying before it changes is pointless.
    public var isContentProblem: Bool {
        switch self {
        case .unparseable, .notARegularFile, .tooLarge, .newerSchema, .symlinkRefused: true
        default: false
        }
    }

    /// Any error from a flush as a `ListFileError` (errors from the core become `io`).
    static func wrap(_ error: any Error, path: String) -> ListFileError {
        if let error = error as? ListFileError { return error }
        return .io(path: path, action: "update", code: 5)
    }
}
