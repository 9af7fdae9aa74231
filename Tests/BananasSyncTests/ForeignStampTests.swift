import BananasCore
import BananasFile
@testable import BananasSync
import BananasTestSupport
import Dispatch
import Foundation
import Testing
import Synchronization

/// A stampless writer's change is stamped by the bananas instance that reads it, with the time
/// the file was written (`Stamp.foreignEdit`). Found by the nine-writer reliability test: a Get
/// Bananas writer added a row, then checked it; one instance read the add, waited for the busy
/// lock (to learn whether bananas wrote those bytes), and stamped the unchecked row when it
/// went on, after another instance had read and stamped the check. Its later stamp on the
/// older value won, and the check was lost.
@Suite("SyncEngine: stamps for stampless writers' changes")
struct ForeignStampTests {
    /// A file as the Get Bananas server writes it: no stamps.
    static func stampless(_ rows: [(id: String, name: String, checked: Bool)]) -> String {
        let items = rows.map {
            #"{"id": "\#($0.id)", "name": "\#($0.name)", "amount": "", "section": "", "checked": \#($0.checked), "optional": false}"#
        }
        return #"{"sections": [], "items": ["# + items.joined(separator: ", ") + "]}"
    }

    /// A list with one item, Milk, written by bananas (so its base is saved).
    static func writtenByBananas() throws -> (Sandbox, Item) {
        let box = Sandbox()
        let milk = Item(id: ItemID.random(), name: "Milk", section: "", sortOrder: 1)
        _ = try box.file().update { list, _ in
            try list.apply(.insert(milk), stamp: Stamp(millis: SystemTime().nowMillis(), counter: 0, replica: "test"))
        }
        return (box, milk)
    }

    @Test("a change read while the lock is busy is stamped with the time its file was written, so the same writer's next change, stamped by another instance meanwhile, still wins")
    func stampedWhenRead() throws {
        let (box, milk) = try Self.writtenByBananas()
        let tea = "7E57AAAA-0000-4000-8000-000000000001"

        // The Get Bananas server adds Tea, and another writer takes the lock.
        box.write(Self.stampless([(milk.id, "Milk", false), (tea, "Tea", false)]))
        let lock = try FileLock.acquire(path: box.file().lockPath, timeoutMillis: 1_000)
        let slow = SyncEngine(file: box.file(), mergesCopies: false)  // judges what it read, in memory
        let readBegan = SystemTime().nowMillis()
        let slowResult = Locked<ShoppingList?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            if case .state(let state) = slow.read() { slowResult.update { $0 = state.list } }
            done.signal()
        }
        usleep(100_000)  // the slow reader has read the add and waits for the lock

        // The server checks Tea, and another instance stamps the check (as it does when it
        // absorbs the file under the lock), while the slow reader still waits.
        box.write(Self.stampless([(milk.id, "Milk", false), (tea, "Tea", true)]))
        let other = box.file()
        let checked = try #require(SyncEngine(file: other, mergesCopies: false).readState()).list
        usleep(100_000)
        lock.release()
        done.wait()

        let unchecked = try #require(slowResult.value?.items.first { $0.id == tea })
        #expect(!unchecked.checked)
        #expect(unchecked.stamps[.checked].millis < readBegan + 100,
                "stamped when its file was written, not \(unchecked.stamps[.checked].millis - readBegan) ms after the read began, when the lock let go")
        let newer = try #require(checked.items.first { $0.id == tea })
        #expect(newer.checked)

        // Whatever order the two instances merge in, the check stands.
        var slowFirst = try #require(slowResult.value)
        slowFirst.merge(checked)
        var fastFirst = checked
        fastFirst.merge(try #require(slowResult.value))
        #expect(slowFirst.items.first { $0.id == tea }?.checked == true)
        #expect(fastFirst.items.first { $0.id == tea }?.checked == true)
    }
}

