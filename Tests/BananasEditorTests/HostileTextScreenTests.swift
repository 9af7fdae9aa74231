import BananasCore
import BananasEditor
import BananasFile
import BananasSync
import BananasTerminal
import Foundation
import Testing

/// Hostile stored text on the editor's screen (written to the file by another program, so no
/// limit applied): escape sequences, C0 and C1 controls, bidi overrides and isolates, line
/// separators, 10,000-character names, and one character carrying 5,000 combining marks.
/// The grid never holds a control character, and every row stays exactly the screen's width.
@Suite("Hostile text on the editor's screen")
struct HostileTextScreenTests {
    static let names = [
        "Milk\u{1B}]0;pwned\u{07}", "Eggs\u{1B}[2J\u{1B}[H", "\u{9B}31mBread", "Jam\u{202E}kliM", "Mi\u{2066}so\u{2069}",
        "Tea\u{0}\u{8}\u{8}\u{8}", "Rice\r\nOats", "Salt\u{7F}", "Oil\u{2028}Vinegar", "Nuts\u{200F}",
        String(repeating: "L", count: 10_000), "Z" + String(repeating: "\u{301}", count: 5_000),
        String(repeating: "日", count: 10_000),
    ]

    static var list: ShoppingList {
        ShoppingList(sections: ["S\u{1B}[31m", String(repeating: "s", count: 10_000)], rows: names.enumerated().map { n, name in
            Item(id: "H\(n)", name: name, amount: n % 2 == 0 ? "1\u{1B}[5m" : String(repeating: "9", count: 10_000),
                 section: n < 7 ? "S\u{1B}[31m" : String(repeating: "s", count: 10_000), sortOrder: Double(n))
        })
    }

    @Test("no cell holds a control character; every row is exactly the width", arguments: [(20, 8), (44, 12), (80, 24), (200, 40)])
    func grid(_ size: (width: Int, height: Int)) {
        let grid = render(Self.list, width: size.width, height: size.height)
        for cell in grid.cells {
            #expect(!cell.text.unicodeScalars.contains(where: TextRules.isUnsafe), "\(cell.text.debugDescription)")
            #expect(cell.text.unicodeScalars.count <= Grid.maxScalarsPerCell, "a cell holds one character, not a flood of marks")
        }
        for y in 0..<grid.height {
            let columns = (0..<grid.width).reduce(0) { sum, x in
                sum + (grid[x, y].isContinuation ? 0 : max(1, TextWidth.of(Character(grid[x, y].text))))
            }
            #expect(columns == size.width, "row \(y)")
        }
        #expect(grid.text.contains("Milk\\e]0;pwned\\u{7}") || size.width < 40)
    }

    @Test("a hostile folder name in the status bar and the paused reason: shown escaped, never raw", arguments: [44, 200])
    func hostilePath(width: Int) {
        let folder = "/tmp/\u{1B}]0;pwned\u{07}\u{200B}\u{202E}"
        var status = syncedStatus()
        status.pausedBy = .notAList(path: folder + "/BananaList.json")
        var state = EditorState()
        state.viewportHeight = Screen.viewportHeight(forHeight: 12, keyBar: Screen.keyBar(state, Self.list, height: 12))
        state.pinSelection(state.rows(for: Self.list))
        let grid = Screen.render(Frame(state: state, list: Self.list, status: SyncView(status, now: now),
                                       fileLabel: folder + "/BananaList.json", now: now), width: width, height: 12)
        #expect(!grid.cells.contains { $0.text.unicodeScalars.contains(where: TextRules.isUnsafe) }, "\(grid.text.debugDescription)")
        #expect(grid.text.contains("paused"), "\(grid.text)")
    }

    @Test("scrolling through every hostile row keeps the screen whole")
    func scrolling() {
        var session = Session(list: Self.list, height: 10)
        for _ in 0..<(Self.names.count + 2) {
            session.press(.char("j"))
            let grid = render(session.list, state: session.state, width: 60, height: 10)
            #expect(!grid.cells.contains { $0.text.unicodeScalars.contains(where: TextRules.isUnsafe) })
        }
    }

    @Test("a 10,000-character paste into a prompt: bounded, each key stays fast, the limit is reported")
    func longPaste() {
        var line = LineEditor()
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<10_000 {
            line.handle(.char("x"))
            _ = line.visible(in: 80)  // the prompt is drawn after every key
        }
        let took = clock.now - start
        #expect(line.text.utf8.count == LineEditor.maxBytes, "the field stops growing")
        #expect(line.visible(in: 80).cursorColumn == 79)
        print("editor: 10,000-key paste into a prompt took \(took)")
        #expect(took < .seconds(20), "not quadratic in the pasted length")

        // The editor reports the limit for what was kept.
        var s = Session()
        s.press(.char("a"))
        let typing = clock.now
        s.type(String(repeating: "y", count: 10_000))
        s.press(.enter)
        print("editor: 10,000 keys into the add prompt took \(clock.now - typing)")
        #expect(s.state.message?.text.contains("the limit is 500") == true, "\(String(describing: s.state.message))")
        #expect(s.list == sampleList())
        // And the message shows, though the text fills the prompt line.
        let grid = render(s.list, state: s.state, width: 80, height: 10)
        #expect(grid.lines[8].contains("the name is 4000 characters long; the limit is 500"), "\(grid.text)")
    }

    @Test("the prompt's window: the cursor in view, as many characters before it as fit", arguments: 0..<40)
    func promptWindow(_ seed: Int) {
        var rng = SystemRandomNumberGenerator()
        let pieces: [Character] = ["a", "日", "🍌", "e\u{301}", " ", "\u{200B}"]
        var line = LineEditor(String((0..<Int.random(in: 0...300, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }))
        for _ in 0..<Int.random(in: 0...50, using: &rng) { line.handle(.left) }
        let columns = Int.random(in: 2...60, using: &rng)
        let (shown, column) = line.visible(in: columns)
        // By brute force: the first start from which the text up to the cursor fits, as shown
        // (an invisible character, such as the zero-width space, as a replacement character).
        let characters = Array(line.text).map { TextRules.firstHidden(in: String($0)) != nil ? "\u{FFFD}" : $0 }
        func width(_ range: Range<Int>) -> Int { characters[range].reduce(0) { $0 + TextWidth.of($1) } }
        let start = (0...line.cursor).first { width($0..<line.cursor) <= columns - 1 }!
        #expect(column == width(start..<line.cursor), "\(columns) \(line.text.debugDescription)")
        #expect(shown.hasPrefix(String(characters[start..<line.cursor])) && TextWidth.of(shown) <= columns)
    }
}

@Suite("Invisible characters in a prompt")
struct InvisiblePromptTests {
    @Test("a typed zero-width space, tag or Hangul filler shows as a replacement; an emoji with joiners as itself")
    func shownInThePrompt() {
        #expect(LineEditor("Mi\u{200B}lk").visible(in: 40).text == "Mi\u{FFFD}lk")
        #expect(LineEditor("\u{3164}").visible(in: 40).text == "\u{FFFD}")
        #expect(LineEditor("x\u{E0041}").visible(in: 40).text == "\u{FFFD}", "a tag joins the character before it")
        #expect(LineEditor("👩‍💻 ❤️").visible(in: 40).text == "👩‍💻 ❤️")
    }
}
