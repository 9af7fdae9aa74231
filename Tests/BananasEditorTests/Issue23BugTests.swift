import BananasCore
import BananasEditor
import BananasFile
import BananasSync
import BananasTerminal
import BananasTestSupport
import Foundation
import Testing

/// What a demanding user tripped on (issue 23's bugs), each as the user would check it.
@Suite("Editor bugs a user found")
struct EditorBugTests {
    @Test("while only \"Too small\" shows, keys do nothing blind: Space, d and y change nothing; Ctrl-L and q still work")
    func tooSmallIsBlind() {
        var s = Session()
        s.state.tooSmall = true
        s.press(.char(" "), .char("d"), .char("y"), .char("a"), .char("z"), .char("j"))
        #expect(s.list == sampleList())
        #expect(s.state.mode == .normal && s.state.collapsed.isEmpty)
        #expect(s.state.selection == .section("Produce"))
        s.press(.ctrl("l"))
        #expect(s.lastAction == .redraw)
        s.press(.char("q"))
        #expect(s.lastAction == .quit)
    }

    @Test("Ctrl-C and Ctrl-\\ quit from any mode, a prompt included; typed text is not dropped without asking")
    func quitFromAnyMode() {
        var s = Session()
        s.press(.char("a"))
        s.press(.ctrl("c"))
        #expect(s.lastAction == .quit, "nothing typed: quits at once")
        s = Session()
        s.press(.char("a"))
        s.type("Kiwi")
        s.press(.ctrl("c"))
        #expect(s.lastAction == EditorAction.none)
        #expect(s.screen().contains("Quit and drop \"Kiwi\"? (y/n)"), "\(s.screen())")
        s.press(.char("n"))
        #expect(s.screen().contains("Add to Produce: Kiwi"), "a no keeps the text")
        s.press(.ctrl("c"), .ctrl("c"))
        #expect(s.lastAction == .quit, "a second Ctrl-C is the yes")
        s = Session()
        s.press(.char("a"))
        s.type("Kiwi")
        s.press(.ctrl("c"), .char("y"))
        #expect(s.lastAction == .quit)
        var t = Session()
        t.press(.char("?"), .ctrl("\\"))
        #expect(t.lastAction == .quit)
    }

    @Test("h on a checked item moves the cursor to the next visible row, not further")
    func hideCheckedKeepsPlace() {
        var s = Session()
        s.press(.char("j"), .char("j"))  // Apples, checked
        #expect(s.state.selection == .item("A2"))
        s.press(.char("h"))
        #expect(s.state.selection == .item("A3"))  // Spinach, the row after it
        // The last item of its section: the next section's header.
        var t = Session()
        t.press(.char("G"), .char("k"), .char("k"))  // Butter, checked; Bakery after
        #expect(t.state.selection == .item("B2"))
        t.press(.char("h"))
        #expect(t.state.selection == .section("Bakery"))
    }

