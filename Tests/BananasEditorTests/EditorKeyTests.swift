import BananasCore
import BananasEditor
import BananasFile
import BananasSync
import Foundation
import Testing

/// What each key does, on the editor's state over a list (the store's part is tested in
/// EditorStoreTests and, end to end, in the tmux tests).
@Suite("Editor keys")
struct EditorKeyTests {
    @Test("j/k, arrows, g/G and Tab move the cursor over sections and items")
    func movement() {
        var s = Session()
        #expect(s.state.selection == .section("Produce"))
        s.press(.char("j"))
        #expect(s.state.selection == .item("A1"))
        s.press(.down, .down)
        #expect(s.state.selection == .item("A3"))
        s.press(.char("k"))
        #expect(s.state.selection == .item("A2"))
        s.press(.char("G"))
        #expect(s.state.selection == .item("C1"))
        s.press(.down)  // stays at the bottom
        #expect(s.state.selection == .item("C1"))
        s.press(.char("g"))
        #expect(s.state.selection == .section("Produce"))
        s.press(.tab)
        #expect(s.state.selection == .section("Dairy"))
        s.press(.char("j"), .backTab)
        #expect(s.state.selection == .section("Dairy"))
    }

    @Test("the cursor stays on its item when another writer adds rows above it or moves it")
    func cursorFollowsItem() throws {
        var s = Session()
        s.press(.char("G"))
        #expect(s.state.selection == .item("C1"))
        try s.list.apply(.insert(Item(id: "N1", name: "Yogurt", section: "Dairy", sortOrder: 1)), stamp: Stamp(millis: 100, counter: 0, replica: "other"))
        try s.list.apply(.update(id: "C1", changes: [.section: .text("Produce")]), stamp: Stamp(millis: 101, counter: 0, replica: "other"))
        s.state.pinSelection(s.state.rows(for: s.list))
        #expect(s.state.selection == .item("C1"))
        let rows = s.state.rows(for: s.list)
        #expect(rows[s.state.cursorIndex(in: rows)!] == .item(s.list.item("C1")!))
        // Deleted elsewhere: the cursor lands on the row now in its place.
        try s.list.apply(.delete(id: "C1"), stamp: Stamp(millis: 102, counter: 0, replica: "other"))
        s.state.pinSelection(s.state.rows(for: s.list))
        #expect(s.state.selection != nil && s.state.selection != .item("C1"))
    }

    @Test("space checks and unchecks the item under the cursor")
    func check() {
        var s = Session()
        s.press(.char("j"), .char(" "))
        #expect(s.named("Bananas")?.checked == true)
        #expect(s.state.message?.text == "Checked Bananas")
        s.press(.char(" "))
        #expect(s.named("Bananas")?.checked == false)
    }

    @Test("a adds below the cursor in its section: name, Enter, amount, Enter; the prompt stays open for the next")
    func add() throws {
        var s = Session()
        s.press(.char("j"))  // on Bananas
        s.press(.char("a"))
        s.type("Leeks")
        s.press(.enter)
        s.type("3")
        s.press(.enter)
        let leeks = try #require(s.named("Leeks"))
        #expect(leeks.section == "Produce" && leeks.amount == "3")
        #expect(s.list.items(in: "Produce").map(\.name) == ["Bananas", "Leeks", "Apples", "Spinach"])
        #expect(s.state.selection == .item(leeks.id))
        guard case .prompt(let prompt) = s.state.mode, case .addName("Produce") = prompt.kind else {
            Issue.record("the add prompt should stay open, was \(s.state.mode)")
            return
        }
        s.type("Kale")
        s.press(.enter, .enter)  // no amount
        #expect(s.list.items(in: "Produce").map(\.name) == ["Bananas", "Leeks", "Kale", "Apples", "Spinach"])
        s.press(.enter)  // empty name ends adding
        #expect(s.state.mode == .normal)
    }

