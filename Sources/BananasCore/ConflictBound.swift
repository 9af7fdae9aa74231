/// How conflict records are bounded without a value the user has not reviewed going
/// silently (the merge contract, rule 2; docs/sync.md, "Conflicts").
///
/// A field that keeps losing values (two devices, or a phone and a script, fighting over it)
/// would grow the file without end. So a list keeps at most `conflictsKeptPerField` lost
/// values of one field awaiting review; older ones are *folded*: their records go, and one
/// `ConflictFold` per field stands for them, with the newest of them (shown) and how many
/// there were. The review shows it as one entry, "lost X (and 37 older lost values of this
/// field)"; restoring or dismissing it reviews every value it folds.
///
/// Folding is done by a writer before it writes (`collectGarbage`), never by `merge`. What
/// `merge` does with folds is a join: per field the union of the values folded (each by a
/// 64-bit id of its stamp and value), reviewed where any copy reviewed them, and no record
/// of a folded value is kept beside the fold (`ConflictFold.merged`). So copies merge to the
/// same records and folds in any order, two devices that fold the same records end with the
/// same list, and two that folded apart count every value either folded, once.
public struct ConflictFold: Hashable, Sendable {
    /// The newest value folded, as its record's key: what the review shows for the fold.
    public var newest: ConflictRecord.Key
    /// The values folded, by `ConflictFold.id(of:)`: those awaiting review and those reviewed
    /// (restored or dismissed with the fold). A record whose id is here is not kept beside
    /// the fold, and one found again (a stale copy, a stale row) is not counted twice.
    public private(set) var awaiting: Set<UInt64>
    public private(set) var reviewed: Set<UInt64>
    /// The last review's stamp (zero: never reviewed) and what it was ("restored", "dismissed").
    public var resolved: Stamp
    public var resolution: String
    /// When a replica first wrote it to a file, or last folded more into it, by that
    /// replica's clock (0: not yet). A fold with nothing awaiting review expires by this, as
    /// a reviewed record does.
    public var firstSeen: Int64

    public init(newest: ConflictRecord.Key, awaiting: Set<UInt64>, reviewed: Set<UInt64> = [], resolved: Stamp = .zero,
                resolution: String = "", firstSeen: Int64 = 0) {
        self.newest = newest
        self.reviewed = reviewed
        self.awaiting = awaiting.subtracting(reviewed)
        self.resolved = resolved
        self.resolution = resolution
        self.firstSeen = firstSeen
    }

    /// A lost value's identity within its field: a 64-bit FNV-1a hash of its stamp and
    /// value (its key without the subject). 16 hex digits in the file, against about 150
    /// bytes for a record; a field would have to lose 60,000 values to fold 1 MB.
    public static func id(of key: ConflictRecord.Key) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(key.lostStamp.encoded)\u{0}\(key.lost)".utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    public var subject: ConflictRecord.Subject { newest.subject }
    /// How many values were folded, reviewed or not.
    public var count: Int { awaiting.count + reviewed.count }
    public var awaitingCount: Int { awaiting.count }
    public var awaitsReview: Bool { !awaiting.isEmpty }

    /// True when `key` is a value this fold holds.
    public func holds(_ key: ConflictRecord.Key) -> Bool {
        guard key.subject == subject else { return false }
        let id = Self.id(of: key)
        return awaiting.contains(id) || reviewed.contains(id)
    }

    mutating func fold(_ keys: some Sequence<ConflictRecord.Key>) {
        for key in keys {
            if newest < key { newest = key }
            let id = Self.id(of: key)
            if !reviewed.contains(id) { awaiting.insert(id) }
        }
    }

    /// True when the fold's newest value still awaits review.
    var newestAwaitsReview: Bool { awaiting.contains(Self.id(of: newest)) }

    /// A value the fold holds was reviewed on its own (its record, in a copy that had not
    /// folded it): reviewed here too.
    mutating func markReviewed(_ key: ConflictRecord.Key) {
        let id = Self.id(of: key)
        if awaiting.remove(id) != nil { reviewed.insert(id) }
    }

    mutating func markReviewed() {
        reviewed.formUnion(awaiting)
        awaiting = []
    }

    /// Two copies of one field's fold: the values either folded (reviewed where either
    /// reviewed them), the newer newest value, the later review. A join, so the same in any
    /// order and any grouping, and exact: two devices that folded apart count every value
    /// either folded, once.
    func merged(with other: ConflictFold) -> ConflictFold {
        if self == other { return self }
        var result = self
        if newest < other.newest { result.newest = other.newest }
        result.reviewed.formUnion(other.reviewed)
        result.awaiting.formUnion(other.awaiting)
        result.awaiting.subtract(result.reviewed)
        if (other.resolved, other.resolution) > (resolved, resolution) {
            (result.resolved, result.resolution) = (other.resolved, other.resolution)
        }
        result.firstSeen = max(firstSeen, other.firstSeen)
        return result
    }

