/// Writers that keep no stamps — the Get Bananas app, its Node MCP server, a hand edit — are
/// merged against the base: the last stamped state of the file this replica saw (rule 5).
///
/// - A field whose value differs from the base while its stamp did not change (or was
///   dropped) is a foreign edit, stamped `stamp`, having seen the base's value.
/// - A row with no stamps that the base lacks is a foreign insert, stamped `stamp`.
/// - A row the base shows that the file lacks is a foreign delete only with evidence that the
///   writer held the row (rule 4): for a stampless file, the row was in an earlier stampless
///   save; for a file that kept bananas's bookkeeping (the Node server edits the parsed JSON),
///   the file is the base's own write (`writeStamp`), so its writer read every row the base
///   shows. Without evidence the row stays: a lost delete can be done again, a lost add
///   cannot. Any other file (a stale or re-delivered copy) deletes only through tombstones.
/// - The sections: a stampless file's names that differ from the base's are its section edits.
/// - What the foreign writer dropped (stamps, tombstones, hidden rows, records) comes back
///   from the base.
extension ShoppingList {
    /// - Parameter deletesByAbsence: false for a sync engine's conflict copy, an older state
    ///   of the file by nature: only its tombstones delete.
    ///   It also cannot be known to have seen the base's values: the stamped values its
    ///   edits replace are recorded as conflicts.
    /// With no base (first sight of this file) the file is taken as it is: unstamped values
    /// stay unstamped. A replica that holds the list already takes a stampless file it has no
    /// base for in with `mergingStampless`.
    public static func absorbing(file: ShoppingList, base: ShoppingList?, stamp: Stamp, deletesByAbsence: Bool = true) -> ShoppingList {
        guard let base else { return file }
        var result = stampingForeignEdits(file: file, base: base, stamp: stamp, deletesByAbsence: deletesByAbsence)
        if !deletesByAbsence {
            // A fork: its edits are concurrent with the stamped values they replace, so the
            // one that loses is recorded (merge records values neither side had seen).
            result.clearSeen(ofFieldsStamped: stamp,
                             items: { id, field in base.rows[id].map { !$0.stamps[field].isZero } ?? false },
                             sections: { key, field in base.sectionEntries[key].map { !$0.stamps[field].isZero } ?? false })
        }
        result.merge(base)
        return result
    }

    /// A stampless whole-list save taken in by a replica that has no base for it (it never
    /// wrote the file, nor read a stamped state of it): which state its writer read is
    /// unknown, so it is judged as a fork of this list, like a conflict copy. What differs is
    /// the writer's edit, concurrent with the value it replaces, which is kept for review
    /// (rule 2); a row or section it lacks stays (rule 4). Without this, its values would be
    /// unstamped, older than any stamped value, and its edits lost in silence. `stamp` must be
    /// newer than every stamp in this list.
    public func mergingStampless(_ file: ShoppingList, stamp: Stamp) -> ShoppingList {
        Self.mergingConflictCopy(file, into: self, base: self, stamp: stamp)
    }

    /// True when nothing in the list carries a stamp: a whole-list save by a writer that keeps
    /// none (or a version-1 file). A file that kept a bananas write's mark is not one, even
    /// with no stamped row left in it (the Get Bananas server removed the last one).
    public var isStampless: Bool {
        writeStamp.isZero && tombstones.isEmpty && newestSectionStamp.isZero && !rows.values.contains { !$0.newestStamp.isZero }
    }