    @Test("adding a name already on the list points at it; a checked one is unchecked")
    func addExisting() {
        var s = Session()
        s.press(.char("a"))
        s.type("oat MILK")
        s.press(.enter)
        #expect(s.list.items.count == 6)
        #expect(s.state.selection == .item("B1"))
        #expect(s.state.message?.text.contains("already on the list") == true)
        s.type("Butter")
        s.press(.enter)
        #expect(s.named("Butter")?.checked == false)
        #expect(s.list.items.count == 6)
    }

    @Test("an invalid name keeps the prompt open and says why")
    func invalidName() {
        var s = Session()
        s.press(.char("a"))
        s.type(String(repeating: "x", count: TextRules.maxName + 1))
        s.press(.enter)
        #expect(s.state.message?.kind == .error)
        #expect(s.state.message?.text.contains("limit is 500") == true)
        if case .prompt = s.state.mode {} else { Issue.record("prompt closed") }
        s.press(.escape)
        #expect(s.state.mode == .normal && s.list.items.count == 6)
    }

    @Test("e edits name then amount inline, with cursor keys, Home/End, backspace/delete and UTF-8")
    func editInline() {
        var s = Session()
        s.press(.char("j"), .char("e"))
        s.press(.home, .delete)          // "ananas"
        s.type("B")                      // "Bananas"
        s.press(.end, .backspace)        // "Banana"
        s.type(" 🍌")
        s.press(.left, .left)
        s.type("é")                      // "Bananaé 🍌"
        s.press(.enter)
        s.press(.ctrl("u"))
        s.type("半ダース")
        s.press(.enter)
        let item = s.list.item("A1")!
        #expect(item.name == "Bananaé 🍌")
        #expect(item.amount == "半ダース")
    }

    @Test("e: a name another item has is refused in the prompt, which stays open (the rename rule every surface keeps)")
    func renameOntoAnotherName() {
        var s = Session()
        s.press(.char("j"), .char("e"))
        s.press(.ctrl("u"))
        s.type("apples")
        s.press(.enter)
        #expect(s.state.message?.text == "Apples is already on the list")
        guard case .prompt = s.state.mode else { Issue.record("the prompt closed"); return }
        s.press(.ctrl("u"))
        s.type("Plantains")
        s.press(.enter, .enter)
        #expect(s.list.item("A1")?.name == "Plantains")
    }

    @Test("scalars typed one by one join into one character (combining accents, emoji sequences)")
    func clusters() {
        var line = LineEditor()
        for scalar in "e\u{301}👩\u{200D}💻".unicodeScalars { line.handle(.char(Character(scalar))) }
        #expect(line.text == "e\u{301}👩\u{200D}💻")
        #expect(line.text.count == 2 && line.cursor == 2)
        line.handle(.backspace)
        #expect(line.text == "e\u{301}")
    }

    @Test("Esc cancels any prompt and changes nothing")
    func escapeCancels() {
        var s = Session()
        s.press(.char("j"), .char("e"))
        s.type("zzz")
        s.press(.escape)
        #expect(s.list == sampleList())
        s.press(.char("A"))
        s.type("Frozen")
        s.press(.escape)
        #expect(s.list == sampleList())
    }

    @Test("d deletes an item; on a section with items it asks first")
    func delete() {
        var s = Session()
        s.press(.char("j"), .char("d"))
        #expect(s.named("Bananas") == nil)
        #expect(s.state.selection == .item("A2"))  // the next row
        s.press(.char("g"), .char("d"))
        #expect(s.state.mode == .confirm(.removeSection("Produce", ids: ["A2", "A3"])))
        s.press(.char("n"))
        #expect(s.list.items(in: "Produce").count == 2)
        s.press(.char("d"), .char("y"))
        #expect(s.list.items(in: "Produce").isEmpty && !s.list.displaySections.contains("Produce"))
    }

