import BananasEditor

/// A one-line sample of a theme, as SGR escape sequences, for `bananas themes`.
public enum ThemePreview {
    /// Section header, an item with amount and optional marker, a checked item, and the four
    /// sync states, each in its role's style at `level`.
    public static func line(_ theme: Theme, level: ColorLevel) -> String {
        let shown = theme.degraded(to: level)
        let parts: [(String, Role)] = [
            ("▾ Produce", .sectionHeader), (" ", .text), ("[ ] Bananas", .item), (" ", .text), ("6", .amount),
            (" ", .text), ("optional", .optionalMarker), (" ", .text), ("[x] Bread", .checkedItem), ("  ", .text),
            (" synced ", .synced), (" ", .text), (" pending 1 ", .pending), (" ", .text),
            (" conflict 1 ", .conflict), (" ", .text), (" paused ", .paused),
        ]
        return parts.map { text, role in sgr(shown.style(for: role, highlighted: false)) + text + "\u{1B}[0m" }.joined()
    }

    /// The SGR sequence that sets `style`.
    public static func sgr(_ style: Style) -> String {
        var codes: [String] = []
        if style.bold { codes.append("1") }
        if style.dim { codes.append("2") }
        if style.italic { codes.append("3") }
        if style.underline { codes.append("4") }
        if style.reverse { codes.append("7") }
        if let fg = style.foreground { codes.append(colorCode(fg, foreground: true)) }
        if let bg = style.background { codes.append(colorCode(bg, foreground: false)) }
        return codes.isEmpty ? "" : "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    static func colorCode(_ color: TermColor, foreground: Bool) -> String {
        switch color {
        case .ansi(let n): String((foreground ? 30 : 40) + (n < 8 ? n : n - 8 + 60))
        case .indexed(let n): (foreground ? "38;5;" : "48;5;") + String(n)
        case .rgb(let r, let g, let b): (foreground ? "38;2;" : "48;2;") + "\(r);\(g);\(b)"
        }
    }

    /// What a terminal described by the environment alone probably shows (no curses here).
    public static func level(environment: [String: String]) -> ColorLevel {
        let term = environment["TERM"] ?? ""
        let colors = term.contains("direct") ? 0x1000000 : term.contains("256") ? 256 : term.isEmpty || term == "dumb" ? 0 : 8
        return ColorLevel.detect(environment: environment, terminalColors: colors)
    }
}
