import BananasCore

/// Everything one frame shows.
public struct Frame: Sendable {
    public var state: EditorState
    public var list: ShoppingList
    /// Sync as it stands when the frame is drawn.
    public var status: SyncView
    /// The list's file as shown in the status bar (`~/…/BananaList.json`).
    public var fileLabel: String
    /// Where the last list bananas wrote is kept (the base), shown as a way back when the
    /// file cannot be read; nil when there is none.
    public var lastWritten: String?
    /// Milliseconds since 1970, for "bought 3 days ago" (the shell's clock; 0 in tests).
    public var now: Int64

    public init(state: EditorState, list: ShoppingList, status: SyncView, fileLabel: String, lastWritten: String? = nil, now: Int64 = 0) {
        self.lastWritten = lastWritten
        self.now = now
        self.state = state
        self.list = list
        self.status = status
        self.fileLabel = fileLabel
    }
}

/// The screen as a pure function of a frame: title bar, the list, a prompt or message line,
/// the status bar, and any overlay on top. Terminals paint the result; tests read it.
public enum Screen {
    public static let minimumWidth = 20
    /// The right end of the status bar (a click there opens help).
    static let helpHint = " ? help "
    /// Where an item's box is drawn (`  [ ] `): a click there checks it.
    static let checkboxColumns = 2...4
    public static let minimumHeight = 6

    /// Whether a terminal of this size shows the list (else only "Too small").
    public static func fits(width: Int, height: Int) -> Bool { width >= minimumWidth && height >= minimumHeight }

    /// Rows of list the screen has room for at `height` (one fewer with the key bar).
    public static func viewportHeight(forHeight height: Int, keyBar: Bool = false) -> Int {
        max(1, height - 3 - (keyBar ? 1 : 0))
    }

    /// Whether the key bar shows on a screen `height` rows high: only with room for it.
    public static func keyBar(_ state: EditorState, _ list: ShoppingList, height: Int, memo: RowsMemo? = nil) -> Bool {
        height > minimumHeight && state.showsKeyBar(list, memo: memo)
    }

    /// The screen for `frame`; `memo` (the editor's) saves building the rows again.
    public static func render(_ frame: Frame, width: Int, height: Int, memo: RowsMemo? = nil) -> Grid {
        var grid = Grid(width: width, height: height)
        guard fits(width: width, height: height) else {
            let lines = ["Too small:", "need \(minimumWidth)x\(minimumHeight)"]
            for (y, line) in lines.enumerated() where y < height { grid.put(line, x: 0, y: y, role: .message) }
            return grid
        }
        var state = frame.state
        state.keyBarShown = keyBar(state, frame.list, height: height, memo: memo)
        state.viewportHeight = viewportHeight(forHeight: height, keyBar: state.keyBarShown)
        state.screenWidth = width
        let rows = state.rows(for: frame.list, memo: memo)
        state.pinSelection(rows)

        drawTitle(&grid, frame, state, memo: memo)
        drawBody(&grid, frame, state, rows)
        drawPromptLine(&grid, frame, state, hint: addHint(frame, state, memo: memo))
        if state.keyBarShown { drawKeyBar(&grid, state) }
        drawStatusBar(&grid, frame, state)
        switch state.mode {
        case .help: drawHelp(&grid, state)
        case .messages: drawMessages(&grid, state)
        case .conflicts: drawConflicts(&grid, frame, state)
        case .usual: drawUsual(&grid, frame, state, memo: memo)
        case .prompt: drawSuggestions(&grid, frame, state, memo: memo)
        default: break
        }
        return grid
    }

    // MARK: - Bars

    /// How far through a section or the list: `2/6 checked`, or `2/6✓` where room is short.
    /// The one meaning of a count, here and in `bananas list`.
    public static func checkedCount(_ checked: Int, of total: Int, wide: Bool = true) -> String {
        "\(checked)/\(total)" + (wide ? " checked" : "✓")
    }

