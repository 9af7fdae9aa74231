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
    let conflictLog: ConflictLog?
    private var deliver: @Sendable (FileReport) -> Void = { _ in }

    /// Hash of the bytes last read or written: a change event with these bytes is our own
    /// write (or nothing at all) and is ignored.
    private var lastSeenHash: UInt64?
    /// The absorbed list for `lastSeenHash`: a stampless file read twice is stamped once,
    /// so its foreign edits do not get newer stamps at every read and beat later local edits.
    private var absorbed: (hash: UInt64, list: ShoppingList)?
    /// Stamps foreign writers' changes. Its own replica id: the store's clock is separate.
    private var clock = StampClock(replica: ReplicaID.random())
    private var watcher: FolderWatcher?
    private var conflictLogSignature: [UInt8]?
    private var lastRescan: Int64 = 0

    init(file: ListFile) {
        self.file = file
        queue = DispatchQueue(label: "bananas.sync")
        conflictLog = file.state.map(ConflictLog.init(folder:))
    }

    // MARK: Reading

    /// Reads the file. `.unchanged` when its bytes are the ones last seen.
    func read(settling: Bool = true) -> FileReport {
        let snapshot: ListFile.Snapshot
        let knownBase = file.base?.load()  // before the file: see `ListFile.absorbing`
        do {
            snapshot = try file.load()
        } catch {
            if case .unparseable = error, settling {
                // A writer may be halfway through writing in place: look again shortly
                // before calling the file broken.
                usleep(150_000)
                return read(settling: false)
            }
            lastSeenHash = nil
            return .failed(error)
        }
        let hash = Hash.fnv1a(snapshot.bytes ?? [])
        if hash == lastSeenHash, snapshot.isWritable { return .unchanged }
        lastSeenHash = hash
        return .state(FileState(list: absorb(snapshot, base: knownBase, hash: hash), snapshot: snapshot))
    }

    private func absorb(_ snapshot: ListFile.Snapshot, base: BaseStore.Base?, hash: UInt64) -> ShoppingList {
        if let absorbed, absorbed.hash == hash { return absorbed.list }
        let list = file.absorbing(snapshot, base: base, clock: &clock, now: Clock.nowMillis())
        absorbed = (hash, list)
        return list
    }

    // MARK: Flushing

    /// Lock, read, merge `local` (and whatever `prepare` adds under the lock), write if the
    /// bytes differ, save the base. Throws when the file cannot be read or written now.
    func flush(
        local: ShoppingList, lockTimeoutMillis: Int64,
        prepare: (inout ShoppingList) throws -> Void = { _ in }
    ) throws -> FlushOutcome {
        let result = try file.update(
            lockTimeoutMillis: lockTimeoutMillis,
            absorb: { snapshot, base in self.absorb(snapshot, base: base, hash: Hash.fnv1a(snapshot.bytes ?? [])) }
        ) { list, _ in
            list.merge(local)
            try prepare(&list)
        }
        let hash = Hash.fnv1a(result.snapshot.bytes ?? [])
        lastSeenHash = hash
        if result.wrote { absorbed = (hash, result.list) }
        return FlushOutcome(fileState: result.fileState, written: result.list, wrote: result.wrote)
    }

    // MARK: Watching

    /// Starts the watcher; reports go to `deliver` from the queue.
    func startWatching(options: FolderWatcher.Options, deliver: @escaping @Sendable (FileReport) -> Void) {
        queue.async { [self] in
            self.deliver = deliver
            let watcher = FolderWatcher(file: file.path, queue: queue, options: options) { [weak self] trigger in
                self?.changed(trigger)
            }
            watcher.start()
            self.watcher = watcher
            conflictLogSignature = logSignature()
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
        if trigger != .tick {
            let report = read()
            if case .unchanged = report {} else { deliver(report) }
        }
        housekeeping()
    }

    /// Cheap checks on every tick: the conflict log changed (another process logged or
    /// resolved something)?
    private func housekeeping() {
        let signature = logSignature()
        if signature != conflictLogSignature {
            conflictLogSignature = signature
            deliver(.conflicts(conflictLog?.awaitingReview() ?? []))
        }
        deliver(.tick)
    }

    private func logSignature() -> [UInt8]? {
        guard let path = conflictLog?.path else { return nil }
        return FileSignature.of(path)
    }

    /// Logs conflicts, then reports the entries awaiting review.
    func log(_ conflicts: [Conflict]) {
        guard let conflictLog else { return }
        try? conflictLog.append(conflicts, at: Clock.nowMillis())
        conflictLogSignature = logSignature()
        deliver(.conflicts(conflictLog.awaitingReview()))
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
}

/// What the engine tells the store.
enum FileReport: @unchecked Sendable {
    case state(FileState)
    case unchanged
    case failed(ListFileError)
    case conflicts([ConflictLog.Entry])
    /// A quiet poll: time for the store's own housekeeping (retries, journals of dead instances).
    case tick
}