    @Test("J/K move an item within its section, then across into the next or previous one")
    func reorder() {
        var s = Session()
        s.press(.char("j"), .char("J"))
        #expect(s.list.items(in: "Produce").map(\.name) == ["Apples", "Bananas", "Spinach"])
        s.press(.char("J"), .char("J"))
        #expect(s.list.items(in: "Dairy").map(\.name) == ["Bananas", "Oat milk", "Butter"])
        #expect(s.state.selection == .item("A1"))
        s.press(.char("K"))
        #expect(s.list.items(in: "Produce").map(\.name) == ["Apples", "Spinach", "Bananas"])
    }

    @Test("many moves between the same neighbours never tie: the section is renumbered")
    func manyMoves() {
        var s = Session()
        s.press(.char("j"))
        for _ in 0..<120 { s.press(.char("J"), .char("K")) }
        #expect(s.list.items(in: "Produce").map(\.name) == ["Bananas", "Apples", "Spinach"])
        s.press(.char("J"))
        #expect(s.list.items(in: "Produce").map(\.name) == ["Apples", "Bananas", "Spinach"])
    }

    @Test("J/K on a section header move the section")
    func moveSection() {
        var s = Session()
        s.press(.char("J"))
        #expect(s.list.displaySections == ["Dairy", "Produce", "Bakery"])
        #expect(s.state.selection == .section("Produce"))
    }

    @Test("m moves an item to another section, Tab completes names, a new name makes a section")
    func moveToSection() {
        var s = Session()
        s.press(.char("j"), .char("m"))
        s.type("ba")
        s.press(.tab)
        guard case .prompt(let prompt) = s.state.mode else { Issue.record("no prompt"); return }
        #expect(prompt.line.text == "Bakery")
        s.press(.enter)
        #expect(s.named("Bananas")?.section == "Bakery")
        s.press(.char("m"))
        s.type("Fruit")
        s.press(.enter)
        #expect(s.named("Bananas")?.section == "Fruit")
        #expect(s.list.sections.last == "Fruit")
    }

    @Test("A adds a section after the current one; R renames it and keeps its items")
    func sections() {
        var s = Session()
        s.press(.char("A"))
        s.type("Frozen")
        s.press(.enter)
        #expect(s.list.sections == ["Produce", "Frozen", "Dairy", "Bakery"])
        #expect(s.state.selection == .section("Frozen"))
        s.press(.char("g"), .char("R"), .ctrl("u"))
        s.type("Fruit & veg")
        s.press(.enter)
        #expect(s.list.sections.first == "Fruit & veg")
        #expect(s.named("Bananas")?.section == "Fruit & veg")
    }

    @Test("z collapses a section, Z all; h hides checked items")
    func view() {
        var s = Session()
        s.press(.char("j"), .char("z"))
        #expect(s.state.collapsed == ["Produce"])
        #expect(s.state.selection == .section("Produce"))
        s.press(.char("z"))
        #expect(s.state.collapsed.isEmpty)
        s.press(.char("Z"))
        #expect(s.state.collapsed == ["Produce", "Dairy", "Bakery"])
        #expect(s.state.rows(for: s.list).count == 3)
        s.press(.char("Z"), .char("h"))
        #expect(!s.state.rows(for: s.list).contains { if case .item(let item) = $0 { item.checked } else { false } })
    }

    @Test("X clears checked items after a yes")
    func clearChecked() {
        var s = Session()
        s.press(.char("X"))
        #expect(s.state.mode == .confirm(.clearChecked(ids: ["A2", "B2"])))
        s.press(.char("y"))
        #expect(s.list.items.map(\.name) == ["Bananas", "Spinach", "Oat milk", "Sourdough bread"])
    }

    @Test("editing sends only what the user changed: another writer's edit made meanwhile stays")
    func editKeepsConcurrentChange() throws {
        var s = Session()
        s.press(.char("j"), .char("e"), .enter)  // name unchanged
        // Meanwhile another writer renames Bananas.
        try s.list.apply(.update(id: "A1", changes: [.name: .text("Plantains")]), stamp: Stamp(millis: 50, counter: 0, replica: "other"))
        s.press(.ctrl("u"))
        s.type("12")
        s.press(.enter)
        #expect(s.list.item("A1")?.name == "Plantains")
        #expect(s.list.item("A1")?.amount == "12")
    }