    static func drawTitle(_ grid: inout Grid, _ frame: Frame, _ state: EditorState, memo: RowsMemo?) {
        grid.fill(y: 0, role: .title)
        let name = state.readOnly ? " bananas view" : " bananas"
        var x = grid.put(name, x: 0, y: 0, role: .title)
        if state.readOnly { x = grid.put(" read-only", x: x, y: 0, role: .readOnly) }
        let (checked, total) = state.counts(for: frame.list, memo: memo)
        // An unreadable file is not an empty list (the body says what is wrong).
        var right = total == 0 ? (frame.status.problem == nil ? "empty " : "") : checkedCount(checked, of: total, wide: grid.width >= 36) + " "
        if !state.filter.isEmpty, case .normal = state.mode { right = "filter: \(state.filter.displaySafe) · " + right }
        if state.hideChecked { right = "checked hidden · " + right }
        let width = TextWidth.of(right)
        if x + 2 + width <= grid.width {
            grid.put(right, x: grid.width - width, y: 0, role: .title)
        } else if x + 4 < grid.width {
            grid.put(TextWidth.truncate(right, to: grid.width - x - 2), x: x + 2, y: 0, role: .title)
        }
    }

    public static func drawStatusBar(_ grid: inout Grid, _ frame: Frame, _ state: EditorState) {
        let y = grid.height - 1
        grid.fill(y: y, role: .statusBar)
        let hint = helpHint
        let room = grid.width - TextWidth.of(hint)
        let summary = statusSummary(frame.status, room: room - 2)
        let role: Role = switch frame.status.state {
        case .synced: .synced
        case .pending: .pending
        case .conflict: .conflict
        case .paused: .paused
        }
        let x = grid.put(" " + TextWidth.truncate(summary, to: room - 2) + " ", x: 0, y: y, role: role, limit: room)
        // The whole path when it fits, else the file's name, else nothing.
        let path = frame.fileLabel.displaySafe
        let fileName = String(path.split(separator: "/").last ?? Substring(path))
        if let shown = [path, fileName].first(where: { x + 1 + TextWidth.of($0) < room }) {
            grid.put(" " + shown, x: x, y: y, role: .statusBar, limit: room)
        }
        if room > 8 { grid.put(hint, x: room, y: y, role: .statusBar) }
    }

    /// The status bar's words in `room` columns: the whole summary when it fits, else the
    /// short form that keeps every fact ("paused: lock pid 26415 · 1 queued"), cut only when
    /// even that does not fit.
    static func statusSummary(_ status: SyncView, room: Int) -> String {
        var full = status.summary
        if status.state == .conflict { full += " — press c" }
        if TextWidth.of(full) <= room { return full }
        return TextWidth.truncate(status.shortSummary, to: room)
    }

    /// The key bar's entries for what is open, laid out on a screen `width` wide: as many as
    /// fit, each with the columns it takes and, in the list, the key a click on it presses.
    static func keyBarLayout(_ state: EditorState, width: Int) -> [(columns: Range<Int>, keys: String, label: String, key: Key?)] {
        let entries: [(keys: String, label: String, key: Key?)]
        switch state.mode {
        case .normal:
            // In `bananas view`, only the keys that work there.
            entries = KeyMap.bar.filter { !state.readOnly || !KeyMap.binding(for: $0.command).edits }
                .map { let key = KeyMap.binding(for: $0.command).keys[0]; return (key.label, $0.label, key) }
        case .prompt(let prompt):
            // Tab only where it does something.
            entries = [("Enter", "accept", nil), ("Esc", "cancel", nil)] + {
                switch prompt.kind {
                case .moveTo: [("Tab", "complete", nil)]
                case .addName: [("Tab", "next suggestion", nil)]
                default: []
                }
            }()
        case .confirm:
            entries = [("y", "yes", nil), ("n", "no", nil)]
        case .help, .messages, .conflicts:
            entries = [("j k", "scroll", nil), ("Esc", "close", nil)]
        case .usual:
            entries = [("Space", "mark", nil), ("Enter", "add", nil), ("Esc", "close", nil)]
        }
        var x = 0
        var laid: [(columns: Range<Int>, keys: String, label: String, key: Key?)] = []
        for entry in entries {
            let w = TextWidth.of(entry.keys) + 1 + TextWidth.of(entry.label)
            guard x + w <= width else { break }
            laid.append((x..<x + w, entry.keys, entry.label, entry.key))
            x += w + 2
        }
        return laid
    }

