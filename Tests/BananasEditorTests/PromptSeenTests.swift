import BananasCore
import BananasEditor
import Testing

/// Rule 7 of the merge contract: an edit prompt saved over a value another writer put there
/// after the prompt opened overwrites it knowingly, and records it for review.
@Suite struct PromptSeenTests {
    /// Another writer's edit, stamped after everything the session made.
    func otherWriter(_ session: inout Session, _ id: String, _ changes: [ItemField: FieldValue]) throws {
        try session.list.apply(.update(id: id, changes: changes), stamp: Stamp(millis: 1_000, counter: 0, replica: "other"))
    }

    @Test func aNameChangedWhileThePromptWasOpenIsRecorded() throws {
        var session = Session()
        session.press(.char("g"), .char("j"), .char("e"))
        try otherWriter(&session, "A1", [.name: .text("Plantains")])
        session.type("Red bananas")
        session.press(.enter, .enter)
        #expect(session.list.item("A1")?.name == "Red bananas")
        let conflicts = session.list.conflictList()
        #expect(conflicts.map(\.lost) == [.text("Plantains")], "the value the prompt never showed is kept for review")
        #expect(conflicts.first?.kept == .text("Red bananas"))
    }

    @Test func anAmountChangedWhileItsPromptWasOpenIsRecorded() throws {
        var session = Session()
        session.press(.char("g"), .char("j"), .char("e"), .enter)  // the name as it is; the amount prompt opens
        try otherWriter(&session, "A1", [.amount: .text("12")])
        session.type("8")
        session.press(.enter)
        #expect(session.list.item("A1")?.amount == "8")
        #expect(session.list.conflictList().map(\.lost) == [.text("12")])
    }

    @Test func aPromptSavedOverWhatItShowedRecordsNothing() throws {
        var session = Session()
        try otherWriter(&session, "A1", [.name: .text("Plantains")])
        session.press(.char("g"), .char("j"), .char("e"))
        session.type("Red bananas")
        session.press(.enter, .enter)
        #expect(session.list.item("A1")?.name == "Red bananas")
        #expect(session.list.conflictList().isEmpty)
    }

    @Test func aSectionChangedWhileTheMovePromptWasOpenIsRecorded() throws {
        var session = Session()
        session.press(.char("g"), .char("j"), .char("m"))
        try otherWriter(&session, "A1", [.section: .text("Dairy")])
        session.type("Bakery")
        session.press(.enter)
        #expect(session.list.item("A1")?.section == "Bakery")
        #expect(session.list.conflictList().map(\.lost) == [.text("Dairy")])
    }

    /// The section-rename prompt (R on a section) names the section it showed: another
    /// writer's rename while it was open is overwritten knowingly and recorded for review,
    /// and the prompt renames that section, not whatever now has the name it showed.
    @Test func aSectionRenamedWhileItsRenamePromptWasOpenIsRecorded() throws {
        var session = Session()
        session.press(.char("g"), .char("R"))  // on "Produce"
        try session.list.apply(session.list.renameSectionEdit("Produce", to: "Fruit"), stamp: Stamp(millis: 1_000, counter: 0, replica: "other"))
        for _ in "Produce" { session.press(.backspace) }
        session.type("Greens")
        session.press(.enter)
        #expect(session.list.sections == ["Greens", "Dairy", "Bakery"])
        #expect(session.list.conflictList().map(\.lost) == [.text("Fruit")], "the name the prompt never showed is kept for review")
        #expect(session.list.conflictList().first?.isSection == true)
    }

    @Test func aSectionRenamePromptSavedOverWhatItShowedRecordsNothing() throws {
        var session = Session()
        session.press(.char("g"), .char("R"))
        for _ in "Produce" { session.press(.backspace) }
        session.type("Greens")
        session.press(.enter)
        #expect(session.list.sections == ["Greens", "Dairy", "Bakery"])
        #expect(session.list.conflictList().isEmpty)
    }
}
