import BananasCore
import BananasEditor
import BananasFile
import BananasSync
import BananasTerminal
import Foundation
import BananasTestSupport
import Testing

/// The conventions a user of htop, tig or lazygit expects: pages are pages, the wheel steps
/// alike everywhere, Space moves on, typed text is not dropped without asking, the cursor
/// starts on an item, and the screen says what Enter will do.
@Suite("Conventions")
struct ConventionTests {
    /// A list of `count` items in one section.
    func longList(_ count: Int) -> ShoppingList {
        ShoppingList(sections: ["Produce"], rows: (0..<count).map {
            Item(id: "I\($0)", name: "Item \($0)", section: "Produce", sortOrder: Double($0 + 1))
        })
    }

    @Test("a new editor's cursor starts on the first item, not its section's header, so e edits the item")
    func cursorStartsOnItem() {
        var state = EditorState()
        state.pinSelection(state.rows(for: sampleList()))
        #expect(state.selection == .item("A1"))
        _ = state.handle(.char("e"), list: sampleList())
        guard case .prompt(let prompt) = state.mode else { Issue.record("no prompt"); return }
        #expect(prompt.label == "Name:" && prompt.line.text == "Bananas")
    }

    @Test("Space checks and moves on to the next item, past a section header; the setting keeps the cursor")
    func spaceMovesOn() {
        var s = Session()
        s.state.spaceMovesOn = true
        s.press(.char("j"), .char("j"))  // Apples
        s.press(.char(" "), .char(" "))
        #expect(s.named("Apples")?.checked == false && s.named("Spinach")?.checked == true)
        #expect(s.state.selection == .item("B1"), "on to Oat milk, past the Dairy header")
        s.press(.char(" "))
        #expect(s.named("Oat milk")?.checked == true)
        let lines = s.screen().split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("  [x] Oat milk") })
        var t = Session()
        t.press(.char("j"), .char(" "))
        #expect(t.named("Bananas")?.checked == true && t.state.selection == .item("A1"), "space-moves-on: false stays")
    }

    @Test("help pages by a page with PgDn, Space and Ctrl-F, back with PgUp and Ctrl-B")
    func helpPages() {
        var s = Session(height: 20)
        s.press(.char("?"))
        let page = s.state.overlayLines - 1
        #expect(page > 10, "a page is the screen, not 10 lines")
        for key: Key in [.pageDown, .char(" "), .ctrl("f")] {
            let before = s.state.helpScroll
            s.press(key)
            #expect(s.state.helpScroll == before + page, "\(key)")
        }
        s.press(.ctrl("b"))
        #expect(s.state.helpScroll == 2 * page)
        // What was the last line of the first page is the first line of the second.
        var t = Session(height: 20)
        t.press(.char("?"))
        let first = render(t.list, state: t.state, width: 80, height: 20).lines
        t.press(.pageDown)
        let second = render(t.list, state: t.state, width: 80, height: 20).lines
        func box(_ line: String) -> String { String(line.drop { $0 != "│" }).replacingOccurrences(of: "↓", with: " ") }
        #expect(box(second[2]) == box(first[2 + page]), "\(first)\n\(second)")
    }

    @Test("Ctrl-F and Ctrl-B page the list")
    func listPages() {
        var s = Session(list: longList(60), height: 20)
        s.press(.char("j"))
        s.press(.ctrl("f"))
        let page = s.state.viewportHeight - 1
        #expect(s.state.selection == .item("I\(page)"))
        s.press(.ctrl("f"), .ctrl("b"))
        #expect(s.state.selection == .item("I\(page)"))
    }

    @Test("a notch of the wheel moves three lines everywhere: the list, help, messages, usual items")
    func wheelStepsAlike() {
        var s = Session(list: longList(60), height: 20)
        s.press(.char("j"))
        _ = s.state.handle(MouseEvent(.wheelDown, x: 5, y: 5), list: s.list, width: 80)
        #expect(s.state.selection == .item("I3"))
        s.press(.char("?"))
        _ = s.state.handle(MouseEvent(.wheelDown, x: 5, y: 5), list: s.list, width: 80)
        #expect(s.state.helpScroll == 3)
        _ = s.state.handle(MouseEvent(.wheelUp, x: 5, y: 5), list: s.list, width: 80)
        #expect(s.state.helpScroll == 0)
    }

    @Test("the amount prompt's key bar offers no Tab; the section prompt's does")
    func tabOnlyWhereItActs() {
        var s = Session()
        s.state.keyBar = .on
        s.press(.char("j"), .char("="))
        let amount = render(s.list, state: s.state).lines
        #expect(amount[amount.count - 3].hasPrefix("Enter accept  Esc cancel"), "\(amount)")
        #expect(!amount[amount.count - 3].contains("Tab"), "\(amount)")
        s.press(.escape, .char("m"))
        let move = render(s.list, state: s.state).lines
        #expect(move[move.count - 3].contains("Tab complete"), "\(move)")
    }

    @Test("Enter on a typed name with a close suggestion: the prompt says which will be added first")
    func enterSaysWhatItAdds() {
        var list = sampleList()
        // Bought before, cleared since: remembered.
        try! list.apply(.batch([
            .insert(Item(id: "R1", name: "Bananas bio", section: "Produce", sortOrder: 9_000)),
            .update(id: "R1", changes: [.checked: .flag(true)]),
        ]), stamp: Stamp(millis: 1, counter: 1, replica: "past"))
        try! list.apply(.delete(id: "R1"), stamp: Stamp(millis: 1, counter: 2, replica: "past"))
        var s = Session(list: list)
        s.press(.char("a"))
        s.type("bnanas bio")
        let line = render(s.list, state: s.state, width: 80).lines[10]
        #expect(line.contains("Add to Produce: bnanas bio  adds new \"bnanas bio\" · Tab: Bananas bio"), "\(line)")
        s.press(.tab)
        #expect(render(s.list, state: s.state, width: 80).lines[10].contains("adds Bananas bio"))
    }

    @Test("a click on a key bar entry presses its key; between entries, nothing")
    func keyBarClickable() {
        var s = Session()
        s.state.keyBar = .on
        s.state.keyBarShown = true
        s.state.viewportHeight = Screen.viewportHeight(forHeight: 12, keyBar: true)
        let bar = render(s.list, state: s.state).lines[9]
        #expect(bar.hasPrefix("a add  Space check"), "\(bar)")
        let column = bar.distance(from: bar.startIndex, to: bar.range(of: "e edit")!.lowerBound)
        _ = s.state.handle(MouseEvent(.press, x: column + 2, y: 9), list: s.list, width: 44)
        guard case .prompt(let prompt) = s.state.mode else { Issue.record("no prompt: \(s.state.mode)"); return }
        #expect(prompt.label == "Rename section:", "the cursor is on Produce's header: e renames it")
        s.press(.escape)
        _ = s.state.handle(MouseEvent(.press, x: column - 1, y: 9), list: s.list, width: 44)
        #expect(s.state.mode == .normal)
    }

    @Test("the conflict review's title fits a 50-column pane")
    func conflictTitleFits() {
        var state = EditorState()
        _ = state.handle(.char("c"), list: sampleList(), conflicts: ConflictOverlayTests.entries)
        var status = SyncStatus()
        status.conflicts = ConflictOverlayTests.entries
        let lines = render(state: state, status: status, width: 50, height: 14).lines
        let title = lines.first { $0.contains("┌") } ?? ""
        #expect(title.contains("Conflicts: values that lost") && !title.contains("…"), "\(title)")
    }
}