    @Test("adding under a filter keeps the order typed and the new items in view")
    func addUnderFilter() {
        var s = Session()
        s.press(.char("/"))
        s.type("oat")
        s.press(.enter)
        #expect(s.state.selection == .item("B1"))
        s.press(.char("a"))
        for name in ["Eggs", "Cream", "Yogurt"] {
            s.type(name)
            s.press(.enter, .enter)
        }
        s.press(.escape)
        let dairy = s.list.items(in: "Dairy").map(\.name)
        #expect(dairy == ["Oat milk", "Eggs", "Cream", "Yogurt", "Butter"])
        let screen = s.screen()
        for name in ["Oat milk", "Eggs", "Cream", "Yogurt"] { #expect(screen.contains("[ ] \(name)"), "\(screen)") }
        #expect(!screen.contains("Butter"))
        // Clearing the filter and setting it again shows only matches again.
        s.press(.escape, .char("/"))
        s.type("oat")
        #expect(!s.screen().contains("Eggs"))
    }

    @Test("a filter matches section names too, showing the section whole")
    func filterMatchesSections() {
        var s = Session()
        s.press(.char("/"))
        s.type("dair")
        let screen = s.screen()
        #expect(screen.contains("Oat milk") && screen.contains("Butter"))
        #expect(!screen.contains("Bananas"))
    }

    @Test("section counts say what they count: checked of total, as the title bar does")
    func labelledCounts() {
        let text = render(width: 44).text
        #expect(text.contains("▾ Produce  1/3 checked"))
        #expect(text.contains("2/6 checked"))
        // Narrow: a mark instead of the word, never an unlabelled number.
        let narrow = render(width: 30).text
        #expect(narrow.contains("▾ Produce  1/3✓"), "\(narrow)")
    }

    @Test("an unparseable file shows what is wrong and the way back, not \"The list is empty.\"")
    func unreadableFile() {
        var status = SyncStatus()
        status.pausedBy = .unparseable(path: "/home/u/BananaList.json", detail: "invalid JSON at line 1, column 1: unexpected character")
        let frame = Frame(state: EditorState(), list: ShoppingList(), status: SyncView(status, now: now), fileLabel: "~/BananaList.json",
                          lastWritten: "~/.local/state/bananas/files/0123/base.json")
        let text = Screen.render(frame, width: 60, height: 16).text
        #expect(!text.contains("The list is empty"), "\(text)")
        #expect(!text.contains("a adds an item"))
        #expect(text.contains("invalid JSON at line 1, column 1"), "\(text)")
        #expect(text.contains("restore it from"), "\(text)")
        #expect(!text.split(separator: "\n")[0].contains("empty"))
        #expect(text.contains("base.json"), "\(text)")
        #expect(text.contains("paused: unparseable file"))
    }

    @Test("lock messages: an ended holder is called stale; an old lock of a live process hints it may not be bananas")
    func lockMessages() {
        var status = SyncStatus()
        status.pausedBy = .lockHeld(path: "/x/BananaList.json.lock", pid: 999_999, ageSeconds: 1, alive: false)
        #expect(render(status: status, width: 60).text.contains("paused: stale lock (pid 999999 ended)"))
        status.pausedBy = .lockHeld(path: "/x/BananaList.json.lock", pid: 4242, ageSeconds: 120, alive: true)
        #expect(render(status: status, width: 70).text.contains("paused: old lock, pid 4242 (not bananas? remove it)"))
        status.pausedBy = .lockHeld(path: "/x/BananaList.json.lock", pid: 4242, ageSeconds: 1, alive: true)
        #expect(render(status: status, width: 60).text.contains("paused: lock held by pid 4242"))
    }

    @Test("the cell a terminal is given holds a cluster every terminal draws alike, or a safe drawing of it")
    func clustersInTerminalCells() {
        // glibc's widths: regional indicators and ❤ narrow, emoji and skin tones wide.
        func width(_ s: Unicode.Scalar) -> Int {
            switch s.value {
            case 0x200D, 0xFE0F, 0x20E3, 0x300...0x36F: 0
            case 0x1F1E6...0x1F1FF, 0x2764, 0x1F3F3: 1
            case 0x1F300...0x1FAFF: 2
            default: 1
            }
        }
        func form(_ text: String) -> [String] {
            Grid.terminalForm(text, columns: TextWidth.of(Character(text)), maxScalars: 5, scalarWidth: width)
        }
        // Clusters terminals count differently are drawn as their first character, padded.
        #expect(form("👍🏽") == ["👍", ""])
        #expect(form("👩‍👧") == ["👩", ""])
        #expect(form("👩🏽‍🚀") == ["👩", ""])
        #expect(form("🇯🇵") == ["J", "P"])
        #expect(form("❤️") == ["❤", " "])
        #expect(form("1️⃣") == ["1", " "])
        #expect(form("👨‍👩‍👧‍👦") == ["👨", ""])
        #expect(form("🏳️‍🌈") == ["🏳", " "])
        // Combining marks everyone agrees on are sent whole; CJK is two columns everywhere.
        #expect(form("e\u{301}") == ["e\u{301}"])
        #expect(form("日") == ["日", ""])
        #expect(form("a") == ["a"])
        // Whatever the cluster: as many columns as the grid gave it, each holding one
        // character every terminal counts alike (no selector, joiner, keycap or skin tone).
        for text in ["🇯🇵", "👍🏽", "👨‍👩‍👧", "🏳️‍🌈", "👨‍👩‍👧‍👦", "1️⃣", "#️⃣", "☝🏽", "🏴󠁧󠁢󠁳󠁣󠁴󠁿"] {
            let cells = form(text)
            #expect(cells.count == TextWidth.of(Character(text)), "\(text)")
            for cell in cells {
                #expect(cell.unicodeScalars.count <= 1, "\(text) sent as \(cells)")
                #expect(!cell.unicodeScalars.contains { [0xFE0F, 0x200D, 0x20E3].contains($0.value) || (0x1F3FB...0x1F3FF).contains($0.value) })
            }
        }
    }

    @Test("emoji clusters are one unit of width and of cursor movement in the prompt")
    func clustersInPrompt() {
        var line = LineEditor()
        for scalar in "🇯🇵👍🏽👨‍👩‍👧".unicodeScalars { line.handle(.char(Character(scalar))) }
        #expect(line.text == "🇯🇵👍🏽👨‍👩‍👧")
        #expect(line.cursor == 3)
        #expect(line.visible(in: 20) == ("🇯🇵👍🏽👨‍👩‍👧", 6))
        line.handle(.left)
        line.handle(.backspace)
        #expect(line.text == "🇯🇵👨‍👩‍👧")
        line.handle(.left)
        line.handle(.delete)
        #expect(line.text == "👨‍👩‍👧")
    }
}

@MainActor
@Suite("Editor messages name things as they are")
struct EditorMessageTests {
    @Test("\"Undid checked X\" names the item as it is now, after a rename elsewhere")
    func undoNamesItemNow() async throws {
        let box = Sandbox()
        let other = ListStore(file: box.file(), mode: .live)
        let id = ItemID.random()
        try other.perform(.insert(Item(id: id, name: "Tomatoes", section: "Produce", sortOrder: 1)), label: "add")
        #expect(await other.waitUntilFlushed())
        let editor = Editor(store: ListStore(file: box.file(), mode: .live), fileLabel: "test")
        editor.handle(.char("j"))
        editor.handle(.char(" "))
        #expect(editor.state.message?.text == "Checked Tomatoes")
        #expect(await eventually { other.list.item(id)?.checked == true })
        try other.perform(.update(id: id, changes: [.name: .text("Cherry tomatoes")]), label: "rename")
        #expect(await eventually { editor.store.list.item(id)?.name == "Cherry tomatoes" })
        editor.handle(.char("u"))
        #expect(editor.state.message?.text == "Undid checked Cherry tomatoes — Ctrl-R redoes")
        editor.handle(.ctrl("r"))
        #expect(editor.state.message?.text == "Redid checked Cherry tomatoes")
        _ = other.close()
        _ = editor.store.close()
    }

