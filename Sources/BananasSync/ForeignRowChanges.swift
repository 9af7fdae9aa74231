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
    /// A row noted before keeps, per field, the newer of the two stamps: this instance may
    /// hold a change under a stamp of its own making that the file shows under another's (it
    /// first read the change from a later file of that writer's), and a remove recorded from
    /// the file's stamps alone would not hide its copy.
    mutating func note(changedFrom before: ShoppingList, to absorbed: ShoppingList, generation: Stamp) {
        for row in absorbed.rows.values where before.rows[row.id]?.stamps != row.stamps {
            guard let earlier = rows[row.id]?.stamps else {
                rows[row.id] = (generation, row.stamps)
                continue
            }
            rows[row.id] = (generation, ItemStamps(stamps: ItemField.allCases.map { max(earlier[$0], row.stamps[$0]) }))
        }
    }

    /// Forgets the rows a bananas write made here shows as noted or newer: its base holds them
    /// now. (Kept, they would be taken for removed by a later bananas write made from an older
    /// one a sync engine put back.)
    mutating func written(_ list: ShoppingList) {
        guard !rows.isEmpty else { return }
        for (id, noted) in rows {
            guard let shown = list.rows[id], list.isVisible(id) else { continue }
            if !Self.isOlder(shown, than: noted.stamps) { rows[id] = nil }
        }
    }

    /// `list` (a later file state, descending from the bananas write stamped `generation`, or
    /// that write itself when `isThatWrite`) with a delete for each noted row that `evidence`
    /// does not show. `evidence` is `list`, or for an older bananas write a sync engine put
    /// back, the newest one made here (its `generation`), which came after the changes noted.
    /// The bananas write a change was read after came before the change: put back with no
    /// later write made here, its lacking the row is no remove, and the row is forgotten (the
    /// file went back to before the change; a writer that edits it next never saw the row).
    /// A row shown as noted (or newer) by a later bananas write than the one it was read after
    /// is forgotten: its base holds it now. A row shown with older stamps is still watched:
    /// another instance stamped the same change from an earlier file of that writer's (a
    /// foreign change is stamped with the time of the file it is first read in), and a delete
    /// that saw only those stamps would not hide this instance's.
    mutating func settling(
        _ list: ShoppingList, shownBy evidence: ShoppingList? = nil, generation: Stamp, isThatWrite: Bool, deleteStamp: (Stamp) -> Stamp
    ) -> ShoppingList {
        guard !rows.isEmpty else { return list }
        let evidence = evidence ?? list
        var result = list
        for (id, noted) in rows where noted.generation <= generation {
            if isThatWrite && noted.generation == generation {
                rows[id] = nil
                continue
            }
            if let shown = evidence.rows[id], evidence.isVisible(id) {
                guard noted.generation < generation else { continue }
                rows[id] = Self.isOlder(shown, than: noted.stamps) ? (generation, noted.stamps) : nil
                continue
            }
            rows[id] = nil
            result.recordForeignDelete(of: id, seen: noted.stamps, stamp: deleteStamp(max(noted.stamps.newest, evidence.newestStamp)))
        }
        return result
    }

    var isEmpty: Bool { rows.isEmpty }

    /// True when `row` holds some field under an older stamp than noted: the same change as
    /// another instance stamped it, which a delete that saw only those stamps would not hide.
    private static func isOlder(_ row: Item, than noted: ItemStamps) -> Bool {
        ItemField.allCases.contains { row.stamps[$0] < noted[$0] }
    }
}
