/// For tests only: the hostile text corpus every output path is walked with
/// (CLIOutputWalkTests, MCPOutputWalkTests, HostileTextTests), and the one independent check
/// of what may never leave bananas raw.
public enum HostileText {
    /// Names another program stored: escape sequences (OSC title, clear screen, DCS), C0 and C1
    /// controls, DEL, bidi overrides and isolates, line separators, tag characters outside a
    /// flag, invisible fillers, and 10,000 characters.
    public static let names = [
        "Milk\u{1B}]0;pwned\u{07}", "Eggs\u{1B}[2J\u{1B}[H", "\u{9B}31mBread", "Jam\u{202E}kliM", "Mi\u{2066}so\u{2069}",
        "Tea\u{0}\u{8}\u{8}", "Rice\r\nOats", "Salt\u{7F}", "Oil\u{2028}Vinegar", "Nuts\u{200F}\u{1B}P+q\u{1B}\\",
        "Soap\u{E0041}\u{E0042}", "Rye\u{85}x", "Kale\u{3164}", String(repeating: "L", count: 10_000),
    ]

    /// A scalar that must never reach a terminal, a log or an agent as it is: C0 controls but
    /// newline, DEL, C1 controls, bidi controls, line and paragraph separators, tag characters
    /// (none of the corpus's are in a flag) and the Hangul filler.
    public static func isRaw(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A: false
        case 0x00...0x1F, 0x7F...0x9F, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: true
        case 0xE0000...0xE007F, 0x3164: true
        default: false
        }
    }

    /// The first raw scalar in `text`, with where it is, for a failure message.
    public static func firstRaw(in text: String) -> String? {
        guard let index = text.unicodeScalars.firstIndex(where: isRaw) else { return nil }
        let offset = text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: index)
        let context = String(String.UnicodeScalarView(text.unicodeScalars[index...].prefix(30)))
        return "U+\(String(text.unicodeScalars[index].value, radix: 16, uppercase: true)) at \(offset): \(context.debugDescription)"
    }
}
