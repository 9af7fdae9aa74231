import BananasCore

/// What a key asks of the list, for the editor to carry out through the store.
public enum EditorAction: Equatable, Sendable {
    case none
    /// Apply `edit` (one undo step named `label`), then select `select` and say `message`.
    case edit(ListEdit, label: String, select: EditorState.Selection?, message: String)
    case undo
    case redo
    case restoreConflict(Conflict)
    case dismissConflicts([Conflict])
    /// Repaint the whole terminal (something else wrote over it).
    case redraw
    case quit
}

/// What a key changed on screen, so whoever draws knows whether there is anything to draw
/// (htop's reactions). Empty: the screen stays as it is.
public struct Changed: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The cursor, or how far the list is scrolled.
    public static let cursor = Changed(rawValue: 1 << 0)
    /// Which rows show: the filter, collapsed sections, hidden checked items, the key bar.
    public static let rows = Changed(rawValue: 1 << 1)
    /// The list: the key asks for an edit, an undo or redo, or a conflict's review (the
    /// cursor and message that come with it included).
    public static let list = Changed(rawValue: 1 << 2)
    /// The message on the status line.
    public static let message = Changed(rawValue: 1 << 3)
    /// What is open over the list (a prompt, a question, help, the messages, the conflict
    /// review, the usual items): opened, closed, typed into or moved through.
    public static let overlay = Changed(rawValue: 1 << 4)
    /// The whole terminal is to be painted again (something else wrote over it).
    public static let terminal = Changed(rawValue: 1 << 5)
}

/// A key handler's answer: what to do to the list, and what changed on screen.
public struct Reaction: Equatable, Sendable {
    public var action: EditorAction
    public var changed: Changed

    public init(_ action: EditorAction = .none, changed: Changed = []) {
        self.action = action
        self.changed = changed
    }

    /// Nothing to do, nothing to draw.
    public static let nothing = Reaction()

    /// Nothing to do to the list; `changed` to draw.
    static func changed(_ changed: Changed) -> Reaction { Reaction(changed: changed) }

    /// Apply `edit` as one undo step: the list changes.
    static func edit(_ edit: ListEdit, label: String, select: EditorState.Selection?, message: String) -> Reaction {
        Reaction(.edit(edit, label: label, select: select, message: message), changed: .list)
    }

    /// This reaction with `more` changed too.
    func adding(_ more: Changed) -> Reaction { Reaction(action, changed: changed.union(more)) }
}

extension EditorState {
    /// Handles one key: changes the state and returns what to do to the list.
    /// `conflicts` are the entries awaiting review (for the conflicts overlay); `memo` keeps
    /// the rows between calls (see `RowsMemo`).
    public mutating func handle(_ key: Key, list: ShoppingList, conflicts: [Conflict] = [],
                                memo: RowsMemo? = nil) -> EditorAction {
        react(to: key, list: list, conflicts: conflicts, memo: memo).action
    }

    /// Handles one key: changes the state, and returns what to do to the list and what
    /// changed on screen. Each mode's key table names the command; a small handler per
    /// command does it (normal mode: `run(_:_:)`; prompts: `runPrompt`).
    public mutating func react(to key: Key, list: ShoppingList, conflicts: [Conflict] = [],
                               memo: RowsMemo? = nil) -> Reaction {
        let before = self
        var reaction = dispatch(key, list: list, conflicts: conflicts, memo: memo)
        reaction.changed.formUnion(pinnedSelection(on: list, memo: memo))
        assert(!reaction.changed.isEmpty || self == before, "a key changed the state but said nothing changed")
        return reaction
    }

