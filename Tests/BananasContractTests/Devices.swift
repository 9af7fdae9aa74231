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
    /// A stampless whole-list save (the Get Bananas app's) reaches `r` and is taken in (rule 5):
    /// as the list file, or (`asCopy`) set aside by the sync engine as a conflict copy beside it.
    /// `salt` tells saves apart that would otherwise look alike to an in-memory hash.
    func stamplessSave(_ r: Int, _ save: ShoppingList, onto list: ShoppingList, now: Int64, salt: Int, asCopy: Bool) -> TakenIn
    /// Replica `r`'s state folder is lost (a new machine, a restored backup): what judges a
    /// save must come from the file (and a running instance's memory).
    func wipeState(_ r: Int)
    /// What went wrong that the model's checks would not name (a read that failed).
    var problems: [String] { get }
}

/// A stampless save as a device took it in.
struct TakenIn {
    /// What the device shows after taking it in.
    var merged: ShoppingList
    /// The pure judgment of the save against the list the device held (`ShoppingList.judging`):
    /// its edits (stamped, each saying what it saw), deletes and questions.
    var judgment: ShoppingList.Judgment
}

/// The core alone: merges and judging called directly. Nothing expires.
final class InMemoryDevices: ContractDevices {
    let problems: [String] = []

    func wrote(_ r: Int, _ list: ShoppingList, now: Int64) -> ShoppingList { list }

    func received(_ r: Int, _ copy: ShoppingList, onto list: ShoppingList, now: Int64) -> ShoppingList {
        list.merged(with: copy)
    }

    func conflictCopy(_ r: Int, _ copy: ShoppingList, onto list: ShoppingList, now: Int64) -> ShoppingList {
        ShoppingList.mergingConflictCopy(copy, into: list)
    }

    func stamplessSave(_ r: Int, _ save: ShoppingList, onto list: ShoppingList, now: Int64, salt: Int, asCopy: Bool) -> TakenIn {
        let judgment = Self.judge(save, onto: list, now: now, hash: UInt64(salt) &* 0x9E37_79B9_7F4A_7C15)
        let merged = asCopy ? ShoppingList.mergingConflictCopy(judgment.merged, into: list) : judgment.merged
        return TakenIn(merged: merged, judgment: judgment)
    }

    func wipeState(_ r: Int) {}

    /// The judgment a device holding `list` makes of `save`, written at `now`.
    static func judge(_ save: ShoppingList, onto list: ShoppingList, now: Int64, hash: UInt64) -> ShoppingList.Judgment {
        ShoppingList.judging(save: save, writtenAtNanos: now * 1_000_000, hash: hash, head: list, deletes: true,
                             unwritten: { _, field in field == .sortOrder })
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
        conflictCopy(bytes(of: copy), r, onto: list, now: now)
    }

    private func conflictCopy(_ bytes: [UInt8], _ r: Int, onto list: ShoppingList, now: Int64) -> ShoppingList {
        setTime(r, now)
        copyNumber += 1
        let folder = (devices[r].box.listPath as NSString).deletingLastPathComponent
        let path = folder + String(format: "/BananaList.sync-conflict-20261127-%06d-ABCDEF7.json", copyNumber)
        deliver(bytes, to: path, now: now)
        let outcome = devices[r].engine.mergeConflictCopies(lockTimeoutMillis: 2_000)
        if let failure = outcome.failure { problems.append("r\(r): a conflict copy was not merged: \(failure)") }
        if !outcome.unmerged.isEmpty { problems.append("r\(r): a conflict copy was left: \(outcome.unmerged)") }
        return outcome.written.map { shown(r, $0.list) } ?? read(r, onto: list, now: now)
    }

    func stamplessSave(_ r: Int, _ save: ShoppingList, onto list: ShoppingList, now: Int64, salt: Int, asCopy: Bool) -> TakenIn {
        let bytes = Self.version1(save)
        let decoded = (try? ListCodec.decode(bytes).list) ?? ShoppingList()
        let judgment = InMemoryDevices.judge(decoded, onto: list, now: now, hash: Hash.content(bytes))
        let merged: ShoppingList
        if asCopy {
            merged = conflictCopy(bytes, r, onto: list, now: now)
        } else {
            deliver(bytes, to: devices[r].box.listPath, now: now)
            merged = read(r, onto: list, now: now)
        }
        // The engine judges what the pure judgment does: the same save, the same list.
        let expected = asCopy ? ShoppingList.mergingConflictCopy(judgment.merged, into: list) : judgment.merged
        if merged.items != expected.items {
            problems.append("r\(r): the engine took the save in otherwise than the judgment: " + ContractModel.difference(expected, merged))
        }
        return TakenIn(merged: merged, judgment: judgment)
    }

    func wipeState(_ r: Int) {
        guard let folder = devices[r].file.base?.folder else { return }
        try? FileManager.default.removeItem(atPath: folder)
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
