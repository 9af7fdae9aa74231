/// Turning colours a terminal lacks into the nearest ones it has.
public enum ColorDepth {
    /// RGB of the xterm 256-colour palette entry `n`.
    public static func rgb(indexed n: Int) -> (Int, Int, Int) {
        switch n {
        case 0..<16: return ansiRGB[n]
        case 16..<232:
            let v = n - 16
            let levels = [0, 95, 135, 175, 215, 255]
            return (levels[v / 36], levels[(v / 6) % 6], levels[v % 6])
        default:
            let gray = 8 + (n - 232) * 10
            return (gray, gray, gray)
        }
    }

    /// The xterm defaults for the 16 terminal colours.
    static let ansiRGB: [(Int, Int, Int)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]

    static func distance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int {
        let dr = a.0 - b.0, dg = a.1 - b.1, db = a.2 - b.2
        return 2 * dr * dr + 4 * dg * dg + 3 * db * db
    }

    /// The nearest of the 240 fixed palette entries (16–255) to an RGB colour.
    public static func nearestIndexed(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
        let target = (Int(r), Int(g), Int(b))
        return (16..<256).min { distance(rgb(indexed: $0), target) < distance(rgb(indexed: $1), target) }!
    }

    /// The basic colour (0–7) for a bright one (8–15).
    public static func nearestBasic(bright n: Int) -> Int {
        n == 8 ? 7 : n - 8
    }

    /// The nearest of the 16 terminal colours to a palette entry.
    public static func nearestANSI(indexed n: Int) -> Int {
        if n < 16 { return n }
        let target = rgb(indexed: n)
        return (0..<16).min { distance(ansiRGB[$0], target) < distance(ansiRGB[$1], target) }!
    }
}

/// How many colours the terminal shows.
public enum ColorLevel: Int, Comparable, CaseIterable, Sendable, CustomStringConvertible {
    /// No colour at all (NO_COLOR, or a terminal without colours): attributes only.
    case none
    case ansi8
    case ansi16
    case indexed256
    case truecolor

    public static func < (a: ColorLevel, b: ColorLevel) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        switch self {
        case .none: "no colour"
        case .ansi8: "8 colours"
        case .ansi16: "16 colours"
        case .indexed256: "256 colours"
        case .truecolor: "truecolor"
        }
    }

    /// What the environment and the terminal allow: `NO_COLOR` set and non-empty means none;
    /// `COLORTERM=truecolor` (or `24bit`) means truecolor when the terminal has colours at
    /// all; otherwise the terminal's own colour count (curses `COLORS`).
    public static func detect(environment: [String: String], terminalColors: Int) -> ColorLevel {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .none }
        if terminalColors < 8 { return .none }
        let colorTerm = (environment["COLORTERM"] ?? "").lowercased()
        if colorTerm == "truecolor" || colorTerm == "24bit" { return .truecolor }
        if terminalColors >= 256 { return .indexed256 }
        if terminalColors >= 16 { return .ansi16 }
        return .ansi8
    }
}

extension TermColor {
    /// The nearest colour the level can show (nil for no colour).
    public func degraded(to level: ColorLevel) -> TermColor? {
        switch (self, level) {
        case (_, .none): return nil
        case (_, .truecolor): return self
        case (.rgb(let r, let g, let b), .indexed256): return .indexed(ColorDepth.nearestIndexed(r, g, b))
        case (.indexed, .indexed256), (.ansi, .indexed256), (.ansi, .ansi16): return self
        case (.rgb(let r, let g, let b), _):
            return TermColor.indexed(ColorDepth.nearestIndexed(r, g, b)).degraded(to: level)
        case (.indexed(let n), _):
            return TermColor.ansi(ColorDepth.nearestANSI(indexed: n)).degraded(to: level)
        case (.ansi(let n), .ansi8):
            return .ansi(n < 8 ? n : ColorDepth.nearestBasic(bright: n))
        }
    }
}

extension Style {
    /// The style with its colours brought down to `level`; attributes stay.
    public func degraded(to level: ColorLevel) -> Style {
        var style = self
        style.foreground = foreground?.degraded(to: level)
        style.background = background?.degraded(to: level)
        return style
    }
}

extension Theme {
    /// The theme as a terminal of `level` shows it. With no colour, a role whose meaning was
    /// carried by colour alone falls back to attributes: the cursor row and the status bar are
    /// reversed, section headers bold.
    public func degraded(to level: ColorLevel) -> Theme {
        var theme = self
        theme.styles = styles.mapValues { $0.degraded(to: level) }
        theme.cursorRow = cursorRow.degraded(to: level)
        if level == .none {
            if !theme.cursorRow.reverse && !theme.cursorRow.underline && !theme.cursorRow.bold { theme.cursorRow.reverse = true }
            for role in [Role.statusBar, .title, .synced, .pending, .conflict, .paused] {
                var style = theme.styles[role] ?? Style()
                if !style.reverse && self.styles[role]?.background != nil { style.reverse = true }
                theme.styles[role] = style
            }
        }
        return theme
    }
}

extension Grid {
    /// The style of every cell under `theme`: what the terminal is asked to show. Tests read
    /// this to check colours and their degradation without a terminal.
    public func styles(_ theme: Theme) -> [[Style]] {
        (0..<height).map { y in (0..<width).map { x in theme.style(for: self[x, y].role, highlighted: self[x, y].highlighted) } }
    }
}
