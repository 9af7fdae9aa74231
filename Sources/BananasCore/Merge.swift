/// The merge of two copies of a list (the merge contract, docs/sync.md). Per field, the value
/// with the greater stamp wins; when neither value's author had seen the other (they are
/// concurrent), the loser becomes a conflict record, kept in the list for every device to
/// review. Deletes hide the row version their author saw; sections merge one by one.
/// `merge` makes no stamps and reads no clock, and it is commutative, associative and
/// idempotent (property tests prove it), so any number of copies merged in any order give the
/// same list and the same conflict records.
extension ShoppingList {
    public func merged(with other: ShoppingList) -> ShoppingList {
        var result = self
        result.merge(other)
        return result
    }

    public mutating func merge(_ other: ShoppingList) {
        var found: [ConflictRecord] = []
        if other.sectionEntries != sectionEntries {
            sectionEntries = Self.mergeSections(sectionEntries, other.sectionEntries, records: &found)
        }
        var copies: [String] = []
        if rows.isEmpty {
            // Into nothing (a store's first read): the other's table as it is, no insert per row.
            rows = other.rows
        } else if let differing = Self.differingRowIDs(rows, other.rows, equalCopies: &copies) {
            // The same rows on both sides, most of them the same copies: merge only the others.
            var changed: [(id: String, row: Item)] = []
            var theirsWon = true
            for id in differing {
                guard let ours = rows[id], let theirs = other.rows[id] else { continue }
                let merged = Self.mergeRow(ours, theirs, records: &found)
                if merged != ours { changed.append((id, merged)) }
                if merged != theirs { theirsWon = false }
            }
            if theirsWon {
                // Every row that differs merges to the other's (it has seen ours: a flush of
                // local edits, a read of a newer file): the result is the other's table, taken
                // whole. Writing the rows into ours would copy all of its rows first, since
                // another value (the file as read, the screen) still holds that table.
                rows = other.rows
            } else {
                for (id, row) in changed { rows[id] = row }
                // Equal rows in separate boxes (a file decoded again, a store's own edits that
                // reached the file) take the other's box: the same value, and the next merge
                // of the two compares them by identity.
                for id in copies { rows[id] = other.rows[id] }
            }
        } else {
            mergeRows(other.rows, records: &found)
            adoptLayout(of: other.rows)
        }
        if other.tombstones != tombstones {
            for (key, theirs) in other.tombstones {
                addTombstone(theirs, key: key)
            }
        }
        if other.conflicts != conflicts {
            for (key, theirs) in other.conflicts {
                conflicts[key] = conflicts[key].map { $0.merged(with: theirs) } ?? theirs
            }
        }
        for record in found {
            conflicts[record.key] = conflicts[record.key].map { $0.merged(with: record) } ?? record
        }
        if other.conflictFolds != conflictFolds { mergeFolds(other.conflictFolds) }
        if !conflictFolds.isEmpty, !conflicts.isEmpty { dropFoldedRecords() }
        if !conflicts.isEmpty { dropConflictsSeenSince() }
        writeMark = max(writeMark, other.writeMark)
        memory.merge(other.memory)
        if other.deletedItems != deletedItems {
            for (id, theirs) in other.deletedItems { deletedItems[id] = deletedItems[id].map { $0.merged(with: theirs) } ?? theirs }
        }
        extra = Self.mergeExtra(extra, other.extra)
        syncExtra = Self.mergeExtra(syncExtra, other.syncExtra)
        if other.unreadableRows != unreadableRows {
            unreadableRows = Self.mergedUnreadableRows(unreadableRows, other.unreadableRows)
        }
    }

    /// The ids whose rows differ between two row tables with the same ids, found without a
    /// look at every row where the tables pair up: a list and one merged or spliced from it
    /// share their table's layout (the same capacity, the keys in the same buckets), or are
    /// one file's rows with a few changed (`RowTable`), and unchanged rows are the same `Item`
    /// boxes. Nil when the tables do not pair up (then each id must be looked up: two hashes
    /// of a 36-character id per row).
    public static func differingRowIDs(_ rows: RowTable, _ other: RowTable) -> [String]? {
        var copies: [String] = []
        return RowTable.differingRowIDs(rows, other, equalCopies: &copies)
    }

