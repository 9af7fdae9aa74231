import BananasCore

/// A mouse report, as the editor understands it: a press of the left button, or the wheel,
/// at a cell (0-based). The terminal backend decodes SGR reports (`ESC [ < b ; x ; y M`).
public struct MouseEvent: Equatable, Sendable {
    public enum Kind: Equatable, Sendable { case press, wheelUp, wheelDown }
    public var kind: Kind
    public var x: Int
    public var y: Int

    public init(_ kind: Kind, x: Int, y: Int) {
        self.kind = kind
        self.x = x
        self.y = y
    }

    /// The event an SGR report's parameters (`0;5;3`) and final letter (`M` press, `m`
    /// release) mean, or nil for what the editor does not use (releases, other buttons,
    /// drags, malformed reports).
    public static func sgr(parameters: String, final: Character) -> MouseEvent? {
        let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        guard numbers.count == 3, let button = numbers[0], let column = numbers[1], let row = numbers[2],
              column >= 1, row >= 1, final == "M" else { return nil }
        // Shift, Alt and Ctrl add 4, 8 and 16; a drag adds 32.
        guard button & 32 == 0 else { return nil }
        let kind: Kind
        switch button & ~(4 | 8 | 16) {
        case 0: kind = .press
        case 64: kind = .wheelUp
        case 65: kind = .wheelDown
        default: return nil
        }
        return MouseEvent(kind, x: column - 1, y: row - 1)
    }
}

extension EditorState {
    /// Rows (or lines) a notch of the wheel moves, in the list and in every overlay alike.
    static let wheelStep = 3

    /// Handles a mouse event on a screen `width` columns wide (the height is the viewport's
    /// plus the title, prompt and status lines): a click on a row selects it, on its box
    /// checks it, on a section header collapses it; the wheel moves through the list; a click
    /// on a key bar entry presses its key; a click on the status bar opens the conflict review
    /// when there are conflicts, help on `? help`.
    public mutating func handle(_ mouse: MouseEvent, list: ShoppingList, conflicts: [Conflict] = [],
                                width: Int, memo: RowsMemo? = nil) -> EditorAction {
        react(to: mouse, list: list, conflicts: conflicts, width: width, memo: memo).action
    }

    /// Handles a mouse event (see `handle(_:list:conflicts:width:memo:)`), and returns what
    /// to do to the list and what changed on screen.
    public mutating func react(to mouse: MouseEvent, list: ShoppingList, conflicts: [Conflict] = [],
                               width: Int, memo: RowsMemo? = nil) -> Reaction {
        let before = self
        var reaction = dispatch(mouse, list: list, conflicts: conflicts, width: width, memo: memo)
        reaction.changed.formUnion(pinnedSelection(on: list, memo: memo))
        assert(!reaction.changed.isEmpty || self == before, "a click changed the state but said nothing changed")
        return reaction
    }

    private mutating func dispatch(_ mouse: MouseEvent, list: ShoppingList, conflicts: [Conflict],
                                   width: Int, memo: RowsMemo?) -> Reaction {
        guard !tooSmall else { return .nothing }
        switch mode {
        case .help, .messages, .conflicts, .usual:
            switch mouse.kind {
            case .wheelUp, .wheelDown:
                var changed: Changed = []
                for _ in 0..<Self.wheelStep {
                    changed.formUnion(react(to: mouse.kind == .wheelUp ? .up : .down, list: list, conflicts: conflicts, memo: memo).changed)
                }
                return .changed(changed)
            case .press:
                guard mode == .help || mode == .messages else { return .nothing }
                mode = .normal
                return .changed(.overlay)
            }
        case .prompt, .confirm:
            return .nothing  // a prompt or a question is answered with keys
        case .normal:
            break
        }
        let rows = rows(for: list, memo: memo)
        let index = cursorIndex(in: rows) ?? 0
        switch mouse.kind {
        case .wheelUp:
            return .changed(clearMessage().union(move(to: index - Self.wheelStep, rows)))
        case .wheelDown:
            return .changed(clearMessage().union(move(to: index + Self.wheelStep, rows)))
        case .press:
            break
        }
        let statusBar = viewportHeight + 2 + (keyBarShown ? 1 : 0)
        if keyBarShown, mouse.y == statusBar - 2 {
            // A click on a key bar entry presses its key, as htop's function bar does.
            guard let key = Screen.keyBarLayout(self, width: width).first(where: { $0.columns.contains(mouse.x) })?.key else { return .nothing }
            return react(to: key, list: list, conflicts: conflicts, memo: memo)
        }
        if mouse.y == statusBar {
            if mouse.x >= width - Screen.helpHint.count {
                return react(to: KeyMap.binding(for: .help).keys[0], list: list, conflicts: conflicts, memo: memo)
            }
            if !conflicts.isEmpty {
                return react(to: KeyMap.binding(for: .conflicts).keys[0], list: list, conflicts: conflicts, memo: memo)
            }
            return .nothing
        }
        let clicked = scrollTop + mouse.y - 1
        guard mouse.y >= 1, mouse.y <= viewportHeight, clicked < rows.count else { return .nothing }
        let changed = clearMessage().union(move(to: clicked, rows))
        switch rows[clicked] {
        case .section(let name, _, _, _):
            return .changed(changed.union(toggleCollapse(name)))
        case .item(let item):
            guard Screen.checkboxColumns.contains(mouse.x) else { return .changed(changed) }
            if refusesEdit() { return .changed(changed.union(.message)) }
            return toggleChecked(item).adding(changed)
        }
    }
}
