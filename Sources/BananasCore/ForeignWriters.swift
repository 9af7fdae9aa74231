/// Writers that keep no stamps — the Get Bananas app, its Node MCP server, a hand edit — are
/// merged against the base: the last stamped state of the file this replica saw (rule 5).
///
/// - A field whose value differs from the base while its stamp did not change (or was
///   dropped) is a foreign edit, stamped `stamp`, having seen the base's value.
/// - A row with no stamps that the base lacks is a foreign insert, stamped `stamp`.
/// - A row the base shows that a stampless file lacks is a foreign delete only with evidence
///   that the writer held the row: it was in an earlier stampless save (rule 4). Without it
///   the row stays: a lost delete can be done again, a lost add cannot. A file that carries
///   stamps deletes only through its tombstones.
/// - The sections: a stampless file's names that differ from the base's are its section edits.
/// - What the foreign writer dropped (stamps, tombstones, hidden rows, records) comes back
///   from the base.
extension ShoppingList {
    /// - Parameter deletesByAbsence: false for a sync engine's conflict copy, an older state
    ///   of the file by nature: only its tombstones delete.
    ///   It also cannot be known to have seen the base's values: the stamped values its
    ///   edits replace are recorded as conflicts.
    public static func absorbing(file: ShoppingList, base: ShoppingList?, stamp: Stamp, deletesByAbsence: Bool = true) -> ShoppingList {
        // With no base (first sight of this file) unstamped values stay unstamped: the oldest
        // truth, which any stamped edit from elsewhere beats.
        guard let base else { return file }
        var result = stampingForeignEdits(file: file, base: base, stamp: stamp, deletesByAbsence: deletesByAbsence)
        if !deletesByAbsence {
            // A fork: its edits are concurrent with the values they replace, so the one that
            // loses is recorded (merge records values neither side had seen).
            for (id, row) in result.rows {
                guard let known = base.rows[id] else { continue }
                var forked = row
                for field in ItemField.allCases where row.stamps[field] == stamp && !known.stamps[field].isZero {
                    forked.stamps.setSeen(field, [])
                }
                if forked != row { result.rows[id] = forked }
            }
        }
        result.merge(base)
        return result
    }

    /// True when nothing in the list carries a stamp: a whole-list save by a writer that keeps
    /// none (or a version-1 file).
    public var isStampless: Bool {
        tombstones.isEmpty && newestSectionStamp.isZero && !rows.values.contains { !$0.stamps.newest.isZero }
    }

    /// `absorbing` without merging the base back in: the file's own values, its foreign
    /// edits stamped.
    static func stampingForeignEdits(file: ShoppingList, base: ShoppingList, stamp: Stamp, deletesByAbsence: Bool) -> ShoppingList {
        var result = file
        let stampless = file.isStampless

        // Sections first: the items of a stampless file name sections by name.
        if stampless || file.newestSectionStamp == base.newestSectionStamp, file.sections != base.sections {
            var sections = base
            for step in base.sectionSteps(toShow: file.sections, stamp: stamp) {
                _ = try? sections.apply(step, stamp: stamp)
            }
            result.setSectionEntries(sections.sectionEntries)
        } else if stampless {
            result.setSectionEntries(base.sectionEntries)
        }

        for row in file.rows.values {
            guard var absorbed = result.rows[row.id] else { continue }
            if stampless { absorbed.section = result.sectionKey(named: row.section) }
            if let known = base.rows[row.id] {
                for field in ItemField.allCases {
                    let stampKept = row.stamps[field] == known.stamps[field] || row.stamps[field].isZero
                    if stampKept && absorbed[field] != known[field] {
                        absorbed.stamps = known.stamps.replacing(field, with: stamp, keeping: absorbed.stamps)
                    } else if stampKept {
                        absorbed.stamps[field] = known.stamps[field]
                        absorbed.stamps.setSeen(field, known.stamps.seen(field))
                    }
                }
            } else {
                for field in ItemField.allCases where row.stamps[field].isZero {
                    absorbed.stamps[field] = stamp
                }
            }
            if stampless { absorbed.heldByStampless = true }
            result.rows[row.id] = absorbed
        }

        if deletesByAbsence, stampless {
            for (id, known) in base.rows where known.heldByStampless && base.isVisible(id) && file.rows[id] == nil {
                let tombstone = Tombstone(stamp: stamp, seen: known.stamps)
                result.tombstones[id] = result.tombstones[id].map { $0.merged(with: tombstone) } ?? tombstone
            }
        }
        return result
    }
}

