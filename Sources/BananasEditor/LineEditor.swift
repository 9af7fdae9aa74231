import BananasCore

/// A one-line text field: the text, a cursor between grapheme clusters, and the usual
/// editing keys. Scalars typed one at a time (an emoji sequence, a combining accent) join the
/// cluster before them, as they do in the stored string.
public struct LineEditor: Equatable, Sendable {
    public private(set) var text: String
    /// Cursor position, in characters from the start.
    public private(set) var cursor: Int
    /// `text.count`, kept as the text changes: counting walks the whole text, and a field
    /// is redrawn after every key.
    private var count: Int
    /// The whole text is selected (a prompt opened on a value): typing replaces it, Backspace
    /// or Delete erase it, a cursor key keeps it and moves.
    public private(set) var selected: Bool

    public init(_ text: String = "", selected: Bool = false) {
        self.text = text
        count = text.count
        cursor = count
        self.selected = selected && !text.isEmpty
    }

    public enum Outcome: Equatable, Sendable { case edited, moved, unhandled }

    /// Applies one key; returns what happened (`unhandled` for Enter, Esc, Tab and others,
    /// which the prompt decides about).
    @discardableResult
    public mutating func handle(_ key: Key) -> Outcome {
        if case .char(let c) = key {
            if selected { set("") }
            insert(c)
            return .edited
        }
        // The prompt's key table (KeyMap.prompt) says what the other keys do.
        guard let command = KeyMap.promptCommand(for: key) else { return .unhandled }
        if selected {
            selected = false
            switch command {
            case .eraseBack, .eraseForward, .eraseWord, .eraseToStart, .eraseToEnd:
                set("")
                return .edited
            default: break
            }
        }
        switch command {
        case .accept, .cancel, .complete, .nextSuggestion, .previousSuggestion:
            return .unhandled  // the prompt's to decide
        case .left:
            cursor = max(0, cursor - 1)
            return .moved
        case .right:
            cursor = min(count, cursor + 1)
            return .moved
        case .home:
            cursor = 0
            return .moved
        case .end:
            cursor = count
            return .moved
        case .eraseBack:
            guard cursor > 0 else { return .moved }
            remove(cursor - 1..<cursor)
            return .edited
        case .eraseForward:
            guard cursor < count else { return .moved }
            remove(cursor..<cursor + 1)
            return .edited
        case .eraseToStart:
            remove(0..<cursor)
            return .edited
        case .eraseToEnd:
            remove(cursor..<count)
            return .edited
        case .eraseWord:
            let characters = Array(text)
            var start = cursor
            while start > 0, characters[start - 1] == " " { start -= 1 }
            while start > 0, characters[start - 1] != " " { start -= 1 }
            remove(start..<cursor)
            return .edited
        }
    }

    public mutating func set(_ newText: String) {
        selected = false
        text = newText
        count = newText.count
        cursor = count
    }

    /// The most a field holds, in UTF-8 bytes: well past every text limit (500 characters),
    /// so an over-long paste is still reported by the limit check, but bounded, so a paste
    /// of 10,000 characters cannot make each key press slower than the last.
    public static let maxBytes = 4_000

    private mutating func insert(_ c: Character) {
        guard text.utf8.count + c.utf8.count <= LineEditor.maxBytes else { return }
        if cursor == count {
            // Typing at the end, the usual case, without walking the text. A scalar that joins
            // the character before it (a combining accent) leaves the count as it was.
            text.append(c)
            if text.last == c { count += 1 }
            cursor = count
            return
        }
        let index = text.index(text.startIndex, offsetBy: cursor)
        let before = String(text[..<index]) + String(c)
        text = before + text[index...]
        cursor = before.count
        count = text.count
    }

    private mutating func remove(_ range: Range<Int>) {
        let start = text.index(text.startIndex, offsetBy: range.lowerBound)
        let end = text.index(text.startIndex, offsetBy: range.upperBound)
        text.removeSubrange(start..<end)
        cursor = range.lowerBound
        count = text.count
    }

    /// The part of the text to show in `columns`, scrolled so the cursor is visible, and the
    /// cursor's column within it. Only the characters around the cursor are looked at.
    public func visible(in columns: Int) -> (text: String, cursorColumn: Int) {
        guard columns > 1 else { return ("", 0) }
        // Unsafe and invisible scalars show as a replacement, one character for one, so
        // columns line up and a typed zero-width space is seen (the joiner inside an emoji
        // is not one of them: TextRules judges it within its character).
        func shown(_ character: Character) -> Character {
            character.isASCII && !character.unicodeScalars.contains(where: TextRules.isUnsafe) ? character
                : TextRules.firstHidden(in: String(character)) != nil ? "\u{FFFD}" : character
        }
        // Keep the cursor (and one column for it past the end) on screen: walk back from the
        // cursor while the text up to it fits. The cursor is found from the end, where typing is.
        var start = text.index(text.endIndex, offsetBy: cursor - count)
        var before = 0
        while start > text.startIndex {
            let previous = text.index(before: start)
            let width = TextWidth.of(shown(text[previous]))
            if before + width > columns - 1 { break }
            start = previous
            before += width
        }
        var visible = ""
        var used = 0
        var index = start
        while index < text.endIndex {
            let character = shown(text[index])
            let width = TextWidth.of(character)
            if used + width > columns { break }
            visible.append(character)
            used += width
            index = text.index(after: index)
        }
        return (visible, before)
    }
}
