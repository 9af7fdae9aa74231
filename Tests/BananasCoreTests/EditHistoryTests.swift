import Testing
@testable import BananasCore

/// Undo and redo as a value: what a person expects of them, without a store.
@Suite struct EditHistoryTests {
    /// A list and its history, edited as the store does (apply, record the inverse).
    struct Session {
        var list = ShoppingList()
        var history = EditHistory()
        var millis: Int64 = 1_000
        let replica: String

        init(_ replica: String = "me") { self.replica = replica }

        mutating func stamp() -> Stamp {
            millis += 1
            return Stamp(millis: millis, counter: 0, replica: replica)
        }

        mutating func edit(_ edit: ListEdit, _ label: String) throws {
            let inverse = try list.apply(edit, stamp: stamp())
            history.record(inverse: inverse, label: label)
        }

        mutating func replay(_ direction: EditHistory.Direction) throws -> String? {
            var list = self.list
            var stampSource = self
            let label = try history.replay(direction) { edit in
                let before = list
                let inverse = try list.apply(edit, stamp: stampSource.stamp())
                return list == before ? nil : inverse
            }
            millis = stampSource.millis
            self.list = list
            return label
        }
    }

    @Test func undoAndRedoWalkBackAndForth() throws {
        var me = Session()
        try me.edit(.insert(Item(id: "M", name: "Milk")), "add Milk")
        try me.edit(.update(id: "M", changes: [.amount: .text("2")]), "amount")
        #expect(me.history.undoLabel == "amount" && !me.history.canRedo)
        #expect(try me.replay(.undo) == "amount")
        #expect(me.list.item("M")?.amount == "")
        #expect(try me.replay(.undo) == "add Milk")
        #expect(me.list.item("M") == nil && !me.history.canUndo)
        #expect(try me.replay(.undo) == nil, "nothing left to undo")
        #expect(try me.replay(.redo) == "add Milk")
        #expect(try me.replay(.redo) == "amount")
        #expect(me.list.item("M")?.amount == "2")
        // A new edit ends what could be redone.
        _ = try me.replay(.undo)
        try me.edit(.update(id: "M", changes: [.checked: .flag(true)]), "check")
        #expect(!me.history.canRedo && me.history.undoLabel == "check")
    }

    @Test func undoNeverOverwritesAValueSomeoneElseWrote() throws {
        var me = Session()
        try me.edit(.insert(Item(id: "G", name: "Garlic")), "add")
        try me.edit(.update(id: "G", changes: [.name: .text("Garlic bulb")]), "rename")
        // Another editor renames it again; its value reaches this one.
        var other = me.list
        try other.apply(.update(id: "G", changes: [.name: .text("Red garlic")]), stamp: Stamp(millis: 5_000, counter: 0, replica: "right"))
        me.list.merge(other)
        #expect(throws: EditHistory.Refused(label: "rename", reason: .changedSince(id: "G", field: "name"))) { try me.replay(.undo) }
        #expect(me.list.item("G")?.name == "Red garlic", "nothing changed")
        #expect(me.history.undoLabel == "add", "the refused step is dropped")
    }

    @Test func stepsWhoseItemIsGoneAreSkippedAndTheHistoryIsBounded() throws {
        var me = Session()
        try me.edit(.insert(Item(id: "A", name: "Apples")), "add Apples")
        try me.edit(.insert(Item(id: "B", name: "Bread")), "add Bread")
        try me.edit(.update(id: "B", changes: [.amount: .text("1")]), "amount of Bread")
        var other = me.list
        try other.apply(.delete(id: "B"), stamp: Stamp(millis: 9_000, counter: 0, replica: "other"))
        me.list.merge(other)
        #expect(try me.replay(.undo) == "add Apples", "the steps on deleted Bread are skipped")
        var long = EditHistory()
        for n in 0..<(EditHistory.limit + 5) { long.record(inverse: .delete(id: "\(n)"), label: "\(n)") }
        #expect(long.undoSteps.count == EditHistory.limit && long.undoSteps.first?.label == "5")
        long.record(inverse: .batch([]), label: "nothing")
        #expect(long.undoLabel == "\(EditHistory.limit + 4)", "an edit that changed nothing is no step")
    }
}
