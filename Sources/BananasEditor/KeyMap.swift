/// Everything a key can ask the editor to do.
public enum Command: String, CaseIterable, Sendable, Hashable {
    case moveDown, moveUp, top, bottom, pageDown, pageUp, nextSection, previousSection
    case nextMatch, previousMatch
    case toggleChecked, addItem, usualItems, editItem, changeAmount, deleteRow, toggleOptional
    case moveRowDown, moveRowUp, moveToSection
    case addSection, renameSection, toggleCollapse, collapseAll
    case toggleHideChecked, clearChecked, filter
    case undo, redo
    case conflicts, messages, toggleKeyBar, help, redraw, quit
}

/// One line of the key table: the keys, what they do, and the help text shown for them.
public struct Binding: Sendable {
    public enum Group: String, CaseIterable, Sendable {
        case move = "Move"
        case items = "Items"
        case sections = "Sections"
        case view = "View"
        case other = "Other"
    }

    public let keys: [Key]
    public let command: Command
    public let help: String
    public let group: Group
    /// True when the command changes the list (refused in `bananas view`).
    public let edits: Bool

    /// The keys as the help overlay shows them: `j ↓`.
    public var keyLabel: String { keys.map(\.label).joined(separator: " ") }
}

/// What a key does in a prompt (typing text aside).
public enum PromptCommand: Sendable, Hashable {
    case accept, cancel, complete
    /// The add prompt's suggestions.
    case nextSuggestion, previousSuggestion
    case left, right, home, end
    case eraseBack, eraseForward, eraseWord, eraseToStart, eraseToEnd
}

/// What a key does in an overlay (help, messages, the conflict review).
public enum OverlayCommand: Sendable, Hashable {
    case down, up, pageDown, pageUp, top
    /// The conflict review only.
    case restore, dismiss, dismissAll
}

/// What a key does in the usual items view.
public enum UsualCommand: Sendable, Hashable {
    case down, up, top, bottom, mark, add, close
}

/// What a key answers to a question.
public enum ConfirmCommand: Sendable, Hashable { case yes }

/// One line of a mode's key table (prompt, overlay, confirm): the keys, what they do, and
/// the help text shown for them.
public struct ModeBinding<Action: Sendable & Hashable>: Sendable {
    public let keys: [Key]
    public let action: Action
    public let help: String

    public var keyLabel: String { keys.map(\.label).joined(separator: " ") }
}

/// The editor's key tables, one per mode: normal (`bindings`), `prompt`, `overlay` and
/// `confirm`, plus the keys that quit from any mode. The keys do what these say, and the help
/// overlay and docs/keys.md are generated from them, so the three cannot drift apart.
public enum KeyMap {
    public static let bindings: [Binding] = [
        Binding(keys: [.char("j"), .down], command: .moveDown, help: "move down", group: .move, edits: false),
        Binding(keys: [.char("k"), .up], command: .moveUp, help: "move up", group: .move, edits: false),
        Binding(keys: [.char("g"), .home], command: .top, help: "go to the top", group: .move, edits: false),
        Binding(keys: [.char("G"), .end], command: .bottom, help: "go to the bottom", group: .move, edits: false),
        Binding(keys: [.pageDown, .ctrl("f"), .ctrl("d")], command: .pageDown, help: "page down", group: .move, edits: false),
        Binding(keys: [.pageUp, .ctrl("b"), .ctrl("u")], command: .pageUp, help: "page up", group: .move, edits: false),
        Binding(keys: [.tab, .char("]")], command: .nextSection, help: "next section", group: .move, edits: false),
        Binding(keys: [.backTab, .char("[")], command: .previousSection, help: "previous section", group: .move, edits: false),
        Binding(keys: [.char("n")], command: .nextMatch, help: "next filter match", group: .move, edits: false),
        Binding(keys: [.char("N")], command: .previousMatch, help: "previous filter match", group: .move, edits: false),

        Binding(keys: [.char(" ")], command: .toggleChecked, help: "check / uncheck, then on to the next item", group: .items, edits: true),
        Binding(keys: [.char("a")], command: .addItem, help: "add items (a name ending in ? is optional)", group: .items, edits: true),
        Binding(keys: [.char("U")], command: .usualItems, help: "usual items: add back what you often buy", group: .items, edits: true),
        Binding(keys: [.char("e"), .enter], command: .editItem, help: "edit name and amount (a section: rename)", group: .items, edits: true),
        Binding(keys: [.char("=")], command: .changeAmount, help: "change the amount", group: .items, edits: true),
        Binding(keys: [.char("d"), .delete], command: .deleteRow, help: "delete the item (a section: asks first)", group: .items, edits: true),
        Binding(keys: [.char("o")], command: .toggleOptional, help: "mark optional / needed", group: .items, edits: true),
        Binding(keys: [.char("J")], command: .moveRowDown, help: "move the item (or section) down", group: .items, edits: true),
        Binding(keys: [.char("K")], command: .moveRowUp, help: "move the item (or section) up", group: .items, edits: true),
        Binding(keys: [.char("m")], command: .moveToSection, help: "move the item to another section", group: .items, edits: true),
        Binding(keys: [.char("X")], command: .clearChecked, help: "clear checked items (asks)", group: .items, edits: true),

        Binding(keys: [.char("A")], command: .addSection, help: "add a section", group: .sections, edits: true),
        Binding(keys: [.char("R")], command: .renameSection, help: "rename this section", group: .sections, edits: true),
        Binding(keys: [.char("z")], command: .toggleCollapse, help: "collapse / expand this section", group: .sections, edits: false),
        Binding(keys: [.char("Z")], command: .collapseAll, help: "collapse / expand all sections", group: .sections, edits: false),

        Binding(keys: [.char("/")], command: .filter, help: "filter as you type (Enter keeps, Esc clears)", group: .view, edits: false),
        Binding(keys: [.char("h")], command: .toggleHideChecked, help: "hide / show checked items", group: .view, edits: false),
        Binding(keys: [.char("c")], command: .conflicts, help: "review conflicts", group: .view, edits: false),
        Binding(keys: [.char("M")], command: .messages, help: "the messages shown so far", group: .view, edits: false),
        Binding(keys: [.char("b")], command: .toggleKeyBar, help: "show / hide the key bar", group: .view, edits: false),

        Binding(keys: [.char("u")], command: .undo, help: "undo", group: .other, edits: true),
        Binding(keys: [.ctrl("r")], command: .redo, help: "redo", group: .other, edits: true),
        Binding(keys: [.char("?"), .function(1)], command: .help, help: "this help", group: .other, edits: false),
        Binding(keys: [.ctrl("l")], command: .redraw, help: "redraw the screen", group: .other, edits: false),
        Binding(keys: [.char("q")], command: .quit, help: "quit", group: .other, edits: false),
    ]

