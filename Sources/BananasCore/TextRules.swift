/// Limits on stored text, and the one way stored text is made safe to show on a terminal.
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
                "the \(kind.rawValue) contains the control character \(escapedScalar(Unicode.Scalar(scalar)!)); type plain text"
            }
        }
    }

    /// Checks text typed by a person or sent by an agent and returns it trimmed.
    /// Names must not be empty; nothing may hold control characters or bidi overrides;
    /// lengths are counted in Unicode scalars.
    public static func validated(_ text: String, as kind: Kind) throws(Violation) -> String {
        let trimmed = text.trimmingWhitespace()
        if kind == .name && trimmed.isEmpty { throw .empty(kind) }
        if let bad = trimmed.unicodeScalars.first(where: isUnsafe) { throw .controlCharacter(kind, scalar: bad.value) }
        let length = trimmed.unicodeScalars.count
        if length > kind.limit { throw .tooLong(kind, length: length, limit: kind.limit) }
        return trimmed
    }

    /// A new value for one of an item's fields, checked as every surface must: text by
    /// `validated(_:as:)` (a name and a section may not be blank), a sort order finite.
    public static func validated(_ value: FieldValue, for field: ItemField) throws(Violation) -> FieldValue {
        switch (field, value) {
        case (.name, .text(let text)): return .text(try validated(text, as: .name))
        case (.amount, .text(let text)): return .text(try validated(text, as: .amount))
        case (.section, .text(let text)):
            let section = try validated(text, as: .section)
            if section.isEmpty { throw .empty(.section) }
            return .text(section)
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

    /// Stored text made safe for a terminal: every unsafe scalar is shown escaped
    /// (`\n`, `\t`, `\e`, `\u{202E}`), so a name can never move the cursor, change colours,
    /// or reorder the line.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
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
    /// The string without leading and trailing white space (spaces, tabs, newlines).
    public func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[start...end])
    }
}