    @Test("restoring a lost name says which value was set and which it replaced")
    func restoreWording() {
        let item = Item(id: "L1", name: "Lemons LEFT", section: "Produce", sortOrder: 1)
        let list = ShoppingList(sections: ["Produce"], rows: [item])
        let conflict = Conflict(itemID: "L1", name: "Lemons LEFT", field: .name, kept: .text("Lemons LEFT"),
                                lost: .text("Lemons RIGHT"), lostStamp: Stamp(millis: 1, counter: 0, replica: "a"))
        #expect(conflict.restoredMessage(in: list) == "Set the name to \"Lemons RIGHT\" (was \"Lemons LEFT\")")
        let amount = Conflict(itemID: "L1", name: "Lemons LEFT", field: .amount, kept: .text("2"),
                              lost: .text("6"), lostStamp: Stamp(millis: 1, counter: 0, replica: "a"))
        #expect(amount.restoredMessage(in: list) == "Set amount of \"Lemons LEFT\" to \"6\" (was \"2\")")
    }
}

/// Split view: a pane about 49 columns wide.
@Suite("Narrow panes")
struct NarrowPaneTests {
    @Test("the status bar abbreviates instead of cutting: every fact stays")
    func statusAbbreviates() {
        var status = SyncStatus()
        status.pausedBy = .lockHeld(path: "/x/BananaList.json.lock", pid: 26415, ageSeconds: 2)
        status.pendingCount = 1
        let last = render(status: status, width: 49).lines.last ?? ""
        #expect(last.contains("paused: lock pid 26415 · 1 queued"), "\(last)")
        #expect(!last.contains("…"))
        // Wide enough: the whole sentence.
        #expect(render(status: status, width: 100).lines.last?.contains("paused: lock held by pid 26415 (1 waiting)") == true)
        var conflict = SyncStatus()
        conflict.conflicts = ConflictOverlayTests.entries
        #expect(render(status: conflict, width: 30).lines.last?.contains("conflict 2 · press c") == true)
    }

    @Test("the conflict review shows kept and lost on a line of their own")
    func conflictsOnTwoLines() {
        var state = EditorState()
        _ = state.handle(.char("c"), list: sampleList(), conflicts: ConflictOverlayTests.entries)
        var status = SyncStatus()
        status.conflicts = ConflictOverlayTests.entries
        let lines = render(state: state, status: status, width: 49, height: 14).lines
        let item = lines.firstIndex { $0.contains("Oat milk · amount") }
        #expect(item != nil, "\(lines.joined(separator: "\n"))")
        if let item { #expect(lines[item + 1].contains("kept \"2 L\", lost \"1 L\"")) }
        #expect(lines.contains { $0.contains("kept checked, lost unchecked") })
    }
}

@MainActor
@Suite("Message history")
struct MessageHistoryTests {
    @Test("M shows the messages so far, newest first; any key closes it")
    func history() async throws {
        let box = Sandbox()
        let editor = Editor(store: ListStore(file: box.file(), mode: .live), fileLabel: "test")
        editor.handle(.char("a"))
        for c in "Milk" { editor.handle(.char(c)) }
        editor.handle(.enter)
        editor.handle(.enter)
        editor.handle(.escape)
        editor.handle(.char(" "))
        editor.handle(.char("u"))
        editor.handle(.char("M"))
        #expect(editor.state.mode == .messages)
        let text = editor.render(width: 49, height: 14).text
        let undid = text.range(of: "Undid checked Milk"), checked = text.range(of: "Checked Milk")
        #expect(undid != nil && checked != nil, "\(text)")
        if let undid, let checked { #expect(undid.lowerBound < checked.lowerBound) }
        #expect(text.contains("Milk added to Dairy (usual for milk)"))
        editor.handle(.escape)
        #expect(editor.state.mode == .normal)
        _ = editor.store.close()
    }
}