    /// `absorbing` without merging the base back in: the file's own values, its foreign
    /// edits stamped.
    static func stampingForeignEdits(file: ShoppingList, base: ShoppingList, stamp: Stamp, deletesByAbsence: Bool) -> ShoppingList {
        var result = file
        let stampless = file.isStampless

        // Sections first: the items of a stampless file name sections by name.
        // A file that kept its sections' stamps changes them only through those stamps (a name
        // added to its array by hand is already a section of its own: the codec makes it one).
        if stampless, file.sections != base.sections {
            var sections = base
            for step in base.sectionSteps(toShow: file.sections, stamp: stamp) {
                // A fork's missing section may have been added after it forked, as its missing rows.
                if !deletesByAbsence, case .updateSection(_, let changes, _) = step, changes[.removed] == .flag(true) { continue }
                _ = try? sections.apply(step, stamp: stamp)
            }
            result.setSectionEntries(sections.sectionEntries)
        } else if stampless {
            result.setSectionEntries(base.sectionEntries)
        }

        for row in file.rows.values {
            guard var absorbed = result.rows[row.id] else { continue }
            if stampless { absorbed.section = result.sectionKey(filing: row.section, stamp: stamp) }
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

        let derivedFromBase = !stampless && !base.writeStamp.isZero && file.writeStamp == base.writeStamp
        if deletesByAbsence, stampless || derivedFromBase {
            for (id, known) in base.rows where (derivedFromBase || known.heldByStampless) && base.isVisible(id) && file.rows[id] == nil {
                let tombstone = Tombstone(stamp: stamp, seen: known.stamps)
                result.addTombstone(tombstone, for: id)
            }
        }
        return result
    }
}

extension ShoppingList {
    /// Records that a writer without stamps removed row `id` after changing it: the delete saw
    /// the row as this replica took that change in, `stamps` (BananasSync's `ForeignRowChanges`).
    public mutating func recordForeignDelete(of id: String, seen stamps: ItemStamps, stamp: Stamp) {
        addTombstone(Tombstone(stamp: stamp, seen: stamps), for: id)
    }

    /// A delete of row `id`, merged with any delete of it already recorded.
    mutating func addTombstone(_ tombstone: Tombstone, for id: String) {
        tombstones[id] = tombstones[id].map { $0.merged(with: tombstone) } ?? tombstone
    }

    /// Clears what the edits stamped `stamp` saw, for the item fields (by row id) and section
    /// fields (by section key) the predicates pick: such an edit is concurrent with the value
    /// it replaced, so merge records whichever of the two loses, and the edit settles no
    /// record of that field.
    mutating func clearSeen(ofFieldsStamped stamp: Stamp,
                            items: (String, ItemField) -> Bool,
                            sections: (String, SectionField) -> Bool) {
        for (id, row) in rows {
            var cleared = row
            for field in ItemField.allCases where row.stamps[field] == stamp && items(id, field) {
                cleared.stamps.setSeen(field, [])
            }
            if cleared != row { rows[id] = cleared }
        }
        var entries = sectionEntries
        for (key, entry) in entries {
            for field in SectionField.allCases where entry.stamps[field] == stamp && sections(key, field) {
                entries[key]!.stamps.setSeen(field, [])
            }
        }
        if entries != sectionEntries { setSectionEntries(entries) }
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
    /// Every record of this lost value (one per version that lost).
    public var keys: [ConflictRecord.Key]
    /// The item's id, or the section's key.
    public var subjectID: String
    public var isSection: Bool
    public var name: String
    public var field: String
    public var kept: FieldValue
    public var lost: FieldValue
    public var lostStamp: Stamp
    public var resolution: String?
    /// Older lost values of this field folded into this entry and not listed (0: none):
    /// "(and 37 older lost values of this field)". Restoring or dismissing the entry reviews
    /// them too (`ConflictFold`).
    public var folded: Int = 0

    public var awaitsReview: Bool { resolution == nil }

    /// A lost value of an item's field (a record's view, or a test's).
    public init(itemID: String, name: String, field: ItemField, kept: FieldValue, lost: FieldValue, lostStamp: Stamp, resolution: String? = nil) {
        let record = ConflictRecord(subject: .item(itemID, field), lost: lost, lostStamp: lostStamp)
        self.init(id: record.shortID, keys: [record.key], subjectID: itemID,
                  isSection: false, name: name, field: field.rawValue, kept: kept, lost: lost, lostStamp: lostStamp, resolution: resolution)
    }

    init(id: String, keys: [ConflictRecord.Key], subjectID: String, isSection: Bool, name: String, field: String,
         kept: FieldValue, lost: FieldValue, lostStamp: Stamp, resolution: String?, folded: Int = 0) {
        self.id = id
        self.keys = keys
        self.subjectID = subjectID
        self.isSection = isSection
        self.name = name
        self.field = field
        self.kept = kept
        self.lost = lost
        self.lostStamp = lostStamp
        self.resolution = resolution
        self.folded = folded
    }
}

extension ShoppingList {
    /// The conflict records as surfaces show them, oldest lost value first, one per value a
    /// field lost; only those awaiting review unless `all`, and none whose value the field
    /// holds again. A field's fold (`ConflictFold`) shows as its newest value, with the
    /// number of older values it holds (`folded`); it is shown while any of them awaits
    /// review, even when that value is the field's again.
    public func conflictList(all: Bool = false) -> [Conflict] {
        var groups: [ConflictRecord.Subject: [FieldValue: [ConflictRecord]]] = [:]
        for record in conflicts.values where all ? true : record.awaitsReview && !isCurrent(record) {
            groups[record.subject, default: [:]][record.lost, default: []].append(record)
        }
        var foldedBeyond: [ConflictRecord.Subject: Int] = [:]
        for fold in conflictFolds.values {
            let marker = fold.record
            let shownAwaiting = fold.newestAwaitsReview ? 1 : 0
            guard all || fold.awaitingCount > (isCurrent(marker) ? shownAwaiting : 0) else { continue }
            groups[fold.subject, default: [:]][marker.lost, default: []].append(marker)
            foldedBeyond[fold.subject] = all ? fold.count - 1 : fold.awaitingCount - shownAwaiting
        }
        var result: [Conflict] = []
        for (subject, values) in groups {
            for (lost, records) in values {
                let newest = records.max { $0.lostStamp < $1.lostStamp }!
                let keys = records.map(\.key).sorted()
                let resolution = records.allSatisfy { !$0.awaitsReview } ? newest.resolution : nil
                let folded = conflictFolds[subject].map { fold in keys.contains(fold.newest) ? foldedBeyond[subject] ?? 0 : 0 } ?? 0
                switch subject {
                case .item(let id, let field):
                    let row = rows[id].map(shown)
                    result.append(Conflict(id: newest.shortID, keys: keys, subjectID: id, isSection: false,
                                          name: row?.name ?? "(an item no longer kept)", field: field.rawValue,
                                          kept: row?[field] ?? .text(""), lost: field == .section ? .text(sectionName(lost.text)) : lost,
                                          lostStamp: newest.lostStamp, resolution: resolution, folded: folded))
                case .section(let key, let field):
                    let entry = sectionEntries[key]
                    result.append(Conflict(id: newest.shortID, keys: keys, subjectID: key, isSection: true,
                                          name: entry?.name ?? key, field: field.rawValue,
                                          kept: entry?[field] ?? .text(""), lost: lost,
                                          lostStamp: newest.lostStamp, resolution: resolution, folded: folded))
                }
            }
        }
        return result.sorted { ($0.lostStamp, $0.keys[0]) < ($1.lostStamp, $1.keys[0]) }
    }