    @Test("X removes only the items that were checked when it asked")
    func clearCheckedIsExact() throws {
        var s = Session()
        s.press(.char("X"))
        // Another writer checks Bread before the yes.
        try s.list.apply(.update(id: "C1", changes: [.checked: .flag(true)]), stamp: Stamp(millis: 50, counter: 0, replica: "other"))
        s.press(.char("y"))
        #expect(s.list.item("C1") != nil)
        #expect(s.list.item("A2") == nil && s.list.item("B2") == nil)
    }

    @Test("/ filters as you type; Enter keeps the filter, Esc clears it")
    func filter() {
        var s = Session()
        s.press(.char("/"))
        s.type("milk")
        var items = s.state.rows(for: s.list).compactMap { if case .item(let item) = $0 { item.name } else { nil } }
        #expect(items == ["Oat milk"])
        #expect(s.state.selection == .item("B1"))
        s.press(.enter)
        #expect(s.state.filter == "milk")
        s.press(.char(" "))  // keys work on the filtered rows
        #expect(s.named("Oat milk")?.checked == true)
        s.press(.escape)
        items = s.state.rows(for: s.list).compactMap { if case .item(let item) = $0 { item.name } else { nil } }
        #expect(items.count == 6)
    }

    @Test("help scrolls no further than its last page")
    func helpScrollBound() {
        var s = Session(height: 12)
        s.press(.char("?"))
        for _ in 0..<20 { s.press(.char(" ")) }
        let last = s.state.helpScroll
        s.press(.char("j"))
        #expect(s.state.helpScroll == last)
        s.press(.char("k"))
        #expect(s.state.helpScroll == last - 1)
    }

    @Test("A inserts after the current section even when items name sections the list lacks")
    func addSectionPosition() throws {
        var list = sampleList()
        try list.apply(.insert(Item(id: "X1", name: "Soap", section: "Household", sortOrder: 1)), stamp: Stamp(millis: 5, counter: 0, replica: "other"))
        #expect(list.displaySections == ["Produce", "Dairy", "Bakery", "Household"])
        var s = Session(list: list)
        s.press(.char("G"), .char("A"))  // on Soap, in Household (not in the list's sections)
        s.type("Frozen")
        s.press(.enter)
        // Household is only named by an item, so the new section goes to the end of the list's own.
        #expect(s.list.displaySections == ["Produce", "Dairy", "Bakery", "Frozen", "Household"])
        s.press(.char("g"), .char("A"))
        s.type("Fruit")
        s.press(.enter)
        #expect(s.list.sections.prefix(2) == ["Produce", "Fruit"])
    }

    @Test("u and Ctrl-R ask for undo and redo")
    func undoRedo() {
        var s = Session()
        s.press(.char("u"))
        #expect(s.lastAction == .undo)
        s.press(.ctrl("r"))
        #expect(s.lastAction == .redo)
    }

    @Test("read-only: every key that edits shows the hint and changes nothing; moving still works")
    func readOnly() {
        for binding in KeyMap.bindings where binding.edits {
            var s = Session(readOnly: true)
            s.press(.char("j"))
            s.press(binding.keys[0])
            #expect(s.list == sampleList(), "\(binding.command)")
            #expect(s.state.message?.kind == .readOnly, "\(binding.command)")
            #expect(s.state.mode == .normal, "\(binding.command)")
        }
        var s = Session(readOnly: true)
        s.press(.char("j"), .char("z"), .char("/"))
        #expect(s.state.collapsed == ["Produce"])
    }

    @Test("q quits; ? opens help and any key closes it")
    func quitAndHelp() {
        var s = Session()
        s.press(.char("?"))
        #expect(s.state.mode == .help)
        s.press(.char("x"))
        #expect(s.state.mode == .normal)
        s.press(.char("q"))
        #expect(s.lastAction == .quit)
    }

