/// The part of a list one edit touched: the rows, deletes, sections and conflict records
/// that differ from the list before it. Merging the delta into any copy of the list has the
/// same effect as the edit had, so a journal of deltas can be replayed in any order, any
/// number of times (merge is a join).
extension ShoppingList {
    public func delta(from before: ShoppingList) -> ShoppingList {
        var delta = ShoppingList(sectionEntries: sectionEntries.filter { before.sectionEntries[$0.key] != $0.value })
        let ids = Self.differingRowIDs(rows, before.rows) ?? rows.keys.filter { before.rows[$0] != rows[$0] }
        for id in ids { delta.rows[id] = rows[id] }
        var deleted = Set<UInt64>()
        for (key, tombstone) in tombstones where before.tombstones[key] != tombstone {
            delta.tombstones[key] = tombstone
            deleted.insert(key)
        }
        if !deleted.isEmpty {
            // A delete travels with the row it hides.
            for (id, row) in rows where delta.rows[id] == nil && deleted.contains(Tombstone.key(for: id)) { delta.rows[id] = row }
        }
        for (key, record) in conflicts where before.conflicts[key] != record { delta.conflicts[key] = record }
        for (subject, fold) in conflictFolds where before.conflictFolds[subject] != fold { delta.conflictFolds[subject] = fold }
        if memory != before.memory { delta.memory = memory }
        for (id, entry) in deletedItems where before.deletedItems[id] != entry { delta.deletedItems[id] = entry }
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
        guard sections == other.sections, sectionEntries.mapValues(\.name) == other.sectionEntries.mapValues(\.name) else { return false }
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
