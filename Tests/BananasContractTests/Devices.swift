@testable import BananasCore
@testable import BananasFile
@testable import BananasSync
import BananasTestSupport
import Foundation

/// Where the contract model's replicas keep their lists, and how states reach them. The model
/// makes the edits and keeps the oracle; a device stores, receives and judges.
protocol ContractDevices: AnyObject {
    /// Replica `r` shows `list` (the start, or edits made on what it showed) and writes it.
    /// Returns what it shows after the write.
    func wrote(_ r: Int, _ list: ShoppingList, now: Int64) throws -> ShoppingList
    /// A copy of another replica's list reaches `r` (a sync, or a stale or duplicate delivery).
    func received(_ r: Int, _ copy: ShoppingList, onto list: ShoppingList, now: Int64) -> ShoppingList
    /// A conflict copy a sync engine made of another replica's list appears beside `r`'s.
    func conflictCopy(_ r: Int, _ copy: ShoppingList, onto list: ShoppingList, now: Int64) -> ShoppingList
    /// A stampless whole-list save (the Get Bananas app's) reaches `r` and is taken in (rule 5).
    /// `salt` tells saves apart that would otherwise look alike to an in-memory hash.
    func stamplessSave(_ r: Int, _ save: ShoppingList, onto list: ShoppingList, now: Int64, salt: Int) -> TakenIn
    /// What went wrong that the model's checks would not name (a read that failed).
    var problems: [String] { get }
}

/// A stampless save as a device took it in.
struct TakenIn {
    /// The save as its writer holds it, stamped (what the history published for it).
    var held: ShoppingList
    /// What the device shows after taking it in.
    var merged: ShoppingList
    /// The state it was judged against, if any: its number in the history, and its list.
    var anchorNumber: Int?
    var anchor: ShoppingList?
    /// The stamp of the writer's edits.
    var stamp: Stamp
    /// The writer's deletes: rows the device held that the judgment deleted.
    var deletes: [String: Tombstone]
    /// Where each field the save's stamp wrote says what the edit saw (its stamp history).
    var claims: ShoppingList
}

/// The core alone: each replica's published history in memory, merges and judging called
/// directly. Nothing expires.
final class InMemoryDevices: ContractDevices {
    private var published = [PublishedHistory](repeating: PublishedHistory(), count: 3)
    private var lastPublished = [ShoppingList?](repeating: nil, count: 3)
    let problems: [String] = []

    func wrote(_ r: Int, _ list: ShoppingList, now: Int64) -> ShoppingList {
        publish(r, list, kind: .write(mark: .zero), now: now)
        return list
    }

    func received(_ r: Int, _ copy: ShoppingList, onto list: ShoppingList, now: Int64) -> ShoppingList {
        publish(r, copy, kind: .received(mark: copy.writeMark), now: now)
        return list.merged(with: copy)
    }

    func conflictCopy(_ r: Int, _ copy: ShoppingList, onto list: ShoppingList, now: Int64) -> ShoppingList {
        publish(r, copy, kind: .received(mark: copy.writeMark), now: now)
        return ShoppingList.mergingConflictCopy(copy, into: list)
    }

    func stamplessSave(_ r: Int, _ save: ShoppingList, onto list: ShoppingList, now: Int64, salt: Int) -> TakenIn {
        let stamp = Stamp.foreignEdit(writtenAtNanos: now * 1_000_000, after: max(save.newestStamp, list.newestStamp),
                                      content: UInt64(salt) &* 0x9E37_79B9_7F4A_7C15)
        let judgment = ShoppingList.judging(save: save, hash: Self.hash(save) ^ UInt64(salt), stamp: stamp, history: published[r], head: list)
        let anchor = judgment.anchor.map(published[r].list(at:))
        publish(r, judgment.held, kind: .save(marked: false), now: now)
        return TakenIn(held: judgment.held, merged: judgment.merged, anchorNumber: judgment.anchor, anchor: anchor, stamp: stamp,
                       deletes: Self.byID(judgment.held.tombstones.filter { list.tombstones[$0.key] != $0.value },
                                          rows: [judgment.held, list] + (anchor.map { [$0] } ?? [])),
                       claims: judgment.held)
    }

    /// Deletes by the id of the row they delete, found among these lists' rows.
    static func byID(_ tombstones: [UInt64: Tombstone], rows lists: [ShoppingList]) -> [String: Tombstone] {
        var found: [String: Tombstone] = [:]
        for list in lists {
            for id in list.rows.keys { if let tombstone = tombstones[Tombstone.key(for: id)] { found[id] = tombstone } }
        }
        return found
    }

