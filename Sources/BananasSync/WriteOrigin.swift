import BananasCore
import BananasFile

/// Whose write a state of the list file is, and what its list is merged against: the one
/// place bananas tells its own writes from foreign ones (docs/sync.md). A pure value: the
/// engine gathers what it read (the bytes' hash, the base's written hashes, the hash a writer
/// announced, the state it took in last), and waits, parses or stamps only as the verdict
/// asks. `ListFile` only reads, locks and renames.
struct WriteOrigin: Equatable {
    /// `Hash.content` of the bytes read (of none when there is no file).
    var hash: UInt64
    var exists: Bool
    /// The hashes of the files bananas wrote here, newest last, as glanced *before* the file
    /// was read; nil when no state is kept.
    var writtenHashes: [UInt64]?
    /// The hash a bananas writer announced just before its rename (`BaseStore.announce`).
    var announced: UInt64? = nil
    /// Whether a bananas writer that may be between its rename and saving its base has been
    /// looked for (or the file was read under the lock, where none can be).
    var settled: Bool
    /// The file state this engine took in last.
    var previous: Previous?
    /// Whether there is a base to compare a foreign write with; nil when not looked at yet
    /// (parsing it costs, and only a foreign write needs it).
    var hasBase: Bool?
    /// The file's write mark (`sync.written`): the bananas write it comes from, which a writer
    /// that keeps `sync` (the Get Bananas server) hands back; zero when it has none.
    var mark: Stamp = .zero

    struct Previous: Equatable {
        var hash: UInt64
        /// The newest written hash when that state was read.
        var baseMark: UInt64?
        /// That state's write mark.
        var mark: Stamp = .zero
    }

    enum Verdict: Equatable {
        /// The bytes this engine took in last: the list it made of them then (a stampless
        /// file read twice is stamped once, so its edits do not beat later local ones).
        case seenBefore
        /// No file: absence, never "every row deleted". Taken as it is.
        case absent
        /// Bytes bananas wrote, here or in another process: every change in them carries
        /// stamps. Taken as they are.
        case own
        /// Not known yet: a bananas writer renames its file before it saves its base. Look
        /// at the announced hash, wait for the lock, glance again, and ask again `settled`.
        case unsettled
        /// A foreign write: look for the base and ask again with `hasBase`.
        case needsBase
        /// A foreign write, its changes stamped against `Against`.
        case foreign(Against)
        /// A foreign write with nothing to compare it with (the first read, with no base):
        /// taken as it is (deletes cannot be told, and nothing is lost).
        case foreignWithoutBase
    }

    enum Against: Equatable {
        /// The base: the file as bananas here last wrote it.
        case base
        /// The file as this engine read it last. With a base, when it comes from the same
        /// bananas write as the file (the same write mark; for files without one, the same
        /// `baseMark`: no bananas write came between): that read is newer than the base, and a
        /// stampless writer may have removed a row it added a moment ago, before any bananas
        /// write put it in the base. With none (a device that only ever received the file), what the
        /// stampless writer changed, if bananas had stamped it.
        case lastRead
    }

    var verdict: Verdict {
        if previous?.hash == hash { return .seenBefore }
        guard exists else { return .absent }
        if writtenHashes?.contains(hash) == true || announced == hash { return .own }
        if writtenHashes != nil, !settled { return .unsettled }
        guard let hasBase else { return .needsBase }
        if hasBase {
            // A file that names the bananas write it comes from is judged against the state
            // read last only when that state comes from the same write: from a newer one, the
            // state read last lacks what that write added, and a row removed since would not
            // count as a delete. A file without a mark, only when no bananas write came between.
            if let previous, mark.isZero ? previous.baseMark == baseMark : previous.mark == mark { return .foreign(.lastRead) }
            return .foreign(.base)
        }
        // A device that only ever received the list: what it read last is what the writer
        // changed, stamped or not (a phone's save after a phone's save deletes what it dropped).
        if previous != nil { return .foreign(.lastRead) }
        return .foreignWithoutBase
    }

    /// The newest bananas write this state may hold: for a state bananas wrote, itself; for
    /// any other, the newest written hash glanced before it was read. The same mark at a later
    /// read means no bananas write came between. Not simply the newest written hash: a state
    /// found to be bananas's by a later glance (`SyncEngine.settle`), or an older bananas write
    /// put back, would be marked with writes made after it, and a Get Bananas remove made on
    /// one of those was then judged against this older state, which lacked the rows added
    /// since: not a delete, and the row came back (nine-writer test, session 22).
    var baseMark: UInt64? {
        guard let writtenHashes else { return nil }
        return writtenHashes.contains(hash) || announced == hash ? hash : writtenHashes.last
    }
}

extension ListFile.Snapshot {
    /// This file's list with a stampless writer's changes stamped against `base` (see
    /// `ShoppingList.absorbing`). Their stamp is `Stamp.foreignEdit`: the time the file was
    /// written, past every stamp in sight (so a foreign edit always beats the value it
    /// replaced), and the same in every instance that reads these bytes. `clock` observes it.
    ///
    /// `base` must have been read *before* the file: a base newer than the file (read without
    /// the lock) would make the rows added since look deleted. An older base is harmless: the
    /// file then holds stamps it has not seen.
    /// A stampless whole-list save (the Get Bananas app) may have read an older state than
    /// `base`: it is judged against the one of `older` (the states bananas wrote before) it
    /// agrees with most. A save that kept the mark of an older bananas write (the Get Bananas
    /// server editing a write a sync engine put back) is judged against that write's state
    /// when it is one of `older` (`writeMadeFrom`): what it lacks of it, its writer removed.
    /// `older` is read and parsed only for those two.
    func absorbed(against base: ShoppingList, older: @autoclosure () -> [ShoppingList] = [], clock: inout StampClock, now: Int64) -> ShoppingList {
        let stamp = foreignEditStamp(after: max(list.newestStamp, base.newestStamp), now: now)
        clock.observe(stamp, now: now)
        if list.isStampless {
            let bases = [base] + older().filter { $0 != base }
            if bases.count > 1 { return ShoppingList.absorbing(stampless: list, bases: bases, stamp: stamp) }
        } else if let madeFrom = writeMadeFrom(base: base, older: older()) {
            return ShoppingList.absorbing(file: list, base: madeFrom, stamp: stamp)
        }
        return ShoppingList.absorbing(file: list, base: base, stamp: stamp)
    }

    /// The state of the bananas write made here that this file keeps the mark of: `base`, or
    /// one of `older` (parsed only then); nil for a file with no mark, or one written elsewhere
    /// or too long ago.
    func writeMadeFrom(base: ShoppingList, older: @autoclosure () -> [ShoppingList]) -> ShoppingList? {
        let mark = list.writeStamp
        if mark.isZero { return nil }
        if base.writeStamp == mark { return base }
        return older().first { $0.writeStamp == mark }
    }

    /// The stamp of a change a writer without stamps made in these bytes: the file's time, or
    /// just past `after`.
    func foreignEditStamp(after: Stamp, now: Int64) -> Stamp {
        // A file time far ahead of this clock (a file server's or a synced device's clock
        // running fast) is not used: the stamp is then just past what the edit replaced, the
        // same in every instance (where "now" would not be).
        let written = modifiedNanos.flatMap { $0 / 1_000_000 <= now + StampClock.maxForwardJump ? $0 : nil }
        return Stamp.foreignEdit(writtenAtNanos: written, after: after, content: contentHash)
    }
}