    /// The fold's newest value as a record (what the review shows for it).
    var record: ConflictRecord {
        ConflictRecord(subject: subject, lost: newest.lost, lostStamp: newest.lostStamp,
                       resolved: awaitsReview ? .zero : resolved, resolution: awaitsReview ? "" : resolution, firstSeen: firstSeen)
    }
}

extension ShoppingList {
    /// How many lost values of one field a list keeps listed while they await review; older
    /// ones are folded. Ten is more than a field loses in any ordinary use (a value lost is
    /// one concurrent edit; a device reviews them as they come) and a screenful in the
    /// editor's review, while a runaway writer fighting another over one field costs the
    /// file ten records and one fold (about 2 KB), not one record per save.
    public static let conflictsKeptPerField = 10

    /// The records a list keeps awaiting review before it keeps fewer per field: above it
    /// each field keeps fewer of its newest (down to one), so the list stays near this bound
    /// until more fields than this have lost values. Then it grows with the number of fields,
    /// one listed value and one fold each at most: unreviewed values are never dropped to
    /// keep a count. Reviewed records beyond it go, the oldest first.
    public static let conflictCapacity = 200

    /// Merge of the other copy's folds into ours: per field, `ConflictFold.merged`.
    mutating func mergeFolds(_ other: [ConflictRecord.Subject: ConflictFold]) {
        for (subject, theirs) in other {
            conflictFolds[subject] = conflictFolds[subject].map { $0.merged(with: theirs) } ?? theirs
        }
    }

    /// Drops the records a fold stands for (they arrived from a copy that had not folded
    /// them yet, or were found again in a stale row): they are counted in the fold.
    /// A record that was reviewed marks its value reviewed in the fold: whichever copy
    /// arrives first, the value ends reviewed.
    mutating func dropFoldedRecords() {
        for (key, record) in conflicts {
            guard var fold = conflictFolds[key.subject], fold.holds(key) else { continue }
            if !record.awaitsReview {
                fold.markReviewed(key)
                if fold != conflictFolds[key.subject] { conflictFolds[key.subject] = fold }
            }
            conflicts[key] = nil
        }
    }

    /// `.review(key, …)` of a key no record has: the fold whose newest value it is. Every
    /// value the fold holds is then reviewed. Its inverse, like a record's, reviews again.
    mutating func reviewFold(_ key: ConflictRecord.Key, resolution: String, stamp: Stamp) throws -> ListEdit {
        guard var fold = conflictFolds[key.subject], fold.newest == key else { throw EditError.noSuchConflict }
        let previous = (fold.resolved, fold.resolution)
        fold.markReviewed()
        fold.resolved = Stamp.edit(stamp, replacing: max(fold.resolved, key.lostStamp))
        fold.resolution = resolution
        conflictFolds[key.subject] = fold
        return previous.0.isZero ? .review(key, resolution: "") : .review(key, resolution: previous.1)
    }

    /// The conflict half of `collectGarbage`, done by a writer with its wall clock before it
    /// writes: records and folds new to a file are dated `now`; reviewed records and fully
    /// reviewed folds past `reviewedConflictLifetimeMillis` go; a field with more than
    /// `conflictsKeptPerField` values awaiting review (fewer when the list holds more than
    /// `conflictCapacity`) has its oldest folded; then reviewed records beyond the capacity
    /// go, the oldest first. A record awaiting review is never dropped without a fold
    /// counting it.
    mutating func collectConflictRecords(now: Int64) {
        for (key, record) in conflicts {
            if record.firstSeen == 0 {
                conflicts[key]!.firstSeen = now
            } else if !record.awaitsReview, record.firstSeen < now - Self.reviewedConflictLifetimeMillis {
                conflicts[key] = nil
            }
        }
        for (subject, fold) in conflictFolds {
            if fold.firstSeen == 0 {
                conflictFolds[subject]!.firstSeen = now
            } else if !fold.awaitsReview, fold.firstSeen < now - Self.reviewedConflictLifetimeMillis {
                conflictFolds[subject] = nil
            }
        }
        foldConflictRecords(now: now)
        dropReviewedBeyondCapacity()
    }

    /// Reviewed records beyond `conflictCapacity` go, the oldest first.
    mutating func dropReviewedBeyondCapacity() {
        guard conflicts.count > Self.conflictCapacity else { return }
        let reviewed = conflicts.values.filter { !$0.awaitsReview }.sorted { ($0.firstSeen, $0.key) < ($1.firstSeen, $1.key) }
        for record in reviewed.prefix(conflicts.count - Self.conflictCapacity) { conflicts[record.key] = nil }
    }

