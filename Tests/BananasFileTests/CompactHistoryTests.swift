import Foundation
import Testing
@testable import BananasCore
@testable import BananasFile

/// A year of use costs little (docs/file-format.md, version 4): what a delete saw is a version
/// vector shared by the rows one edit deleted; a deleted row is kept whole for 7 days, then
/// as a name in "recently deleted" for 30, then only its delete, for 180.
@Suite struct CompactHistoryTests {
    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_800_000_000_000

    /// A list of `count` checked items added by one replica, then cleared in one edit.
    static func clearedList(_ count: Int, replica: String = "laptop") throws -> ShoppingList {
        var list = ShoppingList(sections: ["Produce"])
        for n in 0..<count {
            try list.apply(.insert(Item(id: "I\(n)", name: "Item \(n)", section: "Produce", sortOrder: Double(n))),
                           stamp: Stamp(millis: start + Int64(n), counter: 0, replica: replica))
            try list.apply(.update(id: "I\(n)", changes: [.checked: .flag(true)]), stamp: Stamp(millis: start + 1_000 + Int64(n), counter: 0, replica: replica))
        }
        try list.apply(.batch((0..<count).map { .delete(id: "I\($0)") }), stamp: Stamp(millis: start + 2_000, counter: 0, replica: replica))
        return list
    }

    @Test func theRowsOneEditDeletedShareOneEntry() throws {
        let list = try Self.clearedList(40)
        let root = try JSONText.parse(ListCodec.encode(list))
        guard case .object(let top) = root, case .object(let sync)? = top["sync"], case .array(let groups)? = sync["deleted"],
              case .object(let group)? = groups.first else { Issue.record("no sync.deleted"); return }
        #expect(groups.count == 1)
        #expect(group["rows"]?.stringValue?.split(separator: " ").count == 40)
        #expect(group["seen"]?.stringValue?.split(separator: " ").count == 1, "one replica made every stamp it saw")
        // And it reads back the same.
        #expect(try ListCodec.decode(ListCodec.encode(list)).list.tombstones == list.tombstones)
    }

    @Test func aDeletedRowIsKeptWholeForAWeekThenByNameForAMonthThenNotAtAll() throws {
        var list = try Self.clearedList(3)
        var sightings: [UInt64: Int64] = [:]
        list.collectGarbage(now: Self.start, sightings: &sightings)
        list.collectGarbage(now: Self.start + 7 * Self.day - 1, sightings: &sightings)
        #expect(list.rows.count == 3 && list.deletedItems.isEmpty)
        list.collectGarbage(now: Self.start + 7 * Self.day + 1, sightings: &sightings)
        #expect(list.rows.isEmpty)
        #expect(list.recentlyDeleted.map(\.item.name).sorted() == ["Item 0", "Item 1", "Item 2"])
        #expect(list.remembered(named: "item 1", now: Self.start + 8 * Self.day)?.timesBought == 1, "the purchase is remembered")
        // Restored from its name: the same id, visible again, and no longer "recently deleted".
        let entry = try #require(list.recentlyDeleted.first { $0.item.id == "I1" })
        try list.apply(.insert(entry.item), stamp: Stamp(millis: Self.start + 8 * Self.day, counter: 0, replica: "phone"))
        #expect(list.item("I1")?.name == "Item 1")
        list.collectGarbage(now: Self.start + 8 * Self.day, sightings: &sightings)
        #expect(list.recentlyDeleted.map(\.item.id).sorted() == ["I0", "I2"])
        list.collectGarbage(now: Self.start + 30 * Self.day + 1, sightings: &sightings)
        #expect(list.recentlyDeleted.isEmpty && list.deletedItems.isEmpty)
        #expect(list.tombstones.count == 3, "the deletes stay")
        list.collectGarbage(now: Self.start + 180 * Self.day + 1, sightings: &sightings)
        #expect(list.tombstones.isEmpty)
        #expect(list.items.map(\.id) == ["I1"])
    }

