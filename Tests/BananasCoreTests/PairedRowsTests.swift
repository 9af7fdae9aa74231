import BananasTestSupport
import Testing
import PropertyBased
@testable import BananasCore

/// Two copies of a list that descend from one row table keep its layout, and then
/// `differingRowIDs` finds the rows that differ by walking both side by side. The shortcuts
/// built on it must answer exactly as the walks over every row did.
@Suite struct PairedRowsTests {
    /// Pairs of copies from one start, edited apart (some still pairing up, some not).
    static func pairs() -> [(ShoppingList, ShoppingList)] {
        (0..<300).map { seed in
            var rng = Xoshiro(seed: (UInt64(seed) + 1, 0, 0, 0))
            let replicas = randomReplicas(using: &rng, count: 2, steps: seed % 12)
            return (replicas[0], replicas[1])
        }
    }

    /// The visible items with every shown value, in list order: what `hasSameVisibleContent` compares.
    static func shown(_ list: ShoppingList) -> [[String]] {
        list.items.map { item in [item.id] + ItemField.allCases.map { "\(item[$0])" } }
    }

    @Test func theShortcutsAgreeWithTheFullWalks() {
        var paired = 0
        for (a, b) in Self.pairs() {
            if ShoppingList.differingRowIDs(a.rows, b.rows) != nil { paired += 1 }
            #expect(a.hasSameVisibleContent(as: b) == (a.sections == b.sections && Self.shown(a) == Self.shown(b)))
            #expect(max(a.newestStamp, b.newestStamp(besides: a)) == max(a.newestStamp, b.newestStamp))
            // With a row only one side has, the tables cannot pair: the full walk.
            var unpaired = a
            unpaired.rows["ONLY-HERE"] = Item(id: "ONLY-HERE", name: "x")
            #expect(a.merged(with: b).conflicts == unpaired.merged(with: b).conflicts)
        }
        #expect(paired > 100, "the pairs should exercise the paired walk (\(paired) did)")
    }

    /// A copy not written to since is the same table: nothing differs. Once either side is
    /// written to, it is a table of its own again and its rows are compared.
    @Test func aCopyIsTheSameTableUntilWrittenTo() {
        for (a, _) in Self.pairs() where !a.rows.isEmpty {
            let copy = a
            #expect(ShoppingList.differingRowIDs(copy.rows, a.rows) == [])
            #expect(copy == a)
            var changed = copy
            let id = changed.rows.keys.sorted()[0]
            changed.rows[id]!.name += " changed"
            #expect(ShoppingList.differingRowIDs(changed.rows, a.rows) == [id])
            #expect(changed != a && changed.delta(from: a).rows.keys.sorted() == [id])
            var added: [String] = []
            #expect(ShoppingList.differingRowIDs(changed.rows, copy.rows, added: &added) == [id] && added.isEmpty)
        }
    }

    /// Later than any stamp the random replicas make.
    static let later: Int64 = 4_000_000_000_000

    /// A list merged with a later copy of itself (its own edits on the way to the file, a
    /// newer file read back) ends with that copy's row table, not a copy of its own with the
    /// rows written in: the same list as merging the other way, and no table copied. When
    /// each side has a value the other has not seen, the rows are merged field by field.
    @Test func aMergeWithALaterCopyTakesItsTable() throws {
        var checked = 0
        for (a, _) in Self.pairs() {
            guard let id = a.items.first?.id else { continue }
            checked += 1
            var later = a
            try later.apply(.update(id: id, changes: [.name: .text("renamed")]), stamp: stamp(Self.later))
            let merged = a.merged(with: later)
            #expect(ShoppingList.isSameTable(merged.rows, later.rows))
            #expect(merged == later.merged(with: a))
            // Concurrent edits of one row: each side keeps a field the other lacks.
            var other = a
            try other.apply(.update(id: id, changes: [.amount: .text("2 kg")]), stamp: stamp(Self.later + 1))
            let both = later.merged(with: other)
            #expect(both == other.merged(with: later))
            #expect(both.rows[id]?.name == "renamed" && both.rows[id]?.amount == "2 kg")
        }
        #expect(checked > 100)
    }

    @Test func aSpliceKeepsTheTableLayout() throws {
        var list = ShoppingList(sections: ["A"])
        for n in 0..<200 {
            try list.apply(.insert(Item(id: "ITEM-\(n)", name: "item \(n)", section: "A", sortOrder: Double(n))), stamp: stamp(1))
        }
        var spliced = list
        let replaced = ["ITEM-3", "ITEM-77", "ITEM-150"]
        var renamed = list.rows["ITEM-77"]!
        renamed.name = "renamed"
        let splicedOK = spliced.replaceRows(replaced[...], with: [list.rows["ITEM-3"]!, renamed, list.rows["ITEM-150"]!])
        #expect(splicedOK)
        #expect(ShoppingList.differingRowIDs(list.rows, spliced.rows) == ["ITEM-77"])
        // A row dropped and one taken twice are told apart as before.
        var dropped = list
        let droppedOK = dropped.replaceRows(["ITEM-3"], with: [])
        #expect(droppedOK)
        #expect(dropped.rows["ITEM-3"] == nil && dropped.rows.count == 199)
        var twice = list
        let twiceOK = twice.replaceRows(["ITEM-3"], with: [list.rows["ITEM-3"]!, list.rows["ITEM-3"]!])
        #expect(!twiceOK)
        var taken = list
        let takenOK = taken.replaceRows(["ITEM-3"], with: [list.rows["ITEM-4"]!])
        #expect(!takenOK)
    }

    @Test func aMergeOfUnpairedTablesPairsThemAgain() throws {
        var list = ShoppingList(sections: ["A"])
        for n in 0..<200 {
            try list.apply(.insert(Item(id: "ITEM-\(n)", name: "item \(n)", section: "A", sortOrder: Double(n))), stamp: stamp(1))
        }
        // The same rows in a table built afresh (its own hash seed): as after a whole decode.
        let decoded = ShoppingList(sectionEntries: list.sectionEntries, rows: Array(list.rows.values))
        var merged = list
        merged.merge(decoded)
        #expect(merged == list)
        #expect(ShoppingList.differingRowIDs(merged.rows, decoded.rows) == [])
    }
}