    /// The key bar: the commonest keys for what is open, as many as fit.
    static func drawKeyBar(_ grid: inout Grid, _ state: EditorState) {
        let y = grid.height - 3
        for entry in keyBarLayout(state, width: grid.width) {
            let x = grid.put(entry.keys, x: entry.columns.lowerBound, y: y, role: .helpKey)
            grid.put(" " + entry.label + "  ", x: x, y: y, role: .dim)
        }
    }

    /// What Enter in the add prompt will add, said before it happens: the highlighted
    /// suggestion, or the typed name as new when a suggestion differs from it (`bnanas` with
    /// Bananas suggested), and where it will go and why, by the core's placement rule ("under
    /// Bakery (usual for tortillas)"); nil with nothing typed.
    static func addHint(_ frame: Frame, _ state: EditorState, memo: RowsMemo?) -> String? {
        guard case .prompt(let prompt) = state.mode, case .addName(let section) = prompt.kind else { return nil }
        let suggestions = state.suggestions(for: frame.list, memo: memo)
        func placed(_ name: String) -> String {
            frame.list.placement(of: name, fallbackSection: section).phrase(\.displaySafe)
        }
        if let pick = prompt.pick, pick < suggestions.count {
            return "adds \(suggestions[pick].name.displaySafe) · \(placed(suggestions[pick].name))"
        }
        var typed = prompt.line.text.trimmingWhitespace()
        if typed.hasSuffix("?") { typed.removeLast() }
        guard !typed.isEmpty else { return nil }
        guard let best = suggestions.first, best.name.lowercased() != typed.lowercased() else { return "goes \(placed(typed))" }
        return "adds new \"\(typed.displaySafe)\" · Tab: \(best.name.displaySafe) · \(placed(typed))"
    }

    static func drawPromptLine(_ grid: inout Grid, _ frame: Frame, _ state: EditorState, hint: String? = nil) {
        let y = grid.height - 2
        switch state.mode {
        case .prompt(let prompt):
            let label = TextWidth.truncate(prompt.label, to: max(1, grid.width / 2))
            let x = grid.put(label, x: 0, y: y, role: .prompt) + (prompt.label == "/" ? 0 : 1)
            // An error about what was typed must show even when the text fills the line (a
            // long paste): the text's window then shrinks to make room, down to 10 columns.
            var reserved = 0
            if let message = state.message, message.kind == .error {
                reserved = max(0, min(TextWidth.of(message.text) + 2, grid.width - x - 10))
            }
            let (shown, column) = prompt.line.visible(in: grid.width - x - reserved)
            let end = grid.put(shown, x: x, y: y, role: .text)
            // A value the prompt opened on is selected: typing replaces it.
            if prompt.line.selected { for column in x..<end { grid[column, y].highlighted = true } }
            grid.cursor = (min(grid.width - 1, x + column), y)
            // A problem with what was typed (the prompt stays open), or what the last Enter did
            // ("Added Milk"), else what Enter will do, after the text when there is room.
            let start = x + TextWidth.of(shown) + 2
            if let message = state.message {
                if start + 8 < grid.width {
                    grid.put(fitted(message.text, to: grid.width - start), x: start, y: y,
                             role: message.kind == .error ? .error : .dim)
                }
            } else if let hint, start + 8 < grid.width {
                grid.put(TextWidth.truncate(hint, to: grid.width - start), x: start, y: y, role: .dim)
            }
        case .confirm(let confirm):
            grid.put(confirm.question, x: 0, y: y, role: .prompt)
        default:
            if let message = state.message {
                let role: Role = switch message.kind {
                case .info: .message
                case .error: .error
                case .readOnly: .readOnly
                }
                grid.put(fitted(message.text, to: grid.width), x: 0, y: y, role: role)
            }
        }
    }

