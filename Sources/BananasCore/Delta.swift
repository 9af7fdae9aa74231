/// The part of a list one stamped edit touched: the rows with a field carrying that stamp,
/// the tombstones it made, and the sections register. Merging the delta into any copy of the
/// list has the same effect as the edit had, so a journal of deltas can be replayed in any
/// order, any number of times (merge is a join).
extension ShoppingList {
    public func delta(stampedWith stamp: Stamp) -> ShoppingList {
        var delta = ShoppingList(sections: sections, sectionsStamp: sectionsStamp)
        for (id, row) in rows where ItemField.allCases.contains(where: { row.stamps[$0] == stamp }) {
            delta.rows[id] = row
        }
        for (id, deleted) in tombstones where deleted == stamp {
            delta.tombstones[id] = deleted
            if let row = rows[id] { delta.rows[id] = row }
        }
        return delta
    }

    /// True when merging `other` would change nothing in this list's items, sections or
    /// tombstones: every stamp it carries is already here (or beaten).
    public func contains(_ other: ShoppingList) -> Bool {
        merged(with: other) == self
    }
}

extension ShoppingList {
    /// True when both show the same: the same sections and the same visible items with the
    /// same values (stamps aside). A file that differs from what we hold needs writing.
    public func hasSameVisibleContent(as other: ShoppingList) -> Bool {
        guard sections == other.sections else { return false }
        if tombstones == other.tombstones, let ids = Self.differingRowIDs(rows, other.rows) {
            // The same ids and deletes: only the rows that differ can differ in what shows.
            return ids.allSatisfy { id in
                switch (item(id), other.item(id)) {
                case (nil, nil): true
                case (let mine?, let theirs?): ItemField.allCases.allSatisfy { mine[$0] == theirs[$0] }
                default: false
                }
            }
        }
        guard visibleCount == other.visibleCount else { return false }
        for (id, row) in rows where isVisible(id) {
            guard let theirs = other.item(id),
                  ItemField.allCases.allSatisfy({ row[$0] == theirs[$0] })
            else { return false }
        }
        return true
    }
}