    /// Publishes `list` on replica `r` (a state it took in or wrote), unless it was the last.
    private func publish(_ r: Int, _ list: ShoppingList, kind: PublishedHistory.Kind, now: Int64) {
        guard lastPublished[r] != list else { return }
        published[r].publish(list, hash: Self.hash(list), kind: kind, now: now, born: published[r].isEmpty)
        lastPublished[r] = list
    }

    static func hash(_ list: ShoppingList) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(list)
        hasher.combine(list.writeMark)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }
}

/// The product: each replica is a device with a folder holding the list file, a private state
/// folder and a running instance's `SyncEngine`, on a clock the model moves (`ManualTime`, at
/// the device's skew). Copies arrive as a sync engine delivers them (a file renamed over the
/// list, or a conflict copy beside it), with the receiving device's time as their modification
/// time; the app's saves arrive as version-1 files (the six legacy keys, no sortOrder).
final class DiskDevices: ContractDevices {
    struct Device {
        let box: Sandbox
        let time: ManualTime
        let file: ListFile
        let engine: SyncEngine
    }
    private var devices: [Device] = []
    private var copyNumber = 0
    /// The bytes of the file each list a device showed came from: a copy is delivered as those
    /// bytes, as a sync engine copies files (a list encoded anew would carry another write's
    /// mark on content that write never had).
    private var files: [ShoppingList: [UInt8]] = [:]
    private(set) var problems: [String] = []

    init() {
        for _ in 0..<3 {
            let box = Sandbox()
            // Set to the device's skewed time before anything reads it.
            let time = ManualTime(startMillis: 0)
            let file = box.file(time: time)
            let engine = SyncEngine(file: file)
            // Nothing else holds the lock: a busy one would be a bug, seen at once.
            (engine.takeInLockMillis, engine.writerFinishMillis) = (0, 0)
            devices.append(Device(box: box, time: time, file: file, engine: engine))
        }
    }

    /// Moves device `r`'s clock to `now` (the model's time never runs backwards).
    private func setTime(_ r: Int, _ now: Int64) {
        let time = devices[r].time
        if now > time.nowMillis() { time.advance(by: now - time.nowMillis()) }
    }

    func wrote(_ r: Int, _ list: ShoppingList, now: Int64) throws -> ShoppingList {
        setTime(r, now)
        return shown(r, try devices[r].engine.flush(local: list, lockTimeoutMillis: 2_000).written)
    }

    /// `list`, shown by device `r`, remembered with the bytes of `r`'s file.
    private func shown(_ r: Int, _ list: ShoppingList) -> ShoppingList {
        if let bytes = devices[r].box.bytes { files[list] = bytes }
        return list
    }

    private func bytes(of list: ShoppingList) -> [UInt8] {
        guard let bytes = files[list] else {
            problems.append("a copy of a list no device showed")
            return ListCodec.encode(list)
        }
        return bytes
    }

    func received(_ r: Int, _ copy: ShoppingList, onto list: ShoppingList, now: Int64) -> ShoppingList {
        deliver(bytes(of: copy), to: devices[r].box.listPath, now: now)
        return read(r, onto: list, now: now)
    }

    func conflictCopy(_ r: Int, _ copy: ShoppingList, onto list: ShoppingList, now: Int64) -> ShoppingList {
        setTime(r, now)
        copyNumber += 1
        let folder = (devices[r].box.listPath as NSString).deletingLastPathComponent
        let path = folder + String(format: "/BananaList.sync-conflict-20261127-%06d-ABCDEF7.json", copyNumber)
        deliver(bytes(of: copy), to: path, now: now)
        let outcome = devices[r].engine.mergeConflictCopies(lockTimeoutMillis: 2_000)
        if let failure = outcome.failure { problems.append("r\(r): a conflict copy was not merged: \(failure)") }
        if !outcome.unmerged.isEmpty { problems.append("r\(r): a conflict copy was left: \(outcome.unmerged)") }
        return outcome.written.map { shown(r, $0.list) } ?? read(r, onto: list, now: now)
    }

