/// The bookkeeping values the merge contract keeps beside the rows: deletes that remember
/// what their author saw, sections with identities of their own, and the values that lost
/// to a concurrent edit (docs/sync.md, "The merge contract").

/// What a delete saw, as a version vector: per replica, the newest of its stamps the deleter
/// had seen, and a horizon up to which it saw every stamp (a delete a version-2 file recorded
/// by its stamp alone). A replica makes its stamps in order (an edit bumped past a value ahead
/// of its clock takes a replica of its own, `Stamp.edit`), and lists merge only whole, so a
/// deleter that saw one stamp of a replica saw every earlier one: the vector says exactly which
/// edits it saw, whatever the clocks, in a few stamps shared by every row one edit deleted.
public struct Knowledge: Hashable, Sendable {
    public private(set) var horizon: Stamp
    /// Per replica id, the newest stamp of that replica seen (none at or below the horizon).
    public private(set) var newest: [String: Stamp]

    public init(horizon: Stamp = .zero, newest: [String: Stamp] = [:]) {
        self.horizon = horizon
        self.newest = newest.filter { $0.value > horizon }
    }

    /// What seeing these stamps, and the values each field superseded, tells.
    public init(of stamps: ItemStamps) {
        self.init()
        for field in ItemField.allCases {
            add(stamps[field])
            for superseded in stamps.seen(field) { add(superseded) }
        }
    }

    public mutating func add(_ stamp: Stamp) {
        guard stamp > horizon else { return }
        if let known = newest[stamp.replica], known >= stamp { return }
        newest[stamp.replica] = stamp
    }

    public mutating func formUnion(_ other: Knowledge) {
        if other == self { return }
        if other.horizon > horizon {
            horizon = other.horizon
            newest = newest.filter { $0.value > horizon }
        }
        for stamp in other.newest.values { add(stamp) }
    }

    /// True when an edit with this stamp was seen (an unstamped value always is).
    public func covers(_ stamp: Stamp) -> Bool {
        if stamp <= horizon { return true }
        guard let known = newest[stamp.replica] else { return false }
        return stamp <= known
    }

    /// The newest stamp seen.
    public var newestStamp: Stamp { newest.values.max().map { max($0, horizon) } ?? horizon }

    /// The newest stamp of this replica seen (or the horizon): an edit of the replica's must
    /// be stamped past it to be one the deleter had not seen.
    public func ceiling(for replica: String) -> Stamp { max(horizon, newest[replica] ?? .zero) }
}

/// A delete. It hides the row version its author saw: the row comes back only when one of
/// its fields carries an edit the deleter had not seen (`Knowledge`), whatever the clocks
/// said (rule 3).
public struct Tombstone: Hashable, Sendable {
    /// The delete's own stamp (its place among edits; shown in "recently deleted").
    public var stamp: Stamp
    /// Which edits the deleter had seen.
    public var seen: Knowledge
    /// When a replica first wrote this delete to a file, by that replica's clock (0: not yet).
    /// Deletes expire by when this device first saw them, never by their own (possibly
    /// skewed) stamp.
    public var firstSeen: Int64

    /// The version it hides (its newest seen stamp): a delete of a later version (after a
    /// restore or an edit) is another delete, seen anew, whatever its own stamp (a clock
    /// behind may stamp it before the first).
    public var hidden: Stamp { seen.newestStamp }

    public init(stamp: Stamp, seen: Knowledge, firstSeen: Int64 = 0) {
        self.stamp = stamp
        self.seen = seen
        self.firstSeen = firstSeen
    }

    /// The delete of a row whose stamps the deleter saw.
    public init(stamp: Stamp, seen stamps: ItemStamps, firstSeen: Int64 = 0) {
        self.init(stamp: stamp, seen: Knowledge(of: stamps), firstSeen: firstSeen)
    }

    /// A delete from a file that recorded only its stamp (schema version 2): it saw every
    /// value stamped up to it, the rule that file's writer applied, and it is as old as its
    /// stamp (that file kept no other date).
    public init(legacy stamp: Stamp) {
        self.init(stamp: stamp, seen: Knowledge(horizon: stamp), firstSeen: max(1, stamp.millis))
    }

    /// True while no field of `row` carries an edit the deleter had not seen.
    public func hides(_ row: Item) -> Bool {
        for field in ItemField.allCases where !seen.covers(row.stamps[field]) { return false }
        return true
    }

