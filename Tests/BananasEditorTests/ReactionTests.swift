import BananasCore
import BananasEditor
import Testing

/// Each key's handler says what it changed on screen (`Reaction.changed`); the runner draws
/// only when something did.
@Suite struct ReactionTests {
    /// A session's state and list, the cursor on Bananas (the first item), no message.
    func start() -> (EditorState, ShoppingList) {
        let session = Session()
        var state = session.state
        state.selection = .item("A1")
        state.pinSelection(state.rows(for: session.list))
        return (state, session.list)
    }

    @Test func movingTheCursorChangesTheCursorOnly() {
        var (state, list) = start()
        for key: Key in [.char("j"), .down, .char("k"), .char("G"), .char("g"), .tab] {
            let reaction = state.react(to: key, list: list)
            #expect(reaction == Reaction(.none, changed: .cursor), "\(key.label)")
        }
    }

    @Test func checkingAnItemChangesTheList() {
        var (state, list) = start()
        let reaction = state.react(to: .char(" "), list: list)
        #expect(reaction.changed == .list)
        guard case .edit(.update(let id, let changes, _), _, _, _) = reaction.action else {
            Issue.record("expected an edit, got \(reaction.action)")
            return
        }
        #expect(id == "A1" && changes == [.checked: .flag(true)])
        // Undo and redo are changes to the list too.
        #expect(state.react(to: .char("u"), list: list) == Reaction(.undo, changed: .list))
        #expect(state.react(to: .ctrl("r"), list: list) == Reaction(.redo, changed: .list))
    }

    @Test func promptsAndOverlaysChangeWhatIsOpen() {
        var (state, list) = start()
        #expect(state.react(to: .char("a"), list: list).changed == .overlay)
        #expect(state.react(to: .char("K"), list: list).changed == .overlay, "typed into the prompt")
        let cancelled = state.react(to: .escape, list: list)
        #expect(cancelled.changed == [.overlay, .message], "closed, and Cancelled said")
        #expect(state.react(to: .char("?"), list: list).changed == [.overlay, .message], "help opens, Cancelled goes")
        #expect(state.react(to: .char("q"), list: list).changed == .overlay, "any other key closes help")
    }

    @Test func theViewChangesTheRows() {
        var (state, list) = start()
        #expect(state.react(to: .char("h"), list: list).changed.isSuperset(of: [.rows, .message]))
        #expect(state.react(to: .char("z"), list: list).changed.contains(.rows))
        // Accepting a filter: the prompt closes, the rows narrow and the filter is said.
        _ = state.react(to: .char("/"), list: list)
        for c in "milk" { #expect(state.react(to: .char(c), list: list).changed.contains(.rows)) }
        #expect(state.react(to: .enter, list: list).changed == [.overlay, .rows, .message])
    }

    @Test func aKeyThatDoesNothingChangesNothing() {
        var (state, list) = start()
        // Esc with no filter and no message: nothing to draw.
        #expect(state.react(to: .escape, list: list) == .nothing)
        // Ctrl-L paints every cell; q quits with nothing more to draw.
        #expect(state.react(to: .ctrl("l"), list: list) == Reaction(.redraw, changed: .terminal))
        #expect(state.react(to: .char("q"), list: list) == Reaction(.quit))
    }

    @Test func aCountIsAMessageThenTheMovesTogether() {
        var (state, list) = start()
        #expect(state.react(to: .char("2"), list: list).changed == .message, "2… said")
        #expect(state.react(to: .char("j"), list: list).changed == [.cursor, .message], "the count cleared, two rows down")
        #expect(state.selection == .item("A3"))
    }

    @Test func aCountWhoseMessageExpiredIsDroppedByAKeyThatDoesNothing() {
        var (state, list) = start()
        _ = state.react(to: .char("3"), list: list)
        state.message = nil  // the editor's tick expired "3…"
        #expect(state.react(to: .escape, list: list).changed == .message)
        #expect(state.countPrefix == 0)
    }

    @Test func aReadOnlyEditIsOnlyItsHint() {
        var state = EditorState(readOnly: true)
        let list = sampleList()
        state.pinSelection(state.rows(for: list))
        #expect(state.react(to: .char(" "), list: list) == Reaction(.none, changed: .message))
    }
}