    /// The history the contract model found (docs/decisions.md, "A year of use") in small: once
    /// the row is gone, per-field stamps could not tell a concurrent edit stamped behind what
    /// the delete saw from one it had seen. A version vector can.
    @Test func anEditNoDeleteSawBringsTheRowBackAfterItsRowWasLetGo() throws {
        var laptop = ShoppingList(sections: ["Produce"])
        try laptop.apply(.insert(Item(id: "R", name: "Rice", section: "Produce")), stamp: Stamp(millis: Self.start, counter: 0, replica: "laptop"))
        var phone = laptop  // a device with a slow clock, offline
        try laptop.apply(.update(id: "R", changes: [.amount: .text("2")]), stamp: Stamp(millis: Self.start + 60_000, counter: 0, replica: "laptop"))
        try laptop.apply(.delete(id: "R"), stamp: Stamp(millis: Self.start + 61_000, counter: 0, replica: "laptop"))
        try phone.apply(.update(id: "R", changes: [.amount: .text("3")]), stamp: Stamp(millis: Self.start + 30_000, counter: 0, replica: "phone"))
        var sightings: [UInt64: Int64] = [:]
        laptop.collectGarbage(now: Self.start + Self.day, sightings: &sightings)
        // While the row is kept, the edit loses to the newer value the delete saw: kept for review.
        var early = laptop
        early.merge(phone)
        #expect(early.item("R") == nil && early.conflicts.values.contains { $0.lost == .text("3") })
        laptop.collectGarbage(now: Self.start + 9 * Self.day, sightings: &sightings)
        #expect(laptop.rows["R"] == nil, "the row was let go of")
        var merged = laptop
        merged.merge(phone)
        #expect(merged.item("R")?.amount == "3", "an edit the delete never saw brings the row back")
        // A copy the delete had seen stays hidden.
        var stale = ShoppingList(sections: ["Produce"])
        try stale.apply(.insert(Item(id: "R", name: "Rice", section: "Produce")), stamp: Stamp(millis: Self.start, counter: 0, replica: "laptop"))
        var again = laptop
        again.merge(stale)
        #expect(again.item("R") == nil)
    }

    /// An edit stamped past a value far ahead of its clock takes a replica of its own, so the
    /// replica's own stamps stay in clock order: a delete that saw the far-ahead edit has not
    /// seen the replica's next, ordinary, edit.
    @Test func anEditPastAStampFarAheadDoesNotCoverTheReplicasLaterEdits() throws {
        var list = ShoppingList(sections: ["Produce"])
        let future = Stamp(millis: 253_402_300_799_000, counter: 0, replica: "broken")
        try list.apply(.insert(Item(id: "A", name: "Apples", section: "Produce")), stamp: future)
        try list.apply(.insert(Item(id: "B", name: "Beans", section: "Produce")), stamp: Stamp(millis: Self.start, counter: 0, replica: "ed"))
        try list.apply(.update(id: "A", changes: [.amount: .text("1")]), stamp: Stamp(millis: Self.start + 1, counter: 0, replica: "ed"))
        let passed = list.rows["A"]!.stamps[.amount]
        #expect(passed > future && passed.replica != "ed" && ReplicaID.isValid(passed.replica))
        var other = list
        try list.apply(.update(id: "B", changes: [.amount: .text("9")]), stamp: Stamp(millis: Self.start + 2, counter: 0, replica: "ed"))
        try other.apply(.batch([.delete(id: "A"), .delete(id: "B")]), stamp: Stamp(millis: Self.start + 3, counter: 0, replica: "cli"))
        other.merge(list)
        #expect(other.item("B")?.amount == "9", "the later edit was not seen by the delete")
        #expect(other.item("A") == nil)
    }

    // MARK: Files every earlier version wrote

    static let earlierFiles = ["legacy-BananaList.json", "written/version-2.json", "written/small.json", "written/sections-and-deletes.json"]

    @Test(arguments: earlierFiles)
    func aFileAnEarlierVersionWroteIsConvertedOnTheFirstWriteWithNothingLost(name: String) throws {
        let folder = TempFolder()
        folder.write(String(decoding: fixture(name), as: UTF8.self))
        let file = ListFile(path: folder.listPath, stateDirectory: folder.path + "/state")
        let before = try file.load().list
        try addItem("Zucchini", to: file)
        let bytes = try #require(folder.bytes())
        let after = try ListCodec.decode(bytes)
        #expect(after.schemaVersion == ListCodec.currentSchemaVersion)
        let list = after.list
        for item in before.items {
            let kept = try #require(list.item(item.id), "\(item.name) kept")
            #expect(ItemField.allCases.allSatisfy { kept[$0] == item[$0] }, "\(item.name) unchanged")
            #expect(kept.stamps == item.stamps)
        }
        #expect(Set(list.items.map(\.name)) == Set(before.items.map(\.name) + ["Zucchini"]))
        #expect(list.sections == before.sections)
        #expect(list.recentlyDeleted.map(\.item.id) == before.recentlyDeleted.map(\.item.id))
        #expect(list.conflictList().map(\.id) == before.conflictList().map(\.id))
        let now = SystemTime().nowMillis()
        #expect(Set(list.rememberedItems(now: now).map(\.name)).isSuperset(of: before.rememberedItems(now: now).map(\.name)))
        // The earlier file put back by a sync engine (a stale copy) brings nothing back.
        var merged = list
        merged.merge(before)
        #expect(merged.items.map(\.id) == list.items.map(\.id))
        // Get Bananas still reads it.
        let v1 = try JSONDecoder().decode(VersionOneExport.self, from: Data(bytes))
        #expect(v1.items.map(\.name).sorted() == list.items.map(\.name).sorted())
        // And it reads back to the same list.
        #expect(try ListCodec.decode(ListCodec.encode(list)).list == list)
    }
}
