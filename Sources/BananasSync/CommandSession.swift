import BananasCore
import BananasFile

/// One CLI command's use of the list: the same sync engine as the editor (absorbing
/// stampless writers against the base, replaying dead instances' journals, lock, merge,
/// atomic write), without a journal or a watcher of its own: a command holds its edit for
/// milliseconds, and its exit status is the acknowledgement. When `commit` throws, the file
/// is as it was and the caller says so.
public final class CommandSession {
    let engine: SyncEngine
    public private(set) var list: ShoppingList
    public let snapshot: ListFile.Snapshot
    public var file: ListFile { engine.file }
    /// Made under the lock at the first commit, with this device's command replica.
    private var clock: StampClock?

    /// Conflict copies beside the file that could not be merged.
    public private(set) var unmergedCopies: [UnmergedCopy] = []
    /// A reading session's copies that are shown merged but stay beside the file, for the
    /// next command or instance that writes.
    public private(set) var waitingCopies: [String] = []
    /// A read session: the list shown holds a stampless save (the Get Bananas app, a hand
    /// edit) taken in but not yet written back: the file lacks some of what the list shows,
    /// or the records of values it beat. The next bananas write writes it.
    public private(set) var unwrittenSave = false
    /// After `commit`: the edit is in the file, but this machine's sync state could not be
    /// saved after it (the state folder filled up meanwhile).
    public private(set) var stateFailure: ListFileError?

    /// Reads the file; throws when it cannot be read (a newer schema can be).
    ///
    /// `writing` (a command that changes the list): first merges any sync-engine conflict
    /// copies beside the file into it and retires them (waiting up to `lockTimeoutMillis` for
    /// the lock; if it cannot, they wait for the next command or instance). A read command
    /// (`writing: false`) never writes: it shows the copies merged, in memory only, and
    /// leaves them, their deletes included, to a writer (docs/sync.md, "Who merges").
    public init(file: ListFile, lockTimeoutMillis: Int64 = 1_000, writing: Bool = true) throws(ListFileError) {
        // Its one flush (`commit`) takes a foreign file in with the edit; a read command never writes.
        engine = SyncEngine(file: file.readingRowsOnDemand(), takesIn: false)
        if writing {
            unmergedCopies = engine.mergeConflictCopies(lockTimeoutMillis: lockTimeoutMillis).unmerged
            engine.forgetLastSeen()
        }
        switch engine.read(retryingUnparseable: false) {
        case .state(let state):
            var shown = state.list
            if !writing {
                let file = state.snapshot.list
                unwrittenSave = state.snapshot.exists && state.snapshot.isWritable
                    && (!shown.hasSameVisibleContent(as: file) || shown.conflicts.keys != file.conflicts.keys)
                (waitingCopies, unmergedCopies) = engine.showingConflictCopies(in: &shown)
            }
            list = shown
            snapshot = state.snapshot
        case .failed(let error):
            throw error
        case .unchanged, .copies, .tick:
            preconditionFailure("a first read reports the file's state or a failure")
        }
    }

    /// What undoes the last `commit`'s edit (empty when it changed nothing): the command
    /// line keeps it for `bananas undo`.
    public private(set) var lastInverse: ListEdit = .batch([])

    /// Under the lock, with the file's current list plus any dead instance's journal, `build`
    /// decides the edit; it is stamped, applied and written. Returns what `build` reported.
    public func commit<Report>(
        lockTimeoutMillis: Int64,
        _ build: (ShoppingList) throws -> (edit: ListEdit?, report: Report)
    ) throws -> Report {
        var inverse: ListEdit = .batch([])
        let report = try commitApplying(lockTimeoutMillis: lockTimeoutMillis) { list, stamp, modifiedAt in
            let (edit, built) = try build(list)
            if let edit, !edit.isEmpty { inverse = try list.apply(edit, stamp: stamp(), modifiedAt: modifiedAt) }
            return built
        }
        lastInverse = inverse
        return report
    }

    /// `commit` with the edit made by `change` itself on the list under the lock, each edit
    /// stamped by a call of `stamp` (`bananas undo` and `redo`: `EditHistory.replay` picks
    /// the step that applies). Returns what `change` reported.
    public func commitApplying<Report>(
        lockTimeoutMillis: Int64,
        _ change: (inout ShoppingList, _ stamp: () -> Stamp, _ modifiedAt: String) throws -> Report
    ) throws -> Report {
        let orphans = engine.orphans(excluding: nil)
        // Only the dead instances' edits: the list read before the lock adds nothing the
        // file read under it lacks.
        var local = ShoppingList()
        for orphan in orphans { for entry in orphan.entries { local.merge(entry) } }
        var report: Report?
        var clock = self.clock
        let state = file.state
        // The copies beside the file merged under this lock too: the edit is built on what a
        // read command showed, though the lock was busy when the session began.
        let outcome = try engine.flush(local: local, lockTimeoutMillis: lockTimeoutMillis, mergingCopies: true) { merged in
            let now = file.time.nowMillis()
            // Under the lock: commands on this device stamp one after another with one
            // replica, each past every stamp the list holds (and so past the last one's).
            var stamps = clock
            let newest = merged.newestStamp
            report = try change(&merged, {
                if stamps == nil {
                    stamps = clock ?? StampClock(replica: state.flatMap { BaseStore(folder: $0).commandReplica() } ?? ReplicaID.random())
                    stamps!.observe(newest, now: now)
                }
                return stamps!.next(now: now)
            }, Timestamp.iso8601(millis: now))
            if stamps != nil { clock = stamps }
        }
        self.clock = clock
        for orphan in orphans { orphan.discard() }
        list = outcome.written
        stateFailure = outcome.stateFailure
        unmergedCopies = outcome.copiesUnmerged
        return report!
    }
}
