import BananasTestSupport
import Testing
import PropertyBased
@testable import BananasCore

/// `differingRowIDs(_:_:added:)`, the splicing writer's walk for an add: whatever the two
/// tables' layouts, it answers what looking every id up answers, or nil.
@Suite struct AddedRowsTests {
    /// The rows that differ and the ids only `rows` has, by looking every id up.
    static func byLookup(_ rows: RowTable, _ other: RowTable) -> (differing: Set<String>, added: Set<String>)? {
        guard Set(other.keys).isSubset(of: Set(rows.keys)) else { return nil }
        let differing = Set(other.keys.filter { rows[$0]! != other[$0]! })
        return (differing, Set(rows.keys).subtracting(other.keys))
    }

    @Test func theWalkAnswersAsLookupsDo() throws {
        var rng = Xoshiro(seed: (23, 0, 0, 0))
        var paired = 0
        for round in 0..<300 {
            var list = ShoppingList(sections: ["A"])
            let size = [0, 1, 5, 40, 200][round % 5]
            for n in 0..<size {
                try list.apply(.insert(Item(id: "ITEM-\(n)", name: "item \(n)", section: "A", sortOrder: Double(n))), stamp: Stamp(millis: 1, counter: n, replica: "a"))
            }
            var edited = list
            for k in 0..<rng.below(4) {  // adds, which may grow the table
                try edited.apply(.insert(Item(id: "NEW-\(round)-\(k)", name: "new", section: "A", sortOrder: 1e6 + Double(k))), stamp: Stamp(millis: 2, counter: k, replica: "b"))
            }
            if size > 0, rng.below(2) == 0 {  // a change
                try edited.apply(.update(id: "ITEM-\(rng.below(size))", changes: [.checked: .flag(true)]), stamp: Stamp(millis: 3, counter: 0, replica: "b"))
            }
            if size > 0, rng.below(5) == 0 {  // a row gone: nothing pairs
                edited.rows["ITEM-\(rng.below(size))"] = nil
            }
            if rng.below(4) == 0 {  // a table rebuilt: another layout
                edited.rows = RowTable(Dictionary(uniqueKeysWithValues: Array(edited.rows)))
            }
            var added: [String] = []
            let walked = ShoppingList.differingRowIDs(edited.rows, list.rows, added: &added)
            let expected = Self.byLookup(edited.rows, list.rows)
            // Nil (the caller looks every id up) is allowed; a wrong answer is not.
            guard let walked else { continue }
            paired += 1
            #expect(Set(walked) == expected?.differing && walked.count == expected?.differing.count)
            #expect(Set(added) == expected?.added && added.count == expected?.added.count)
        }
        #expect(paired > 100, "the walk should pair up for most adds (\(paired) did)")
    }
}
