extension ShoppingList {
    /// True when nothing in the list carries a stamp: a whole-list save by a writer that keeps
    /// none (or a version-1 file). A file that kept a bananas write's mark is not one, even
    /// with no stamped row left in it (the Get Bananas server removed the last one).
    public var isStampless: Bool {
        writeMark.isZero && tombstones.isEmpty && newestSectionStamp.isZero && !rows.values.contains { !$0.newestStamp.isZero }
    }

    /// A delete of row `id`, merged with any delete of it already recorded.
    mutating func addTombstone(_ tombstone: Tombstone, for id: String) {
        addTombstone(tombstone, key: Tombstone.key(for: id))
    }

    mutating func addTombstone(_ tombstone: Tombstone, key: UInt64) {
        tombstones[key] = tombstones[key].map { $0.merged(with: tombstone) } ?? tombstone
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
                case .missing(let id):
                    // The oldest save that lacked it says when it was first asked.
                    let first = records.min { $0.lostStamp < $1.lostStamp }!
                    result.append(Conflict(id: newest.shortID, keys: keys, subjectID: id, isSection: false,
                                          name: rows[id].map(shown)?.name ?? "(an item no longer kept)", field: subject.fieldName,
                                          kept: .flag(true), lost: .flag(false),
                                          lostStamp: first.lostStamp, resolution: resolution, folded: 0))
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
        case .item(let id, .section):
            // Sections as a person sees them: by name (a twin of the same name is the same).
            rows[id].map { sectionName($0.section) == sectionName(record.lost.text) } ?? false
        case .item(let id, let field):
            // Equal to the value kept, visible or hidden: no loss.
            rows[id]?[field] == record.lost
        case .section(let key, let field): sectionEntries[key]?[field] == record.lost
        case .missing(let id): !isVisible(id)
        }
    }

    /// The edit that makes a lost value current again and marks its record restored: a new
    /// edit, which every device merges like any other.
    public func restoreEdit(_ conflict: Conflict) throws -> ListEdit {
        let review = ListEdit.batch(conflict.keys.map { .review($0, resolution: ConflictRecord.restored) })
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
        case .missing(let id):
            // The save's delete, made now by someone who saw the row.
            guard item(id) != nil else { throw EditError.noSuchItem(id) }
            return .batch([.delete(id: id), review])
        }
    }

    /// The edit that marks records reviewed, keeping the current values.
    public func dismissEdit(_ conflicts: [Conflict]) -> ListEdit {
        .batch(conflicts.flatMap { $0.keys.map { .review($0, resolution: ConflictRecord.dismissed) } })
    }
}

