import BananasCore
import BananasEditor
import BananasFile
import BananasSync
import Foundation
import Testing

/// Snapshots of the rendered cell grid: what a person reads off the screen.
@Suite("Screen snapshots")
struct ScreenSnapshotTests {
    @Test("a list with several sections, counts, amounts, checked and optional items")
    func sections() {
        let grid = render()
        expectScreen(grid, """
             bananas                        2/6 checked
            ▾ Produce  1/3 checked
              [ ] Bananas  6
              [x] Apples  1 kg
              [ ] Spinach  optional
            ▾ Dairy  1/2 checked
              [ ] Oat milk  2 L
              [x] Butter
            ▾ Bakery  0/1 checked
              [ ] Sourdough bread

             synced 4s ago  BananaList.json      ? help
            """)
    }

    @Test("collapsed sections show only their header, with counts")
    func collapsed() {
        var state = EditorState()
        state.collapsed = ["Produce", "Bakery"]
        expectScreen(render(state: state), """
             bananas                        2/6 checked
            ▸ Produce  1/3 checked
            ▾ Dairy  1/2 checked
              [ ] Oat milk  2 L
              [x] Butter
            ▸ Bakery  0/1 checked





             synced 4s ago  BananaList.json      ? help
            """)
    }

    @Test("hidden checked items")
    func hiddenChecked() {
        var state = EditorState()
        state.hideChecked = true
        expectScreen(render(state: state), """
             bananas       checked hidden · 2/6 checked
            ▾ Produce  1/3 checked
              [ ] Bananas  6
              [ ] Spinach  optional
            ▾ Dairy  1/2 checked
              [ ] Oat milk  2 L
            ▾ Bakery  0/1 checked
              [ ] Sourdough bread



             synced 4s ago  BananaList.json      ? help
            """)
    }

    @Test("a filter shows matches under their sections, matches marked")
    func filter() {
        var s = Session()
        s.press(.char("/"))
        s.type("an")
        let grid = render(s.list, state: s.state)
        expectScreen(grid, """
             bananas                        2/6 checked
            ▾ Produce  1/3 checked
              [ ] Bananas  6







            /an
             synced 4s ago  BananaList.json      ? help
            """)
        // The matched letters carry the filter-match role.
        let roles = grid.roleMap([.filterMatch: "M"])
        #expect(roles[2].contains("MM"))
    }

    @Test("at 80 columns a long amount is cut to a third of the row and the name shows whole")
    func longAmount() {
        var list = sampleList()
        try! list.apply(.insert(Item(id: "L1", name: "Extra virgin olive oil from the little shop", amount: "two large bottles, the green ones with the cork",
                                     section: "Produce", sortOrder: 1)), stamp: .zero)
        let row = render(list, width: 80, height: 8).text.split(separator: "\n").first { $0.contains("[ ] Extra") }
        #expect(row?.contains("[ ] Extra virgin olive oil from the little shop  two large bottles") == true, "\(row ?? "")")
        #expect(row?.hasSuffix("…") == true, "the amount is cut: \(row ?? "")")
    }

    @Test("long names are cut with an ellipsis at narrow widths; the amount is kept when there is room")
    func narrow() {
        var list = sampleList()
        try! list.apply(.insert(Item(id: "L1", name: "Extra virgin olive oil from the little shop on the corner", amount: "750 ml", section: "Produce", sortOrder: 1)), stamp: .zero)
        expectScreen(render(list, width: 30, height: 8), """
             bananas                 2/7✓
            ▾ Produce  1/4✓
              [ ] Extra virgin o…  750 ml
              [ ] Bananas  6
              [x] Apples  1 kg
              [ ] Spinach  opt           ↓

             synced 4s ago         ? help
            """)
        expectScreen(render(list, width: 20, height: 6), """
             bananas       2/7✓
            ▾ Produce  1/4✓
              [ ] Extr…  750 ml
              [ ] Bananas  6   ↓

             synced 4s…  ? help
            """)
    }