    /// The bound a writer keeps, applied to the records a file holds as it is read (a hostile
    /// or runaway file of a million records): values awaiting review beyond `keptPerField` are
    /// folded per field (counted, never dropped) and reviewed records beyond
    /// `conflictCapacity` go, the oldest first.
    /// Nothing is dated here: the next write dates what is new, as it does for what it merges.
    public mutating func boundConflicts() {
        guard !conflicts.isEmpty else { return }
        foldConflictRecords(now: 0)
        dropReviewedBeyondCapacity()
    }

    /// A record read from a file (`sync.conflicts`, one at a time): kept like the others, and
    /// the records bounded (`boundConflictsSoFar`) whenever they have doubled since the last
    /// bound, so a file's million are never all held. `boundAt` is the caller's, starting at 0.
    public mutating func takeRead(_ record: ConflictRecord, boundAt: inout Int) {
        conflicts[record.key] = conflicts[record.key].map { $0.merged(with: record) } ?? record
        guard conflicts.count > max(boundAt, 4 * Self.conflictCapacity) else { return }
        boundConflictsSoFar()
        boundAt = 2 * conflicts.count
    }

    /// `boundConflicts` while records are still being read (a file's million, streamed): the
    /// values beyond `conflictsKeptPerField` of a field folded, and of the reviewed records the
    /// newest `conflictCapacity`: nothing a bound of the whole would keep.
    public mutating func boundConflictsSoFar() {
        // Never fewer than `conflictsKeptPerField` per field here: how many fewer the capacity
        // asks for depends on every field's count, known only once all are read.
        foldConflictRecords(now: 0, keeping: Self.conflictsKeptPerField)
        let reviewed = conflicts.values.filter { !$0.awaitsReview }
        guard reviewed.count > Self.conflictCapacity else { return }
        for record in reviewed.sorted(by: { ($0.firstSeen, $0.key) < ($1.firstSeen, $1.key) }).prefix(reviewed.count - Self.conflictCapacity) {
            conflicts[record.key] = nil
        }
    }

    /// Per field, the values awaiting review beyond the newest `keptPerField` go into the
    /// field's fold. A function of the records alone: devices holding the same records fold
    /// the same ones.
    mutating func foldConflictRecords(now: Int64, keeping kept: Int? = nil) {
        var awaiting: [ConflictRecord.Subject: [ConflictRecord.Key]] = [:]
        for (key, record) in conflicts where record.awaitsReview { awaiting[key.subject, default: []].append(key) }
        let keep = kept ?? Self.keptPerField(awaiting.values.map(\.count))
        var folded = false
        for (subject, keys) in awaiting where keys.count > keep {
            let going = Self.allButGreatest(keep, of: keys)
            // Taken out of the table while it changes: a copy left there would make the first
            // change copy its sets, which hold every value folded (a million, read from a file).
            var fold = conflictFolds.removeValue(forKey: subject) ?? ConflictFold(newest: going.max()!, awaiting: [])
            fold.fold(going)
            fold.firstSeen = max(fold.firstSeen, now)
            conflictFolds[subject] = fold
            // The fold holds them now: gone without a look at each (`dropFoldedRecords` then
            // looks at the few left).
            for key in going { conflicts[key] = nil }
            folded = true
        }
        if folded { dropFoldedRecords() }
    }

    /// `keys` (distinct) but the `keep` greatest, in one pass: the values a field folds, without
    /// sorting all of them.
    static func allButGreatest(_ keep: Int, of keys: [ConflictRecord.Key]) -> [ConflictRecord.Key] {
        var greatest: [Int] = []  // indices into `keys`, ascending by key
        greatest.reserveCapacity(keep + 1)
        for index in keys.indices {
            if greatest.count == keep, keep == 0 || keys[index] < keys[greatest[0]] { continue }
            greatest.insert(index, at: greatest.firstIndex { keys[index] < keys[$0] } ?? greatest.count)
            if greatest.count > keep { greatest.removeFirst() }
        }
        let kept = Set(greatest)
        return keys.indices.filter { !kept.contains($0) }.map { keys[$0] }
    }

    /// The most values awaiting review each field keeps listed, given how many each has: the
    /// largest number, at most `conflictsKeptPerField` and at least one, that keeps them all
    /// within `conflictCapacity`.
    static func keptPerField(_ counts: [Int]) -> Int {
        var keep = conflictsKeptPerField
        while keep > 1, counts.reduce(0, { $0 + min($1, keep) }) > conflictCapacity { keep -= 1 }
        return keep
    }
}