    // MARK: - The list

    static func drawBody(_ grid: inout Grid, _ frame: Frame, _ state: EditorState, _ rows: [Row]) {
        let top = 1
        let height = state.viewportHeight
        if rows.isEmpty {
            var lines: [String]
            if let problem = frame.status.problem {
                // Not "empty": the file could not be read, and the user should know why and
                // what to do, as the CLI says it.
                lines = TextWidth.wrap(problem.displaySafe + ".", to: grid.width - 3)
                if let copy = frame.lastWritten {
                    lines += [""] + TextWidth.wrap("The list as bananas last wrote it: \(copy.displaySafe)", to: grid.width - 3)
                }
                lines += [""] + TextWidth.wrap("Edits made now wait until the file can be read; q quits.", to: grid.width - 3)
                for (k, line) in lines.prefix(height).enumerated() {
                    grid.put(TextWidth.truncate(line, to: grid.width - 2), x: 2, y: top + k, role: k == 0 ? .error : .dim)
                }
                return
            } else if !state.activeFilter.isEmpty {
                lines = ["Nothing matches \"\(state.activeFilter.displaySafe)\".", "Esc clears the filter."]
            } else if state.readOnly {
                lines = ["The list is empty."]
            } else {
                lines = ["The list is empty.", "a adds an item, A a section,", "? shows every key."]
            }
            for (k, line) in lines.prefix(height).enumerated() {
                grid.put(TextWidth.truncate(line, to: grid.width - 2), x: 2, y: top + k, role: .dim)
            }
            return
        }
        let cursor = state.cursorIndex(in: rows)
        let query = state.activeFilter.trimmingWhitespace().lowercased()
        for k in 0..<height {
            let index = state.scrollTop + k
            guard index < rows.count else { break }
            let y = top + k
            if index == cursor { grid.highlight(row: y) }
            switch rows[index] {
            case .section(let name, let open, let total, let collapsed):
                let x = grid.put(collapsed ? "▸ " : "▾ ", x: 0, y: y, role: .sectionHeader)
                // Checked of total, like the title bar and `bananas list`: progress through the section.
                let counts = "  " + checkedCount(total - open, of: total, wide: grid.width >= 36)
                let nameRoom = max(1, grid.width - x - TextWidth.of(counts))
                let end = grid.put(TextWidth.truncate(name.displaySafe, to: nameRoom), x: x, y: y, role: .sectionHeader)
                grid.put(counts, x: end, y: y, role: .dim)
            case .item(let item):
                drawItem(&grid, item, y: y, query: query)
            }
        }
        // A scroll hint when rows are cut off below.
        if state.scrollTop + height < rows.count, grid.width > 4 {
            grid.put("↓", x: grid.width - 1, y: top + height - 1, role: .dim)
        }
        if state.scrollTop > 0, grid.width > 4 {
            grid.put("↑", x: grid.width - 1, y: top, role: .dim)
        }
    }

