import BananasCore
import BananasEditor
import BananasFile
import BananasSync
import BananasTerminal
import Foundation
import BananasTestSupport
import Testing

/// Every message the editor shows is for a person: items by their current name, never an id;
/// words true to what happened; the whole text reachable at any width (the message line, or
/// `M`, which wraps).
@MainActor
@Suite("Messages for a person")
struct MessagesForPeopleTests {
    static let widths = [50, 80, 200]

    /// A UUID, as item ids are, or the separator inside a step's label.
    static func leaksID(_ text: String) -> Bool {
        text.contains("\u{1F}") || text.contains("\\u{1F}")
            || text.range(of: "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}", options: .regularExpression) != nil
    }

    func type(_ editor: Editor, _ text: String) { for c in text { editor.handle(.char(c)) } }

    /// Moves the cursor to the item named `name`.
    func select(_ editor: Editor, _ name: String) {
        editor.handle(.char("g"))
        for _ in 0..<40 {
            if case .item(let id)? = editor.state.selection, editor.store.list.item(id)?.name == name { return }
            editor.handle(.char("j"))
        }
    }

    /// The messages a session of ordinary use shows, refusals of undo and redo included.
    func messagesOfASession() async throws -> (messages: [String], ids: [String]) {
        let box = Sandbox()
        let other = ListStore(file: box.file(), mode: .live)
        let spinach = ItemID.random(), milk = ItemID.random()
        try other.perform(.insert(Item(id: spinach, name: "Spinach", section: "Produce", sortOrder: 1)), label: "add")
        try other.perform(.insert(Item(id: milk, name: "Milk", amount: "2 L", section: "Dairy", sortOrder: 2)), label: "add")
        #expect(await other.waitUntilFlushed())
        let editor = Editor(store: ListStore(file: box.file(), mode: .live), fileLabel: "test")
        // Renamed here, then elsewhere: undo is refused, naming the item as it is now.
        select(editor, "Spinach")
        editor.handle(.char("e"))
        type(editor, "Spinach bunch")
        editor.handle(.enter)
        editor.handle(.enter)
        #expect(await eventually { other.list.item(spinach)?.name == "Spinach bunch" })
        try other.perform(.update(id: spinach, changes: [.name: .text("Baby spinach")]), label: "rename")
        #expect(await eventually { editor.store.list.item(spinach)?.name == "Baby spinach" })
        editor.handle(.char("u"))
        #expect(editor.state.message?.text
            == "Cannot undo edit Baby spinach: its name was changed since by another edit, which undo does not overwrite")
        // Checked, undone, then checked elsewhere: redo is refused, and says redo.
        select(editor, "Milk")
        editor.handle(.char(" "))
        editor.handle(.char("u"))
        // The other instance has seen the check and its undo (not only the value they end on).
        #expect(await eventually { other.list.item(milk)?.stamps[.checked] == editor.store.list.item(milk)?.stamps[.checked] })
        try other.perform(.update(id: milk, changes: [.checked: .flag(true)]), label: "check")
        #expect(await eventually { editor.store.list.item(milk)?.checked == true })
        editor.handle(.ctrl("r"))
        #expect(editor.state.message?.text
            == "Cannot redo checked Milk: it was checked or unchecked since by another edit, which redo does not overwrite")
        // The rest of the everyday messages.
        for keys in ["o", "=", "J", "K", "x", "5", "n", "c", "U", "h", "h", "z", "z"] {
            for c in keys { editor.handle(.char(c)) }
            if editor.state.mode != .normal { editor.handle(.escape) }
        }
        editor.handle(.char("a"))
        type(editor, "Oat milk with a rather long name that goes on and on past the edge of a split pane?")
        editor.handle(.enter)
        type(editor, "2 cartons, the big ones from the shelf at the back")
        editor.handle(.enter)
        editor.handle(.escape)
        editor.handle(.char("d"))
        editor.handle(.char("u"))
        editor.handle(.char("m"))
        type(editor, "Pantry")
        editor.handle(.enter)
        editor.handle(.char("/"))
        type(editor, "milk")
        editor.handle(.enter)
        editor.handle(.escape)
        editor.handle(.char("X"))
        editor.handle(.char("n"))
        editor.handle(.char("b"))
        editor.handle(.char("b"))
        let ids = [spinach, milk] + editor.store.list.items.map(\.id)
        let messages = editor.state.history
        _ = other.close()
        _ = editor.store.close()
        return (messages, ids)
    }

    /// The text of the messages overlay, line by line, from top to bottom, scrolled through
    /// with `j`.
    func overlayText(_ history: [String], width: Int, height: Int = 16) -> [String] {
        var state = EditorState()
        state.keyBar = .off
        state.history = history
        state.screenWidth = width
        state.viewportHeight = Screen.viewportHeight(forHeight: height)
        _ = state.handle(.char("M"), list: ShoppingList())
        func content(_ grid: Grid) -> [String] {
            grid.lines.dropFirst(2).dropLast(2).map { line in
                // Between the borders, less the padding and scroll marks.
                guard let open = line.firstIndex(of: "│"), let close = line.lastIndex(of: "│"), open < close else { return "" }
                var inner = String(line[line.index(after: open)..<close])
                if inner.hasSuffix("↓") || inner.hasSuffix("↑") { inner.removeLast() }
                if inner.hasPrefix(" ") { inner.removeFirst() }
                while inner.hasSuffix(" ") { inner.removeLast() }
                return inner
            }.filter { !$0.isEmpty }
        }
        var lines = content(render(ShoppingList(), state: state, width: width, height: height))
        for _ in 0..<2_000 {
            let before = state.helpScroll
            _ = state.handle(.char("j"), list: ShoppingList())
            guard state.helpScroll != before else { break }
            lines.append(content(render(ShoppingList(), state: state, width: width, height: height)).last ?? "")
        }
        return lines
    }

    @Test("every message a session shows names no id, and is whole in M at 50, 80 and 200 columns")
    func everyMessageWholeAndNamed() async throws {
        let (messages, ids) = try await messagesOfASession()
        #expect(messages.count >= 20, "\(messages)")
        for message in messages {
            #expect(!Self.leaksID(message), "\(message)")
            for id in ids { #expect(!message.contains(id), "\(message)") }
        }
        for width in Self.widths {
            // The overlay: each message wrapped whole, newest first.
            let lines = overlayText(messages, width: width)
            var rebuilt: [String] = []
            for line in lines {
                if line.hasPrefix("• ") { rebuilt.append(String(line.dropFirst(2))) }
                else if !rebuilt.isEmpty { rebuilt[rebuilt.count - 1] += " " + line.trimmingCharacters(in: .whitespaces) }
            }
            let words = messages.reversed().map { $0.split(separator: " ").joined(separator: " ") }
            #expect(rebuilt == words, "at \(width) columns:\n\(lines.joined(separator: "\n"))")
            // The message line: the whole text, or a pointer to M.
            for message in messages {
                var state = EditorState()
                state.message = .init(message)
                let line = render(state: state, width: width, height: 12).lines[10].trimmingCharacters(in: .whitespaces)
                let whole = line == message
                #expect(whole || line.hasSuffix("… (M)"), "at \(width): \(line)")
                #expect(!Self.leaksID(line))
            }
        }
    }

    @Test("M spans the terminal's width: at 200 columns a 150-column message is on one line")
    func historyGrowsToWidth() {
        let message = "Cannot undo edit Baby spinach: its name was changed since by another edit, which undo does not overwrite, and more words"
        let lines = overlayText([message], width: 200)
        #expect(lines.first == "• " + message, "\(lines)")
    }

    @Test("a file from a newer bananas: an edit key is refused in words, and nothing is changed")
    func newerSchemaRefused() async throws {
        let box = Sandbox()
        box.write(#"{"schemaVersion": 99, "sections": ["A"], "items": [{"id": "1", "name": "Green apples", "section": "A"}]}"#)
        let before = box.text
        let editor = Editor(store: ListStore(file: box.file(), mode: .live), fileLabel: "test")
        #expect(await eventually { editor.store.list.items.count == 1 })
        select(editor, "Green apples")
        for key: Key in [.char(" "), .char("d"), .char("o"), .char("u"), .ctrl("r")] {
            editor.handle(key)
            #expect(editor.state.message?.text
                == "Not changed: this bananas cannot write a schema 99 file (it writes schema \(ListCodec.currentSchemaVersion)); update bananas to edit this list",
                "\(key)")
            #expect(editor.state.message?.kind == .error)
        }
        #expect(editor.store.list.item("1")?.checked == false)
        #expect(editor.store.close() == 0, "no edit waits to be written")
        #expect(box.text == before)
    }

    @Test("a prompt opened before the file turned newer ends refused, not as an edit that never lands")
    func promptAcceptedAfterFileTurnedNewer() async throws {
        let box = Sandbox()
        box.write(#"{"schemaVersion": 3, "sections": ["A"], "items": [{"id": "1", "name": "Gala apples", "section": "A"}]}"#)
        let editor = Editor(store: ListStore(file: box.file(), mode: .live), fileLabel: "test")
        #expect(await eventually { editor.store.list.items.count == 1 })
        select(editor, "Gala apples")
        editor.handle(.char("e"))
        type(editor, "Green apples")
        box.write(#"{"schemaVersion": 99, "sections": ["A"], "items": [{"id": "1", "name": "Gala apples", "section": "A"}]}"#)
        #expect(await eventually { editor.store.status.pausedBy != nil })
        editor.handle(.enter)
        editor.handle(.enter)
        #expect(editor.state.message?.text.hasPrefix("Not changed: this bananas cannot write a schema 99 file") == true)
        #expect(editor.store.list.item("1")?.name == "Gala apples")
        #expect(editor.store.close() == 0)
    }

    @Test("an edit refused by the store names the item, not its id")
    func failureNamesItem() {
        let list = ShoppingList(sections: ["A"], rows: [Item(id: "D40B94FF-51E8-4738-9E53-DF58103DA5FC", name: "Spinach", section: "A", sortOrder: 1)])
        let label = StepLabelProbe.label(for: list.items[0])
        let text = StepLabel.failure(label, EditError.noSuchItem("D40B94FF-51E8-4738-9E53-DF58103DA5FC"), in: list)
        #expect(text == "Not saved — checked Spinach: it is no longer on the list", "\(text)")
    }
}

/// The label a check of `item` carries, as the editor makes it (through the key that makes it).
enum StepLabelProbe {
    static func label(for item: Item) -> String {
        var state = EditorState()
        let list = ShoppingList(sections: [item.section], rows: [item])
        state.pinSelection(state.rows(for: list))
        _ = state.handle(.char("j"), list: list)
        if case .edit(_, let label, _, _) = state.handle(.char(" "), list: list) { return label }
        return ""
    }
}
