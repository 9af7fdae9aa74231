import BananasCore
import BananasTestSupport
import Testing
@testable import BananasEditor

/// An edit from another instance brings the rows already built up to date in place (no sort
/// and no grouping of the whole list); whatever it patches must be what a fresh build shows.
@Suite struct PatchedRowsTests {
    static func startList() throws -> ShoppingList {
        var list = ShoppingList(sections: ["Produce", "Dairy", "Bakery"])
        let names = ["Bananas", "Apples", "Oat milk", "Butter", "Bread", "Spinach", "Banana chips", "Milk"]
        for n in 0..<60 {
            let item = Item(id: "ITEM-\(n)", name: "\(names[n % names.count]) \(n)", amount: n % 3 == 0 ? "2" : "",
                            section: ["Produce", "Dairy", "Bakery", "Elsewhere"][n % 4], checked: n % 5 == 0, sortOrder: Double(n))
            try list.apply(.insert(item), stamp: Stamp(millis: 1, counter: n, replica: "a"))
        }
        return list
    }

    @Test func patchedRowsAreTheRowsBuiltAfresh() throws {
        let start = try Self.startList()
        var rng = SplitMix(seed: 0xBA7A7A)
        var patched = 0
        for round in 0..<400 {
            var state = EditorState()
            state.hideChecked = rng.below(4) == 0
            state.filter = ["", "", "ban", "milk 1"][rng.below(4)]
            if rng.below(3) == 0 { state.collapsed = ["Dairy"] }
            var list = start
            for _ in 0..<(1 + rng.below(3)) {
                let id = "ITEM-\(rng.below(60))"
                let stamp = Stamp(millis: 2 + Int64(round), counter: rng.below(1000), replica: "b")
                let edit: ListEdit = switch rng.below(7) {
                case 0: .update(id: id, changes: [.name: .text(["Bananas", "Cheese", "Milk"][rng.below(3)])])
                case 1: .update(id: id, changes: [.checked: .flag(rng.below(2) == 0)])
                case 2: .update(id: id, changes: [.amount: .text("\(rng.below(9))")])
                case 3: .update(id: id, changes: [.section: .text(["Produce", "Bakery"][rng.below(2)])])
                case 4: .update(id: id, changes: [.sortOrder: .order(Double(rng.below(60)) + 0.5)])
                case 5: .delete(id: id)
                default: .update(id: id, changes: [.optional: .flag(rng.below(2) == 0)])
                }
                _ = try? list.apply(edit, stamp: stamp)
            }
            let memo = RowsMemo()
            let before = state.rows(for: start, memo: memo), counts = state.counts(for: start)
            let fresh = state  // without a memo: built afresh
            if let result = EditorState.patched(RowsMemo.Built(rows: before, checked: counts.checked, total: counts.total),
                                                from: start, to: list, query: state.activeFilter.lowercased(),
                                                collapsed: state.collapsed, hideChecked: state.hideChecked) {
                patched += 1
                #expect(result.rows == fresh.rows(for: list), "round \(round)")
                #expect(result.checked == fresh.counts(for: list).checked && result.total == fresh.counts(for: list).total)
            }
            // Through the memo, whichever way it goes.
            #expect(state.rows(for: list, memo: memo) == fresh.rows(for: list), "round \(round)")
        }
        #expect(patched > 100, "edits of values should be patched in (\(patched) were)")
    }
}

