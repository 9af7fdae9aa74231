/// What a cell means on screen. A theme turns roles into colours and attributes, so the
/// rendered grid says what is shown and how it is meant, never which escape codes to send.
public enum Role: String, CaseIterable, Sendable, Hashable, Codable {
    case text
    case title
    case sectionHeader
    case item
    case checkedItem
    case optionalMarker
    case amount
    case filterMatch
    case prompt
    case message
    case error
    case help
    case helpKey
    case statusBar
    case synced
    case pending
    case conflict
    case paused
    case readOnly
    case dim
}

/// One terminal cell: a grapheme (or nothing, for the right half of a wide character),
/// its role, and whether it lies on the cursor row.
public struct Cell: Equatable, Sendable {
    public var text: String
    public var role: Role
    public var highlighted: Bool

    public static let blank = Cell(text: " ", role: .text, highlighted: false)
    /// The second column of a two-column character.
    public var isContinuation: Bool { text.isEmpty }
}

/// The screen as a grid of cells: what the editor renders into, what snapshot tests read,
/// and what the terminal backend paints.
public struct Grid: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]
    /// Where the terminal cursor goes (a prompt being typed into), or nil to hide it.
    public var cursor: (x: Int, y: Int)? {
        get { cursorX.map { ($0, cursorY) } }
        set { cursorX = newValue?.x; cursorY = newValue?.y ?? 0 }
    }
    private var cursorX: Int?
    private var cursorY = 0

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set { cells[y * width + x] = newValue }
    }

    /// Before column x of row y is overwritten: a wide character that only half survives is
    /// replaced by a space, so the grid never holds half of one (the terminal would show
    /// stale halves).
    private mutating func clearWideNeighbours(x: Int, y: Int, width w: Int) {
        if x > 0, self[x, y].isContinuation { self[x - 1, y].text = " " }
        let end = x + w
        if end < width, self[end, y].isContinuation { self[end, y].text = " " }
    }

    /// Writes `text` at (x, y) in `role`, clipped at `limit` columns (the right edge by
    /// default). Returns the column after the last one written. A wide character that
    /// would straddle the limit is replaced by a space.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, role: Role, limit: Int? = nil) -> Int {
        guard y >= 0, y < height else { return x }
        let end = min(limit ?? width, width)
        var column = x
        for character in text {
            let w = TextWidth.of(character)
            if w == 0 {
                // Combining marks stay with the previous cell's grapheme (already clustered);
                // a lone zero-width character is dropped.
                continue
            }
            if column + w > end {
                if column < end { self[column, y] = Cell(text: " ", role: role, highlighted: self[column, y].highlighted) }
                return end
            }
            if column >= 0 {
                clearWideNeighbours(x: column, y: y, width: w)
                let lit = self[column, y].highlighted
                self[column, y] = Cell(text: Grid.cellText(character), role: role, highlighted: lit)
                if w == 2 { self[column + 1, y] = Cell(text: "", role: role, highlighted: lit) }
            }
            column += w
        }
        return column
    }

    /// The most Unicode scalars one cell keeps of a character (emoji sequences need up to
    /// about ten): a name carrying thousands of combining marks on one letter cannot smear
    /// over the rows around it.
    public static let maxScalarsPerCell = 16

    static func cellText(_ character: Character) -> String {
        let scalars = character.unicodeScalars
        guard scalars.count > maxScalarsPerCell else { return String(character) }
        return String(String.UnicodeScalarView(scalars.prefix(maxScalarsPerCell)))
    }

    /// What a terminal whose cells are curses cells is given for one grid cell holding
    /// `text` (a whole grapheme cluster) over `columns` columns: one string per column, ""
    /// for a column the one before covers. A character with combining marks (`e` and an
    /// accent) is sent whole; a cluster whose width terminals disagree on is drawn another
    /// way, never sent whole: tmux, the terminal and the C library each count a skin tone, a
    /// joiner, a keycap or an emoji selector their own way, and one column counted differently
    /// leaves glyphs behind. So a flag is drawn as its two letters (🇯🇵 as `JP`), and any other
    /// such cluster as its first character (👍🏽 as 👍, 👩🏽‍🚀 as 👩, 1️⃣ as 1, ❤️ as ❤),
    /// padded to the columns the grid gave it; one that starts with a mark, as a wide `？`.
    public static func terminalForm(_ text: String, columns: Int, maxScalars: Int,
                                    scalarWidth: (Unicode.Scalar) -> Int) -> [String] {
        let scalars = Array(text.unicodeScalars)
        func padded(_ first: String, width: Int) -> [String] {
            [first] + Array(repeating: "", count: max(0, width - 1)) + Array(repeating: " ", count: max(0, columns - width))
        }
        guard let first = scalars.first, scalars.count > 1 else { return padded(text.isEmpty ? " " : text, width: columns) }
        let rest = scalars.dropFirst()
        if scalars.count <= maxScalars, max(1, scalarWidth(first)) == columns, !untrusted(first),
           rest.allSatisfy({ scalarWidth($0) == 0 && !untrusted($0) }) {
            return padded(text, width: columns)
        }
        let regional = scalars.count == 2 && scalars.allSatisfy { (0x1F1E6...0x1F1FF).contains($0.value) }
        if regional, columns == 2 {
            return scalars.map { String(Character(Unicode.Scalar($0.value - 0x1F1E6 + 65)!)) }
        }
        let width = scalarWidth(first)
        if width >= 1, width <= columns, !untrusted(first) {
            return padded(String(first), width: width)
        }
        return columns >= 2 ? padded("\u{FF1F}", width: 2) : ["?"]
    }

    /// Scalars whose effect on a cluster's width terminals disagree on: the emoji selector,
    /// the joiner, the keycap mark, skin tones, tag characters (subdivision flags) and
    /// regional indicators.
    static func untrusted(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0xFE0F, 0x200D, 0x20E3, 0x1F3FB...0x1F3FF, 0xE0020...0xE007F, 0x1F1E6...0x1F1FF: true
        default: false
        }
    }

    /// Fills columns x..<x+count of row y with spaces in `role`.
    public mutating func fill(x: Int = 0, y: Int, count: Int? = nil, role: Role) {
        guard y >= 0, y < height else { return }
        let end = min(width, x + (count ?? width))
        for column in max(0, x)..<max(max(0, x), end) {
            clearWideNeighbours(x: column, y: y, width: 1)
            self[column, y] = Cell(text: " ", role: role, highlighted: self[column, y].highlighted)
        }
    }

    /// Marks a whole row as the cursor row.
    public mutating func highlight(row y: Int) {
        guard y >= 0, y < height else { return }
        for column in 0..<width { self[column, y].highlighted = true }
    }

    /// The text of each row, wide characters once, trailing spaces kept: what a person would
    /// read off the screen. Snapshot tests compare this.
    public var lines: [String] {
        (0..<height).map { y in
            var line = ""
            for x in 0..<width where !self[x, y].isContinuation { line += self[x, y].text }
            return line
        }
    }

    /// The rows with trailing spaces removed, joined by newlines.
    public var text: String {
        lines.map { String($0.reversed().drop(while: { $0 == " " }).reversed()) }.joined(separator: "\n")
    }

    /// One letter per cell naming its role (from `legend`), `.` for plain text; for tests that
    /// check what is coloured how.
    public func roleMap(_ legend: [Role: Character]) -> [String] {
        (0..<height).map { y in
            String((0..<width).map { x in
                let cell = self[x, y]
                let mark = legend[cell.role] ?? "."
                return cell.highlighted && mark == "." ? "#" : mark
            })
        }
    }

    public static func == (a: Grid, b: Grid) -> Bool {
        a.width == b.width && a.height == b.height && a.cells == b.cells && a.cursorX == b.cursorX && a.cursorY == b.cursorY
    }
}