    /// `differingRowIDs`, also listing the rows that are equal but not the same box.
    static func differingRowIDs(_ rows: RowTable, _ other: RowTable, equalCopies: inout [String]) -> [String]? {
        RowTable.differingRowIDs(rows, other, equalCopies: &equalCopies)
    }

    /// True when both are one table, a copy of the other not written to since (no row
    /// differs). False says nothing: two tables may hold equal rows.
    static func isSameTable(_ a: RowTable, _ b: RowTable) -> Bool { RowTable.isSameTable(a, b) }

    /// `differingRowIDs` for a table that may also hold rows `other` lacks (an add put them
    /// in): those are listed in `added`. Nil when they do not pair up.
    public static func differingRowIDs(_ rows: RowTable, _ other: RowTable, added: inout [String]) -> [String]? {
        RowTable.differingRowIDs(rows, other, added: &added)
    }

    /// After a merge whose row tables did not pair up (one side rehashed: a resize, a whole
    /// decode): when both now hold the same ids, rebuild ours from a copy of the other's table,
    /// which keeps its layout, so the next merges and compares of the two pair up again.
    private mutating func adoptLayout(of others: RowTable) {
        guard rows.count == others.count else { return }
        var adopted = others
        for (id, row) in rows {
            guard let theirs = others[id] else { return }
            if !row.isSameCopy(as: theirs) && row != theirs { adopted[id] = row }
        }
        rows = adopted
    }

    private mutating func mergeRows(_ others: RowTable, records: inout [ConflictRecord]) {
        for (id, theirs) in others {
            if let ours = rows[id] {
                // Most rows are the same copy on both sides: nothing to merge, nothing to store.
                if ours == theirs { continue }
                let merged = Self.mergeRow(ours, theirs, records: &records)
                if merged != ours { rows[id] = merged }
            } else {
                rows[id] = theirs
            }
        }
    }

    /// Both sides' unreadable rows, each row once (same text, same occurrence), in write
    /// order. A row both sides place differently (its readable neighbour was deleted on one,
    /// and a rewrite re-read it after the row before) takes the later place: the one it was
    /// first read at, which puts it between the same visible rows.
    static func mergedUnreadableRows(_ a: [UnreadableRow], _ b: [UnreadableRow]) -> [UnreadableRow] {
        var byIdentity: [UnreadableRow.Identity: UnreadableRow] = [:]
        byIdentity.reserveCapacity(a.count + b.count)
        for row in a + b {
            guard let known = byIdentity[row.identity] else { byIdentity[row.identity] = row; continue }
            if UnreadableRow.writeOrder(known, row) { byIdentity[row.identity] = row }
        }
        return byIdentity.values.sorted(by: UnreadableRow.writeOrder)
    }

    static func mergeRow(_ a: Item, _ b: Item, records: inout [ConflictRecord]) -> Item {
        var row = mergeFields(a, b, subject: { .item(a.id, $0) }, records: &records)
        // The later of two dates, or the one there is. An empty date read from a file is kept
        // (turning it into none made merging a row with itself change it: found by the fuzzer).
        row.lastModified = switch (a.lastModified, b.lastModified) {
        case (nil, let date), (let date, nil): date
        case (let x?, let y?): max(x, y)
        }
        row.extra = mergeExtra(a.extra, b.extra)
        if a.extra[Item.priorsKey] != nil || b.extra[Item.priorsKey] != nil { row.setPriors(Item.mergedPriors(a, b)) }
        return row
    }

    static func mergeSections(_ a: [String: SectionEntry], _ b: [String: SectionEntry], records: inout [ConflictRecord]) -> [String: SectionEntry] {
        var result = a
        for (key, theirs) in b {
            guard let ours = a[key] else {
                result[key] = theirs
                continue
            }
            if ours == theirs { continue }
            result[key] = mergeFields(ours, theirs, subject: { .section(key, $0) }, records: &records)
        }
        return result
    }