    static func drawItem(_ grid: inout Grid, _ item: Item, y: Int, query: String) {
        let nameRole: Role = item.checked ? .checkedItem : .item
        var x = grid.put(item.checked ? "  [x] " : "  [ ] ", x: 0, y: y, role: nameRole)
        let right = grid.width - 1
        let amount = item.amount.displaySafe
        let marker = item.optional ? (grid.width >= 40 ? "optional" : "opt") : ""
        // The name comes first: the amount gets what the name and the marker leave, and when
        // that is less, up to a third of the row (a longer amount is cut); the name gets the
        // rest, never less than four columns.
        let room = right - x
        let name = item.name.displaySafe
        let markerWidth = marker.isEmpty ? 0 : TextWidth.of(marker) + 2
        let amountRoom = amount.isEmpty ? 0 : min(TextWidth.of(amount), max(6, room / 3, room - markerWidth - TextWidth.of(name) - 2))
        let extras = (amount.isEmpty ? 0 : amountRoom + 2) + markerWidth
        let nameRoom = max(min(TextWidth.of(name), 4), room - extras)
        let shownName = TextWidth.truncate(name, to: nameRoom)
        let nameStart = x
        x = grid.put(shownName, x: x, y: y, role: nameRole, limit: right)
        if !query.isEmpty { highlightMatches(&grid, in: shownName, at: nameStart, y: y, query: query) }
        if !amount.isEmpty, x + 3 <= right {
            x = grid.put("  " + TextWidth.truncate(amount, to: min(amountRoom, right - x - 2)), x: x, y: y, role: .amount, limit: right)
        }
        if !marker.isEmpty, x + 2 + TextWidth.of(marker) <= right {
            grid.put("  " + marker, x: x, y: y, role: .optionalMarker, limit: right)
        }
    }

    /// Marks each occurrence of `query` in the shown name with the filter-match role.
    static func highlightMatches(_ grid: inout Grid, in shown: String, at x: Int, y: Int, query: String) {
        let characters = Array(shown)
        let lowered = characters.map { $0.lowercased() }
        let needle = Array(query).map { $0.lowercased() }
        guard !needle.isEmpty, needle.count <= lowered.count else { return }
        var column = x
        var columns: [Int] = []
        for c in characters { columns.append(column); column += TextWidth.of(c) }
        var start = 0
        while start + needle.count <= lowered.count {
            if Array(lowered[start..<start + needle.count]) == needle {
                for k in start..<start + needle.count {
                    let w = TextWidth.of(characters[k])
                    for dx in 0..<w where columns[k] + dx < grid.width { grid[columns[k] + dx, y].role = .filterMatch }
                }
                start += needle.count
            } else {
                start += 1
            }
        }
    }

    // MARK: - Overlays

    /// A bordered box over the list area; returns its inner rectangle.
    static func drawBox(_ grid: inout Grid, title: String, footer: String, contentWidth: Int, contentHeight: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let width = min(grid.width - 2, contentWidth + 4)
        let height = min(grid.height - 2, contentHeight + 2)
        let left = (grid.width - width) / 2
        // Between the title bar and the status bar, which stay visible.
        let top = 1 + max(0, (grid.height - 2 - height) / 2)
        for y in top..<top + height {
            grid.fill(x: left, y: y, count: width, role: .help)
            for x in left..<left + width { grid[x, y].highlighted = false }
        }
        let horizontal = String(repeating: "─", count: max(0, width - 2))
        grid.put("┌" + horizontal + "┐", x: left, y: top, role: .help)
        grid.put("└" + horizontal + "┘", x: left, y: top + height - 1, role: .help)
        for y in top + 1..<top + height - 1 {
            grid.put("│", x: left, y: y, role: .help)
            grid.put("│", x: left + width - 1, y: y, role: .help)
        }
        grid.put(TextWidth.truncate(" \(title) ", to: width - 4), x: left + 2, y: top, role: .helpKey)
        grid.put(TextWidth.truncate(" \(footer) ", to: width - 4), x: left + 2, y: top + height - 1, role: .help)
        return (left + 2, top + 1, width - 4, height - 2)
    }