    /// The key bar's entries, in order (the bar shows as many as fit).
    public static let bar: [(command: Command, label: String)] = [
        (.addItem, "add"), (.toggleChecked, "check"), (.editItem, "edit"), (.changeAmount, "amount"),
        (.deleteRow, "delete"), (.filter, "filter"), (.undo, "undo"), (.help, "help"), (.quit, "quit"),
    ]

    /// A count typed before a key (`5j`) repeats these; other keys ignore it.
    public static let countable: Set<Command> = [.moveDown, .moveUp, .pageDown, .pageUp, .nextSection, .previousSection,
                                                  .nextMatch, .previousMatch]

    /// The sync states as the help explains them (DESIGN.md's four, by their status-bar words).
    public static let legend: [(state: String, meaning: String)] = [
        ("synced", "the file holds every edit made here"),
        ("pending N", "N edits in the journal, not yet in the file"),
        ("conflict N", "N values lost to a concurrent edit: c reviews"),
        ("paused: why", "the file cannot be read or written; edits wait"),
    ]

    /// Keys that quit from any mode, a prompt included (the terminal sends them as keys); in
    /// a prompt holding typed text, they ask first.
    public static let quitKeys: Set<Key> = [.ctrl("c"), .ctrl("\\")]

    /// The keys of every prompt (anything else printable is typed).
    public static let prompt: [ModeBinding<PromptCommand>] = [
        ModeBinding(keys: [.enter], action: .accept, help: "accept (adding: the highlighted suggestion)"),
        ModeBinding(keys: [.escape], action: .cancel, help: "cancel (first drops a suggestion's highlight)"),
        ModeBinding(keys: [.tab], action: .complete, help: "complete a section; next suggestion (adding)"),
        ModeBinding(keys: [.down], action: .nextSuggestion, help: "next suggestion (adding)"),
        ModeBinding(keys: [.up, .backTab], action: .previousSuggestion, help: "previous suggestion (adding)"),
        ModeBinding(keys: [.left, .ctrl("b")], action: .left, help: "move left"),
        ModeBinding(keys: [.right, .ctrl("f")], action: .right, help: "move right"),
        ModeBinding(keys: [.home, .ctrl("a")], action: .home, help: "to the start"),
        ModeBinding(keys: [.end, .ctrl("e")], action: .end, help: "to the end"),
        ModeBinding(keys: [.backspace, .ctrl("h")], action: .eraseBack, help: "erase back"),
        ModeBinding(keys: [.delete, .ctrl("d")], action: .eraseForward, help: "erase under the cursor"),
        ModeBinding(keys: [.ctrl("w")], action: .eraseWord, help: "erase a word back (also Alt-Backspace)"),
        ModeBinding(keys: [.ctrl("u")], action: .eraseToStart, help: "erase to the start"),
        ModeBinding(keys: [.ctrl("k")], action: .eraseToEnd, help: "erase to the end"),
    ]