    /// Two records of deletes of one row: the later delete, having seen what either saw, so
    /// the result is the same in either order.
    public func merged(with other: Tombstone) -> Tombstone {
        if self == other { return self }
        var seen = self.seen
        seen.formUnion(other.seen)
        return Tombstone(stamp: max(stamp, other.stamp), seen: seen, firstSeen: max(firstSeen, other.firstSeen))
    }

    /// The key a delete is kept under: a 64-bit FNV-1a hash of the row's id, so a delete whose
    /// row is gone costs 13 characters, not the id's 36.
    public static func key(for id: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}

/// What "recently deleted" shows and restores of a deleted item once its row is let go of
/// (`ShoppingList.deletedRowLifetimeMillis`): its name, amount, section (by key) and whether it
/// was checked; when, its delete says. Not part of the merge contract: the delete's
/// `Knowledge` is what hides copies of the row; this is for people to look back and undo.
public struct DeletedItem: Hashable, Sendable {
    public var id: String
    public var name: String
    public var amount: String
    public var section: String
    public var checked: Bool

    public init(id: String, name: String, amount: String, section: String, checked: Bool) {
        (self.id, self.name, self.amount, self.section, self.checked) = (id, name, amount, section, checked)
    }

    /// Two records of one id (deleted twice, differently, on two devices): the greater, so any
    /// order of merges keeps the same.
    func merged(with other: DeletedItem) -> DeletedItem {
        if self == other { return self }
        return (other.name, other.amount, other.section, other.checked ? 1 : 0) > (name, amount, section, checked ? 1 : 0) ? other : self
    }

    /// The item as restored: a row with these values (unchecked, at the end of its section).
    public var item: Item { Item(id: id, name: name, amount: amount, section: section, checked: checked) }
}

/// The stamped fields of a section.
public enum SectionField: String, CaseIterable, Sendable, Hashable, StampedField {
    case name, position, removed

    public static let fieldCount = allCases.count

    public var stampIndex: Int {
        switch self {
        case .name: 0
        case .position: 1
        case .removed: 2
        }
    }
}

/// One section, with an identity of its own (`key`: the name it was created with, which never
/// changes), so that two devices adding, renaming, moving or removing different sections keep
/// all of it (rule 6). Items name their section by key; what a person sees is `name`.
public struct SectionEntry: Hashable, Sendable {
    public var key: String
    public var name: String
    /// Where it sorts among the sections (ties by key).
    public var position: Double
    /// Removed sections are kept, so a concurrent rename or move of one merges in any order.
    public var removed: Bool
    public var stamps: StampTable<SectionField>

    public init(key: String, name: String? = nil, position: Double, removed: Bool = false, stamps: StampTable<SectionField> = .init()) {
        self.key = key
        self.name = name ?? key
        self.position = position
        self.removed = removed
        self.stamps = stamps
    }

    public subscript(field: SectionField) -> FieldValue {
        get {
            switch field {
            case .name: .text(name)
            case .position: .order(position)
            case .removed: .flag(removed)
            }
        }
        set {
            switch (field, newValue) {
            case (.name, .text(let text)): name = text
            case (.position, .order(let order)): position = order
            case (.removed, .flag(let flag)): removed = flag
            default: preconditionFailure("value \(newValue) does not fit section field \(field)")
            }
        }
    }

    static func displayOrder(_ a: SectionEntry, _ b: SectionEntry) -> Bool {
        displayOrder((a.position, a.key), (b.position, b.key))
    }

    /// The display order on a section's position and key alone (no whole entries moved).
    static func displayOrder(_ a: (position: Double, key: String), _ b: (position: Double, key: String)) -> Bool {
        a.position != b.position ? a.position < b.position : a.key.precedesInTextOrder(b.key)
    }
}

/// A value that lost to a concurrent edit: kept in the file, so every device shows it for
/// review (rule 2, 5). Reviewing it (restore or dismiss) is a stamped edit too.
public struct ConflictRecord: Hashable, Sendable {
    /// What lost: a field of an item (by id) or of a section (by key).
    public enum Subject: Hashable, Sendable, Comparable {
        case item(String, ItemField)
        case section(String, SectionField)
        /// A row a stampless save lacked that it cannot be told to have seen (rule 5): asked
        /// about once. Restoring the record deletes the row; dismissing it keeps it.
        case missing(String)

