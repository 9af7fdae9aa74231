/// Writers that keep no stamps — the Get Bananas app, its Node MCP server, a hand edit — are
/// merged against the base: the last state of the file this replica merged.
///
/// - A field whose value changed against the base while its stamp did not (or was dropped) is
///   a foreign edit, stamped now.
/// - A row with no stamps that the base lacks is a foreign insert, stamped now.
/// - A row the base shows that the file lacks without a tombstone is a foreign delete —
///   but only when the file holds no stamp the base has not seen. A file with news from another
///   bananas replica (a sync engine brought it) may simply never have seen the row.
/// - What the foreign writer dropped (stamps, tombstones, hidden rows) comes back from the base.
extension ShoppingList {
    /// - Parameter deletesByAbsence: false for a sync engine's conflict copy, an older state
    ///   of the file by nature: a row it lacks may have been added here after it forked, so
    ///   only its tombstones delete.
    public static func absorbing(file: ShoppingList, base: ShoppingList?, stamp: Stamp, deletesByAbsence: Bool = true) -> ShoppingList {
        // With no base (first sight of this file) unstamped values stay unstamped: the oldest
        // truth, which any stamped edit from elsewhere beats.
        guard let base else { return file }
        var result = stampingForeignEdits(file: file, base: base, stamp: stamp, deletesByAbsence: deletesByAbsence)
        result.merge(base)
        return result
    }

    /// `absorbing` without merging the base back in: the file's own values, its foreign
    /// edits stamped.
    static func stampingForeignEdits(file: ShoppingList, base: ShoppingList, stamp: Stamp, deletesByAbsence: Bool) -> ShoppingList {
        var result = file

        for row in file.rows.values {
            guard var absorbed = result.rows[row.id] else { continue }
            if let known = base.rows[row.id] {
                for field in ItemField.allCases {
                    let stampKept = row.stamps[field] == known.stamps[field] || row.stamps[field].isZero
                    if stampKept && row[field] != known[field] {
                        absorbed.stamps[field] = stamp
                    }
                }
            } else {
                for field in ItemField.allCases where row.stamps[field].isZero {
                    absorbed.stamps[field] = stamp
                }
            }
            result.rows[row.id] = absorbed
        }

        let sectionsStampKept = file.sectionsStamp == base.sectionsStamp || file.sectionsStamp.isZero
        if sectionsStampKept && file.sections != base.sections {
            result.sectionsStamp = stamp
        }

        if deletesByAbsence, !file.hasStampsUnknown(to: base) {
            for id in base.rows.keys where base.isVisible(id) && file.rows[id] == nil && file.tombstones[id] == nil {
                result.tombstones[id] = stamp
            }
        }
        return result
    }

    /// True when this list holds a stamp that `base` does not: news from another stamping
    /// replica rather than a stampless rewrite of a state we know.
    func hasStampsUnknown(to base: ShoppingList) -> Bool {
        var known = Set<Stamp>(base.tombstones.values)
        known.insert(base.sectionsStamp)
        for row in base.rows.values {
            for field in ItemField.allCases { known.insert(row.stamps[field]) }
        }
        known.insert(.zero)
        if !known.contains(sectionsStamp) { return true }
        if tombstones.values.contains(where: { !known.contains($0) }) { return true }
        return rows.values.contains { row in ItemField.allCases.contains { !known.contains(row.stamps[$0]) } }
    }
}

/// A field changed on both sides since the base, to different values. The merge kept one
/// (the newer stamp); the other is logged here so the user can review and restore it.
public struct Conflict: Hashable, Sendable {
    public var itemID: String
    public var itemName: String
    public var field: ItemField
    public var kept: FieldValue
    public var keptStamp: Stamp
    public var lost: FieldValue
    public var lostStamp: Stamp

    public init(itemID: String, itemName: String, field: ItemField, kept: FieldValue, keptStamp: Stamp, lost: FieldValue, lostStamp: Stamp) {
        self.itemID = itemID
        self.itemName = itemName
        self.field = field
        self.kept = kept
        self.keptStamp = keptStamp
        self.lost = lost
        self.lostStamp = lostStamp
    }
}

extension ShoppingList {
    /// The conflicts between two copies that both moved on from `base`.
    public static func conflicts(local: ShoppingList, remote: ShoppingList, base: ShoppingList?) -> [Conflict] {
        var found: [Conflict] = []
        // Rows equal on both sides cannot conflict: where the tables pair up, look only at
        // the others (an absorb at every change of a 10,000-item list).
        let ids = differingRowIDs(local.rows, remote.rows) ?? Array(local.rows.keys)
        for id in ids {
            guard let mine = local.rows[id], let theirs = remote.rows[id] else { continue }
            let known = base?.rows[id]
            for field in ItemField.allCases {
                let (a, b) = (mine.stamps[field], theirs.stamps[field])
                guard a != b, mine[field] != theirs[field] else { continue }
                let baseStamp = known?.stamps[field] ?? .zero
                guard a != baseStamp, b != baseStamp else { continue }  // one side did not change it
                let remoteWins = winner(b, theirs[field], over: a, mine[field])
                let (winnerRow, loserRow) = remoteWins ? (theirs, mine) : (mine, theirs)
                found.append(Conflict(
                    itemID: id, itemName: winnerRow.name, field: field,
                    kept: winnerRow[field], keptStamp: winnerRow.stamps[field],
                    lost: loserRow[field], lostStamp: loserRow.stamps[field]))
            }
        }
        return found.sorted { ($0.itemID, $0.field) < ($1.itemID, $1.field) }
    }
}