    /// The keys of the help, the messages and the conflict review; any other key closes them.
    public static let overlay: [ModeBinding<OverlayCommand>] = [
        ModeBinding(keys: [.char("j"), .down], action: .down, help: "down"),
        ModeBinding(keys: [.char("k"), .up], action: .up, help: "up"),
        ModeBinding(keys: [.pageDown, .char(" "), .ctrl("f")], action: .pageDown, help: "page down (help, messages)"),
        ModeBinding(keys: [.pageUp, .ctrl("b")], action: .pageUp, help: "page up (help, messages)"),
        ModeBinding(keys: [.char("g"), .home], action: .top, help: "to the top (help, messages)"),
        ModeBinding(keys: [.char("r"), .enter], action: .restore, help: "restore the value that lost (conflicts)"),
        ModeBinding(keys: [.char("d")], action: .dismiss, help: "dismiss this conflict"),
        ModeBinding(keys: [.char("D")], action: .dismissAll, help: "dismiss every conflict"),
    ]

    /// The keys of the usual items view; any other key does nothing (marks are not lost to a
    /// stray key).
    public static let usual: [ModeBinding<UsualCommand>] = [
        ModeBinding(keys: [.char("j"), .down], action: .down, help: "down"),
        ModeBinding(keys: [.char("k"), .up], action: .up, help: "up"),
        ModeBinding(keys: [.char("g"), .home], action: .top, help: "to the top"),
        ModeBinding(keys: [.char("G"), .end], action: .bottom, help: "to the bottom"),
        ModeBinding(keys: [.char(" ")], action: .mark, help: "mark / unmark"),
        ModeBinding(keys: [.enter], action: .add, help: "add the marked (else highlighted) as one step"),
        ModeBinding(keys: [.escape, .char("q"), .char("U")], action: .close, help: "close"),
    ]

    /// The keys of a question (`Remove 3 checked items? (y/n)`); any other key is no.
    public static let confirm: [ModeBinding<ConfirmCommand>] = [
        ModeBinding(keys: [.char("y"), .char("Y")], action: .yes, help: "yes (any other key: no)"),
    ]

    private static let byKey: [Key: Binding] = table(bindings.map { ($0.keys, $0) })
    private static let promptByKey = table(prompt.map { ($0.keys, $0.action) })
    private static let overlayByKey = table(overlay.map { ($0.keys, $0.action) })
    private static let confirmByKey = table(confirm.map { ($0.keys, $0.action) })
    private static let usualByKey = table(usual.map { ($0.keys, $0.action) })

    /// A mode's table by key; a key bound twice in one mode is a bug.
    private static func table<Value>(_ entries: [([Key], Value)]) -> [Key: Value] {
        var table: [Key: Value] = [:]
        for (keys, value) in entries {
            for key in keys {
                precondition(table[key] == nil && !quitKeys.contains(key), "key \(key.label) is bound twice")
                table[key] = value
            }
        }
        return table
    }

    public static func binding(for key: Key) -> Binding? { byKey[key] }
    public static func promptCommand(for key: Key) -> PromptCommand? { promptByKey[key] }
    public static func overlayCommand(for key: Key) -> OverlayCommand? { overlayByKey[key] }
    public static func confirmCommand(for key: Key) -> ConfirmCommand? { confirmByKey[key] }
    public static func usualCommand(for key: Key) -> UsualCommand? { usualByKey[key] }

    public static func binding(for command: Command) -> Binding {
        bindings.first { $0.command == command }!
    }

    /// docs/keys.md, generated from the table (a test checks the file matches).
    public static func markdown() -> String {
        var text = """
            # Keys

            Generated from the editor's key table (`Sources/BananasEditor/KeyMap.swift`), the same
            table the help overlay (`?`) shows; a test fails when this file and the table differ.
            In `bananas view` the keys that change the list only show a "read-only" hint.

            """
        for group in Binding.Group.allCases {
            text += "\n## \(group.rawValue)\n\n| keys | does | changes the list |\n|---|---|---|\n"
            for binding in bindings where binding.group == group {
                let keys = binding.keys.map { "`\($0.label)`" }.joined(separator: " ")
                text += "| \(keys) | \(binding.help) | \(binding.edits ? "yes" : "") |\n"
            }
        }
        func table<Action>(_ title: String, _ entries: [ModeBinding<Action>], _ note: String) {
            text += "\n## \(title)\n\n\(note)\n\n| keys | does |\n|---|---|\n"
            for entry in entries { text += "| " + entry.keys.map { "`\($0.label)`" }.joined(separator: " ") + " | \(entry.help) |\n" }
        }
        table("In a prompt", prompt, "Any other character is typed.")
        table("In help, messages and the conflict review", overlay, "Any other key closes them.")
        table("In the usual items view (`U`)", usual, "Any other key does nothing.")
        table("Answering a question", confirm, "Any other key is no.")
        text += "\nA number before a key repeats it (`5j`: five rows down) for: "
            + bindings.filter { countable.contains($0.command) }.map { "`\($0.keys[0].label)`" }.joined(separator: " ") + ".\n"
        text += "\n## The status bar\n\n| says | means |\n|---|---|\n"
        for entry in legend { text += "| `\(entry.state)` | \(entry.meaning) |\n" }
        text += "\nCtrl-C, Ctrl-\\ and SIGTERM quit like `q`, from any mode: pending edits (keys typed before them included) are written first, and the terminal is restored.\n"
        return text
    }
}
