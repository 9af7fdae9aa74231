import BananasTestSupport
import Testing
import PropertyBased
@testable import BananasCore

/// A replica that makes random edits with its own clock, as a person or agent would.
struct RandomReplica {
    var list: ShoppingList
    var clock: StampClock
    var now: Int64

    init(_ list: ShoppingList, replica: String) {
        self.list = list
        clock = StampClock(replica: replica)
        now = 1_000
    }

    mutating func randomEdit<R: RandomNumberGenerator>(using rng: inout R) {
        now += Int64.random(in: 0...3, using: &rng)  // often the same millisecond
        let visible = list.items
        let edit: ListEdit
        let choice = Int.random(in: 0...9, using: &rng)
        if visible.isEmpty || choice == 0 {
            edit = .insert(Item(id: ItemID.random(using: &rng), name: randomText(maxLength: 4, using: &rng) + "x",
                                section: ["A", "B", "C"].randomElement(using: &rng)!, sortOrder: Double(Int.random(in: 0...5, using: &rng))))
        } else {
            let target = visible.randomElement(using: &rng)!
            switch choice {
            case 1: edit = .delete(id: target.id)
            case 2: edit = .setSections(["A", "B", "C", "D"].shuffled(using: &rng).dropLast(Int.random(in: 0...2, using: &rng)))
            default:
                let field = ItemField.allCases.randomElement(using: &rng)!
                let value: FieldValue = switch field {
                case .checked, .optional: .flag(Bool.random(using: &rng))
                case .sortOrder: .order(Double(Int.random(in: 0...5, using: &rng)))
                default: .text(["milk", "6", "A", "B", "", "x"].randomElement(using: &rng)!)
                }
                edit = .update(id: target.id, changes: [field: value])
            }
        }
        _ = try? list.apply(edit, stamp: clock.next(now: now))
    }

    /// Receives another copy, as a sync does: merge and move the clock past it.
    mutating func receive(_ other: ShoppingList) {
        list.merge(other)
        clock.observe(other.newestStamp, now: now)
    }
}

/// Several replicas from one start, editing and exchanging copies at random.
func randomReplicas(using rng: inout some RandomNumberGenerator, count: Int = 3, steps: Int = 30) -> [ShoppingList] {
    var start = ShoppingList(sections: ["A", "B"])
    for n in 0..<3 {
        try! start.apply(.insert(Item(id: "ITEM-\(n)", name: "item \(n)", section: "A", sortOrder: Double(n))), stamp: stamp(1, "origin"))
    }
    var replicas = (0..<count).map { RandomReplica(start, replica: "r\($0)") }
    for _ in 0..<steps {
        let i = Int.random(in: 0..<count, using: &rng)
        if Int.random(in: 0...4, using: &rng) == 0 {
            let j = Int.random(in: 0..<count, using: &rng)
            replicas[i].receive(replicas[j].list)
        } else {
            replicas[i].randomEdit(using: &rng)
        }
    }
    return replicas.map(\.list)
}

@Suite struct MergeTests {
    /// The random choices of one history; shrinking shortens them (see `DrawnChoices`).
    static let choices = Gen.uint64().array(of: 0...600)

    @Test func mergeIsCommutativeAssociativeAndIdempotent() async {
        await propertyCheck(count: 300, input: Self.choices) { draws in
            var rng = DrawnChoices(draws)
            let copies = randomReplicas(using: &rng)
            let (a, b, c) = (copies[0], copies[1], copies[2])
            #expect(a.merged(with: b) == b.merged(with: a), "commutative")
            #expect(a.merged(with: b).merged(with: c) == a.merged(with: b.merged(with: c)), "associative")
            #expect(a.merged(with: a) == a, "idempotent")
            #expect(a.merged(with: b).merged(with: b) == a.merged(with: b), "idempotent")
        }
    }

    @Test func anyDeliveryOrderConverges() async {
        await propertyCheck(count: 200, input: Self.choices) { draws in
            var rng = DrawnChoices(draws)
            let copies = randomReplicas(using: &rng, count: 4)
            let reference = copies.dropFirst().reduce(copies[0]) { $0.merged(with: $1) }
            // Shuffled, with duplicates: every copy at least once, some twice.
            let delivery = (copies + copies.shuffled(using: &rng).prefix(2)).shuffled(using: &rng)
            let merged = delivery.dropFirst().reduce(delivery[0]) { $0.merged(with: $1) }
            #expect(merged == reference)
            #expect(ListDigest(merged) == ListDigest(reference))
        }
    }

