/// Limits on stored text, the one way stored text is made safe to show on a terminal, and
/// the one order of text (`String.precedesInTextOrder`).
public enum TextRules {
    public static let maxName = 500
    public static let maxAmount = 100
    public static let maxSection = 100

    public enum Kind: String, Sendable {
        case name, amount, section

        var limit: Int {
            switch self {
            case .name: TextRules.maxName
            case .amount: TextRules.maxAmount
            case .section: TextRules.maxSection
            }
        }
    }

    public enum Violation: Error, Equatable, CustomStringConvertible {
        case empty(Kind)
        case tooLong(Kind, length: Int, limit: Int)
        case controlCharacter(Kind, scalar: UInt32)
        /// A sort order that is NaN or infinite: no reader of the file could place the item.
        case notFinite(ItemField)
        /// A value of the wrong kind for the field (text for `checked`, a flag for `name`).
        case wrongKind(ItemField)

        public var description: String {
            switch self {
            case .empty(let kind): "the \(kind.rawValue) is empty"
            case .notFinite(let field): "the \(field.rawValue) must be a finite number"
            case .wrongKind(let field): "the \(field.rawValue) cannot take that kind of value"
            case .tooLong(let kind, let length, let limit):
                "the \(kind.rawValue) is \(length) characters long; the limit is \(limit)"
            case .controlCharacter(let kind, let scalar):
                "the \(kind.rawValue) contains the \(isUnsafe(Unicode.Scalar(scalar)!) ? "control" : "invisible") character \(escapedScalar(Unicode.Scalar(scalar)!)); type plain text"
            }
        }
    }

    /// Checks text typed by a person or sent by an agent and returns it trimmed.
    /// Names must not be empty; nothing may hold control characters, bidi overrides or
    /// invisible characters (`isInvisible`, outside the places real text needs them);
    /// lengths are counted in Unicode scalars.
    public static func validated(_ text: String, as kind: Kind) throws(Violation) -> String {
        let trimmed = text.trimmingWhitespace()
        if kind == .name && trimmed.isEmpty { throw .empty(kind) }
        if let bad = firstHidden(in: trimmed) { throw .controlCharacter(kind, scalar: bad.value) }
        let length = trimmed.unicodeScalars.count
        if length > kind.limit { throw .tooLong(kind, length: length, limit: kind.limit) }
        return trimmed
    }

    /// A section's name as a command or an agent gives it: `validated(_:as:)`, and not blank
    /// (every item has a section). The one check every surface makes of a section name.
    public static func validatedSection(_ text: String) throws(Violation) -> String {
        let section = try validated(text, as: .section)
        if section.isEmpty { throw .empty(.section) }
        return section
    }

    /// A new value for one of an item's fields, checked as every surface must: text by
    /// `validated(_:as:)` (a name and a section may not be blank), a sort order finite.
    public static func validated(_ value: FieldValue, for field: ItemField) throws(Violation) -> FieldValue {
        switch (field, value) {
        case (.name, .text(let text)): return .text(try validated(text, as: .name))
        case (.amount, .text(let text)): return .text(try validated(text, as: .amount))
        case (.section, .text(let text)): return .text(try validatedSection(text))
        case (.checked, .flag), (.optional, .flag): return value
        case (.sortOrder, .order(let order)):
            guard order.isFinite else { throw .notFinite(field) }
            return value
        default: throw .wrongKind(field)
        }
    }