@MainActor
@Suite("Conventions over a store")
struct ConventionStoreTests {
    @Test("a rename that lost to another at the same moment: the message stops saying Saved with the old name")
    func savedMessageFollowsTheWinner() async throws {
        let box = Sandbox()
        let other = ListStore(file: box.file(), mode: .live)
        try other.perform(.insert(Item(id: "G1", name: "Apples", section: "Produce", sortOrder: 1)), label: "add")
        #expect(await other.waitUntilFlushed())
        let editor = Editor(store: ListStore(file: box.file(), mode: .live), fileLabel: "test")
        #expect(await eventually { editor.store.list.item("G1") != nil })
        editor.handle(.char("e"))
        for c in "Gala apples" { editor.handle(.char(c)) }
        editor.handle(.enter)
        editor.handle(.enter)
        #expect(editor.state.message?.text == "Saved Gala apples")
        // The other instance renames before it has seen this one's (no await between): its
        // later stamp wins (a blocking pause makes it later, whatever the clocks' resolution).
        usleep(3_000)
        try other.perform(.update(id: "G1", changes: [.name: .text("Green apples")]), label: "rename")
        #expect(await eventually { editor.store.list.item("G1")?.name == "Green apples" })
        let text = editor.render(width: 80, height: 12).text
        #expect(!text.contains("Saved Gala apples"), "\(text)")
        #expect(editor.state.message?.text.hasPrefix("Another edit won: the name is \"Green apples\", not \"Gala apples\"") == true,
                "\(editor.state.message?.text ?? "")")
        _ = other.close()
        _ = editor.store.close()
    }
}