    @Test func theNewerStampWinsPerField() throws {
        let base = try sampleList()
        var a = base, b = base
        try a.apply(.update(id: "A", changes: [.amount: .text("12")]), stamp: stamp(5, "a"))
        try b.apply(.update(id: "A", changes: [.checked: .flag(true)]), stamp: stamp(6, "b"))
        try b.apply(.update(id: "A", changes: [.amount: .text("3")]), stamp: stamp(4, "b"))
        let merged = a.merged(with: b)
        #expect(merged.item("A")?.amount == "12", "stamp 5 beats stamp 4")
        #expect(merged.item("A")?.checked == true, "different fields both survive")
    }

    @Test func anEditConcurrentWithADeleteKeepsTheWholeRow() throws {
        let base = try sampleList()
        var a = base, b = base
        try a.apply(.delete(id: "B"), stamp: stamp(5, "a"))
        try b.apply(.update(id: "B", changes: [.checked: .flag(true)]), stamp: stamp(6, "b"))
        let merged = a.merged(with: b)
        #expect(merged.item("B")?.name == "Oat milk")
        #expect(merged.item("B")?.amount == "2 L")
        #expect(merged.item("B")?.checked == true)

        var c = base
        try c.apply(.update(id: "B", changes: [.checked: .flag(true)]), stamp: stamp(4, "c"))
        #expect(a.merged(with: c).item("B")?.checked == true, "an edit the deleter had not seen brings it back, whatever its time")

    }

    @Test func equallyStampedValuesBreakTiesTheSameWayEitherOrder() {
        let a = ShoppingList(sections: ["X"], rows: [Item(id: "1", name: "apples")])
        let b = ShoppingList(sections: ["Y"], rows: [Item(id: "1", name: "pears")])
        #expect(a.merged(with: b) == b.merged(with: a))
    }

    // Found by ContractModelTests (shrunk): two devices delete a row, one after changing it;
    // the merged delete kept the history of whichever side it was merged into.
    @Test func twoDeletesOfOneRowMergeTheSameEitherOrder() throws {
        let base = try sampleList()
        var a = base, b = base
        try a.apply(.update(id: "A", changes: [.amount: .text("1")]), stamp: stamp(5, "a"))
        try a.apply(.delete(id: "A"), stamp: stamp(6, "a"))
        try b.apply(.delete(id: "A"), stamp: stamp(6, "b"))
        #expect(a.merged(with: b) == b.merged(with: a))
        let c = a.merged(with: b)
        #expect(c.merged(with: a) == c && c.merged(with: b) == c)
    }

    // Found by ContractModelTests (shrunk, one replica): a section's items moved out and the
    // section removed, another section renamed to its name, then renamed again. The second
    // rename found the removed section by its key, brought it back under the new name and left
    // the renamed one under the old name: both names showed.
    @Test func renamingASectionThatTookARemovedSectionsNameRenamesIt() throws {
        var list = ShoppingList(sections: ["Dairy", "Bakery"], rows: [Item(id: "1", name: "Milk", section: "Dairy")])
        try list.apply(list.removeSectionEdit("Dairy", moveItemsTo: "Bakery"), stamp: stamp(1))
        try list.apply(list.renameSectionEdit("Bakery", to: "Dairy"), stamp: stamp(2))
        #expect(list.sections == ["Dairy"])
        try list.apply(list.renameSectionEdit("Dairy", to: "Bakery"), stamp: stamp(3))
        #expect(list.sections == ["Bakery"])
        #expect(list.item("1")?.section == "Bakery")
    }

    // Found by ContractModelTests (shrunk): three copies with values of one field. Every
    // concurrent loser is recorded, equal values too, and a record goes only once a history
    // shows its value replaced knowingly, so the records do not depend on the order (rule 8).
    @Test func threeConcurrentValuesTwoEqualGiveTheSameRecordsInAnyOrder() throws {
        let base = try sampleList()
        var a = base, b = base, c = base
        try a.apply(.update(id: "A", changes: [.amount: .text("2")]), stamp: stamp(10, "a"))
        try b.apply(.update(id: "A", changes: [.amount: .text("2")]), stamp: stamp(30, "b"))
        try c.apply(.update(id: "A", changes: [.amount: .text("5")]), stamp: stamp(20, "c"))
        #expect(a.merged(with: c).merged(with: b).conflicts == a.merged(with: b).merged(with: c).conflicts)
    }

