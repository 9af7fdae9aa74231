import BananasCore
import PropertyBased
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

    @Test func patchedRowsAreTheRowsBuiltAfresh() async throws {
        let start = try Self.startList()
        var patched = 0
        // The view: hide checked (one in four), the filter, Dairy collapsed (one in three).
        let views = zip(Gen.int(in: 0...3), Gen.int(in: 0...3), Gen.int(in: 0...2))
        // 1 to 3 edits, each a row, a kind of edit and a number for its value; a failure is
        // shrunk to the fewest and smallest edits that still show it.
        let edits = zip(Gen.int(in: 0...59), Gen.int(in: 0...6), Gen.int(in: 0...59)).array(of: 1...3)
        await propertyCheck(count: 400, input: views, edits) { view, edits in
            var state = EditorState()
            state.hideChecked = view.0 == 0
            state.filter = ["", "", "ban", "milk 1"][view.1]
            if view.2 == 0 { state.collapsed = ["Dairy"] }
            var list = start
            for (n, (row, kind, value)) in edits.enumerated() {
                let id = "ITEM-\(row)"
                let stamp = Stamp(millis: 2, counter: n, replica: "b")
                let edit: ListEdit = switch kind {
                case 0: .update(id: id, changes: [.name: .text(["Bananas", "Cheese", "Milk"][value % 3])])
                case 1: .update(id: id, changes: [.checked: .flag(value % 2 == 0)])
                case 2: .update(id: id, changes: [.amount: .text("\(value % 9)")])
                case 3: .update(id: id, changes: [.section: .text(["Produce", "Bakery"][value % 2])])
                case 4: .update(id: id, changes: [.sortOrder: .order(Double(value) + 0.5)])
                case 5: .delete(id: id)
                default: .update(id: id, changes: [.optional: .flag(value % 2 == 0)])
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
                #expect(result.rows == fresh.rows(for: list), "edits \(edits)")
                #expect(result.checked == fresh.counts(for: list).checked && result.total == fresh.counts(for: list).total)
            }
            // Through the memo, whichever way it goes.
            #expect(state.rows(for: list, memo: memo) == fresh.rows(for: list), "edits \(edits)")
        }
        #expect(patched > 100, "edits of values should be patched in (\(patched) were)")
    }
}

