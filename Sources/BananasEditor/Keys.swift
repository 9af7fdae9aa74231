/// A key press, as the editor understands it. The terminal backend turns raw input into
/// these; tests build them directly.
public enum Key: Hashable, Sendable {
    /// A printable character (any script, emoji included).
    case char(Character)
    /// Ctrl plus a letter, given in lower case.
    case ctrl(Character)
    case enter, escape, tab, backTab, backspace, delete
    case up, down, left, right, home, end, pageUp, pageDown
    case function(Int)

    /// How the help overlay and docs/keys.md write the key.
    public var label: String {
        switch self {
        case .char(" "): "Space"
        case .char(let c): String(c)
        case .ctrl(let c): "Ctrl-" + c.uppercased()
        case .enter: "Enter"
        case .escape: "Esc"
        case .tab: "Tab"
        case .backTab: "Shift-Tab"
        case .backspace: "Backspace"
        case .delete: "Delete"
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .home: "Home"
        case .end: "End"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .function(let n): "F\(n)"
        }
    }
}
