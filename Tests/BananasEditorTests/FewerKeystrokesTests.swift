import BananasCore
import BananasEditor
import BananasFile
import BananasSync
import Foundation
import Testing

/// Discoverability and fewer keystrokes (issue 23): the key bar, the status legend, n/N,
/// counts, `?` for optional, `=` for the amount, prompts that open on a selected value.
@Suite("Fewer keystrokes")
struct FewerKeystrokesTests {
    @Test("the key bar shows by default, above the prompt line, however long the list; b turns it off")
    func keyBar() {
        var state = EditorState()
        let grid = render(state: state, keyBar: .auto)
        let lines = grid.lines
        #expect(lines[lines.count - 3].hasPrefix("a add  Space check  e edit  = amount"), "\(grid.text)")
        // The list gives a row to it.
        #expect(!grid.text.contains("Sourdough"))
        _ = state.handle(.char("b"), list: sampleList())
        #expect(state.keyBar == .off && state.message?.text == "Key bar off (b shows it)")
        #expect(render(state: state, keyBar: .auto).text.contains("Sourdough"))
        // A long list keeps it: it does not vanish at 20 items.
        var rows: [Item] = []
        for n in 0..<30 { rows.append(Item(id: "I\(n)", name: "Item \(n)", section: "Produce", sortOrder: Double(n))) }
        let long = ShoppingList(sections: ["Produce"], rows: rows)
        #expect(render(long, keyBar: .auto).lines.dropLast(2).last?.hasPrefix("a add  Space check") == true)
        var on = EditorState()
        on.keyBar = .on
        #expect(render(long, state: on).text.contains("a add"))
    }

    @Test("the help explains the status bar's states")
    func legend() {
        let lines = Screen.helpLines(readOnly: false)
        for state in ["synced", "pending N", "conflict N", "paused: why"] {
            #expect(lines.contains { $0.keys == state && !$0.help.isEmpty }, "\(state)")
        }
    }

    @Test("n and N jump between filter matches, wrapping around")
    func nextMatch() {
        var s = Session()
        s.press(.char("n"))
        #expect(s.state.message?.text.hasPrefix("No filter") == true)
        s.press(.char("/"))
        s.type("a")  // Bananas, Apples, Spinach, Oat milk, Sourdough bread
        s.press(.enter)
        #expect(s.state.selection == .item("A1"))
        s.press(.char("n"))
        #expect(s.state.selection == .item("A2"))
        s.press(.char("N"), .char("N"))
        #expect(s.state.selection == .item("C1"))  // wrapped to the last match
        s.press(.char("n"))
        #expect(s.state.selection == .item("A1"))
    }

    @Test("a count repeats a move: 5j is five rows down, 2] two sections on")
    func counts() {
        var s = Session()
        s.press(.char("5"), .char("j"))
        #expect(s.state.selection == .item("B1"))
        #expect(s.state.countPrefix == 0)
        s.press(.char("g"), .char("2"), .char("]"))
        #expect(s.state.selection == .section("Bakery"))
        s.press(.char("1"), .char("0"), .char("k"))
        #expect(s.state.selection == .section("Produce"))
        // A count before a key it does not apply to is dropped, not kept for later.
        s.press(.char("j"), .char("2"), .char(" "), .char("j"))
        #expect(s.named("Bananas")?.checked == true)  // once, not twice
        #expect(s.state.selection == .item("A2"))
    }

    @Test("a name ending in ? is added as optional, without the ?")
    func optionalWhileAdding() {
        var s = Session()
        s.press(.char("G"), .char("a"))
        s.type("Avocados?")
        s.press(.enter)
        if case .prompt(let prompt) = s.state.mode {
            #expect(prompt.label.hasPrefix("Amount for Avocados (optional)"))
        } else {
            Issue.record("no amount prompt")
        }
        s.type("3")
        s.press(.enter, .escape)
        let item = s.named("Avocados")
        #expect(item?.optional == true && item?.amount == "3")
        #expect(s.named("Avocados?") == nil)
    }

    @Test("= changes the amount in one prompt that opens on it; typing replaces it")
    func changeAmount() {
        var s = Session()
        s.press(.char("j"), .char("="))
        #expect(s.screen().contains("Amount for Bananas: 6"))
        s.type("12")
        s.press(.enter)
        #expect(s.named("Bananas")?.amount == "12")
        #expect(s.state.mode == .normal)
    }

    @Test("prompts open on the selected value: typing replaces it, a cursor key keeps it for editing")
    func selectedValue() {
        var s = Session()
        s.press(.char("j"), .char("e"))
        if case .prompt(let prompt) = s.state.mode { #expect(prompt.line.selected) } else { Issue.record("no prompt") }
        // Drawn selected (highlighted), so the user sees what typing does.
        let grid = render(s.list, state: s.state)
        #expect(grid[7, 10].highlighted && grid.lines[10].contains("Name: Bananas"), "\(grid.text)")
        s.type("Plantains")
        s.press(.enter, .enter)
        #expect(s.named("Plantains") != nil)
        s.press(.char("e"), .end)
        s.type(" ripe")
        s.press(.enter, .enter)
        #expect(s.named("Plantains ripe") != nil)
        // Backspace on a selected value erases it all.
        var line = LineEditor("Milk", selected: true)
        line.handle(.backspace)
        #expect(line.text.isEmpty)
    }
}

@Suite("Key tables per mode")
struct ModeKeyTableTests {
    @Test("the help lists every mode's keys from its table, the line editor's Ctrl keys included")
    func helpListsEveryMode() {
        let lines = Screen.helpLines(readOnly: false)
        for entry in KeyMap.prompt { #expect(lines.contains { $0.keys == entry.keyLabel && $0.help == entry.help }, "\(entry.help)") }
        for entry in KeyMap.overlay { #expect(lines.contains { $0.keys == entry.keyLabel }, "\(entry.help)") }
        #expect(lines.contains { $0.keys.contains("Ctrl-B") })  // handled before, missing from help
        #expect(lines.contains { $0.keys == "y Y" })
    }

    @Test("the prompt's keys act as its table says")
    func promptKeysFromTable() {
        var line = LineEditor("milk")
        line.handle(.ctrl("b"))
        line.handle(.ctrl("h"))
        #expect(line.text == "mik" && line.cursor == 2)
        line.handle(.ctrl("k"))
        #expect(line.text == "mi")
        #expect(line.handle(.enter) == .unhandled)
    }
}

@Suite("Key bar in the viewer")
struct ViewerKeyBarTests {
    @Test("bananas view's key bar shows only keys that work there")
    func readOnlyBar() {
        let grid = render(state: EditorState(readOnly: true), keyBar: .auto)
        let bar = grid.lines[grid.height - 3]
        #expect(bar.hasPrefix("/ filter  ? help  q quit"), "\(bar)")
    }
}