extension ForeignStampTests {
    @Test("every instance that reads the same stampless file stamps its changes alike, so none orders them differently against an edit made in between")
    func sameStampEverywhere() throws {
        let (box, milk) = try Self.writtenByBananas()
        box.write(Self.stampless([(milk.id, "Oat milk", false)]))
        let first = SyncEngine(file: box.file())
        guard case .state(let a) = first.read() else { Issue.record("nothing read"); return }
        usleep(50_000)
        let second = SyncEngine(file: box.file())
        guard case .state(let b) = second.read() else { Issue.record("nothing read"); return }
        let stampA = try #require(a.list.rows[milk.id]).stamps[.name]
        let stampB = try #require(b.list.rows[milk.id]).stamps[.name]
        #expect(a.list.rows[milk.id]?.name == "Oat milk")
        #expect(stampA == stampB)
        #expect(stampA > milk.stamps[.name])
    }

    @Test("a foreign edit's stamp: the file's time to the nanosecond, or just past the newest stamp it replaced")
    func foreignEditStamp() {
        let seen = Stamp(millis: 1_000, counter: 4, replica: "abc")
        let later = Stamp.foreignEdit(writtenAtNanos: 2_000_000_123, after: seen, content: 0xFF)
        #expect(later == Stamp(millis: 2_000, counter: 123, replica: "f00000000000000ff"))
        #expect(ReplicaID.isValid(later.replica))
        // Two writes in one millisecond keep their order.
        #expect(Stamp.foreignEdit(writtenAtNanos: 2_000_000_500, after: seen, content: 1) > Stamp.foreignEdit(writtenAtNanos: 2_000_000_499, after: seen, content: 2))
        // A file time at or before a stamp in it (a clock behind another device's), or none: just after.
        for nanos in [Int64(900_000_000), 1_000_000_004, nil] {
            let after = Stamp.foreignEdit(writtenAtNanos: nanos, after: seen, content: 1)
            #expect(after > seen && after.millis == 1_000 && after.counter == 5)
        }
        let full = Stamp(millis: 1_000, counter: 999_999, replica: "z")
        #expect(Stamp.foreignEdit(writtenAtNanos: 1_000_000_000, after: full, content: 1) > full)
        // The same bytes make the same stamp; other bytes another.
        #expect(Stamp.foreignEdit(writtenAtNanos: 2_000_000_000, after: seen, content: 7) == Stamp.foreignEdit(writtenAtNanos: 2_000_000_000, after: seen, content: 7))
        #expect(Stamp.foreignEdit(writtenAtNanos: 2_000_000_000, after: seen, content: 7) != Stamp.foreignEdit(writtenAtNanos: 2_000_000_000, after: seen, content: 8))
    }
}

/// A value shared with a thread.
final class Locked<Value: Sendable>: Sendable {
    private let stored: Mutex<Value>
    init(_ value: Value) { stored = Mutex(value) }
    var value: Value { stored.withLock { $0 } }
    func update(_ body: (inout Value) -> Void) { stored.withLock { body(&$0) } }
}

extension ForeignStampTests {
    /// The file as the Get Bananas server edits it: parsed, its items changed, `sync` kept.
    static func editAsGetBananas(_ box: Sandbox, _ change: (inout [[String: Any]]) -> Void) throws {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(box.bytes ?? [])) as? [String: Any])
        var items = object["items"] as? [[String: Any]] ?? []
        change(&items)
        object["items"] = items
        box.write(String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
    }

    struct NothingRead: Error {}

    /// Another bananas instance reads the file, adds Eggs and writes: the list it read.
    static func anotherInstanceAddsEggs(_ box: Sandbox) throws -> ShoppingList {
        let other = SyncEngine(file: box.file())
        guard case .state(let read) = other.read() else { throw NothingRead() }
        var eggs = read.list
        try eggs.apply(.insert(Item(id: ItemID.random(), name: "Eggs", section: "", sortOrder: 2)),
                       stamp: Stamp(millis: SystemTime().nowMillis(), counter: 0, replica: "other"))
        #expect(try other.flush(local: eggs, lockTimeoutMillis: 1_000).wrote)
        return read.list
    }

    static let tea = "7E57AAAA-0000-4000-8000-000000000001"

    /// A list bananas wrote; the Get Bananas server adds Tea; an instance reads the file (Tea
    /// in it): the file, that instance, and the list it read.
    static func serverAddsTeaAndAnInstanceReadsIt() throws -> (Sandbox, SyncEngine, FileState) {
        let (box, _) = try writtenByBananas()
        try editAsGetBananas(box) { $0.append(["id": tea, "name": "Tea", "amount": "", "section": "", "checked": false, "optional": false]) }
        let engine = SyncEngine(file: box.file())
        guard case .state(let read) = engine.read() else { throw NothingRead() }
        #expect(read.list.item(tea) != nil)
        return (box, engine, read)
    }

}