extension StampTable {
    /// `self` with `field` stamped `stamp` by a writer that saw this table's value of it; the
    /// other fields as in `others`.
    func replacing(_ field: Field, with stamp: Stamp, keeping others: StampTable) -> StampTable {
        var result = others
        result[field] = self[field]
        result.setSeen(field, seen(field))
        result.supersede(field, with: stamp)
        return result
    }
}

/// A value that lost to a concurrent edit, as surfaces show it: a record, with the value it
/// lost to as the list now holds it.
public struct Conflict: Hashable, Sendable {
    public var id: String
    public var key: ConflictRecord.Key
    /// The item's id, or the section's key.
    public var subjectID: String
    public var isSection: Bool
    public var name: String
    public var field: String
    public var kept: FieldValue
    public var lost: FieldValue
    public var lostStamp: Stamp
    public var resolution: String?

    public var awaitsReview: Bool { resolution == nil }

    /// A lost value of an item's field (a record's view, or a test's).
    public init(itemID: String, name: String, field: ItemField, kept: FieldValue, lost: FieldValue, lostStamp: Stamp, resolution: String? = nil) {
        let key = ConflictRecord.Key(subject: .item(itemID, field), lostStamp: lostStamp)
        self.init(id: ConflictRecord(key: key, lost: lost, keptStamp: .zero, label: name).shortID, key: key, subjectID: itemID,
                  isSection: false, name: name, field: field.rawValue, kept: kept, lost: lost, lostStamp: lostStamp, resolution: resolution)
    }

    init(id: String, key: ConflictRecord.Key, subjectID: String, isSection: Bool, name: String, field: String,
         kept: FieldValue, lost: FieldValue, lostStamp: Stamp, resolution: String?) {
        self.id = id
        self.key = key
        self.subjectID = subjectID
        self.isSection = isSection
        self.name = name
        self.field = field
        self.kept = kept
        self.lost = lost
        self.lostStamp = lostStamp
        self.resolution = resolution
    }
}

extension ShoppingList {
    /// The conflict records as surfaces show them, oldest lost value first; only those
    /// awaiting review unless `all`.
    public func conflictList(all: Bool = false) -> [Conflict] {
        conflicts.values.filter { all || $0.awaitsReview }.sorted { ($0.key.lostStamp, $0.key) < ($1.key.lostStamp, $1.key) }.map { record in
            switch record.key.subject {
            case .item(let id, let field):
                let row = rows[id].map(shown)
                return Conflict(id: record.shortID, key: record.key, subjectID: id, isSection: false,
                                name: row?.name ?? record.label, field: field.rawValue,
                                kept: row?[field] ?? .text(""), lost: field == .section ? .text(sectionName(record.lost.text)) : record.lost,
                                lostStamp: record.key.lostStamp, resolution: record.awaitsReview ? nil : record.resolution)
            case .section(let key, let field):
                let entry = sectionEntries[key]
                return Conflict(id: record.shortID, key: record.key, subjectID: key, isSection: true,
                                name: entry?.name ?? record.label, field: field.rawValue,
                                kept: entry?[field] ?? .text(""), lost: record.lost,
                                lostStamp: record.key.lostStamp, resolution: record.awaitsReview ? nil : record.resolution)
            }
        }
    }

    /// The edit that makes a lost value current again and marks its record restored: a new
    /// edit, which every device merges like any other.
    public func restoreEdit(_ conflict: Conflict) throws -> ListEdit {
        let review = ListEdit.review(conflict.key, resolution: "restored")
        switch conflict.key.subject {
        case .item(let id, let field):
            guard item(id) != nil else { throw EditError.noSuchItem(id) }
            return .batch([.update(id: id, changes: [field: conflict.lost]), review])
        case .section(let key, let field):
            return .batch([.updateSection(key: key, changes: [field: conflict.lost]), review])
        }
    }

    /// The edit that marks records reviewed, keeping the current values.
    public func dismissEdit(_ conflicts: [Conflict]) -> ListEdit {
        .batch(conflicts.map { .review($0.key, resolution: "dismissed") })
    }
}