    /// The help overlay's lines: (keys, what they do); a group title has empty help.
    public static func helpLines(readOnly: Bool) -> [(keys: String, help: String)] {
        var lines: [(String, String)] = []
        for group in Binding.Group.allCases {
            if !lines.isEmpty { lines.append(("", "")) }
            lines.append((group.rawValue, ""))
            for binding in KeyMap.bindings where binding.group == group {
                lines.append((binding.keyLabel, binding.help + (readOnly && binding.edits ? " (not in view)" : "")))
            }
        }
        lines.append(("5j", "a number before a move key repeats it"))
        func table<Action>(_ title: String, _ entries: [ModeBinding<Action>]) {
            lines.append(("", ""))
            lines.append((title, ""))
            lines += entries.map { ($0.keyLabel, $0.help) }
        }
        table("In a prompt", KeyMap.prompt)
        table("In help, messages, conflicts", KeyMap.overlay)
        table("In the usual items view", KeyMap.usual)
        table("Answering a question", KeyMap.confirm)
        lines.append(("", ""))
        lines.append(("The status bar", ""))
        lines += KeyMap.legend.map { ($0.state, $0.meaning) }
        return lines
    }

    /// Where the help overlay's text starts, and how wide its box's content is at most.
    static let helpKeyColumn = 19, helpWidth = 66

    /// `helpLines` as the overlay shows them on a screen `width` wide: a text too long for its
    /// column wraps onto lines of its own (empty keys), never cut.
    public static func helpRows(readOnly: Bool, width: Int) -> [(keys: String, help: String)] {
        let room = min(width - 2, helpWidth + 4) - 4 - helpKeyColumn
        guard room >= 8 else { return helpLines(readOnly: readOnly) }
        return helpLines(readOnly: readOnly).flatMap { line -> [(keys: String, help: String)] in
            guard !line.help.isEmpty else { return [line] }
            return TextWidth.wrap(line.help, to: room).enumerated().map { ($0.offset == 0 ? line.keys : "", $0.element) }
        }
    }

    static func drawHelp(_ grid: inout Grid, _ state: EditorState) {
        let lines = helpRows(readOnly: state.readOnly, width: grid.width)
        let keyColumn = helpKeyColumn
        let box = drawBox(&grid, title: "Keys", footer: "j/k scroll · any other key closes",
                          contentWidth: helpWidth, contentHeight: lines.count)
        let scroll = min(state.helpScroll, max(0, lines.count - box.height))
        for (k, line) in lines.dropFirst(scroll).prefix(box.height).enumerated() {
            let y = box.y + k
            if line.help.isEmpty {
                grid.put(TextWidth.truncate(line.keys, to: box.width), x: box.x, y: y, role: .helpKey)
                continue
            }
            grid.put(TextWidth.truncate(line.keys, to: min(keyColumn - 1, box.width)), x: box.x, y: y, role: .helpKey)
            if box.width > keyColumn + 2 {
                grid.put(TextWidth.truncate(line.help, to: box.width - keyColumn), x: box.x + keyColumn, y: y, role: .help)
            }
        }
        if scroll + box.height < lines.count { grid.put("↓", x: box.x + box.width, y: box.y + box.height - 1, role: .helpKey) }
    }

    /// The message history's lines on a screen `width` wide: newest first, each message
    /// wrapped whole (`• ` before its first line), so none is cut short.
    public static func messageLines(_ history: [String], width: Int) -> [String] {
        // The box spans the screen but a column each side; borders and padding take four.
        let room = max(3, width - 6) - 2
        return history.reversed().flatMap { message in
            TextWidth.wrap(message, to: room).enumerated().map { ($0.offset == 0 ? "• " : "  ") + $0.element }
        }
    }

    static func drawMessages(_ grid: inout Grid, _ state: EditorState) {
        let lines = messageLines(state.history, width: grid.width)
        let box = drawBox(&grid, title: grid.width >= 40 ? "Messages, newest first" : "Messages", footer: "j/k scroll · other keys close",
                          contentWidth: grid.width, contentHeight: max(1, lines.count))
        if lines.isEmpty { grid.put("No messages yet", x: box.x, y: box.y, role: .help) }
        let scroll = min(state.helpScroll, max(0, lines.count - box.height))
        for (k, line) in lines.dropFirst(scroll).prefix(box.height).enumerated() {
            grid.put(TextWidth.truncate(line, to: box.width), x: box.x, y: box.y + k, role: .help)
        }
        if scroll + box.height < lines.count { grid.put("↓", x: box.x + box.width, y: box.y + box.height - 1, role: .helpKey) }
        if scroll > 0 { grid.put("↑", x: box.x + box.width, y: box.y, role: .helpKey) }
    }