extension ForeignStampTests {
    @Test("the Get Bananas server adds a row and removes it; another bananas instance writes in between without ever seeing it: the instance that held it does not write it back",
          arguments: [false, true])
    func removeUnseenByTheNextBananasWrite(getBananasWritesAgain: Bool) throws {
        let (box, holder, withTea) = try Self.serverAddsTeaAndAnInstanceReadsIt()
        let tea = Self.tea

        // Tea is removed, then another instance writes: it never saw Tea.
        try Self.editAsGetBananas(box) { $0.removeAll { $0["id"] as? String == tea } }
        _ = try Self.anotherInstanceAddsEggs(box)
        if getBananasWritesAgain {
            try Self.editAsGetBananas(box) { $0.append(["id": ItemID.random(), "name": "Jam", "amount": "", "section": "", "checked": false, "optional": false]) }
        }

        // The instance that held Tea reads the file, then writes what it holds.
        guard case .state(let after) = holder.read() else { Issue.record("nothing read"); return }
        #expect(after.list.item(tea) == nil, "the remove is taken")
        _ = try holder.flush(local: withTea.list, lockTimeoutMillis: 1_000)
        let file = try box.decoded()
        #expect(file.item(tea) == nil, "the Get Bananas remove was undone")
        #expect(file.named("Eggs") != nil && file.named("Milk") != nil)
        #expect(file.named("Jam") != nil || !getBananasWritesAgain)
    }
}

extension ForeignStampTests {
    @Test("the Get Bananas server checks a row and removes it; another bananas instance reads only the remove: the instance that read the check does not bring the row back")
    func checkThenRemoveUnseenByTheNextBananasWrite() throws {
        let (box, milk) = try Self.writtenByBananas()
        let holder = SyncEngine(file: box.file())
        guard case .state = holder.read() else { Issue.record("nothing read"); return }

        // The server checks Milk; this instance reads the check.
        try Self.editAsGetBananas(box) { items in
            for index in items.indices where items[index]["id"] as? String == milk.id { items[index]["checked"] = true }
        }
        guard case .state(let checked) = holder.read() else { Issue.record("nothing read"); return }
        #expect(checked.list.item(milk.id)?.checked == true)

        // The server removes Milk; another instance reads only that, and writes.
        try Self.editAsGetBananas(box) { $0.removeAll { $0["id"] as? String == milk.id } }
        let read = try Self.anotherInstanceAddsEggs(box)
        #expect(read.item(milk.id) == nil)

        // The instance that read the check reads that write, then writes what it holds.
        guard case .state(let after) = holder.read() else { Issue.record("nothing read"); return }
        #expect(after.list.item(milk.id) == nil, "the remove is taken")
        _ = try holder.flush(local: checked.list, lockTimeoutMillis: 1_000)
        let file = try box.decoded()
        #expect(file.item(milk.id) == nil, "the Get Bananas remove was undone by its own earlier check")
        #expect(file.named("Eggs") != nil)
    }
}

extension ForeignStampTests {
    /// The Get Bananas server removes `row`; `holder` reads that (the remove must be taken),
    /// then writes `holding`, a list that still has the row: the file, which must not.
    static func serverRemoves(_ row: Item, thenWritesBack holding: ShoppingList, from holder: SyncEngine, in box: Sandbox) throws -> ShoppingList {
        try editAsGetBananas(box) { $0.removeAll { $0["id"] as? String == row.id } }
        guard case .state(let after) = holder.read() else { throw NothingRead() }
        #expect(after.list.item(row.id) == nil, "the remove is taken")
        _ = try holder.flush(local: holding, lockTimeoutMillis: 1_000)
        let file = try box.decoded()
        #expect(file.item(row.id) == nil, "the Get Bananas remove was undone")
        return file
    }
}

extension ForeignStampTests {
}