    /// True when the record's value is its field's value (again): nothing to review. A deleted
    /// item shows none of its values: its record is current only if the delete saw a stamp as
    /// new as the lost value's (a value given after the delete is to review, as it would have
    /// brought the item back).
    func isCurrent(_ record: ConflictRecord) -> Bool {
        switch record.subject {
        case .item(let id, let field):
            rows[id]?[field] == record.lost && (isVisible(id) || tombstones[id].map { record.lostStamp <= $0.seen[field] } ?? true)
        case .section(let key, let field): sectionEntries[key]?[field] == record.lost
        }
    }

    /// The edit that makes a lost value current again and marks its record restored: a new
    /// edit, which every device merges like any other.
    public func restoreEdit(_ conflict: Conflict) throws -> ListEdit {
        let review = ListEdit.batch(conflict.keys.map { .review($0, resolution: "restored") })
        guard let subject = conflict.keys.first?.subject else { throw EditError.noSuchConflict }
        switch subject {
        case .item(let id, let field):
            if item(id) == nil, let hidden = rows[id] {
                // Deleted since: brought back, with the value.
                var back = shown(hidden)
                back[field] = conflict.lost  // a section by name, as the list shows it
                return .batch([.insert(back), review])
            }
            guard item(id) != nil else { throw EditError.noSuchItem(id) }
            return .batch([.update(id: id, changes: [field: conflict.lost]), review])
        case .section(let key, let field):
            return .batch([.updateSection(key: key, changes: [field: conflict.lost]), review])
        }
    }

