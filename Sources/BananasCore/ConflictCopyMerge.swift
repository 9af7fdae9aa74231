/// A sync engine's conflict copy (Syncthing, Dropbox, Nextcloud, iCloud) is a whole state of
/// the file that forked from it when two devices changed it between syncs. It is merged with
/// the per-field rules like any other copy, with two differences from merging the file:
///
/// - A row the copy lacks is never a delete: the copy is an older state by nature, and the
///   row may have been added after it forked. Only the copy's tombstones delete.
/// - Its stampless values (a copy written by the Get Bananas app, version 1) are absorbed
///   against the base like any stampless writer's, so they are stamped now and win.
///
/// A field changed on both sides since the fork, to different values, is a conflict: the
/// newer value wins and the other is returned for the conflict log. The fork is taken to be
/// the newest stamp the two share (the base on this machine is no common ancestor: it already
/// holds this side's edits). A stampless copy shares none, so whether its values are edits or
/// stale ones cannot be told: every stamped value it replaces is logged.
extension ShoppingList {
    /// Merges `copy` into `main` (the file as read under the lock, with stampless writers
    /// already absorbed). `base` is this machine's base (nil: none, or the copy's bytes are
    /// ones bananas wrote here, so its stamps are the whole truth). `stamp` stamps the copy's
    /// stampless edits; it must be newer than every stamp in `main` and `copy`.
    /// Returns the merged list and the values that lost on either side.
    public static func mergingConflictCopy(
        _ copy: ShoppingList, into main: ShoppingList, base: ShoppingList?, stamp: Stamp
    ) -> (list: ShoppingList, conflicts: [Conflict]) {
        let fork = copy.newestStampShared(with: main)
        // The copy's own values (its stampless edits stamped), before the base fills it in.
        let stamped = base.map { stampingForeignEdits(file: copy, base: $0, stamp: stamp, deletesByAbsence: false) } ?? copy
        var found: [Conflict] = []
        for (id, theirs) in stamped.rows {
            guard let mine = main.rows[id], main.isVisible(id), stamped.isVisible(id) else { continue }
            for field in ItemField.allCases {
                let (a, b) = (mine.stamps[field], theirs.stamps[field])
                guard a != b, mine[field] != theirs[field], a > fork, b > fork else { continue }
                let copyWins = winner(b, theirs[field], over: a, mine[field])
                let (kept, lost) = copyWins ? (theirs, mine) : (mine, theirs)
                found.append(Conflict(
                    itemID: id, itemName: kept.name, field: field,
                    kept: kept[field], keptStamp: kept.stamps[field], lost: lost[field], lostStamp: lost.stamps[field]))
            }
        }
        var merged = main.merged(with: stamped)
        if let base { merged.merge(base) }  // what a stampless copy dropped (stamps, tombstones)
        return (merged, found.sorted { ($0.itemID, $0.field) < ($1.itemID, $1.field) })
    }

    /// The newest stamp this list and `other` both hold for the same thing (a field of a row,
    /// a delete, the sections): roughly when they forked. Zero when they share none.
    func newestStampShared(with other: ShoppingList) -> Stamp {
        var newest = Stamp.zero
        if sectionsStamp == other.sectionsStamp { newest = max(newest, sectionsStamp) }
        for (id, row) in rows {
            guard let theirs = other.rows[id] else { continue }
            for field in ItemField.allCases where row.stamps[field] == theirs.stamps[field] {
                newest = max(newest, row.stamps[field])
            }
        }
        for (id, deleted) in tombstones where other.tombstones[id] == deleted {
            newest = max(newest, deleted)
        }
        return newest
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
