/// The whole list as one value: what the file holds, plus the bookkeeping that lets any
/// number of copies merge into the same result (stamps, tombstones, rows hidden by a delete).
public struct ShoppingList: Hashable, Sendable {
    /// Section names in display order (a last-writer-wins register stamped by `sectionsStamp`).
    public var sections: [String]
    public var sectionsStamp: Stamp
    /// Every row we know, by id, including rows hidden by a tombstone: they are kept so that
    /// an edit concurrent with the delete can bring the whole row back, whatever the order
    /// copies are merged in.
    public internal(set) var rows: [String: Item]
    /// Delete stamps by id.
    public internal(set) var tombstones: [String: Stamp]
    /// Top-level keys we do not understand, kept across a rewrite.
    public var extra: [String: JSONValue]
    /// Keys inside `sync` we do not understand.
    public var syncExtra: [String: JSONValue]
    /// Rows the decoder could not read (blank name, wrong types), kept verbatim so a rewrite
    /// never drops them.
    public var unreadableRows: [JSONValue]

    /// Every field compared; the rows side by side where their tables pair up
    /// (`differingRowIDs`), which spares hashing every id when most rows are the same boxes.
    public static func == (a: ShoppingList, b: ShoppingList) -> Bool {
        guard a.sectionsStamp == b.sectionsStamp, a.sections == b.sections, a.tombstones == b.tombstones,
              a.extra == b.extra, a.syncExtra == b.syncExtra, a.unreadableRows == b.unreadableRows else { return false }
        if let differing = differingRowIDs(a.rows, b.rows) { return differing.isEmpty }
        return a.rows == b.rows
    }

    public init(
        sections: [String] = [], sectionsStamp: Stamp = .zero, rows: [Item] = [],
        tombstones: [String: Stamp] = [:], extra: [String: JSONValue] = [:],
        syncExtra: [String: JSONValue] = [:], unreadableRows: [JSONValue] = []
    ) {
        self.sections = sections
        self.sectionsStamp = sectionsStamp
        self.rows = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.tombstones = tombstones
        self.extra = extra
        self.syncExtra = syncExtra
        self.unreadableRows = unreadableRows
    }

    /// Removes the rows with `ids`, then adds `items` (a reader that decoded again only the
    /// rows whose bytes changed). False, with the list half changed, when an item's id is
    /// taken: the caller then decodes the whole file.
    public mutating func replaceRows(_ ids: ArraySlice<String>, with items: [Item]) -> Bool {
        // A row that stays is replaced in place, not removed and added again: a removal moves
        // other keys in the hash table, and then this table no longer pairs up key for key
        // with the store's copy of the list (`differingRowIDs`), which costs every later
        // merge and compare a lookup per row.
        let replaced = Set(ids)
        var placed = Set<String>()
        for item in items where rows.updateValue(item, forKey: item.id) != nil {
            guard replaced.contains(item.id), placed.insert(item.id).inserted else { return false }
        }
        for id in ids where !placed.contains(id) { rows.removeValue(forKey: id) }
        return true
    }

    /// A row is visible when it has no tombstone, or one of its fields was stamped after the
    /// delete (an edit concurrent with a delete keeps the row).
    public func isVisible(_ id: String) -> Bool {
        guard let row = rows[id] else { return false }
        guard let deleted = tombstones[id] else { return true }
        return row.stamps.newest > deleted
    }

    /// The visible item with this id.
    public func item(_ id: String) -> Item? {
        isVisible(id) ? rows[id] : nil
    }

    /// Visible items in list order (sortOrder, then id).
    public var items: [Item] {
        // Sorting small keys, not whole items: moving and retaining large structs made
        // this 20x slower at 10,000 items.
        var visible: [Item] = []
        visible.reserveCapacity(rows.count)
        for row in rows.values where isVisible(row.id) { visible.append(row) }
        let order = visible.indices.map { (order: visible[$0].sortOrder, id: visible[$0].id, index: $0) }
            .sorted { $0.order != $1.order ? $0.order < $1.order : $0.id < $1.id }
        return order.map { visible[$0.index] }
    }

    /// Rows hidden by a tombstone, in id order.
    public var hiddenRows: [Item] {
        rows.values.filter { !isVisible($0.id) }.sorted { $0.id < $1.id }
    }

    public var visibleCount: Int { rows.keys.reduce(0) { $0 + (isVisible($1) ? 1 : 0) } }

    /// The sections as shown: the list's own, then any section an item names that the list
    /// lacks, in the order those items come. No item is ever invisible.
    public var displaySections: [String] { displaySections(of: items) }

    private func displaySections(of items: [Item]) -> [String] {
        var result = sections
        var seen = Set(sections)
        for item in items where !seen.contains(item.section) {
            seen.insert(item.section)
            result.append(item.section)
        }
        return result
    }

    /// Visible items grouped under `displaySections`, each group in list order.
    public func grouped() -> [(section: String, items: [Item])] {
        let all = items  // sorted once for both the groups and the section order
        var bySection: [String: [Item]] = [:]
        for item in all { bySection[item.section, default: []].append(item) }
        return displaySections(of: all).map { ($0, bySection[$0] ?? []) }
    }

    /// Every stamp in the list, for moving a clock past them.
    public var newestStamp: Stamp {
        var newest = sectionsStamp
        for row in rows.values { newest = max(newest, row.stamps.newest) }
        for stamp in tombstones.values { newest = max(newest, stamp) }
        return newest
    }

    /// `newestStamp`, for a list all of whose stamps `other`'s holder has already seen: only
    /// the rows that differ from `other`'s are looked at, where the two row tables pair up.
    public func newestStamp(besides other: ShoppingList) -> Stamp {
        guard let ids = Self.differingRowIDs(rows, other.rows) else { return newestStamp }
        var newest = sectionsStamp
        for id in ids { if let row = rows[id] { newest = max(newest, row.stamps.newest) } }
        for stamp in tombstones.values { newest = max(newest, stamp) }
        return newest
    }

    /// A sortOrder after every item of the list.
    public var nextSortOrder: Double {
        (rows.values.map(\.sortOrder).max() ?? 0).rounded(.down) + 1024
    }
}
