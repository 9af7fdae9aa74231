/// The merge of two copies of a list. Per field, the value with the greater stamp wins;
/// deletes are tombstones; the sections list is one register. `merge` makes no stamps and
/// reads no clock, and it is commutative, associative and idempotent (property tests prove
/// it), so any number of copies merged in any order give the same list.
extension ShoppingList {
    public func merged(with other: ShoppingList) -> ShoppingList {
        var result = self
        result.merge(other)
        return result
    }

    public mutating func merge(_ other: ShoppingList) {
        if winner(other.sectionsStamp, other.sections, over: sectionsStamp, sections) {
            sections = other.sections
            sectionsStamp = other.sectionsStamp
        }
        var copies: [String] = []
        if rows.isEmpty {
            // Into nothing (a store's first read): the other's table as it is, no insert per row.
            rows = other.rows
        } else if let differing = Self.differingRowIDs(rows, other.rows, equalCopies: &copies) {
            // The same rows on both sides, most of them the same copies: merge only the others.
            for id in differing {
                guard let ours = rows[id], let theirs = other.rows[id] else { continue }
                let merged = Self.mergeRow(ours, theirs)
                if merged != ours { rows[id] = merged }
            }
            // Equal rows in separate boxes (a file decoded again, a store's own edits that
            // reached the file) take the other's box: the same value, and the next merge of
            // the two compares them by identity.
            for id in copies { rows[id] = other.rows[id] }
        } else {
            mergeRows(other.rows)
            adoptLayout(of: other.rows)
        }
        for (id, stamp) in other.tombstones where stamp > (tombstones[id] ?? .zero) {
            tombstones[id] = stamp
        }
        extra = Self.mergeExtra(extra, other.extra)
        syncExtra = Self.mergeExtra(syncExtra, other.syncExtra)
        if other.unreadableRows != unreadableRows {
            unreadableRows = Self.canonicalRows(unreadableRows + other.unreadableRows)
        }
    }

    /// The ids whose rows differ between two row tables with the same ids, found by walking
    /// both side by side: a list and one merged or spliced from it share their table's layout
    /// (the same capacity, the keys in the same buckets), so the keys pair up and compare by
    /// identity, and unchanged rows are the same `Item` boxes. Nil when the keys do not pair
    /// up (then each id must be looked up: two hashes of a 36-character id per row).
    public static func differingRowIDs(_ rows: [String: Item], _ other: [String: Item]) -> [String]? {
        var copies: [String] = []
        return differingRowIDs(rows, other, equalCopies: &copies)
    }

    /// `differingRowIDs`, also listing the rows that are equal but not the same box.
    static func differingRowIDs(_ rows: [String: Item], _ other: [String: Item], equalCopies: inout [String]) -> [String]? {
        guard rows.count == other.count else { return nil }
        var ids: [String] = []
        var left = rows.makeIterator(), right = other.makeIterator()
        while let (id, item) = left.next() {
            guard let (otherID, otherItem) = right.next(), id == otherID else { return nil }
            if item.isSameCopy(as: otherItem) { continue }
            if item == otherItem { equalCopies.append(id) } else { ids.append(id) }
        }
        return ids
    }

    /// After a merge whose row tables did not pair up (one side rehashed: a resize, a whole
    /// decode): when both now hold the same ids, rebuild ours from a copy of the other's table,
    /// which keeps its layout, so the next merges and compares of the two pair up again.
    private mutating func adoptLayout(of others: [String: Item]) {
        guard rows.count == others.count else { return }
        var adopted = others
        for (id, row) in rows {
            guard let theirs = others[id] else { return }
            if !row.isSameCopy(as: theirs) && row != theirs { adopted[id] = row }
        }
        rows = adopted
    }

    private mutating func mergeRows(_ others: [String: Item]) {
        for (id, theirs) in others {
            if let ours = rows[id] {
                // Most rows are the same copy on both sides: nothing to merge, nothing to store.
                if ours == theirs { continue }
                let merged = Self.mergeRow(ours, theirs)
                if merged != ours { rows[id] = merged }
            } else {
                rows[id] = theirs
            }
        }
    }

    /// Rows in a canonical order without repeats (for rows kept verbatim).
    public static func canonicalRows(_ rows: [JSONValue]) -> [JSONValue] {
        let keyed = Dictionary(rows.map { (JSONText.compact($0), $0) }, uniquingKeysWith: { a, _ in a })
        return keyed.keys.sorted().map { keyed[$0]! }
    }

    static func mergeRow(_ a: Item, _ b: Item) -> Item {
        var row = a
        for field in ItemField.allCases where winner(b.stamps[field], b[field], over: a.stamps[field], a[field]) {
            row[field] = b[field]
            row.stamps[field] = b.stamps[field]
        }
        // The later of two dates, or the one there is. An empty date read from a file is kept
        // (turning it into none made merging a row with itself change it: found by the fuzzer).
        row.lastModified = switch (a.lastModified, b.lastModified) {
        case (nil, let date), (let date, nil): date
        case (let x?, let y?): max(x, y)
        }
        row.extra = mergeExtra(a.extra, b.extra)
        return row
    }

    /// Unknown keys carry no stamps: per key, the value whose compact JSON text is greater
    /// wins, which is arbitrary but the same whatever order copies are merged in.
    static func mergeExtra(_ a: [String: JSONValue], _ b: [String: JSONValue]) -> [String: JSONValue] {
        if a == b || b.isEmpty { return a }
        if a.isEmpty { return b }
        return a.merging(b) { x, y in JSONText.compact(x) >= JSONText.compact(y) ? x : y }
    }
}

/// True when (stamp b, value b) beats (stamp a, value a): the greater stamp, and for equal
/// stamps (two unstamped copies) the greater value, so the choice never depends on order.
func winner(_ bStamp: Stamp, _ bValue: FieldValue, over aStamp: Stamp, _ aValue: FieldValue) -> Bool {
    if bStamp != aStamp { return bStamp > aStamp }
    return aValue.precedes(bValue)
}

func winner(_ bStamp: Stamp, _ bValue: [String], over aStamp: Stamp, _ aValue: [String]) -> Bool {
    if bStamp != aStamp { return bStamp > aStamp }
    return aValue.lexicographicallyPrecedes(bValue) { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
}

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
    /// How long a delete is remembered: 180 days. A copy that stays away longer than this may
    /// bring a deleted row back (documented in docs/decisions.md).
    public static let tombstoneLifetimeMillis: Int64 = 180 * 86_400_000

    /// Forgets deletes older than `cutoffMillis`, and the hidden rows they hide. This is
    /// garbage collection, not part of `merge`: the writer runs it with the wall clock.
    public mutating func expireTombstones(before cutoffMillis: Int64) {
        for (id, deleted) in tombstones where deleted.millis < cutoffMillis {
            if !isVisible(id) { rows[id] = nil }
            tombstones[id] = nil
        }
    }
}
