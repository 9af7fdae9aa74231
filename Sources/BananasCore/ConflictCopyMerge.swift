/// A sync engine's conflict copy (Syncthing, Dropbox, Nextcloud, iCloud) is a whole state of
/// the file that forked from it when two devices changed it between syncs. It merges like any
/// other copy: its stamps say what each of its values saw, so a stale copy changes nothing,
/// and the values that lost on either side since the fork become conflict records. A row it
/// lacks is never a delete (only its tombstones delete). A copy bananas did not write (a
/// phone's save) is first judged like any such save (rule 5, `judging`), so the outcome does
/// not depend on which file the sync engine kept as the list.
extension ShoppingList {
    /// Merges `copy` (judged already, when bananas did not write it) into `main`.
    public static func mergingConflictCopy(_ copy: ShoppingList, into main: ShoppingList) -> ShoppingList {
        main.merged(with: copy)
    }

    /// True when the two lists know at least one row in common (by id, deleted ones too):
    /// an iCloud numbered duplicate that shares none is another list, not a copy of this one.
    public func sharesRows(with other: ShoppingList) -> Bool {
        let (small, large) = rows.count + tombstones.count <= other.rows.count + other.tombstones.count ? (self, other) : (other, self)
        for id in small.rows.keys where large.rows[id] != nil || large.tombstone(for: id) != nil { return true }
        if small.tombstones.isEmpty || large.tombstones.isEmpty && large.rows.isEmpty { return false }
        for key in small.tombstones.keys where large.tombstones[key] != nil { return true }
        return large.rows.keys.contains { small.tombstones[Tombstone.key(for: $0)] != nil }
    }
}