    @Test func aValueLostThenSeenByTheWinnerGivesTheSameRecordsInAnyOrder() throws {
        let base = try sampleList()
        var a = base, c = base
        try a.apply(.update(id: "A", changes: [.amount: .text("2")]), stamp: stamp(10, "a"))
        var b = a
        try b.apply(.update(id: "A", changes: [.amount: .text("3")]), stamp: stamp(30, "b"))  // saw a's "2"
        try c.apply(.update(id: "A", changes: [.amount: .text("5")]), stamp: stamp(20, "c"))
        #expect(a.merged(with: c).merged(with: b).conflicts == a.merged(with: b).merged(with: c).conflicts)
    }
}

/// A readable summary for failure messages.
struct ListDigest: Equatable, CustomStringConvertible {
    let text: String
    init(_ list: ShoppingList) {
        text = list.sections.joined(separator: ",") + " | " + list.items.map { "\($0.name)/\($0.amount)/\($0.checked)" }.joined(separator: ",")
    }
    var description: String { text }
}

@Suite struct TombstoneExpiryTests {
    @Test func oldDeletesAndTheirHiddenRowsAreForgotten() throws {
        var list = try sampleList()
        var sightings: [UInt64: Int64] = [:]
        try list.apply(.delete(id: "A"), stamp: stamp(10))
        list.collectGarbage(now: 10, sightings: &sightings)  // first written at 10
        try list.apply(.delete(id: "B"), stamp: stamp(1_000))
        list.collectGarbage(now: 1_000, sightings: &sightings)
        list.collectGarbage(now: 10 + ShoppingList.deletedRowLifetimeMillis - 1, sightings: &sightings)
        #expect(list.rows["A"] != nil && list.rows["B"] != nil, "deleted rows are kept 30 days")
        #expect(list.recentlyDeleted.map(\.item.id) == ["B", "A"])
        list.collectGarbage(now: 500 + ShoppingList.deletedRowLifetimeMillis, sightings: &sightings)
        #expect(list.rows["A"] == nil, "then the row goes")
        #expect(list.rows["B"] != nil)
        #expect(list.tombstones.count == 2, "its delete stays")
        // A copy of A from before its delete (a device away for weeks) stays hidden while the
        // delete is kept, without the row.
        var away = try sampleList()
        away.merge(list)
        #expect(away.items.map(\.id) == ["C"])
        list.collectGarbage(now: 500 + ShoppingList.tombstoneLifetimeMillis, sightings: &sightings)
        #expect(list.tombstones.keys.sorted() == [Tombstone.key(for: "B")])
        #expect(list.rows["A"] == nil && list.rows["B"] == nil)
        #expect(list.items.map(\.id) == ["C"])
    }

    @Test func aTombstoneOfAResurrectedRowExpiresWithoutTouchingTheRow() throws {
        var list = try sampleList()
        var sightings: [UInt64: Int64] = [:]
        try list.apply(.delete(id: "A"), stamp: stamp(10))
        try list.apply(.insert(list.rows["A"]!), stamp: stamp(20))
        list.collectGarbage(now: 10, sightings: &sightings)
        list.collectGarbage(now: 500 + ShoppingList.tombstoneLifetimeMillis, sightings: &sightings)
        #expect(list.item("A")?.name == "Bananas")
        #expect(list.tombstones.isEmpty)
    }

    @Test("a delete expires by this device's first sighting, never by its stamp or the date a file claims")
    func expiryCountsFromThisDevicesFirstSighting() throws {
        var list = try sampleList()
        try list.apply(.delete(id: "A"), stamp: stamp(1))  // a clock decades behind
        list.tombstones[Tombstone.key(for: "A")]!.firstSeen = 1  // a file that claims it was first seen in 1970
        var sightings: [UInt64: Int64] = [:]
        let now: Int64 = 1_800_000_000_000
        list.collectGarbage(now: now, sightings: &sightings)
        #expect(list.tombstones[Tombstone.key(for: "A")] != nil && list.item("A") == nil, "first seen here now: kept")
        list.collectGarbage(now: now + ShoppingList.tombstoneLifetimeMillis - 1, sightings: &sightings)
        #expect(list.tombstones[Tombstone.key(for: "A")] != nil)
        list.collectGarbage(now: now + ShoppingList.tombstoneLifetimeMillis + 1, sightings: &sightings)
        #expect(list.tombstones[Tombstone.key(for: "A")] == nil && list.rows["A"] == nil)
    }
}
