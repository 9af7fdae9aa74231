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

    /// Failure 9 of issue 38: undo compares stamps, not text. Another writer sets the field to
    /// the very text this instance wrote, with a newer stamp: the value is theirs, and undo
    /// (and redo) refuse, changing nothing.
    @Test func undoAndRedoRefuseTheSameTextWrittenByAnotherWriter() throws {
        var me = Session()
        try me.edit(.insert(Item(id: "B", name: "Bread")), "add")
        try me.edit(.update(id: "B", changes: [.amount: .text("2")]), "amount")
        var other = me.list
        try other.apply(.update(id: "B", changes: [.amount: .text("3")]), stamp: Stamp(millis: 5_000, counter: 0, replica: "right"))
        try other.apply(.update(id: "B", changes: [.amount: .text("2")]), stamp: Stamp(millis: 5_001, counter: 0, replica: "right"))
        me.list.merge(other)
        #expect(me.list.item("B")?.amount == "2", "the same text as this instance wrote")
        let before = me.list
        #expect(throws: EditHistory.Refused(label: "amount", reason: .changedSince(id: "B", field: "amount"))) { try me.replay(.undo) }
        #expect(me.list == before, "nothing changed")

        // Redo alike: undone here, then set to the undone text by another writer.
        var again = Session()
        try again.edit(.insert(Item(id: "M", name: "Milk")), "add")
        try again.edit(.update(id: "M", changes: [.checked: .flag(true)]), "check")
        #expect(try again.replay(.undo) == "check")
        var right = again.list
        try right.apply(.update(id: "M", changes: [.checked: .flag(true)]), stamp: Stamp(millis: 6_000, counter: 0, replica: "right"))
        try right.apply(.update(id: "M", changes: [.checked: .flag(false)]), stamp: Stamp(millis: 6_001, counter: 0, replica: "right"))
        again.list.merge(right)
        let unchanged = again.list
        #expect(throws: EditHistory.Refused(label: "check", reason: .changedSince(id: "M", field: "checked"), direction: .redo)) { try again.replay(.redo) }
        #expect(again.list == unchanged)
    }

    /// An undo sets back another writer's value with this instance's stamp: undoing further
    /// back would overwrite that value, and is refused (a check of the replica alone let it).
    @Test func undoingFurtherBackNeverOverwritesAValueAnEarlierUndoSetBack() throws {
        var me = Session()
        try me.edit(.insert(Item(id: "B", name: "Bread")), "add")
        try me.edit(.update(id: "B", changes: [.amount: .text("2")]), "amount 2")
        var other = me.list
        try other.apply(.update(id: "B", changes: [.amount: .text("5")]), stamp: Stamp(millis: 5_000, counter: 0, replica: "right"))
        me.list.merge(other)
        me.millis = 6_000
        try me.edit(.update(id: "B", changes: [.amount: .text("3")]), "amount 3")
        #expect(try me.replay(.undo) == "amount 3")
        #expect(me.list.item("B")?.amount == "5", "the right's value is back, stamped here")
        let before = me.list
        #expect(throws: EditHistory.Refused(label: "amount 2", reason: .changedSince(id: "B", field: "amount"))) { try me.replay(.undo) }
        #expect(me.list == before && me.list.item("B")?.amount == "5")
    }

    /// Alone, undo and redo walk the whole way through this instance's own values: each value
    /// an undo sets back stands, by its new stamp, for the one it restored.
    @Test func ownChainsOfUndoAndRedoStillWalkByStamp() throws {
        var me = Session()
        try me.edit(.insert(Item(id: "B", name: "Bread")), "add")
        try me.edit(.update(id: "B", changes: [.amount: .text("2")]), "amount 2")
        try me.edit(.update(id: "B", changes: [.amount: .text("3")]), "amount 3")
        try me.edit(.update(id: "B", changes: [.amount: .text("2")]), "amount 2 again")
        try me.edit(.delete(id: "B"), "remove")
        for label in ["remove", "amount 2 again", "amount 3", "amount 2", "add"] {
            #expect(try me.replay(.undo) == label)
        }
        #expect(me.list.item("B") == nil)
        for label in ["add", "amount 2", "amount 3", "amount 2 again", "remove"] {
            #expect(try me.replay(.redo) == label)
        }
        #expect(me.list.item("B") == nil && me.list.rows["B"]?.amount == "2")
        #expect(try me.replay(.undo) == "remove")
        #expect(try me.replay(.undo) == "amount 2 again")
        #expect(me.list.item("B")?.amount == "3")
    }

    /// Sections alike: an undo sets back a section's fields only if they still hold, by
    /// stamp, what the undone edit wrote; section by section, never by name.
    @Test func sectionUndoComparesStampsNotNames() throws {
        var me = Session()
        try me.edit(.setSections(["Dairy", "Produce"]), "sections")
        try me.edit(try me.list.renameSectionEdit("Dairy", to: "Milk"), "rename Dairy")
        var other = me.list
        let right = Stamp(millis: 5_000, counter: 0, replica: "right")
        try other.apply(try other.renameSectionEdit("Milk", to: "Fridge"), stamp: right)
        try other.apply(try other.renameSectionEdit("Fridge", to: "Milk"), stamp: Stamp(millis: 5_001, counter: 0, replica: "right"))
        me.list.merge(other)
        let before = me.list
        #expect(throws: EditHistory.Refused.self) { try me.replay(.undo) }
        #expect(me.list == before && me.list.sections == ["Milk", "Produce"], "the same name, written by another: kept")

        // Undo of an added section takes that section away, and nothing else: a rename
        // another writer made meanwhile stays (setting the old names back by name undid it).
        var added = Session()
        try added.edit(.setSections(["Dairy", "Produce"]), "sections")
        try added.edit(try added.list.addSectionEdit("Bakery"), "add Bakery")
        var there = added.list
        try there.apply(try there.renameSectionEdit("Dairy", to: "Fridge"), stamp: Stamp(millis: 6_000, counter: 0, replica: "right"))
        added.list.merge(there)
        #expect(try added.replay(.undo) == "add Bakery")
        #expect(added.list.sections == ["Fridge", "Produce"])
        #expect(try added.replay(.redo) == "add Bakery")
        #expect(added.list.sections == ["Fridge", "Produce", "Bakery"])
        // Alone, a run of section undos walks all the way back.
        #expect(try added.replay(.undo) == "add Bakery")
        #expect(try added.replay(.undo) == "sections")
        #expect(added.list.sections.isEmpty, "a rename changes no removal: the sections this instance added go \(added.list.sections)")
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