    /// Two copies of one record merged field by field (`mergeRegister`): each field takes the
    /// winner's value and stamp and both histories, and each concurrent loser becomes a
    /// conflict record about `subject(field)`. Items and sections merge alike.
    static func mergeFields<Record: StampedRecord>(
        _ a: Record, _ b: Record, subject: (Record.Field) -> ConflictRecord.Subject, records: inout [ConflictRecord]
    ) -> Record {
        var merged = a
        for field in Record.Field.allCases {
            let outcome = mergeRegister(field, a.stamps, a[field], b.stamps, b[field])
            if outcome.takeOther {
                merged[field] = b[field]
                merged.stamps[field] = b.stamps[field]
            }
            merged.stamps.setSeen(field, outcome.seen)
            if let loser = outcome.lost {
                records.append(ConflictRecord(subject: subject(field), lost: loser.value, lostStamp: loser.stamp))
            }
        }
        return merged
    }

    /// A value recorded as lost to one edit may turn out, once more copies arrive, to have
    /// been replaced knowingly by another (its stamp in the field's history): then nothing was
    /// lost, and the record goes. What stays is the same whatever order copies arrive in.
    /// (A record whose value is the field's value again is kept but not shown: whether it is
    /// depends on what arrives next.)
    mutating func dropConflictsSeenSince() {
        for (key, record) in conflicts {
            let seenSince: Bool = switch key.subject {
            case .item(let id, let field): rows[id]?.stamps.seen(field).contains(record.lostStamp) ?? false
            case .section(let sectionKey, let field): sectionEntries[sectionKey]?.stamps.seen(field).contains(record.lostStamp) ?? false
            case .missing: false
            }
            if seenSince { conflicts[key] = nil }
        }
    }

    /// One field of two copies: whether the other's value wins (the greater stamp, and for
    /// equal stamps the greater value, so the choice never depends on order), the merged
    /// history (every stamp either side superseded knowingly), and the losing value when
    /// neither side had seen the other's.
    static func mergeRegister<Field: StampedField>(
        _ field: Field, _ a: StampTable<Field>, _ aValue: FieldValue, _ b: StampTable<Field>, _ bValue: FieldValue
    ) -> (takeOther: Bool, seen: [Stamp], lost: (value: FieldValue, stamp: Stamp)?) {
        let (aStamp, bStamp) = (a[field], b[field])
        if aStamp == bStamp {
            let takeOther = aValue != bValue && aValue.precedes(bValue)
            let seen = a.seen(field) == b.seen(field) ? a.seen(field) : StampTable<Field>.trimmedHistory(a.seen(field) + b.seen(field))
            return (takeOther, seen, nil)
        }
        let takeOther = bStamp > aStamp
        let loser = takeOther ? aStamp : bStamp
        let seen = StampTable<Field>.trimmedHistory(a.seen(field) + b.seen(field))
        // Equal values too: whether the value that lost here is the current one in the end
        // depends on what arrives next, and a record must not (`conflictList` hides it then).
        let concurrent = !a.hasSeen(field, bStamp) && !b.hasSeen(field, aStamp)
        return (takeOther, seen, concurrent ? (takeOther ? aValue : bValue, loser) : nil)
    }

    /// Unknown keys carry no stamps: per key, the value whose compact JSON text is greater
    /// wins, which is arbitrary but the same whatever order copies are merged in.
    static func mergeExtra(_ a: [String: JSONValue], _ b: [String: JSONValue]) -> [String: JSONValue] {
        if a == b || b.isEmpty { return a }
        if a.isEmpty { return b }
        return a.merging(b) { x, y in JSONText.compact(x) >= JSONText.compact(y) ? x : y }
    }
}

/// A record whose fields are merged one by one, each with its own stamp: an item, a section.
protocol StampedRecord {
    associatedtype Field: StampedField
    subscript(field: Field) -> FieldValue { get set }
    var stamps: StampTable<Field> { get set }
}

extension Item: StampedRecord {}
extension SectionEntry: StampedRecord {}