extension ForeignStampTests {
    /// A sync engine puts an older bananas write back (a stale copy); this instance reads it,
    /// and the Get Bananas server removes a row from it. That file comes from the older write,
    /// so it is judged against the read of it, not against the newer base it does not come
    /// from (against which nothing it lacks counts as a delete).
    @Test("a bananas write put back by a sync engine, and a Get Bananas remove made on it: the remove stands")
    func removeOnAnOlderWritePutBack() throws {
        let (box, milk) = try Self.writtenByBananas()
        let w1 = String(decoding: try #require(box.bytes), as: UTF8.self)
        let holder = SyncEngine(file: box.file())
        _ = try Self.anotherInstanceAddsEggs(box)
        guard case .state(let first) = holder.read() else { Issue.record("nothing read"); return }

        box.write(w1)
        guard case .state(let putBack) = holder.read() else { Issue.record("nothing read"); return }
        #expect(putBack.list.named("Eggs") != nil, "an older write put back shows what came after it (rule 4)")
        let file = try Self.serverRemoves(milk, thenWritesBack: first.list, from: holder, in: box)
        #expect(file.named("Eggs") != nil, "the newer write's row is kept")
    }
}

extension ForeignStampTests {
    /// A sync engine puts back the very bananas write the server's add was made on: the
    /// write came before the add, so its lacking the row is no remove, and the instance that
    /// read the add writes it back.
    @Test("the Get Bananas server adds a row to a bananas write; an instance reads it; a sync engine puts that write back: the row stays")
    func addKeptWhenItsWriteIsPutBack() throws {
        let (box, _) = try Self.writtenByBananas()
        let w1 = String(decoding: try #require(box.bytes), as: UTF8.self)
        let holder = SyncEngine(file: box.file())
        guard case .state = holder.read() else { Issue.record("nothing read"); return }
        try Self.editAsGetBananas(box) {
            $0.append(["id": Self.tea, "name": "Tea", "amount": "", "section": "", "checked": false, "optional": false])
        }
        guard case .state(let withTea) = holder.read() else { Issue.record("nothing read"); return }
        #expect(withTea.list.item(Self.tea) != nil)

        box.write(w1)
        guard case .state(let putBack) = holder.read() else { Issue.record("nothing read"); return }
        #expect(putBack.list.item(Self.tea) != nil, "an older write put back shows what came after it (rule 4)")
        _ = try holder.flush(local: withTea.list, lockTimeoutMillis: 1_000)
        #expect(try box.decoded().item(Self.tea) != nil, "the server's add was taken for removed")
    }

    /// A sync engine puts an older bananas write back, and the server removes a row from it
    /// (keeping its mark). Judged against the newest base, the file is no state that base's
    /// writer made, so nothing it lacks would count as removed; judged against the write it
    /// keeps the mark of (an older base), the remove stands.
    @Test("a sync engine puts an older bananas write back; the Get Bananas server removes a row from it: the remove stands")
    func removeOnAPutBackWriteJudgedAgainstThatWrite() throws {
        let (box, milk) = try Self.writtenByBananas()
        let w1 = String(decoding: try #require(box.bytes), as: UTF8.self)
        let holder = SyncEngine(file: box.file())
        let newer = try Self.anotherInstanceAddsEggs(box)
        guard case .state(let read) = holder.read() else { Issue.record("nothing read"); return }
        #expect(read.list.named("Eggs") != nil && newer.item(milk.id) != nil)

        box.write(w1)
        try Self.editAsGetBananas(box) { $0.removeAll { $0["id"] as? String == milk.id } }
        guard case .state(let after) = holder.read() else { Issue.record("nothing read"); return }
        #expect(after.list.item(milk.id) == nil, "the remove is taken")
        _ = try holder.flush(local: read.list, lockTimeoutMillis: 1_000)
        let file = try box.decoded()
        #expect(file.item(milk.id) == nil, "the Get Bananas remove was undone")
        #expect(file.named("Eggs") != nil, "the newer write's row is kept")
    }
}

extension SyncEngine {
    /// The file's state as one read reports it; nil when it reports none.
    func readState() -> FileState? {
        if case .state(let state) = read() { state } else { nil }
    }
}
