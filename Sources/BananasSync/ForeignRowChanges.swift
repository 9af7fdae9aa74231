import BananasCore

/// Rows a writer without stamps (the Get Bananas server) added or edited in a file that
/// descends from a bananas write here, as this instance took them in, until a later bananas
/// write here shows them or not.
///
/// Such a change is in no base: if the same writer removes the row before any bananas write
/// takes the change in, the bananas write that comes next (made by an instance that never
/// read the change) lacks the row, or hides it under a delete that saw only the base's
/// values. Judged against that base, this instance, which still holds the row as changed,
/// would write it back: an added row as never deleted, an edited one as edited after the
/// delete. Writes here are one line of history (the lock orders them), so a later bananas
/// write here was made from a file that came after the one this instance read the change in:
/// if it does not show the row, the row was removed after that change, by a writer that had
/// read it. That remove is recorded as a delete that saw the change (docs/sync.md, "Writers
/// that keep no stamps").
struct ForeignRowChanges {
    /// By row id: the write stamp of the bananas write the file the change was read in
    /// descends from, and the row's stamps as last read.
    private var rows: [String: (generation: Stamp, stamps: ItemStamps)] = [:]

    /// Notes the rows `absorbed` (a foreign write descending from the bananas write stamped
    /// `generation`, after `settling` for it) holds with other stamps than `before` (the list
    /// it was judged against).
    mutating func note(changedFrom before: ShoppingList, to absorbed: ShoppingList, generation: Stamp) {
        for row in absorbed.rows.values where before.rows[row.id]?.stamps != row.stamps {
            rows[row.id] = (generation, row.stamps)
        }
    }

    /// `list` (a later file state, descending from the bananas write stamped `generation`)
    /// with a delete for each noted row that it does not show. A row shown as noted (or
    /// newer) by a later bananas write than the one it was read after is forgotten: its base
    /// holds it now. A row shown with older stamps is still watched: another instance stamped
    /// the same change from an earlier file of that writer's (a foreign change is stamped
    /// with the time of the file it is first read in), and a delete that saw only those
    /// stamps would not hide this instance's.
    mutating func settling(_ list: ShoppingList, generation: Stamp, deleteStamp: (Stamp) -> Stamp) -> ShoppingList {
        guard !rows.isEmpty else { return list }
        var result = list
        for (id, noted) in rows where noted.generation <= generation {
            if let shown = list.rows[id], list.isVisible(id) {
                guard noted.generation < generation else { continue }
                let older = ItemField.allCases.contains { shown.stamps[$0] < noted.stamps[$0] }
                rows[id] = older ? (generation, noted.stamps) : nil
                continue
            }
            rows[id] = nil
            result.recordForeignDelete(of: id, seen: noted.stamps, stamp: deleteStamp(max(noted.stamps.newest, list.newestStamp)))
        }
        return result
    }
}