    /// Control characters (C0, DEL, C1) and the bidi controls that can reorder what a
    /// terminal shows (U+200E/F, U+202A–U+202E, U+2066–U+2069).
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        case 0x2028, 0x2029: true  // line and paragraph separators
        default: false
        }
    }

    /// Characters that show nothing, or only a blank: format characters (zero-width spaces
    /// and joiners, the BOM, word joiners, the Arabic letter mark, soft hyphens, Unicode tag
    /// characters U+E0000–E007F), variation selectors, and letters drawn blank (the Hangul
    /// fillers U+115F, U+1160, U+3164, U+FFA0; the blank Braille pattern U+2800; the
    /// combining grapheme joiner; Khmer's inherent vowels; Mongolian's selectors). A name can
    /// hide text in them, or look blank. Some are allowed where real text needs them: see
    /// `hiddenScalars`.
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20...0x7E: false
        case 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x034F, 0x17B4, 0x17B5, 0x180B...0x180F: true
        case 0xFE00...0xFE0F, 0xE0100...0xE01EF: true
        // Format characters that are drawn (number signs that span digits).
        case 0x0600...0x0605, 0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0x110BD, 0x110CD: false
        default: scalar.properties.generalCategory == .format
        }
    }

    /// Which scalars of `scalars` must not be shown or stored as they are: the unsafe ones,
    /// and invisible ones outside the places real text needs them, which are kept:
    /// - a zero-width joiner or non-joiner between two visible characters (emoji sequences
    ///   such as 👩‍💻, and Indic and Persian spelling);
    /// - a variation selector right after a visible character (❤️, 1️⃣, ideographic variants);
    /// - tag characters that spell an emoji subdivision flag after U+1F3F4 (🏴󠁧󠁢󠁳󠁣󠁴󠁿), ending in U+E007F.
    static func hiddenScalars(_ scalars: [Unicode.Scalar]) -> [Bool] {
        var hidden = scalars.map { isUnsafe($0) || isInvisible($0) }
        func shown(_ index: Int) -> Bool {
            index >= 0 && index < scalars.count && !hidden[index] && !scalars[index].properties.isWhitespace
        }
        var index = 0
        while index < scalars.count {
            let value = scalars[index].value
            if value == 0x1F3F4 {
                // A tag sequence: tags U+E0020–E007E, then the cancel tag U+E007F.
                var end = index + 1
                while end < scalars.count, (0xE0020...0xE007E).contains(scalars[end].value) { end += 1 }
                if end > index + 1, end < scalars.count, scalars[end].value == 0xE007F {
                    for tag in index + 1...end { hidden[tag] = false }
                    index = end + 1
                    continue
                }
            } else if (0xFE00...0xFE0F).contains(value) || (0xE0100...0xE01EF).contains(value) {
                if shown(index - 1) { hidden[index] = false }
            }
            index += 1
        }
        // Joiners last: the character before one may be a variation selector kept above.
        for index in scalars.indices where scalars[index].value == 0x200D || scalars[index].value == 0x200C {
            if shown(index - 1) && shown(index + 1) { hidden[index] = false }
        }
        return hidden
    }

    /// The first scalar of `text` that must not be stored (see `hiddenScalars`), if any.
    public static func firstHidden(in text: String) -> Unicode.Scalar? {
        guard needsLook(text) else { return nil }
        let scalars = Array(text.unicodeScalars)
        return hiddenScalars(scalars).firstIndex(of: true).map { scalars[$0] }
    }

    /// False when no scalar of `text` can be unsafe or invisible (plain printable ASCII, the
    /// usual case, is passed by its bytes alone).
    private static func needsLook(_ text: String, keepingNewlines: Bool = false) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            bytes.contains { $0 < 0x20 && !(keepingNewlines && $0 == 0x0A) || $0 >= 0x7F }
        } && text.unicodeScalars.contains { (keepingNewlines ? $0 != "\n" : true) && (isUnsafe($0) || isInvisible($0)) }
    }

    /// Text from a file, a path, an argument or the environment made safe for a terminal or
    /// a model: the one escaping function every surface uses. Every unsafe scalar, and every
    /// invisible one outside the places real text needs it, is shown escaped (`\n`, `\t`,
    /// `\e`, `\u{202E}`, `\u{200B}`), so a string can never move the cursor, change colours,
    /// retitle the terminal, reorder the line, or hide what it holds. `keepingNewlines` keeps
    /// line feeds, for whole messages of several lines.
    public static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard needsLook(text, keepingNewlines: keepingNewlines) else { return text }
        let scalars = Array(text.unicodeScalars)
        let hidden = hiddenScalars(scalars)
        var result = String.UnicodeScalarView()
        for (index, scalar) in scalars.enumerated() {
            if hidden[index] && !(keepingNewlines && scalar == "\n") {
                result.append(contentsOf: escapedScalar(scalar).unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    static func escapedScalar(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": "\\n"
        case "\t": "\\t"
        case "\r": "\\r"
        case "\u{1B}": "\\e"
        default: "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
    }
}

extension String {
    /// The one rule for names of items and sections: equal whatever their case ("Milk" is
    /// "milk"; canonically equivalent spellings too). Every surface asks it here.
    public func isSameName(as other: String) -> Bool { lowercasedEquals(other.lowercased()) }

    /// `lowercased() == folded`, without making the lower-case string when both are ASCII
    /// (nearly every name): finding an item or a section by name asks it of every row.
    /// Anything else goes through `lowercased()` and `==` (canonical equivalence included).
    public func lowercasedEquals(_ folded: String) -> Bool {
        var text = self, folded = folded
        let answer = text.withUTF8 { a in folded.withUTF8 { b in Self.asciiLowercasedEquals(a, b) } }
        return answer ?? (lowercased() == folded)
    }

    /// `lowercasedEquals` of two texts' UTF-8 when both are ASCII; nil for any other.
    static func asciiLowercasedEquals(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool? {
        var high: UInt8 = 0
        for byte in b { high |= byte }
        for byte in a { high |= byte }
        guard high < 0x80 else { return nil }
        guard a.count == b.count else { return false }
        for i in 0..<a.count {
            let byte = a[i]
            let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            if lower != b[i] { return false }
        }
        return true
    }

    /// The string without leading and trailing white space (spaces, tabs, newlines).
    public func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[start...end])
    }
}

extension String {
    /// The one order of text wherever bananas sorts text into a result that every process
    /// must agree on (the list's order, sections, conflicts, what the file writes): by UTF-8
    /// bytes. Swift's `<` compares canonically equivalent forms, and for some text not in NFC
    /// it is no strict order ("e\u{301}" and "\u{E9}A": neither is below the other), so a sort
    /// by it depended on where it started (a rewrite reordered `sync.sections`: found by the
    /// codec fuzzer). For text in NFC, nearly all, the two orders agree.
    @inlinable public func precedesInTextOrder(_ other: String) -> Bool {
        // Native strings hold their UTF-8 in one piece: compared there, not a byte per
        // iterator step (the writer sorts every remembered name and delete at every write).
        let contiguous = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in
                let count = Swift.min(a.count, b.count)
                var i = 0
                while i < count {
                    if a[i] != b[i] { return a[i] < b[i] }
                    i += 1
                }
                return a.count < b.count
            }
        }
        if let contiguous, let result = contiguous { return result }
        return utf8.lexicographicallyPrecedes(other.utf8)
    }
}