    /// A message on one line of `width`: whole when it fits, else cut with a pointer to `M`,
    /// where the whole text is.
    static func fitted(_ text: String, to width: Int) -> String {
        TextWidth.of(text) <= width ? text : TextWidth.truncate(text, to: max(1, width - 4)) + " (M)"
    }

    static func drawConflicts(_ grid: inout Grid, _ frame: Frame, _ state: EditorState) {
        let entries = frame.status.conflicts
        let footer = state.readOnly ? "j/k move · Esc closes" : "r restore · d dismiss · D all · Esc"
        let twoLines = min(grid.width - 2, 74) - 4 < 60
        let title = grid.width >= 60 ? "Conflicts: values that lost to a concurrent edit" : "Conflicts: values that lost"
        let box = drawBox(&grid, title: title, footer: footer,
                          contentWidth: 70, contentHeight: max(1, entries.count) * (twoLines ? 2 : 1))
        // Narrow (a split pane): the item and field on one line, kept and lost on the next,
        // so the values are not the part cut off.
        let narrow = twoLines
        let perEntry = narrow ? 2 : 1
        let shownCount = max(1, box.height / perEntry)
        let first = max(0, min(state.conflictIndex - shownCount + 1, entries.count - shownCount))
        for (k, entry) in entries.dropFirst(first).prefix(shownCount).enumerated() {
            let c = entry
            let what = "\(c.isSection ? "section " : "")\(c.name.displaySafe) · \(c.field)"
            let values = "kept \(shown(c.kept, field: c.field)), lost \(shown(c.lost, field: c.field))"
                + (c.folded > 0 ? " (+\(c.folded) older)" : "")
            let lines = narrow ? [what, "  " + values] : [what + ": " + values]
            for (n, line) in lines.enumerated() {
                let y = box.y + k * perEntry + n
                guard y < box.y + box.height else { break }
                grid.put(TextWidth.padded(line, to: box.width), x: box.x, y: y, role: .help)
                if first + k == state.conflictIndex {
                    for x in box.x..<box.x + box.width { grid[x, y].highlighted = true }
                }
            }
        }
    }

    /// The add prompt's suggestions, in the rows just above the prompt line (and the key
    /// bar), best first: the name, then its section (dimmed) and how often it was bought.
    static func drawSuggestions(_ grid: inout Grid, _ frame: Frame, _ state: EditorState, memo: RowsMemo?) {
        guard case .prompt(let prompt) = state.mode else { return }
        let suggestions = state.suggestions(for: frame.list, memo: memo)
        let count = min(suggestions.count, max(0, state.viewportHeight - 1))
        guard count > 0 else { return }
        let bottom = grid.height - 3 - (state.keyBarShown ? 1 : 0)
        for (k, item) in suggestions.prefix(count).enumerated() {
            let y = bottom - count + 1 + k
            grid.fill(y: y, role: .help)
            for x in 0..<grid.width { grid[x, y].highlighted = prompt.pick == k }
            drawNameLine(&grid, y: y, x: 1, width: grid.width - 2, name: item.name, section: item.section,
                         counts: item.timesBought > 0 ? "\(item.timesBought)×" : "")
        }
    }