    @Test("wide characters take two columns and are never split")
    func wide() {
        let list = ShoppingList(sections: ["日本の食品"], rows: [
            Item(id: "W1", name: "納豆 🥢", amount: "3 パック", section: "日本の食品", sortOrder: 1),
            Item(id: "W2", name: "Crème fraîche 🇫🇷", section: "日本の食品", sortOrder: 2),
            Item(id: "W3", name: "味噌味噌味噌味噌味噌味噌味噌味噌味噌味噌", section: "日本の食品", sortOrder: 3),
        ])
        let grid = render(list, width: 30, height: 7)
        expectScreen(grid, """
             bananas                 0/3✓
            ▾ 日本の食品  0/3✓
              [ ] 納豆 🥢  3 パック
              [ ] Crème fraîche 🇫🇷
              [ ] 味噌味噌味噌味噌味噌味…

             synced 4s ago         ? help
            """)
        // Every row is exactly 30 columns: no wide character straddles the edge.
        for y in 0..<grid.height {
            let columns = (0..<grid.width).reduce(0) { sum, x in sum + (grid[x, y].isContinuation ? 0 : max(1, TextWidth.of(Character(grid[x, y].text)))) }
            #expect(columns == 30, "row \(y)")
        }
    }

    @Test("control characters and escape sequences in stored text are shown escaped")
    func hostileText() {
        let list = ShoppingList(sections: ["Evil\u{1B}[2J"], rows: [
            Item(id: "E1", name: "Milk\u{1B}[31m red\u{07}", amount: "1\nL", section: "Evil\u{1B}[2J", sortOrder: 1),
            Item(id: "E2", name: "abc\u{202E}fed", section: "Evil\u{1B}[2J", sortOrder: 2),
        ])
        let grid = render(list, width: 44, height: 7)
        expectScreen(grid, #"""
             bananas                        0/2 checked
            ▾ Evil\e[2J  0/2 checked
              [ ] Milk\e[31m red\u{7}  1\nL
              [ ] abc\u{202E}fed


             synced 4s ago  BananaList.json      ? help
            """#)
        for cell in grid.cells {
            #expect(!cell.text.unicodeScalars.contains(where: TextRules.isUnsafe))
        }
    }

    @Test("each sync state in the status bar, in its own colour role")
    func syncStates() {
        var pending = SyncStatus()
        pending.pendingCount = 2
        var conflict = SyncStatus()
        conflict.conflicts = [Conflict(itemID: "B1", name: "Oat milk", field: .amount, kept: .text("2 L"), lost: .text("1 L"),
                                       lostStamp: Stamp(millis: 1, counter: 0, replica: "a"))]
        var paused = SyncStatus()
        paused.pausedBy = .lockHeld(path: "/x/BananaList.json.lock", pid: 4242, ageSeconds: 2)
        let cases: [(SyncStatus, Role, String)] = [
            (syncedStatus(), .synced, " synced 4s ago "),
            (pending, .pending, " pending 2 "),
            (conflict, .conflict, " conflict 1 — Oat milk amount — press c "),
            (paused, .paused, " paused: lock held by pid 4242 "),
        ]
        for (status, role, words) in cases {
            let grid = render(status: status, width: 60, height: 8)
            let bar = grid.lines[7]
            #expect(bar.hasPrefix(words), "\(bar)")
            #expect(bar.hasSuffix(" ? help "))
            // The state's words are in the state's role; the rest of the bar is the bar's.
            let count = TextWidth.of(words)
            #expect((0..<count).allSatisfy { grid[$0, 7].role == role }, "\(role)")
            #expect(grid[count, 7].role == .statusBar)
        }
    }

    @Test("no help text is cut at any width: a long one wraps in its column", arguments: [50, 70, 80, 120])
    func helpWraps(width: Int) {
        let rows = Screen.helpRows(readOnly: false, width: width)
        let shown = rows.map(\.help).joined(separator: " ")
        for line in Screen.helpLines(readOnly: false) where !line.help.isEmpty {
            #expect(shown.contains(line.help) || rows.contains { $0.keys == line.keys && line.help.hasPrefix($0.help) },
                    "\(line.keys): \(line.help)")
        }
        let room = min(width - 2, 70) - 4 - 19
        #expect(rows.allSatisfy { TextWidth.of($0.help) <= room }, "every row fits its column")
    }

    @Test("the help overlay lists every binding of the key table")
    func help() {
        var s = Session(height: 97)
        s.press(.char("?"))
        let grid = render(s.list, state: s.state, width: 70, height: 97)
        expectScreen(grid, """
             bananas                                                  2/6 checked
            ▾ Produce  1/3 checked
             ┌─ Keys ───────────────────────────────────────────────────────────┐
             │ Move                                                             │
             │ j ↓                move down                                     │
            ▾│ k ↑                move up                                       │
             │ g Home             go to the top                                 │
             │ G End              go to the bottom                              │
            ▾│ PgDn Ctrl-F Ctrl-D page down                                     │
             │ PgUp Ctrl-B Ctrl-U page up                                       │
             │ Tab ]              next section                                  │
             │ Shift-Tab [        previous section                              │
             │ n                  next filter match                             │
             │ N                  previous filter match                         │
             │                                                                  │
             │ Items                                                            │
             │ Space              check / uncheck, then on to the next item     │
             │ a                  add items (a name ending in ? is optional)    │
             │ U                  usual items: add back what you often buy      │
             │ e Enter            edit name and amount (a section: rename)      │
             │ =                  change the amount                             │
             │ d Delete           delete the item (a section: asks first)       │
             │ o                  mark optional / needed                        │
             │ J                  move the item (or section) down               │
             │ K                  move the item (or section) up                 │
             │ m                  move the item to another section              │
             │ X                  clear checked items (asks)                    │
             │                                                                  │
             │ Sections                                                         │
             │ A                  add a section                                 │
             │ R                  rename this section                           │
             │ z                  collapse / expand this section                │
             │ Z                  collapse / expand all sections                │
             │                                                                  │
             │ View                                                             │
             │ /                  filter as you type (Enter keeps, Esc clears)  │
             │ h                  hide / show checked items                     │
             │ c                  review conflicts                              │
             │ M                  the messages shown so far                     │
             │ b                  show / hide the key bar                       │
             │                                                                  │
             │ Other                                                            │
             │ u                  undo                                          │
             │ Ctrl-R             redo                                          │
             │ ? F1               this help                                     │
             │ Ctrl-L             redraw the screen                             │
             │ q                  quit                                          │
             │ 5j                 a number before a move key repeats it         │
             │                                                                  │
             │ In a prompt                                                      │
             │ Enter              accept (adding: the highlighted suggestion)   │
             │ Esc                cancel (first drops a suggestion's highlight) │
             │ Tab                complete a section; next suggestion (adding)  │
             │ ↓                  next suggestion (adding)                      │
             │ ↑ Shift-Tab        previous suggestion (adding)                  │
             │ ← Ctrl-B           move left                                     │
             │ → Ctrl-F           move right                                    │
             │ Home Ctrl-A        to the start                                  │
             │ End Ctrl-E         to the end                                    │
             │ Backspace Ctrl-H   erase back                                    │
             │ Delete Ctrl-D      erase under the cursor                        │
             │ Ctrl-W             erase a word back (also Alt-Backspace)        │
             │ Ctrl-U             erase to the start                            │
             │ Ctrl-K             erase to the end                              │
             │                                                                  │
             │ In help, messages, conflicts                                     │
             │ j ↓                down                                          │
             │ k ↑                up                                            │
             │ PgDn Space Ctrl-F  page down (help, messages)                    │
             │ PgUp Ctrl-B        page up (help, messages)                      │
             │ g Home             to the top (help, messages)                   │
             │ r Enter            restore the value that lost (conflicts)       │
             │ d                  dismiss this conflict                         │
             │ D                  dismiss every conflict                        │
             │                                                                  │
             │ In the usual items view                                          │
             │ j ↓                down                                          │
             │ k ↑                up                                            │
             │ g Home             to the top                                    │
             │ G End              to the bottom                                 │
             │ Space              mark / unmark                                 │
             │ Enter              add the marked (else highlighted) as one step │
             │ Esc q U            close                                         │
             │                                                                  │
             │ Answering a question                                             │
             │ y Y                yes (any other key: no)                       │
             │                                                                  │
             │ The status bar                                                   │
             │ synced             the file holds every edit made here           │
             │ pending N          N edits in the journal, not yet in the file   │
             │ conflict N         N values lost to a concurrent edit: c reviews │
             │ paused: why        the file cannot be read or written; edits     │
             │                    wait                                          │
             └─ j/k scroll · any other key closes ──────────────────────────────┘


             synced 4s ago  ~/lists/BananaList.json                        ? help
            """)
        let text = grid.text
        for binding in KeyMap.bindings { #expect(text.contains(binding.help), "\(binding.help)") }
    }

    @Test("the help overlay scrolls on a short screen")
    func helpScrolls() {
        var s = Session(height: 12)
        s.press(.char("?"))
        let first = render(s.list, state: s.state).text
        #expect(first.contains("move down"))
        s.press(.char("j"), .char("j"), .char("j"))
        let scrolled = render(s.list, state: s.state).text
        #expect(!scrolled.contains("move down") && scrolled.contains("go to the bottom"))
        s.press(.escape)
        #expect(s.state.mode == .normal)
    }

    @Test("read-only mode: the title says so, and an editing key shows the hint")
    func readOnly() {
        var s = Session(readOnly: true)
        s.press(.char(" "))
        expectScreen(render(s.list, state: s.state), """
             bananas view read-only         2/6 checked
            ▾ Produce  1/3 checked
              [ ] Bananas  6
              [x] Apples  1 kg
              [ ] Spinach  optional
            ▾ Dairy  1/2 checked
              [ ] Oat milk  2 L
              [x] Butter
            ▾ Bakery  0/1 checked
              [ ] Sourdough bread
            read-only: bananas view cannot change t… (M)
             synced 4s ago  BananaList.json      ? help
            """)
        #expect(s.list == sampleList())
    }

    @Test("an empty list says how to start")
    func empty() {
        expectScreen(render(ShoppingList(), width: 40, height: 8), """
             bananas                          empty
              The list is empty.
              a adds an item, A a section,
              ? shows every key.



             synced 4s ago  BananaList.json  ? help
            """)
    }

    @Test("a prompt shows its label, the text and the cursor")
    func prompt() {
        var s = Session()
        s.press(.char("a"))
        s.type("Crème 🥛")
        let grid = render(s.list, state: s.state)
        expectScreen(grid, """
             bananas                        2/6 checked
            ▾ Produce  1/3 checked
              [ ] Bananas  6
              [x] Apples  1 kg
              [ ] Spinach  optional
            ▾ Dairy  1/2 checked
              [ ] Oat milk  2 L
              [x] Butter
            ▾ Bakery  0/1 checked
              [ ] Sourdough bread
            Add to Produce: Crème 🥛  goes under Produc…
             synced 4s ago  BananaList.json      ? help
            """)
        let cursor = try! #require(grid.cursor)
        #expect(cursor.y == 10)
        #expect(cursor.x == TextWidth.of("Add to Produce: Crème 🥛"))
    }

    @Test("below 20x6 the screen says it is too small instead of drawing garbage")
    func tooSmall() {
        #expect(render(width: 15, height: 4).text.hasPrefix("Too small:\nneed 20x6"))
    }
}

/// Compares the grid's text with an expected snapshot (given indented, as in the source).
func expectScreen(_ grid: Grid, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let actual = grid.text
    // To review a changed screen: BANANAS_SNAPSHOT_DIR=/tmp/s swift test --filter Screen
    if actual != expected, let folder = ProcessInfo.processInfo.environment["BANANAS_SNAPSHOT_DIR"] {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/line-\(sourceLocation.line).txt", contents: Data(actual.utf8))
    }
    #expect(actual == expected, "screen was:\n\(actual)\n", sourceLocation: sourceLocation)
}

@Suite("Grid")
struct GridTests {
    @Test("overwriting half of a wide character blanks the other half")
    func halves() {
        var grid = Grid(width: 8, height: 1)
        grid.put("a日本", x: 0, y: 0, role: .item)
        grid.put("│", x: 2, y: 0, role: .help)      // the right half of 日
        #expect(grid.lines[0] == "a │本   ")
        #expect(!grid[3, 0].isContinuation || grid[2, 0].text != "")
        grid.put("x", x: 3, y: 0, role: .help)      // the left half of 本
        #expect(grid.lines[0] == "a │x    ")
        grid.fill(x: 0, y: 0, count: 8, role: .text)
        grid.put("日本語", x: 0, y: 0, role: .item)
        grid.fill(x: 1, y: 0, count: 1, role: .help)
        #expect(grid.lines[0] == "  本語  ")
        // Every continuation cell follows a wide character.
        for x in 1..<grid.width where grid[x, 0].isContinuation { #expect(TextWidth.of(Character(grid[x - 1, 0].text)) == 2) }
    }
}