    /// The edit that marks records reviewed, keeping the current values.
    public func dismissEdit(_ conflicts: [Conflict]) -> ListEdit {
        .batch(conflicts.flatMap { $0.keys.map { .review($0, resolution: "dismissed") } })
    }
}

extension ShoppingList {
    /// Of the states bananas last wrote here (`bases`, newest first), the one a stampless
    /// whole-list save agrees with most: the one its writer most likely read. A phone whose
    /// save wins a sync conflict read an older state than this device's newest; judged against
    /// the newest, every row this device edited since, and the phone left alone, would look
    /// edited back by the phone (issue 19, failure 6a), and every section added since removed.
    /// Agreement is the number of equal field values (as a version-1 reader sees them) and
    /// of section names both show, one more when they show them in the same order, less the
    /// rows and sections the base shows that the save lacks. A tie goes to the older base: what
    /// tells the two apart is out of the save's sight (stamps, or a row it lacks), and a delete
    /// judged against the older one saw fewer stamps, so it hides no row over an edit it never
    /// saw.
    /// A state without a row the writer is known to have held (rule 4's evidence) came before
    /// its earlier save, so not after the state this save came from: it is no candidate.
    public static func likeliestBase(of file: ShoppingList, among bases: [ShoppingList]) -> ShoppingList? {
        let held = Set(bases.flatMap { $0.rows.values.filter(\.heldByStampless).map(\.id) })
        var best: (base: ShoppingList, score: Int)?
        for (index, base) in bases.enumerated().reversed() where index == 0 || held.allSatisfy({ base.rows[$0] != nil }) {
            let score = agreement(of: file, with: base)
            if best == nil || score > best!.score { best = (base, score) }
        }
        return best?.base
    }

    static func agreement(of file: ShoppingList, with base: ShoppingList) -> Int {
        var score = 0
        for row in file.rows.values {
            guard let known = base.item(row.id) else { continue }
            let shown = file.shown(row)
            for field in ItemField.allCases where shown[field] == known[field] {
                score += 1
            }
        }
        for id in base.rows.keys where file.rows[id] == nil && base.isVisible(id) { score -= 1 }
        let named = Set(file.sections), listed = Set(base.sections)
        for name in base.sections { score += named.contains(name) ? 1 : -1 }
        if base.sections.filter(named.contains) == file.sections.filter(listed.contains) { score += 1 }  // their order
        return score
    }

    /// A stampless save absorbed against the base its writer most likely read
    /// (`likeliestBase`), then merged with the newest (`bases[0]`): what this device wrote
    /// since that read is concurrent with the save, not undone by it.
    public static func absorbing(stampless file: ShoppingList, bases: [ShoppingList], stamp: Stamp) -> ShoppingList {
        guard let newest = bases.first else { return file }
        guard var read = likeliestBase(of: file, among: bases), read != newest else {
            return absorbing(file: file, base: newest, stamp: stamp)
        }
        // That the writer held a row (rule 4's evidence) is known of the writer, whichever
        // state it read: any base's word for it counts.
        for base in bases {
            for (id, row) in base.rows where row.heldByStampless && read.rows[id]?.heldByStampless == false {
                read.rows[id]!.heldByStampless = true
            }
        }
        var result = absorbing(file: file, base: read, stamp: stamp)
        // The guess may be wrong; what it cannot tell apart is kept for review, never lost.
        // An edit of a value changed here since that state: which of the two values its
        // writer saw is unknown, so it is concurrent with both. Sections likewise: a save
        // listing a section this device removed (or renamed, or moved) since that state is no
        // knowing undo of it.
        result.clearSeen(ofFieldsStamped: stamp,
                         items: { id, field in
                             guard let known = read.rows[id], let current = newest.rows[id] else { return false }
                             return known.stamps[field] != current.stamps[field]
                         },
                         sections: { key, field in read.sectionEntries[key]?.stamps[field] != newest.sectionEntries[key]?.stamps[field] })
        for row in file.rows.values {
            guard let was = read.item(row.id) else { continue }
            let now = newest.item(row.id)
            for field in ItemField.allCases where row[field] == was[field] {
                // A value as that state had it, changed here since: left alone by its writer,
                // or set back by it. Taken as left alone; recorded in case it was set back.
                // The row deleted here since: its values that state shares with no other
                // state in sight may be the writer's own edit of an older one, which would
                // bring the row back. Taken as left alone (the delete stands); recorded too.
                let ambiguous = now.map { row[field] != $0[field] }
                    ?? bases.contains { $0.item(row.id).map { $0[field] != was[field] } ?? false }
                guard ambiguous else { continue }
                let lost: FieldValue = field == .section ? .text(newest.sectionKey(named: row.section)) : row[field]
                let record = ConflictRecord(subject: .item(row.id, field), lost: lost, lostStamp: stamp)
                result.conflicts[record.key] = record
            }
        }
        result.merge(newest)
        return result
    }
}
