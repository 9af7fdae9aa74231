/// A colour as a theme names it.
public enum TermColor: Hashable, Sendable {
    /// One of the 16 terminal colours (0 black … 7 white, 8–15 their bright forms): these
    /// follow the user's terminal palette, so they suit dark and light backgrounds alike.
    case ansi(Int)
    /// One of the 256-colour palette.
    case indexed(Int)
    case rgb(UInt8, UInt8, UInt8)
}

/// How a role looks: colours (nil = the terminal's default) and attributes.
public struct Style: Hashable, Sendable {
    public var foreground: TermColor?
    public var background: TermColor?
    public var bold = false
    public var dim = false
    public var italic = false
    public var underline = false
    public var reverse = false

    public init(foreground: TermColor? = nil, background: TermColor? = nil, bold: Bool = false, dim: Bool = false,
                italic: Bool = false, underline: Bool = false, reverse: Bool = false) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.dim = dim
        self.italic = italic
        self.underline = underline
        self.reverse = reverse
    }
}

/// Maps every role to a style, plus how the cursor row is marked.
public struct Theme: Sendable {
    public var name: String
    public var styles: [Role: Style]
    /// Applied on top of a role's style on the cursor row.
    public var cursorRow: Style

    public init(name: String, styles: [Role: Style], cursorRow: Style) {
        self.name = name
        self.styles = styles
        self.cursorRow = cursorRow
    }

    public func style(for role: Role, highlighted: Bool) -> Style {
        var style = styles[role] ?? Style()
        if highlighted {
            if let bg = cursorRow.background { style.background = bg }
            if let fg = cursorRow.foreground, role == .item || role == .text { style.foreground = fg }
            style.bold = style.bold || cursorRow.bold
            style.reverse = style.reverse != cursorRow.reverse
            style.underline = style.underline || cursorRow.underline
        }
        return style
    }

    /// The built-in theme (Themes/default.yaml): the 16 terminal colours only, so it follows
    /// the terminal's own palette; for a dark background.
    public static let builtIn = Theme(
        name: "default",
        styles: [
            .text: Style(),
            .title: Style(bold: true, reverse: true),
            .sectionHeader: Style(foreground: .ansi(6), bold: true),
            .item: Style(),
            .checkedItem: Style(dim: true),
            .optionalMarker: Style(foreground: .ansi(13), italic: true),
            .amount: Style(foreground: .ansi(3)),
            .filterMatch: Style(bold: true, underline: true),
            .prompt: Style(foreground: .ansi(6), bold: true),
            .message: Style(),
            .error: Style(foreground: .ansi(9), bold: true),
            .help: Style(),
            .helpKey: Style(foreground: .ansi(6), bold: true),
            .statusBar: Style(reverse: true),
            .synced: Style(foreground: .ansi(2), bold: true, reverse: true),
            .pending: Style(foreground: .ansi(3), bold: true, reverse: true),
            .conflict: Style(foreground: .ansi(13), bold: true, reverse: true),
            .paused: Style(foreground: .ansi(9), bold: true, reverse: true),
            .readOnly: Style(foreground: .ansi(13), bold: true),
            .dim: Style(dim: true),
        ],
        cursorRow: Style(reverse: true))
}
