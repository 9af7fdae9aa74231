/// Remembered names that match what a person is typing, for the add prompt and for shell
/// completion. Built once per state of the list; each query then only compares short arrays
/// of characters (well under a millisecond at `ItemMemory.capacity` names).
public struct Suggestions: Sendable {
    /// Names as arrays of code points: comparing them is several times cheaper than comparing
    /// `Character`s (grapheme breaking), and a name's case is already folded.
    typealias Letters = [UInt32]

    struct Candidate: Sendable {
        var item: RememberedItem
        var name: Letters
        var words: [Letters]
    }

    let candidates: [Candidate]

    /// `items` most useful first (as `rememberedItems` gives them); items on the list (not
    /// checked) are left out: adding them again would do nothing.
    public init(_ items: [RememberedItem]) {
        candidates = items.filter { !$0.onList }.map { item in
            let name = Self.letters(item.folded)
            let words = name.split(whereSeparator: { $0 == 0x20 || $0 == 0x2D }).map(Array.init)
            return Candidate(item: item, name: name, words: words)
        }
    }

    public var isEmpty: Bool { candidates.isEmpty }

    /// How well `query` matches, best first: the whole name, the start of the name, the
    /// start of a word, anywhere in it, the start of the name or of a word with a typo or two
    /// (one from three letters, two from six: "mlik" finds Milk), then the letters in order
    /// from the first ("ml" finds Milk). Nil: no match.
    public enum Match: Int, Comparable, Sendable {
        case whole, start, wordStart, inside, typo, letters

        public static func < (a: Match, b: Match) -> Bool { a.rawValue < b.rawValue }
    }

    /// Up to `limit` remembered items matching `query`, best match first, then most useful.
    public func matching(_ query: String, limit: Int = 8) -> [RememberedItem] {
        let typed = Self.letters(ItemMemory.fold(query))
        guard !typed.isEmpty else { return [] }
        var found: [(match: Match, index: Int)] = []
        var rows = DistanceRows(width: typed.count + 3)
        for (index, candidate) in candidates.enumerated() {
            if let match = Self.match(typed, candidate, &rows) { found.append((match, index)) }
        }
        found.sort { ($0.match, $0.index) < ($1.match, $1.index) }
        return found.prefix(limit).map { candidates[$0.index].item }
    }

    static func letters(_ text: String) -> Letters { text.unicodeScalars.map(\.value) }

    static func match(_ typed: Letters, _ candidate: Candidate, _ rows: inout DistanceRows) -> Match? {
        let name = candidate.name
        if name == typed { return .whole }
        if name.starts(with: typed) { return .start }
        if candidate.words.dropFirst().contains(where: { $0.starts(with: typed) }) { return .wordStart }
        if typed.count >= 2, contains(name, typed) { return .inside }
        let allowed = typosAllowed(typed.count)
        if allowed > 0, ([name] + candidate.words.dropFirst()).contains(where: { prefixDistance(typed, $0, limit: allowed, rows: &rows) <= allowed }) {
            return .typo
        }
        if typed.count >= 2, typed.first == name.first, isSubsequence(typed, of: name) { return .letters }
        return nil
    }

    /// The typos forgiven in a name typed with `letters` letters: one from three letters, two
    /// from six (the add prompt's suggestions and the catalogue's lookup alike).
    static func typosAllowed(_ letters: Int) -> Int {
        letters >= 6 ? 2 : letters >= 3 ? 1 : 0
    }

    static func contains(_ text: Letters, _ part: Letters) -> Bool {
        guard part.count <= text.count else { return false }
        for start in 0...(text.count - part.count) where text[start] == part[0] {
            if text[start..<start + part.count].elementsEqual(part) { return true }
        }
        return false
    }

    static func isSubsequence(_ part: Letters, of text: Letters) -> Bool {
        var next = 0
        for character in text where next < part.count && character == part[next] { next += 1 }
        return next == part.count
    }

    /// Three rows of the distance table, kept from one candidate to the next.
    struct DistanceRows {
        var before: [Int], previous: [Int], current: [Int]

        init(width: Int) {
            before = Array(repeating: 0, count: width + 1)
            previous = before
            current = before
        }
    }

    /// The fewest edits (insert, delete, replace, swap two neighbours) that make `typed` a
    /// start of `text`; anything above `limit` is reported as `limit + 1`.
    static func prefixDistance(_ typed: Letters, _ text: Letters, limit: Int) -> Int {
        var rows = DistanceRows(width: typed.count + limit)
        return prefixDistance(typed, text, limit: limit, rows: &rows)
    }

    static func prefixDistance(_ typed: Letters, _ text: Letters, limit: Int, rows: inout DistanceRows) -> Int {
        let m = typed.count, n = min(text.count, typed.count + limit)
        guard n > 0 else { return m }
        if rows.current.count < n + 1 { rows = DistanceRows(width: n) }
        // Rows over `typed`, columns over `text`; the answer is the best cell of the last row.
        for j in 0...n { rows.previous[j] = j }
        for i in 1...m {
            rows.current[0] = i
            var rowBest = i
            for j in 1...n {
                let cost = typed[i - 1] == text[j - 1] ? 0 : 1
                var value = min(rows.previous[j] + 1, rows.current[j - 1] + 1, rows.previous[j - 1] + cost)
                if i > 1, j > 1, typed[i - 1] == text[j - 2], typed[i - 2] == text[j - 1] {
                    value = min(value, rows.before[j - 2] + 1)
                }
                rows.current[j] = value
                rowBest = min(rowBest, value)
            }
            if rowBest > limit { return limit + 1 }
            swap(&rows.before, &rows.previous)
            swap(&rows.previous, &rows.current)
        }
        return min(rows.previous[0...n].min() ?? m, limit + 1)
    }
}
