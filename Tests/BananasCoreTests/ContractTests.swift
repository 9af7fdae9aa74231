import Testing
@testable import BananasCore
import BananasTestSupport

/// The merge contract's failures as they were seen (issue 19), each as the user met it.
@Suite struct ContractTests {
    /// A field stamped by a clock far ahead (hours, or a damaged file's year 2126) can still be
    /// changed by anyone: the edit beats the value its author saw (rule 1).
    @Test(arguments: [Int64(2 * 3_600_000), Int64(100) * 365 * 86_400_000])
    func aFieldStampedInTheFutureStillTakesAnEdit(ahead: Int64) throws {
        let now: Int64 = 1_800_000_000_000
        var list = ShoppingList(rows: [Item(id: "M", name: "Milk", amount: "1")])
        try list.apply(.update(id: "M", changes: [.amount: .text("2")]), stamp: Stamp(millis: now + ahead, counter: 0, replica: "fast"))
        var here = list
        var clock = StampClock(replica: "slow")
        clock.observe(list.newestStamp, now: now)
        try here.apply(.update(id: "M", changes: [.amount: .text("3")]), stamp: clock.next(now: now))
        #expect(here.item("M")?.amount == "3", "the edit took effect")
        #expect(here.merged(with: list).item("M")?.amount == "3", "and survives a merge with the file it replaced")
        #expect(list.merged(with: here).conflictList().isEmpty, "an overwrite of a value seen is no conflict")
        #expect(list.furthestAhead(of: now)?.lead(over: now) == ahead, "the skew is there to report")
    }

    /// Rule 3 whatever the clocks: the deleter's clock ahead or behind, an edit it had not seen
    /// keeps the row; an edit it had seen does not.
    @Test(arguments: [Int64(-3_600_000), Int64(3_600_000)])
    func deletesAreCausal(deleterOffset: Int64) throws {
        let base = ShoppingList(rows: [Item(id: "M", name: "Milk")])
        var editor = base, deleter = base
        try editor.apply(.update(id: "M", changes: [.checked: .flag(true)]), stamp: Stamp(millis: 1_000_000, counter: 0, replica: "e"))
        try deleter.apply(.delete(id: "M"), stamp: Stamp(millis: 1_000_000 + deleterOffset, counter: 0, replica: "d"))
        #expect(editor.merged(with: deleter).item("M")?.checked == true, "an edit the deleter had not seen keeps the row")
        var seen = editor
        try seen.apply(.delete(id: "M"), stamp: Stamp(millis: 1_000_000 + deleterOffset, counter: 0, replica: "d"))
        #expect(seen.merged(with: editor).item("M") == nil, "a delete of what it saw holds")
        #expect(seen.recentlyDeleted.map(\.item.name) == ["Milk"], "and can be brought back from recently deleted")
    }

    /// Rule 6: two devices change different sections while apart; all of it survives, and a
    /// rename touches no item (one deleted elsewhere stays deleted).
    @Test func sectionsMergePerSection() throws {
        let base = try {
            var list = ShoppingList()
            try list.apply(.setSections(["Produce", "Dairy", "Bakery"]), stamp: Stamp(millis: 1, counter: 0, replica: "o"))
            try list.apply(.insert(Item(id: "Y", name: "Yogurt", section: "Dairy", sortOrder: 1)), stamp: Stamp(millis: 2, counter: 0, replica: "o"))
            return list
        }()
        var a = base, b = base
        try a.apply(try a.renameSectionEdit("Dairy", to: "Fridge"), stamp: Stamp(millis: 10, counter: 0, replica: "a"))
        try a.apply(try a.moveSectionEdit("Bakery", to: 0), stamp: Stamp(millis: 11, counter: 0, replica: "a"))
        try b.apply(try b.addSectionEdit("Frozen"), stamp: Stamp(millis: 12, counter: 0, replica: "b"))
        try b.apply(.delete(id: "Y"), stamp: Stamp(millis: 13, counter: 0, replica: "b"))
        for merged in [a.merged(with: b), b.merged(with: a)] {
            #expect(merged.sections == ["Bakery", "Produce", "Fridge", "Frozen"])
            #expect(merged.item("Y") == nil, "the rename did not bring the deleted yogurt back")
            #expect(merged.conflictList().isEmpty)
        }
    }

