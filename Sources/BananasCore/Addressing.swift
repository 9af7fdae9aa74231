/// Finding the item a person or an agent means: by id, unique id prefix, or exact name.
public enum AddressError: Error, Equatable, CustomStringConvertible {
    case notFound(String, closeMatches: [Item])
    case ambiguous(String, candidates: [Item])

    public var description: String {
        switch self {
        case .notFound(let query, let close):
            "no item matches \"\(TextRules.escaped(query))\""
                + (close.isEmpty ? "" : "; close matches: " + close.map { "\"\(TextRules.escaped($0.name))\"" }.joined(separator: ", "))
        case .ambiguous(let query, let candidates):
            "\"\(TextRules.escaped(query))\" matches \(candidates.count) items; name one by id:\n"
                + candidates.map { "  " + Addressing.describe($0) }.joined(separator: "\n")
        }
    }
}

public enum Addressing {
    /// The shortest id prefix we show (and accept).
    public static let minimumPrefix = 4

    /// One line naming an item for a choice: name, amount, section and id prefix.
    public static func describe(_ item: Item) -> String {
        var text = TextRules.escaped(item.name)
        if !item.amount.isEmpty { text += " (\(TextRules.escaped(item.amount)))" }
        text += " in " + (item.section.isEmpty ? "no section" : TextRules.escaped(item.section))
        text += ", id " + TextRules.escaped(String(item.id.prefix(8)))
        return text
    }

    /// Resolves `query` among `items`, in this order: exact id, exact name (case-insensitive),
    /// unique id prefix (at least 4 characters); then, when `allowNamePrefix` is set (people
    /// typing at a shell), a unique name prefix, so `bananas check oat` finds "Oat milk".
    public static func resolve(_ query: String, in items: [Item], allowNamePrefix: Bool = false) throws(AddressError) -> Item {
        let trimmed = query.trimmingWhitespace()
        let folded = trimmed.lowercased()
        guard !folded.isEmpty else { throw .notFound(query, closeMatches: []) }

        if let exact = items.first(where: { $0.id.lowercased() == folded }) { return exact }

        let byName = items.filter { $0.name.lowercasedEquals(folded) }
        if byName.count == 1 { return byName[0] }
        if byName.count > 1 { throw .ambiguous(query, candidates: byName) }

        if folded.count >= minimumPrefix {
            let byPrefix = items.filter { $0.id.lowercased().hasPrefix(folded) }
            if byPrefix.count == 1 { return byPrefix[0] }
            if byPrefix.count > 1 { throw .ambiguous(query, candidates: byPrefix) }
        }

        if allowNamePrefix {
            let byNamePrefix = items.filter { $0.name.lowercased().hasPrefix(folded) }
            if byNamePrefix.count == 1 { return byNamePrefix[0] }
            if byNamePrefix.count > 1 { throw .ambiguous(query, candidates: byNamePrefix) }
        }
        throw .notFound(query, closeMatches: closeMatches(folded, in: items))
    }

    /// `resolve` against a whole list. An id, or a name only one visible item has, is found
    /// without putting the list in order (at 10,000 items the sort was most of what finding
    /// an item cost); anything else is resolved among the items in list order, as above.
    public static func resolve(_ query: String, in list: ShoppingList, allowNamePrefix: Bool = false) throws(AddressError) -> Item {
        let trimmed = query.trimmingWhitespace()
        if let item = list.item(trimmed) ?? list.item(trimmed.uppercased()) { return item }
        let folded = trimmed.lowercased()
        let foldedQuery = TextQuery(folded)
        let length = folded.utf8.count
        var named: Item?
        var unique = !folded.isEmpty
        list.rows.forEachRow { row in
            guard unique else { return }
            // An id in another case comes before any name: leave that to the ordered path.
            if row.idCount == length, row.id.lowercased() == folded { unique = false }
            if row.name(lowercasedEquals: foldedQuery), list.isVisible(row.id) {
                if named == nil { named = row.item } else { unique = false }
            }
        }
        if unique, let named { return named }
        return try resolve(query, in: list.items, allowNamePrefix: allowNamePrefix)
    }

    /// Up to five names that contain the query or are a few edits away from it.
    public static func closeMatches(_ folded: String, in items: [Item]) -> [Item] {
        let scored = items.compactMap { item -> (Int, Item)? in
            let name = item.name.lowercased()
            if name.contains(folded) || (folded.count >= 3 && folded.contains(name)) { return (0, item) }
            let distance = editDistance(Array(name), Array(folded), limit: 3)
            return distance <= max(1, folded.count / 3) ? (distance, item) : nil
        }
        return scored.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1.name < $1.1.name }.prefix(5).map(\.1)
    }

    /// Levenshtein distance, giving up (returning limit + 1) once it is over `limit`.
    public static func editDistance(_ a: [Character], _ b: [Character], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            var rowMin = current[0]
            for (j, cb) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1))
                rowMin = min(rowMin, current[j + 1])
            }
            if rowMin > limit { return limit + 1 }
            previous = current
        }
        return previous[b.count]
    }
}

extension ShoppingList {
    /// The first visible item (in list order) with this name in any case, found without
    /// putting the whole list in order (`add` asks once per name, at every size of list).
    public func firstItem(named name: String) -> Item? {
        var lookup = FirstItemNamed(name)
        rows.forEachRow { lookup.consider($0, in: self) }
        return lookup.found.map(shown)
    }

    /// The rename rule, one for every surface: renaming item `id` to `name` is refused while
    /// another visible item has that name (case aside), as adding a second one is; this is
    /// that item (the first in list order). The caller may insist, as `add --duplicate` does.
    public func itemBlockingRename(of id: String, to name: String) -> Item? {
        guard let first = firstItem(named: name) else { return nil }
        return first.id != id ? first : items.first { $0.id != id && $0.name.isSameName(as: name) }
    }
}

/// `firstItem(named:)` one row at a time, so a caller with other questions about every row
/// (`addEdit`) asks them all in one walk.
struct FirstItemNamed {
    let folded: TextQuery
    /// The answer so far, the row as stored (its section by key).
    private(set) var found: Item?

    init(_ name: String) { folded = TextQuery(name.lowercased()) }

    mutating func consider(_ row: RowView, in list: ShoppingList) {
        guard row.name(lowercasedEquals: folded), list.isVisible(row.id) else { return }
        if let best = found, (best.sortOrder, best.id) < (row.sortOrder, row.id) { return }
        found = row.item
    }
}