    @Test("every key is bound once, and docs/keys.md is the key table")
    func keyTable() throws {
        var seen = Set<Key>()
        for binding in KeyMap.bindings { for key in binding.keys { #expect(seen.insert(key).inserted, "\(key)") } }
        #expect(Set(KeyMap.bindings.map(\.command)) == Set(Command.allCases))
        // One table per mode, each key once in it, none of them a key that quits everywhere.
        for keys in [KeyMap.prompt.flatMap(\.keys), KeyMap.overlay.flatMap(\.keys), KeyMap.confirm.flatMap(\.keys), KeyMap.usual.flatMap(\.keys)] {
            #expect(Set(keys).count == keys.count)
            #expect(Set(keys).isDisjoint(with: KeyMap.quitKeys))
        }
        #expect(Set(KeyMap.prompt.map(\.action)).count == 14)
        #expect(Set(KeyMap.usual.map(\.action)).count == 7)
        #expect(Set(KeyMap.overlay.map(\.action)).count == 8)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let docs = try String(contentsOf: root.appendingPathComponent("docs/keys.md"), encoding: .utf8)
        #expect(docs == KeyMap.markdown(), "regenerate docs/keys.md: swift run bananas keys --markdown > docs/keys.md")
    }
}

@Suite("Conflicts overlay")
struct ConflictOverlayTests {
    static let entries = [
        Conflict(itemID: "B1", name: "Oat milk", field: .amount, kept: .text("2 L"), lost: .text("1 L"),
                 lostStamp: Stamp(millis: 1, counter: 0, replica: "a")),
        Conflict(itemID: "A1", name: "Bananas", field: .checked, kept: .flag(true), lost: .flag(false),
                 lostStamp: Stamp(millis: 2, counter: 0, replica: "a")),
    ]

    @Test("c opens the list of lost values; r restores the selected one, d dismisses it, D all")
    func keys() {
        var state = EditorState()
        let list = sampleList()
        _ = state.handle(.char("c"), list: list, conflicts: Self.entries)
        #expect(state.mode == .conflicts)
        _ = state.handle(.char("j"), list: list, conflicts: Self.entries)
        #expect(state.handle(.char("r"), list: list, conflicts: Self.entries) == .restoreConflict(Self.entries[1]))
        #expect(state.handle(.char("d"), list: list, conflicts: Self.entries) == .dismissConflicts([Self.entries[1]]))
        #expect(state.handle(.char("D"), list: list, conflicts: Self.entries) == .dismissConflicts(Self.entries))
        _ = state.handle(.escape, list: list, conflicts: Self.entries)
        #expect(state.mode == .normal)
        // With nothing to review, c says so.
        _ = state.handle(.char("c"), list: list, conflicts: [])
        #expect(state.mode == .normal && state.message?.text == "No conflicts to review")
    }

    @Test("the overlay shows each conflict's item, field, kept and lost value")
    func screen() {
        var state = EditorState()
        _ = state.handle(.char("c"), list: sampleList(), conflicts: Self.entries)
        var status = SyncStatus()
        status.conflicts = Self.entries
        let text = render(state: state, status: status, width: 80, height: 12).text
        #expect(text.contains("Oat milk · amount: kept \"2 L\", lost \"1 L\""))
        #expect(text.contains("Bananas · checked: kept checked, lost unchecked"))
        #expect(text.contains("r restore · d dismiss"))
        #expect(text.contains("conflict 2 — Bananas checked — press c"))
    }

    @Test("read-only: the overlay opens but restore and dismiss are refused")
    func readOnly() {
        var state = EditorState(readOnly: true)
        _ = state.handle(.char("c"), list: sampleList(), conflicts: Self.entries)
        #expect(state.handle(.char("r"), list: sampleList(), conflicts: Self.entries) == .none)
        #expect(state.message?.kind == .readOnly)
    }
}
