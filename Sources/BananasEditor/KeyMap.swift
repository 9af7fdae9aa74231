/// Everything a key can ask the editor to do.
public enum Command: String, CaseIterable, Sendable, Hashable {
    case moveDown, moveUp, top, bottom, pageDown, pageUp, nextSection, previousSection
    case nextMatch, previousMatch
    case toggleChecked, addItem, editItem, changeAmount, deleteRow, toggleOptional
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

/// The one table that maps keys to commands and carries their help text: the help overlay
/// and docs/keys.md are generated from it, so they cannot drift from what the keys do.
public enum KeyMap {
    public static let bindings: [Binding] = [
        Binding(keys: [.char("j"), .down], command: .moveDown, help: "move down", group: .move, edits: false),
        Binding(keys: [.char("k"), .up], command: .moveUp, help: "move up", group: .move, edits: false),
        Binding(keys: [.char("g"), .home], command: .top, help: "go to the top", group: .move, edits: false),
        Binding(keys: [.char("G"), .end], command: .bottom, help: "go to the bottom", group: .move, edits: false),
        Binding(keys: [.pageDown, .ctrl("d")], command: .pageDown, help: "page down", group: .move, edits: false),
        Binding(keys: [.pageUp, .ctrl("u")], command: .pageUp, help: "page up", group: .move, edits: false),
        Binding(keys: [.tab, .char("]")], command: .nextSection, help: "next section", group: .move, edits: false),
        Binding(keys: [.backTab, .char("[")], command: .previousSection, help: "previous section", group: .move, edits: false),
        Binding(keys: [.char("n")], command: .nextMatch, help: "next filter match", group: .move, edits: false),
        Binding(keys: [.char("N")], command: .previousMatch, help: "previous filter match", group: .move, edits: false),

        Binding(keys: [.char(" ")], command: .toggleChecked, help: "check / uncheck", group: .items, edits: true),
        Binding(keys: [.char("a")], command: .addItem, help: "add items here (a name ending in ? is optional)", group: .items, edits: true),
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

    /// Keys that quit from any mode, a prompt included (the terminal sends them as keys).
    public static let quitKeys: Set<Key> = [.ctrl("c"), .ctrl("\\")]

    /// Keys that work in every prompt, listed in the help overlay after the table.
    public static let promptHelp: [(keys: String, help: String)] = [
        ("Enter", "accept"),
        ("Esc", "cancel"),
        ("← → Home End", "move in the text (also Ctrl-A, Ctrl-E)"),
        ("Backspace", "erase back (Ctrl-W: a word, Ctrl-U: all)"),
        ("Delete", "erase under the cursor (Ctrl-K: to the end)"),
        ("Tab", "complete a section name"),
    ]

    private static let byKey: [Key: Binding] = {
        var table: [Key: Binding] = [:]
        for binding in bindings {
            for key in binding.keys {
                precondition(table[key] == nil, "key \(key.label) is bound twice")
                table[key] = binding
            }
        }
        return table
    }()

    public static func binding(for key: Key) -> Binding? { byKey[key] }

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
        text += "\n## In a prompt\n\n| keys | does |\n|---|---|\n"
        for entry in promptHelp { text += "| \(entry.keys) | \(entry.help) |\n" }
        text += "\nA number before a key repeats it (`5j`: five rows down) for: "
            + bindings.filter { countable.contains($0.command) }.map { "`\($0.keys[0].label)`" }.joined(separator: " ") + ".\n"
        text += "\n## The status bar\n\n| says | means |\n|---|---|\n"
        for entry in legend { text += "| `\(entry.state)` | \(entry.meaning) |\n" }
        text += "\nCtrl-C, Ctrl-\\ and SIGTERM quit like `q`, from any mode: pending edits (keys typed before them included) are written first, and the terminal is restored.\n"
        return text
    }
}