        public var fieldName: String {
            switch self {
            case .item(_, let field): field.rawValue
            case .section(_, let field): field.rawValue
            case .missing: "missing"
            }
        }

        public static func < (a: Subject, b: Subject) -> Bool {
            switch (a, b) {
            case (.item(let x, let f), .item(let y, let g)): x != y ? x.precedesInTextOrder(y) : f.stampIndex < g.stampIndex
            case (.section(let x, let f), .section(let y, let g)): x != y ? x.precedesInTextOrder(y) : f.stampIndex < g.stampIndex
            case (.missing(let x), .missing(let y)): x.precedesInTextOrder(y)
            case (.item, _): true
            case (.section, .item): false
            case (.section, .missing): true
            case (.missing, _): false
            }
        }
    }

    /// A record is one lost version of a field: its subject, its stamp and its value. (The same
    /// value lost in two versions, held by two replicas, is shown once: `conflictList`.) The
    /// value is part of the key because one stamp can stand for two values: a stampless save
    /// absorbed at one stamp both writes a value and, in case it set another back, records
    /// that one for review (`absorbing(stampless:bases:stamp:)`).
    public struct Key: Hashable, Sendable, Comparable {
        public var subject: Subject
        public var lostStamp: Stamp
        public var lost: FieldValue

        public init(subject: Subject, lostStamp: Stamp, lost: FieldValue) {
            self.subject = subject
            self.lostStamp = lostStamp
            self.lost = lost
        }

        public static func < (a: Key, b: Key) -> Bool {
            if a.subject != b.subject { return a.subject < b.subject }
            if a.lostStamp != b.lostStamp { return a.lostStamp < b.lostStamp }
            return a.lost.description.precedesInTextOrder(b.lost.description)
        }
    }

    public var key: Key { Key(subject: subject, lostStamp: lostStamp, lost: lost) }
    public var subject: Subject
    public var lost: FieldValue
    public var lostStamp: Stamp
    /// Zero while it awaits review; the review's stamp after.
    public var resolved: Stamp
    /// "restored" or "dismissed" once reviewed.
    public var resolution: String
    /// When a replica first wrote it to a file, by that replica's clock (0: not yet).
    public var firstSeen: Int64

    /// What lost and to what is all a record holds: which merge met it first, and so which
    /// value it lost to then, depends on the order copies arrive in (the review shows the
    /// value the list holds now).
    public init(subject: Subject, lost: FieldValue, lostStamp: Stamp, resolved: Stamp = .zero, resolution: String = "", firstSeen: Int64 = 0) {
        self.subject = subject
        self.lost = lost
        self.lostStamp = lostStamp
        self.resolved = resolved
        self.resolution = resolution
        self.firstSeen = firstSeen
    }

    public var awaitsReview: Bool { resolved.isZero }

    /// A short id for people to type (`bananas conflicts restore 3f9a`): stable on every
    /// device, as it hashes what was lost where (the same for every version of one value).
    public var shortID: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let text: String = switch subject {
        case .item(let id, let field): "i/\(id)/\(field.rawValue)/\(lost)"
        case .section(let key, let field): "s/\(key)/\(field.rawValue)/\(lost)"
        case .missing(let id): "m/\(id)"
        }
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hex(hash, digits: 16).prefix(8).description
    }

    /// Two records of the same lost value: what either knew, the same whatever the order.
    /// The question a stampless save leaves when it lacks `row` and cannot be told to have
    /// seen it: every omission of a row shows as one entry (same subject, same value).
    static func omission(of row: Item, lostStamp: Stamp) -> ConflictRecord {
        ConflictRecord(subject: .missing(row.id), lost: .flag(true), lostStamp: lostStamp)
    }

    static let dismissed = "dismissed"
    static let restored = "restored"

    func merged(with other: ConflictRecord) -> ConflictRecord {
        if self == other { return self }
        var result = self
        if (other.resolved, other.resolution) > (resolved, resolution) {
            (result.resolved, result.resolution) = (other.resolved, other.resolution)
        } else {
            (result.resolved, result.resolution) = (resolved, resolution)
        }
        result.firstSeen = max(firstSeen, other.firstSeen)
        return result
    }
}