    /// Rule 6: a concurrent rename of one section to two names: one wins, the other is recorded.
    @Test func aSectionRenamedTwiceAtOnceKeepsTheLoserForReview() throws {
        var base = ShoppingList()
        try base.apply(.setSections(["Dairy"]), stamp: Stamp(millis: 1, counter: 0, replica: "o"))
        var a = base, b = base
        try a.apply(try a.renameSectionEdit("Dairy", to: "Fridge"), stamp: Stamp(millis: 10, counter: 0, replica: "a"))
        try b.apply(try b.renameSectionEdit("Dairy", to: "Cold"), stamp: Stamp(millis: 11, counter: 0, replica: "b"))
        let merged = a.merged(with: b)
        #expect(merged.sections == ["Cold"])
        #expect(merged.conflictList().map { [$0.name, $0.field, "\($0.lost)"] } == [["Cold", "name", "Fridge"]])
    }

    /// Rule 7: two editors side by side rename one item; undo on the first never overwrites
    /// the second's newer name.
    @Test func undoNeverOverwritesAValueItDidNotWrite() throws {
        let base = ShoppingList(rows: [Item(id: "G", name: "Garlic")])
        var left = base
        let undo = try left.apply(.update(id: "G", changes: [.name: .text("Garlic bulb")]), stamp: Stamp(millis: 10, counter: 0, replica: "left"))
        var right = left
        try right.apply(.update(id: "G", changes: [.name: .text("Red garlic")]), stamp: Stamp(millis: 11, counter: 0, replica: "right"))
        left.merge(right)
        #expect(throws: EditError.changedSince(id: "G", field: "name")) {
            try left.apply(undo, stamp: Stamp(millis: 12, counter: 0, replica: "left"))
        }
        #expect(left.item("G")?.name == "Red garlic")
    }

    /// Rule 7: a prompt opened on "Garlic", saved after another editor renamed it: the value
    /// it overwrote goes to review.
    @Test func aPromptSavedOverAnUnseenValueRecordsIt() throws {
        var list = ShoppingList(rows: [Item(id: "G", name: "Garlic")])
        try list.apply(.update(id: "G", changes: [.name: .text("Garlic")]), stamp: Stamp(millis: 5, counter: 0, replica: "o"))
        let opened = list.rows["G"]!.stamps[.name]
        try list.apply(.update(id: "G", changes: [.name: .text("Red garlic")]), stamp: Stamp(millis: 10, counter: 0, replica: "right"))
        try list.apply(.update(id: "G", changes: [.name: .text("Garlic bulb")], seen: [.name: opened]), stamp: Stamp(millis: 11, counter: 0, replica: "left"))
        #expect(list.item("G")?.name == "Garlic bulb")
        #expect(list.conflictList().map(\.lost) == [.text("Red garlic")])
    }

    /// Rule 4 and failure 1: a stale copy re-delivered (a bananas save from before items were
    /// added) deletes nothing and changes nothing.
    @Test func aStaleCopyChangesNothing() throws {
        var old = ShoppingList(rows: [Item(id: "M", name: "Milk")])
        try old.apply(.update(id: "M", changes: [.amount: .text("1")]), stamp: Stamp(millis: 5, counter: 0, replica: "c"))
        old.writeMark = Stamp(millis: 5, counter: 1, replica: "w")
        var now = old
        try now.apply(.insert(Item(id: "T", name: "Tea")), stamp: Stamp(millis: 6, counter: 0, replica: "me"))
        try now.apply(.update(id: "M", changes: [.amount: .text("2")]), stamp: Stamp(millis: 7, counter: 0, replica: "me"))
        now.writeMark = Stamp(millis: 7, counter: 1, replica: "w")
        let copy = ShoppingList.mergingConflictCopy(old, into: now)
        #expect(copy.items == now.items && copy.conflictList().isEmpty)
        let absorbed = judged(old, base: now, stamp: Stamp(millis: 8, counter: 0, replica: "x"))
        #expect(absorbed.items == now.items && absorbed.conflictList().isEmpty)
    }

    /// Failure 6a: the phone read an older state, this device then added Tea and set Eggs'
    /// amount; the phone's save (it checked Milk) wins a sync conflict. Judged against the
    /// state it agrees with most (the one it read), it reverts nothing this device wrote since;
    /// a value it holds as that state had it, changed here since, is recorded.
    @Test func aPhoneSaveOfAnOlderStateRevertsNothingWrittenSince() throws {
        func stamp(_ millis: Int64) -> Stamp { Stamp(millis: millis, counter: 0, replica: "me") }
        var read = ShoppingList(rows: [Item(id: "M", name: "Milk"), Item(id: "E", name: "Eggs")])
        try read.apply(.update(id: "M", changes: [.amount: .text("1")]), stamp: stamp(5))
        var added = read
        try added.apply(.insert(Item(id: "T", name: "Tea")), stamp: stamp(6))
        var newest = added
        try newest.apply(.update(id: "E", changes: [.amount: .text("12")]), stamp: stamp(7))
        let phone = StamplessWriter.app(read) { $0[$0.firstIndex { $0.id == "M" }!].checked = true }
        let foreign = Stamp(millis: 8, counter: 0, replica: "f1")

        // Published in order, the device judges the save: nothing in it proves a state newer
        // than the one it read, so what it holds as that state had it is no edit.
        var device = JudgingDevice(read)
        device.publish(added)
        device.publish(newest)
        let list = device.takeIn(phone, stamp: foreign)
        #expect(list.item("M")?.checked == true, "the phone's edit is taken")
        #expect(list.item("E")?.amount == "12", "a row the phone never touched keeps this device's edit")
        #expect(list.item("T") != nil, "an item added since stays")
        #expect(list.conflictList().isEmpty, "the phone's amount is the anchor's: no edit, nothing to review")
    }

    /// Rule 7 for sections: a rename prompt that opened on "Dairy" is saved after another
    /// writer renamed it "Fridge". The prompt renames the section it showed, and "Fridge",
    /// which it never showed, is kept for review; a merge of both sides agrees.
    @Test func aSectionRenamePromptRecordsANameGivenWhileItWasOpen() throws {
        let list = try sampleList()
        let seen = try #require(list.seenSection("Dairy"))
        var other = list
        try other.apply(other.renameSectionEdit("Dairy", to: "Fridge"), stamp: Stamp(millis: 10, counter: 0, replica: "other"))
        var mine = other
        try mine.apply(mine.renameSectionEdit("Dairy", to: "Milk & co", seen: seen), stamp: Stamp(millis: 11, counter: 0, replica: "me"))
        #expect(mine.sections == ["Produce", "Milk & co"])
        #expect(mine.item("B")?.section == "Milk & co")
        #expect(mine.conflictList().map { "\($0.field) \($0.lost.text) \($0.kept.text)" } == ["name Fridge Milk & co"])
        #expect(mine.merged(with: other) == mine && other.merged(with: mine) == mine)
        // Seen as it is now: nothing to record.
        var knowing = other
        try knowing.apply(knowing.renameSectionEdit("Fridge", to: "Milk & co", seen: knowing.seenSection("Fridge")), stamp: Stamp(millis: 11, counter: 0, replica: "me"))
        #expect(knowing.conflictList().isEmpty)
        // Removed meanwhile: refused, as an item prompt on a deleted item is.
        var removed = list
        try removed.apply(removed.removeSectionEdit("Dairy", moveItemsTo: "Produce"), stamp: Stamp(millis: 10, counter: 0, replica: "other"))
        #expect(throws: SectionError.self) { try removed.renameSectionEdit("Dairy", to: "Milk & co", seen: seen) }
    }
}