    private mutating func dispatch(_ key: Key, list: ShoppingList, conflicts: [Conflict], memo: RowsMemo?) -> Reaction {
        // Quitting works in every mode, and comes in order with the keys before it (the
        // terminal delivers Ctrl-C as a key, not a signal that would skip them).
        if KeyMap.quitKeys.contains(key) {
            // Typed text is not dropped without asking (a second Ctrl-C is the yes).
            if !tooSmall, case .prompt(let prompt) = mode, prompt.holdsTypedText {
                mode = .confirm(.quit(dropping: prompt))
                return .changed(.overlay)
            }
            return Reaction(.quit)
        }
        if tooSmall {
            // Nothing of the list is visible: only what cannot act blind.
            if KeyMap.binding(for: key)?.command == .redraw { return Reaction(.redraw, changed: .terminal) }
            if mode == .normal, KeyMap.binding(for: key)?.command == .quit { return Reaction(.quit) }
            return .nothing
        }
        switch mode {
        case .normal: return handleNormal(key, list: list, conflicts: conflicts, memo: memo)
        case .prompt(let prompt): return handlePrompt(prompt, key, list: list, memo: memo)
        case .confirm(let confirm): return handleConfirm(confirm, key, list: list)
        case .help, .messages: return handleHelp(key)
        case .conflicts: return handleConflicts(key, conflicts: conflicts)
        case .usual: return handleUsual(key, list: list, memo: memo)
        }
    }

    /// Pins the selection on the rows for `list` (`pinSelection`); `.cursor` when it moved.
    mutating func pinnedSelection(on list: ShoppingList, memo: RowsMemo?) -> Changed {
        let before = (selection, selectionIndex, scrollTop)
        pinSelection(rows(for: list, memo: memo))
        return before == (selection, selectionIndex, scrollTop) ? [] : .cursor
    }

    /// Clears the message; `.message` when there was one.
    mutating func clearMessage() -> Changed {
        defer { message = nil }
        return message == nil ? [] : .message
    }

    /// Says `text` on the status line.
    mutating func say(_ text: String, kind: Message.Kind = .info) -> Changed {
        message = Message(text, kind: kind)
        return .message
    }

    static let readOnlyHint = "read-only: bananas view cannot change the list (run bananas to edit)"

    /// True, with the reason said, when no edit can be made now: the viewer, or a file this
    /// bananas cannot write.
    mutating func refusesEdit() -> Bool {
        if readOnly {
            message = Message(Self.readOnlyHint, kind: .readOnly)
            return true
        }
        if let editsRefused {
            message = Message(editsRefused, kind: .error)
            return true
        }
        return false
    }

    /// Checks or unchecks `item`; the cursor goes to `then`, else stays on it.
    func toggleChecked(_ item: Item, then next: Selection? = nil) -> Reaction {
        let verb = item.checked ? "Unchecked" : "Checked"
        return .edit(.update(id: item.id, changes: [.checked: .flag(!item.checked)]),
                     label: StepLabel.make(verb.lowercased(), item), select: next ?? .item(item.id),
                     message: "\(verb) \(item.name.displaySafe)")
    }

    /// Puts the cursor on row `index` of `rows` (clamped).
    @discardableResult
    mutating func move(to index: Int, _ rows: [Row]) -> Changed {
        guard !rows.isEmpty else { return [] }
        let clamped = min(max(0, index), rows.count - 1)
        selection = rows[clamped].selection
        selectionIndex = clamped
        return .cursor
    }

    /// Collapses `section` (the cursor going to its header), or expands it.
    @discardableResult
    mutating func toggleCollapse(_ section: String) -> Changed {
        if collapsed.remove(section) == nil {
            collapsed.insert(section)
            selection = .section(section)
        }
        return [.rows, .cursor]
    }

    /// Opens a prompt; a value it opens on is selected, so typing replaces it (a filter's is
    /// not: typing there narrows it).
    mutating func openPrompt(_ kind: Prompt.Kind, _ label: String, text: String = "") -> Changed {
        let selected: Bool = if case .filter = kind { false } else { true }
        mode = .prompt(Prompt(kind: kind, label: label, line: LineEditor(text, selected: selected), initial: text))
        return .overlay
    }
}
