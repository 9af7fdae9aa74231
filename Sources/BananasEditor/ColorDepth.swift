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

    /// The nearest of the 16 terminal colours to a palette entry. A colour with a clear hue
    /// goes to the nearest coloured entry, never to a grey (RGB distance alone would turn
    /// muted greens and reds into the same grey).
    public static func nearestANSI(indexed n: Int) -> Int {
        if n < 16 { return n }
        let target = rgb(indexed: n)
        guard saturation(target) > 0.3 else {
            return (0..<16).min { distance(ansiRGB[$0], target) < distance(ansiRGB[$1], target) }!
        }
        // The coloured entries closest in hue, then the nearest of those.
        let coloured = [1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14]
        func hueGap(_ n: Int) -> Double {
            let gap = abs(hue(ansiRGB[n]) - hue(target))
            return min(gap, 360 - gap)
        }
        let closest = coloured.map(hueGap).min()!
        return coloured.filter { hueGap($0) <= closest + 20 }
            .min { distance(ansiRGB[$0], target) < distance(ansiRGB[$1], target) }!
    }

    /// HSV hue in degrees.
    static func hue(_ c: (Int, Int, Int)) -> Double {
        let r = Double(c.0), g = Double(c.1), b = Double(c.2)
        let high = max(r, g, b), low = min(r, g, b)
        guard high > low else { return 0 }
        let d = high - low
        var h: Double
        if high == r { h = (g - b) / d } else if high == g { h = 2 + (b - r) / d } else { h = 4 + (r - g) / d }
        h *= 60
        return h < 0 ? h + 360 : h
    }

    /// HSV saturation, 0...1.
    static func saturation(_ c: (Int, Int, Int)) -> Double {
        let high = max(c.0, c.1, c.2), low = min(c.0, c.1, c.2)
        return high == 0 ? 0 : Double(high - low) / Double(high)
    }

    /// Perceived lightness, 0...255, for choosing black or white text.
    static func lightness(_ c: (Int, Int, Int)) -> Int { (c.0 * 299 + c.1 * 587 + c.2 * 114) / 1000 }
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
        // COLORTERM is only believed for a terminal whose terminfo has at least 256 colours
        // (an 8-colour entry under a truecolor claim is usually a mis-set TERM).
        if (colorTerm == "truecolor" || colorTerm == "24bit") && terminalColors >= 256 { return .truecolor }
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

extension TermColor {
    /// The colour's RGB as xterm shows it by default.
    public var approximateRGB: (Int, Int, Int) {
        switch self {
        case .ansi(let n): ColorDepth.rgb(indexed: n)
        case .indexed(let n): ColorDepth.rgb(indexed: n)
        case .rgb(let r, let g, let b): (Int(r), Int(g), Int(b))
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
        if level < .indexed256 {
            // Two colours that met in one: keep the background, and make the text black or
            // white, whichever reads on it.
            for (role, style) in theme.styles {
                guard let fg = style.foreground, let bg = style.background, fg == bg else { continue }
                theme.styles[role]?.foreground = ColorDepth.lightness(bg.approximateRGB) > 128 ? .ansi(0) : .ansi(level == .ansi8 ? 7 : 15)
            }
            // A cursor row whose background became the canvas's: mark it by reversing instead.
            if let cursorBG = theme.cursorRow.background, cursorBG == theme.styles[.item]?.background || cursorBG == theme.styles[.text]?.background {
                theme.cursorRow.background = nil
                theme.cursorRow.reverse = true
            }
        }
        if level == .none {
            // Bold alone does not mark the cursor on a bold row.
            if !theme.cursorRow.reverse && !theme.cursorRow.underline { theme.cursorRow.reverse = true }
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
