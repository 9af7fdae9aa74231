import BananasCore
import BananasEditor
import BananasFile
import BananasSync
import Testing

/// Snapshots of the rendered cell grid: what a person reads off the screen.
@Suite("Screen snapshots")
struct ScreenSnapshotTests {
    @Test("a list with several sections, counts, amounts, checked and optional items")
    func sections() {
        let grid = render()
        expectScreen(grid, """
            SNAPSHOT
            """)
    }

    @Test("collapsed sections show only their header, with counts")
    func collapsed() {
        var state = EditorState()
        state.collapsed = ["Produce", "Bakery"]
        expectScreen(render(state: state), """
            SNAPSHOT
            """)
    }

    @Test("hidden checked items")
    func hiddenChecked() {
        var state = EditorState()
        state.hideChecked = true
        expectScreen(render(state: state), """
            SNAPSHOT
            """)
    }

    @Test("a filter shows matches under their sections, matches marked")
    func filter() {
        var s = Session()
        s.press(.char("/"))
        s.type("an")
        let grid = render(s.list, state: s.state)
        expectScreen(grid, """
            SNAPSHOT
            """)
        // The matched letters carry the filter-match role.
        let roles = grid.roleMap([.filterMatch: "M"])
        #expect(roles[2].contains("MM"))
    }

    @Test("long names are cut with an ellipsis at narrow widths; the amount is kept when there is room")
    func narrow() {
        var list = sampleList()
        try! list.apply(.insert(Item(id: "L1", name: "Extra virgin olive oil from the little shop on the corner", amount: "750 ml", section: "Produce", sortOrder: 1)), stamp: .zero)
        expectScreen(render(list, width: 30, height: 8), """
            SNAPSHOT
            """)
        expectScreen(render(list, width: 20, height: 6), """
            SNAPSHOT
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
            SNAPSHOT
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
        expectScreen(grid, """
            SNAPSHOT
            """)
        for cell in grid.cells {
            #expect(!cell.text.unicodeScalars.contains(where: TextRules.isUnsafe))
        }
    }

    @Test("each sync state in the status bar, in its own colour role")
    func syncStates() {
        var pending = SyncStatus()
        pending.pendingCount = 2
        var conflict = SyncStatus()
        conflict.conflicts = [ConflictLog.Entry(id: "c1", loggedAt: now, conflict: Conflict(
            itemID: "B1", itemName: "Oat milk", field: .amount, kept: .text("2 L"), keptStamp: .zero, lost: .text("1 L"), lostStamp: .zero))]
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

    @Test("the help overlay lists every binding of the key table")
    func help() {
        var s = Session(height: 40)
        s.press(.char("?"))
        let grid = render(s.list, state: s.state, width: 70, height: 40)
        expectScreen(grid, """
            SNAPSHOT
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
            SNAPSHOT
            """)
        #expect(s.list == sampleList())
    }

    @Test("an empty list says how to start")
    func empty() {
        expectScreen(render(ShoppingList(), width: 40, height: 8), """
            SNAPSHOT
            """)
    }

    @Test("a prompt shows its label, the text and the cursor")
    func prompt() {
        var s = Session()
        s.press(.char("a"))
        s.type("Crème 🥛")
        let grid = render(s.list, state: s.state)
        expectScreen(grid, """
            SNAPSHOT
            """)
        let cursor = try! #require(grid.cursor)
        #expect(cursor.y == 10)
        #expect(cursor.x == TextWidth.of("Add to Produce: Crème 🥛"))
    }

    @Test("below 20x6 the screen says it is too small instead of drawing garbage")
    func tooSmall() {
        #expect(render(width: 15, height: 4).text.hasPrefix("Terminal too small"))
    }
}

/// Compares the grid's text with an expected snapshot (given indented, as in the source).
func expectScreen(_ grid: Grid, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let actual = grid.text
    #expect(actual == expected, "screen was:\n\(actual)\n", sourceLocation: sourceLocation)
}
