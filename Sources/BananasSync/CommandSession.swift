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
    private var clock = StampClock(replica: ReplicaID.random())

    /// Conflict copies beside the file that could not be merged.
    public private(set) var unmergedCopies: [UnmergedCopy] = []

    /// Merges any sync-engine conflict copies beside the file into it (waiting up to
    /// `lockTimeoutMillis` for the lock; if it cannot, they wait for the next command or
    /// instance), then reads the file; throws when it cannot be read (a newer schema can be).
    public init(file: ListFile, lockTimeoutMillis: Int64 = 1_000) throws(ListFileError) {
        engine = SyncEngine(file: file)
        unmergedCopies = engine.mergeConflictCopies(lockTimeoutMillis: lockTimeoutMillis).unmerged
        engine.forgetLastSeen()
        switch engine.read(settling: false) {
        case .state(let state):
            list = state.list
            snapshot = state.snapshot
        case .failed(let error):
            throw error
        case .unchanged, .copies, .tick:
            preconditionFailure("a first read reports the file's state or a failure")
        }
    }

    /// Under the lock, with the file's current list plus any dead instance's journal, `build`
    /// decides the edit; it is stamped, applied and written. Returns what `build` reported.
    public func commit<Report>(
        lockTimeoutMillis: Int64,
        _ build: (ShoppingList) throws -> (edit: ListEdit?, report: Report)
    ) throws -> Report {
        let orphans = engine.orphans(excluding: nil)
        // Only the dead instances' edits: the list read before the lock adds nothing the
        // file read under it lacks.
        var local = ShoppingList()
        for orphan in orphans { for entry in orphan.entries { local.merge(entry) } }
        var report: Report?
        var clock = self.clock
        let outcome = try engine.flush(local: local, lockTimeoutMillis: lockTimeoutMillis) { merged in
            let (edit, built) = try build(merged)
            report = built
            if let edit, !edit.isEmpty {
                let now = Clock.nowMillis()
                clock.observe(merged.newestStamp, now: now)
                try merged.apply(edit, stamp: clock.next(now: now), modifiedAt: Timestamp.iso8601(millis: now))
            }
        }
        self.clock = clock
        for orphan in orphans { orphan.discard() }
        list = outcome.written
        return report!
    }

    /// Merges the conflict copies beside `file` (as every command does when it opens the
    /// list) and returns the ones left in place, for commands that do not otherwise open it.
    public static func mergeConflictCopies(_ file: ListFile, lockTimeoutMillis: Int64 = 1_000) -> [UnmergedCopy] {
        SyncEngine(file: file).mergeConflictCopies(lockTimeoutMillis: lockTimeoutMillis).unmerged
    }

    /// Conflicts awaiting review on this machine.
}