    /// A name, then its section and `counts` dimmed at the right end when there is room: the
    /// name keeps at least about half the line, and the section is cut before the counts.
    static func drawNameLine(_ grid: inout Grid, y: Int, x: Int, width: Int, name: String, section: String, counts: String) {
        let shownName = name.displaySafe
        let detailsRoom = max(0, width - min(TextWidth.of(shownName), width / 2) - 2)
        var details = counts
        let sectionRoom = detailsRoom - (counts.isEmpty ? 0 : TextWidth.of(counts) + 2)
        if !section.isEmpty, sectionRoom >= 4 {
            details = TextWidth.truncate(section.displaySafe, to: sectionRoom) + (counts.isEmpty ? "" : "  " + counts)
        }
        if TextWidth.of(details) > detailsRoom { details = "" }
        let nameRoom = width - (details.isEmpty ? 0 : TextWidth.of(details) + 2)
        grid.put(TextWidth.truncate(shownName, to: max(1, nameRoom)), x: x, y: y, role: .help)
        if !details.isEmpty {
            grid.put(details, x: x + width - TextWidth.of(details), y: y, role: .dim)
        }
    }

    /// How long ago, in the largest whole unit: `today`, `3d ago`, `2w ago`, `4mo ago`.
    static func ago(_ millis: Int64?, now: Int64) -> String {
        guard let millis else { return "" }
        let days = max(0, now - millis) / 86_400_000
        return days == 0 ? "today" : days < 14 ? "\(days)d ago" : days < 60 ? "\(days / 7)w ago" : "\(days / 30)mo ago"
    }

    /// The usual items view: what was bought before and is not on the list, marks, and the
    /// highlighted line; on a narrow screen the time of the last purchase is left out.
    static func drawUsual(_ grid: inout Grid, _ frame: Frame, _ state: EditorState, memo: RowsMemo?) {
        let items = state.usualItems(for: frame.list, memo: memo)
        let marked = items.count { state.usualMarked.contains($0.folded) }
        let title = marked == 0 ? "Usual items" : "Usual items, \(marked) marked"
        let footer = grid.width >= 50 ? "Space marks · Enter adds · Esc closes" : "Space mark · Enter add · Esc"
        let box = drawBox(&grid, title: title, footer: footer, contentWidth: 60, contentHeight: max(1, items.count))
        if items.isEmpty { grid.put("Nothing left to add", x: box.x, y: box.y, role: .help); return }
        let index = state.usualCursor(in: items)
        let first = max(0, min(index - box.height + 1, items.count - box.height))
        let wide = box.width >= 44
        for (k, item) in items.dropFirst(first).prefix(box.height).enumerated() {
            let y = box.y + k
            grid.put(state.usualMarked.contains(item.folded) ? "[x] " : "[ ] ", x: box.x, y: y, role: .help)
            let when = wide ? ago(item.lastBought, now: frame.now) : ""
            drawNameLine(&grid, y: y, x: box.x + 4, width: box.width - 4, name: item.name, section: item.section,
                         counts: "\(item.timesBought)×" + (when.isEmpty ? "" : "  " + when))
            if first + k == index { for x in box.x..<box.x + box.width { grid[x, y].highlighted = true } }
        }
        if first + box.height < items.count { grid.put("↓", x: box.x + box.width, y: box.y + box.height - 1, role: .helpKey) }
    }

    public static func quoted(_ text: String) -> String { "\"" + text.displaySafe + "\"" }

    public static func shown(_ value: FieldValue, field: String) -> String {
        switch value {
        case .text(let s): quoted(s)
        case .flag(let b): field == "checked" ? (b ? "checked" : "unchecked") : (b ? "yes" : "no")
        case .order(let d): String(d)
        }
    }
}

extension Conflict {
    /// What restoring this lost value does (to `list` as it is before), in words that name
    /// the value set and the one it replaces: `Set the name to "Lemons RIGHT" (was "Lemons
    /// LEFT")`, not "Restored Lemons LEFT name". The editor and `bananas conflicts restore`
    /// both say it.
    public func restoredMessage(in list: ShoppingList) -> String {
        let owner = isSection ? "section \(Screen.quoted(name))" : Screen.quoted(list.item(subjectID)?.name ?? name)
        let what = field == "name" ? "the name" + (isSection ? " of " + owner : "") : "\(field) of \(owner)"
        return "Set \(what) to \(Screen.shown(lost, field: field)) (was \(Screen.shown(kept, field: field)))"
    }
}
