import BananasCore

/// How many terminal columns text takes. Computed here rather than with `wcwidth(3)` so the
/// result does not depend on the process locale, and snapshot tests agree with the terminal.
public enum TextWidth {
    /// Columns of one grapheme cluster: 0 (nothing visible), 1, or 2 (East Asian wide and
    /// emoji shown as pictures).
    public static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        // An emoji variation selector turns a text symbol into a two-column picture.
        if scalars.contains(where: { $0.value == 0xFE0F }) && first.properties.isEmoji { return 2 }
        var width = of(first)
        if width == 0 {
            // A cluster that starts with a combining mark (possible at the start of a string).
            width = scalars.dropFirst().map(of).max() ?? 0
        }
        return width
    }

    /// Columns of one scalar on its own.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v == 0 { return 0 }
        if v < 0x20 || (0x7F..<0xA0).contains(v) { return 0 }
        if v < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if (0x1160...0x11FF).contains(v) { return 0 }  // Hangul medial vowels and final consonants
        if scalar.properties.isEmojiPresentation { return 2 }
        return isWide(v) ? 2 : 1
    }

    /// Columns of a string.
    public static func of(_ text: String) -> Int {
        var total = 0
        for character in text { total += of(character) }
        return total
    }

    /// East Asian Wide and Fullwidth ranges (Unicode 15, the blocks that matter in practice).
    static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
             0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x16FE0...0x16FE4, 0x17000...0x18AFF, 0x1B000...0x1B2FF, 0x1F200...0x1F2FF,
             0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// The longest prefix of `text` that fits in `columns`, with `…` at the end when
    /// anything was cut.
    public static func truncate(_ text: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        if of(text) <= columns { return text }
        var result = ""
        var used = 0
        for character in text {
            let w = of(character)
            if used + w > columns - 1 { break }
            result.append(character)
            used += w
        }
        return result + "…"
    }

    /// `text` in lines of at most `columns`, broken between words (a word longer than a
    /// line is cut at the edge).
    public static func wrap(_ text: String, to columns: Int) -> [String] {
        guard columns > 0 else { return [] }
        var lines: [String] = []
        var line = ""
        var used = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            var word = String(word)
            var w = of(word)
            if used > 0 && used + 1 + w > columns {
                lines.append(line)
                line = ""
                used = 0
            }
            while w > columns {
                // Longer than a line on its own: as much as fits, the rest on the next line.
                var head = ""
                var headWidth = 0
                for character in word {
                    let cw = of(character)
                    if headWidth + cw > columns - used - (used > 0 ? 1 : 0) { break }
                    head.append(character)
                    headWidth += cw
                }
                if head.isEmpty { break }
                lines.append(used > 0 ? line + " " + head : head)
                line = ""
                used = 0
                word = String(word.dropFirst(head.count))
                w = of(word)
            }
            if used > 0 {
                line += " "
                used += 1
            }
            line += word
            used += w
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// Pads `text` with spaces on the right to exactly `columns` (truncating when longer).
    public static func padded(_ text: String, to columns: Int) -> String {
        let fitted = truncate(text, to: columns)
        return fitted + String(repeating: " ", count: max(0, columns - of(fitted)))
    }
}

extension String {
    /// Stored text as it may appear on a terminal: control characters and bidi overrides
    /// escaped, so a name can never move the cursor or change colours.
    var displaySafe: String { TextRules.escaped(self) }
}