    func stamplessSave(_ r: Int, _ save: ShoppingList, onto list: ShoppingList, now: Int64, salt: Int) -> TakenIn {
        let before = devices[r].file.base?.history() ?? PublishedHistory()
        let bytes = Self.version1(save)
        deliver(bytes, to: devices[r].box.listPath, now: now)
        let decoded = (try? ListCodec.decode(bytes).list) ?? ShoppingList()
        let anchor = before.anchor(of: decoded, hash: Hash.content(bytes))
        let merged = read(r, onto: list, now: now)
        let after = devices[r].file.base?.history() ?? PublishedHistory()
        let none = Stamp(millis: -1, counter: 0, replica: "none")
        // A save equal to one published before is not published again (and may have expired
        // since, with the states of its time).
        let hash = Hash.content(bytes)
        guard let (history, state) = after.state(hashed: hash).map({ (after, $0) }) ?? before.state(hashed: hash).map({ (before, $0) }) else {
            problems.append("r\(r): the app's save was not published")
            return TakenIn(held: decoded, merged: merged, anchorNumber: nil, anchor: nil, stamp: none, deletes: [:], claims: merged)
        }
        // The writer's edits and deletes carry one stamp, newer than anything the device held.
        let newest = max(merged.newestStamp, merged.tombstones.values.map(\.stamp).max() ?? .zero)
        let stamp = newest > max(list.newestStamp, list.tombstones.values.map(\.stamp).max() ?? .zero) ? newest : none
        // Its deletes saw the anchor's rows (a delete merged into one made here shows both).
        let anchorList = anchor.map(before.list(at:))
        var deletes: [String: Tombstone] = [:]
        let new = merged.tombstones.filter { key, tombstone in tombstone.stamp == stamp && list.tombstones[key]?.stamp != stamp }
        for (id, tombstone) in InMemoryDevices.byID(new, rows: [merged, list] + (anchorList.map { [$0] } ?? [])) {
            deletes[id] = anchorList?.rows[id].map { Tombstone(stamp: stamp, seen: $0.stamps) } ?? tombstone
        }
        return TakenIn(held: history.list(at: state.number), merged: merged, anchorNumber: anchor, anchor: anchorList,
                       stamp: stamp, deletes: deletes, claims: Self.claims(of: merged, stamp: stamp, anchor: anchorList))
    }

    /// What the save's edits saw: the anchor's value of each field they wrote (the merged
    /// list's stamp histories also hold what this device had seen).
    static func claims(of merged: ShoppingList, stamp: Stamp, anchor: ShoppingList?) -> ShoppingList {
        var claims = merged
        for (id, row) in merged.rows where ItemField.allCases.contains(where: { row.stamps[$0] == stamp }) {
            var copy = row
            for field in ItemField.allCases where row.stamps[field] == stamp {
                copy.stamps.setSeen(field, anchor?.rows[id].map { [$0.stamps[field]] } ?? [])
            }
            claims.rows[id] = copy
        }
        for (key, entry) in merged.sectionEntries where SectionField.allCases.contains(where: { entry.stamps[$0] == stamp }) {
            var copy = entry
            for field in SectionField.allCases where entry.stamps[field] == stamp {
                copy.stamps.setSeen(field, anchor?.sectionEntries[key].map { [$0.stamps[field]] } ?? [])
            }
            claims.sectionEntries[key] = copy
        }
        return claims
    }

    /// The running instance reads the file (its watcher saw it change) and takes it in.
    private func read(_ r: Int, onto list: ShoppingList, now: Int64) -> ShoppingList {
        setTime(r, now)
        switch devices[r].engine.read() {
        case .state(let state): return shown(r, state.list)
        case .unchanged: return shown(r, list)
        case .failed(let error):
            problems.append("r\(r): a read failed: \(error)")
            return list
        case let other:
            problems.append("r\(r): a read reported \(other)")
            return list
        }
    }

    /// Writes `bytes` as a sync engine does (a temporary file renamed into place), modified at
    /// the receiving device's time.
    private func deliver(_ bytes: [UInt8], to path: String, now: Int64) {
        let temporary = (path as NSString).deletingLastPathComponent + "/.syncthing.tmp"
        FileManager.default.createFile(atPath: temporary, contents: Data(bytes))
        var times = [timespec(tv_sec: Int(now / 1_000), tv_nsec: Int(now % 1_000) * 1_000_000),
                     timespec(tv_sec: Int(now / 1_000), tv_nsec: Int(now % 1_000) * 1_000_000)]
        _ = utimensat(AT_FDCWD, temporary, &times, 0)
        _ = rename(temporary, path)
    }

    /// The app's file: the version-1 shape (sections by name, six keys per item, in list order).
    static func version1(_ save: ShoppingList) -> [UInt8] {
        let items: [[String: Any]] = save.items.map {
            ["id": $0.id, "name": $0.name, "amount": $0.amount, "section": $0.section, "checked": $0.checked, "optional": $0.optional]
        }
        let object: [String: Any] = ["sections": save.sections, "items": items]
        return [UInt8](try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }
}