extension FieldValue {
    /// A total order used only to break ties between equally stamped values.
    func precedes(_ other: FieldValue) -> Bool {
        switch (self, other) {
        case (.text(let a), .text(let b)): a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
        case (.flag(let a), .flag(let b)): !a && b
        case (.order(let a), .order(let b)): a < b
        default: false
        }
    }
}

extension ShoppingList {
    /// How long a delete is remembered: 180 days from when this device first saw it. A copy
    /// that stays away longer than this may bring a deleted row back (docs/decisions.md).
    public static let tombstoneLifetimeMillis: Int64 = 180 * 86_400_000
    /// How long a deleted row itself is kept whole (a body for an edit made elsewhere
    /// meanwhile to come back to, merged field by field): 7 days from when this device first
    /// saw its delete. The delete stays, without the row, for `tombstoneLifetimeMillis`.
    public static let deletedRowLifetimeMillis: Int64 = 7 * 86_400_000
    /// How long "recently deleted" shows a deleted item (its `DeletedItem` once the row is
    /// let go of): 30 days from when this device first saw its delete.
    public static let recentlyDeletedLifetimeMillis: Int64 = 30 * 86_400_000
    /// How long a reviewed conflict record is kept (so every device learns it was reviewed).
    /// How many a list keeps is `conflictCapacity` (ConflictBound.swift).
    public static let reviewedConflictLifetimeMillis: Int64 = 30 * 86_400_000

    /// Bookkeeping a writer does with its wall clock before it writes, outside `merge`:
    /// deletes and conflict records new to a file are dated `now`; a delete this device first
    /// saw (`deleteFirstSeen`, its published history) more than `deletedRowLifetimeMillis`
    /// ago lets go of the row it hides, and more than `tombstoneLifetimeMillis` ago is
    /// forgotten itself, never by its stamp or a date a file claims; conflict records are
    /// bounded by `collectConflictRecords` (reviewed ones expire, a field's older unreviewed
    /// values are folded, never dropped uncounted). What the dropped rows said of their names
    /// stays in the memory.
    public mutating func collectGarbage(now: Int64, deleteFirstSeen: (UInt64, Stamp) -> Int64? = { _, _ in nil }) {
        var expired: [UInt64] = []
        for (key, tombstone) in tombstones {
            if tombstone.firstSeen == 0 { tombstones[key]!.firstSeen = now }
            if let seen = deleteFirstSeen(key, tombstone.hidden), seen < now - Self.tombstoneLifetimeMillis { expired.append(key) }
        }
        // Whether the delete kept under `key` was first seen more than `lifetime` ago; asked
        // only of the deletes whose rows or names are still here, a few of many.
        func due(_ key: UInt64, _ lifetime: Int64) -> Bool {
            guard let tombstone = tombstones[key], let seen = deleteFirstSeen(key, tombstone.hidden) else { return false }
            return seen < now - lifetime
        }
        if !tombstones.isEmpty {
            var dropped: [String] = []
            rows.forEachRow { row in
                let key = Tombstone.key(for: row.id)
                if let tombstone = tombstones[key], due(key, Self.deletedRowLifetimeMillis), tombstone.hides(row.item) { dropped.append(row.id) }
            }
            rememberForgottenRows(dropped, now: now)
            for id in dropped {
                let row = rows[id]!
                if !due(Tombstone.key(for: id), Self.recentlyDeletedLifetimeMillis) {
                    let entry = DeletedItem(id: id, name: row.name, amount: row.amount, section: row.section, checked: row.checked)
                    deletedItems[id] = deletedItems[id].map { $0.merged(with: entry) } ?? entry
                }
                rows[id] = nil
            }
        }
        if !deletedItems.isEmpty {
            // Shown while its delete is, for 30 days; gone with a row of its id back.
            for id in deletedItems.keys {
                let key = Tombstone.key(for: id)
                if tombstones[key] == nil || due(key, Self.recentlyDeletedLifetimeMillis) || rows[id] != nil { deletedItems[id] = nil }
            }
        }
        for key in expired { tombstones[key] = nil }
        collectConflictRecords(now: now)
    }
}
