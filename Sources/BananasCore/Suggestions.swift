/// Remembered names that match what a person is typing, for the add prompt and for shell
/// completion. Built once per state of the list; each query then only compares short arrays
/// of characters (well under a millisecond at `ItemMemory.capacity` names).
public struct Suggestions: Sendable {
    struct Candidate: Sendable {
        var item: RememberedItem
        var name: [Character]
        var words: [[Character]]
    }

    let candidates: [Candidate]

    /// `items` most useful first (as `rememberedItems` gives them); items on the list (not
    /// checked) are left out: adding them again would do nothing.
    public init(_ items: [RememberedItem]) {
        candidates = items.filter { !$0.onList }.map { item in
            let name = Array(item.folded)
            let words = name.split(whereSeparator: { $0 == " " || $0 == "-" }).map(Array.init)
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
        let typed = Array(ItemMemory.fold(query))
        guard !typed.isEmpty else { return [] }
        var found: [(match: Match, index: Int)] = []
        for (index, candidate) in candidates.enumerated() {
            if let match = Self.match(typed, candidate) { found.append((match, index)) }
        }
        found.sort { ($0.match, $0.index) < ($1.match, $1.index) }
        return found.prefix(limit).map { candidates[$0.index].item }
    }

    static func match(_ typed: [Character], _ candidate: Candidate) -> Match? {
        let name = candidate.name
        if name == typed { return .whole }
        if name.starts(with: typed) { return .start }
        if candidate.words.dropFirst().contains(where: { $0.starts(with: typed) }) { return .wordStart }
        if typed.count >= 2, contains(name, typed) { return .inside }
        let allowed = typed.count >= 6 ? 2 : typed.count >= 3 ? 1 : 0
        if allowed > 0, ([name] + candidate.words.dropFirst()).contains(where: { prefixDistance(typed, $0, limit: allowed) <= allowed }) {
            return .typo
        }
        if typed.count >= 2, typed.first == name.first, isSubsequence(typed, of: name) { return .letters }
        return nil
    }

    static func contains(_ text: [Character], _ part: [Character]) -> Bool {
        guard part.count <= text.count else { return false }
        for start in 0...(text.count - part.count) where text[start] == part[0] {
            if text[start..<start + part.count].elementsEqual(part) { return true }
        }
        return false
    }

    static func isSubsequence(_ part: [Character], of text: [Character]) -> Bool {
        var next = 0
        for character in text where next < part.count && character == part[next] { next += 1 }
        return next == part.count
    }

    /// The fewest edits (insert, delete, replace, swap two neighbours) that make `typed` a
    /// start of `text`; anything above `limit` is reported as `limit + 1`.
    static func prefixDistance(_ typed: [Character], _ text: [Character], limit: Int) -> Int {
        let m = typed.count, n = min(text.count, typed.count + limit)
        guard n > 0 else { return m }
        // Rows over `typed`, columns over `text`; the answer is the best cell of the last row.
        var before = [Int](repeating: 0, count: n + 1)
        var previous = Array(0...n)
        var current = [Int](repeating: 0, count: n + 1)
        for i in 1...m {
            current[0] = i
            var rowBest = i
            for j in 1...n {
                let cost = typed[i - 1] == text[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, typed[i - 1] == text[j - 2], typed[i - 2] == text[j - 1] {
                    value = min(value, before[j - 2] + 1)
                }
                current[j] = value
                rowBest = min(rowBest, value)
            }
            if rowBest > limit { return limit + 1 }
            (before, previous, current) = (previous, current, before)
        }
        return min(previous.min() ?? m, limit + 1)
    }
}
