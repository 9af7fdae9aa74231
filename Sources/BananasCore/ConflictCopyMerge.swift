/// A sync engine's conflict copy (Syncthing, Dropbox, Nextcloud, iCloud) is a whole state of
/// the file that forked from it when two devices changed it between syncs. It merges like any
/// other copy: its stamps say what each of its values saw, so a stale copy changes nothing,
/// and the values that lost on either side since the fork become conflict records. A row it
/// lacks is never a delete (only its tombstones delete), and its stampless values (a copy
/// written by the Get Bananas app) are absorbed against the base like any stampless writer's.
extension ShoppingList {
    /// Merges `copy` into `main` (the file as read under the lock, with stampless writers
    /// already absorbed). `base` is this machine's base; `stamp` stamps the copy's stampless
    /// edits and must be newer than every stamp in `main` and `copy`.
    public static func mergingConflictCopy(_ copy: ShoppingList, into main: ShoppingList, base: ShoppingList?, stamp: Stamp) -> ShoppingList {
        // A stampless copy with no base is a fork of the list it merges into (`mergingStampless`).
        let against = base ?? (copy.isStampless && !main.rows.isEmpty ? main : nil)
        let absorbed = against.map { absorbing(file: copy, base: $0, stamp: stamp, deletesByAbsence: false) } ?? copy
        return main.merged(with: absorbed)
    }

    /// True when the two lists know at least one row in common (by id, deleted ones too):
    /// an iCloud numbered duplicate that shares none is another list, not a copy of this one.
    public func sharesRows(with other: ShoppingList) -> Bool {
        let (small, large) = rows.count + tombstones.count <= other.rows.count + other.tombstones.count ? (self, other) : (other, self)
        for id in small.rows.keys where large.rows[id] != nil || large.tombstones[id] != nil { return true }
        for id in small.tombstones.keys where large.rows[id] != nil || large.tombstones[id] != nil { return true }
        return false
    }
}
