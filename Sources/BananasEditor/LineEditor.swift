import BananasCore

/// A one-line text field: the text, a cursor between grapheme clusters, and the usual
/// editing keys. Scalars typed one at a time (an emoji sequence, a combining accent) join the
/// cluster before them, as they do in the stored string.
public struct LineEditor: Equatable, Sendable {
    public private(set) var text: String
    /// Cursor position, in characters from the start.
    public private(set) var cursor: Int

    public init(_ text: String = "") {
        self.text = text
        cursor = text.count
    }

    public enum Outcome: Equatable, Sendable { case edited, moved, unhandled }

    /// Applies one key; returns what happened (`unhandled` for Enter, Esc, Tab and others,
    /// which the prompt decides about).
    @discardableResult
    public mutating func handle(_ key: Key) -> Outcome {
        switch key {
        case .char(let c):
            insert(c)
            return .edited
        case .left, .ctrl("b"):
            cursor = max(0, cursor - 1)
            return .moved
        case .right, .ctrl("f"):
            cursor = min(text.count, cursor + 1)
            return .moved
        case .home, .ctrl("a"):
            cursor = 0
            return .moved
        case .end, .ctrl("e"):
            cursor = text.count
            return .moved
        case .backspace, .ctrl("h"):
            guard cursor > 0 else { return .moved }
            remove(cursor - 1..<cursor)
            return .edited
        case .delete, .ctrl("d"):
            guard cursor < text.count else { return .moved }
            remove(cursor..<cursor + 1)
            return .edited
        case .ctrl("u"):
            remove(0..<cursor)
            return .edited
        case .ctrl("k"):
            remove(cursor..<text.count)
            return .edited
        case .ctrl("w"):
            let characters = Array(text)
            var start = cursor
            while start > 0, characters[start - 1] == " " { start -= 1 }
            while start > 0, characters[start - 1] != " " { start -= 1 }
            remove(start..<cursor)
            return .edited
        default:
            return .unhandled
        }
    }

    public mutating func set(_ newText: String) {
        text = newText
        cursor = newText.count
    }

    private mutating func insert(_ c: Character) {
        let index = text.index(text.startIndex, offsetBy: cursor)
        let before = String(text[..<index]) + String(c)
        text = before + text[index...]
        cursor = before.count
    }

    private mutating func remove(_ range: Range<Int>) {
        let start = text.index(text.startIndex, offsetBy: range.lowerBound)
        let end = text.index(text.startIndex, offsetBy: range.upperBound)
        text.removeSubrange(start..<end)
        cursor = range.lowerBound
    }

    /// The part of the text to show in `columns`, scrolled so the cursor is visible, and the
    /// cursor's column within it.
    public func visible(in columns: Int) -> (text: String, cursorColumn: Int) {
        let characters = Array(text.displaySafeCharacters)
        guard columns > 1 else { return ("", 0) }
        var start = 0
        func width(_ range: Range<Int>) -> Int { characters[range].reduce(0) { $0 + TextWidth.of($1) } }
        // Keep the cursor (and one column for it past the end) on screen.
        while width(start..<cursor) > columns - 1 { start += 1 }
        var shown = ""
        var used = 0
        for character in characters[start...] {
            let w = TextWidth.of(character)
            if used + w > columns { break }
            shown.append(character)
            used += w
        }
        return (shown, width(start..<cursor))
    }
}

extension String {
    /// The characters of the text with each unsafe scalar shown as a visible replacement,
    /// one character for one character so cursor positions still line up.
    var displaySafeCharacters: [Character] {
        map { character in
            character.unicodeScalars.contains(where: TextRules.isUnsafe) ? "�" : character
        }
    }
}
