import Synchronization

/// The fields of an item that are merged one by one, each with its own stamp.
public enum ItemField: String, CaseIterable, Sendable, Hashable, Comparable {
    case name, amount, section, checked, optional, sortOrder

    public static func < (lhs: ItemField, rhs: ItemField) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// A set of fields merged one by one, each with its own stamp: an item's or a section's.
public protocol StampedField: CaseIterable, Hashable, Sendable {
    /// The field's place in `allCases` (a table of stamps is indexed by it).
    var stampIndex: Int { get }
    /// `allCases.count`, kept: `allCases` makes an array at every use, and a table of stamps
    /// is made for every row read.
    static var fieldCount: Int { get }
}

extension ItemField: StampedField {
    public static let fieldCount = allCases.count

    public var stampIndex: Int {
        switch self {
        case .name: 0
        case .amount: 1
        case .section: 2
        case .checked: 3
        case .optional: 4
        case .sortOrder: 5
        }
    }
}

/// One stamp per field, and for each field the stamps of the values it superseded (its
/// `seen` history, newest first, at most `historyLimit`). A zero stamp means "never stamped"
/// (written by a writer that keeps no stamps, or read from a version-1 file).
///
/// The history is what tells an overwrite from a conflict (docs/sync.md, "The merge
/// contract"): a value whose stamp is in the other value's history was seen by that value's
/// author and replaced knowingly; two values neither of which saw the other are concurrent,
/// and the one that loses is recorded.
public struct StampTable<Field: StampedField>: Hashable, Sendable {
    // Inlinable storage: the codec (another module) builds a table per row it reads, and
    // unspecialized across modules each one would look up generic metadata.
    @usableFromInline var values: [Stamp]
    /// Per field; empty (no array per field) until a field remembers a superseded stamp:
    /// most rows never do, and a table is built for every row read.
    @usableFromInline var histories: [[Stamp]]

    /// How many superseded stamps a field remembers. A value older than that many edits on
    /// the other side is no longer known to have been seen: merging it records a conflict
    /// (a review too many, never a value lost in silence).
    public static var historyLimit: Int { 8 }

    @inlinable
    public init(all stamp: Stamp = .zero) {
        values = Array(repeating: stamp, count: Field.fieldCount)
        histories = []
    }

    /// No stamps at all: the unused table of a row still in its file's bytes (no allocation).
    init(unfilled: ()) {
        values = []
        histories = []
    }

    /// A table of these stamps, one per field in `allCases` order, no history (the codec
    /// builds one per row read: no table of zeros written over field by field).
    @inlinable
    public init(stamps: [Stamp]) {
        precondition(stamps.count == Field.fieldCount, "one stamp per field")
        values = stamps
        histories = []
    }

    /// Equal when the stamps and what each field superseded are: no histories at all equals
    /// a history per field with nothing in it.
    public static func == (a: StampTable, b: StampTable) -> Bool {
        a.values == b.values && (a.histories == b.histories || a.hasNoHistory && b.hasNoHistory)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(values)
        if !hasNoHistory { hasher.combine(histories) }
    }

    @inlinable
    public subscript(field: Field) -> Stamp {
        get { values[field.stampIndex] }
        set { values[field.stampIndex] = newValue }
    }

    /// The stamps of the values this field's value superseded, newest first.
    @inlinable
    public func seen(_ field: Field) -> [Stamp] { histories.isEmpty ? [] : histories[field.stampIndex] }

    public mutating func setSeen(_ field: Field, _ stamps: [Stamp]) {
        let trimmed = Self.trimmedHistory(stamps)
        if histories.isEmpty {
            if trimmed.isEmpty { return }
            histories = Array(repeating: [], count: Field.fieldCount)
        }
        histories[field.stampIndex] = trimmed
    }

    /// Replaces the field's stamp with `stamp`, remembering the one it supersedes.
    public mutating func supersede(_ field: Field, with stamp: Stamp) {
        let at = field.stampIndex
        let old = values[at]
        if !old.isZero { setSeen(field, [old] + seen(field)) }
        values[at] = stamp
    }

    /// True when the field's value was written by someone who had seen the value stamped
    /// `stamp`: it is that value, or superseded it. An unstamped value (the oldest truth) is
    /// seen by every stamped one.
    public func hasSeen(_ field: Field, _ stamp: Stamp) -> Bool {
        let at = field.stampIndex
        return values[at] == stamp || stamp.isZero || !histories.isEmpty && histories[at].contains(stamp)
    }

    /// The newest stamp of any field.
    @inlinable
    public var newest: Stamp { values.max() ?? .zero }

    /// The stamps alone, no field remembering what it superseded.
    public var withoutHistory: StampTable {
        guard !hasNoHistory else { return self }
        var copy = self
        copy.histories = []
        return copy
    }

    /// True when no field remembers a superseded stamp.
    public var hasNoHistory: Bool { histories.allSatisfy(\.isEmpty) }

    /// Newest first, without repeats or zero stamps, at most `historyLimit`. The oldest stamp
    /// is always kept: it is the record's creation (`created`), which judging a stampless save
    /// reads as evidence of what that save saw (rule 5).
    static func trimmedHistory(_ stamps: [Stamp]) -> [Stamp] {
        var unique: [Stamp] = []
        for stamp in stamps.sorted(by: >) where !stamp.isZero && unique.last != stamp { unique.append(stamp) }
        guard unique.count > historyLimit else { return unique }
        return Array(unique.prefix(historyLimit - 1)) + [unique.last!]
    }

    /// The stamp that created the record: its oldest stamp (an insert stamps every field, and a
    /// field's history keeps its oldest stamp). Zero for a record no one stamped.
    public var created: Stamp {
        var oldest = Stamp.zero
        for stamp in values where !stamp.isZero && (oldest.isZero || stamp < oldest) { oldest = stamp }
        for history in histories { if let last = history.last, oldest.isZero || last < oldest { oldest = last } }
        return oldest
    }
}

/// One stamp per item field.
public typealias ItemStamps = StampTable<ItemField>

/// The value of one field, for edits that name a field.
public enum FieldValue: Hashable, Sendable, CustomStringConvertible {
    case text(String)
    case flag(Bool)
    case order(Double)

    public var description: String {
        switch self {
        case .text(let s): s
        case .flag(let b): b ? "true" : "false"
        case .order(let d): String(d)
        }
    }
}

/// Where rows still in a file's bytes are read from: the codec, which found them in the
/// shape it writes (docs/architecture.md, "Rows read on demand").
public protocol EncodedRows: AnyObject, Sendable {
    /// The whole row, decoded (an item in its ordinary storage).
    func item(_ row: EncodedRow) -> Item
    /// The row's newest stamp.
    func newestStamp(_ row: EncodedRow) -> Stamp
    /// The newest stamp of every row left in these bytes.
    var newestStampOfAllRows: Stamp { get }
}

/// Where a row lies in the bytes of the file it was read from.
public struct EncodedRow: Sendable {
    public var bytes: Range<Int32>
    /// Its newest stamp's text (empty: no field is stamped).
    public var newestStamp: Range<Int32>

    public init(bytes: Range<Int32>, newestStamp: Range<Int32>) {
        self.bytes = bytes
        self.newestStamp = newestStamp
    }
}

/// One row of the shopping list.
///
/// A value with its fields in one shared, copy-on-write box: copying an item (into a
/// dictionary, a merged list, a sorted array) is one retain, and two copies of the same
/// unchanged row compare equal at once. Merging, encoding and rendering a 10,000-item list
/// compare and copy every row (docs/performance.md).
public struct Item: Hashable, Sendable, Identifiable {
    private class Storage: @unchecked Sendable {  // mutated only while uniquely referenced
        final var id: String
        final var name: String
        final var amount: String
        final var section: String
        final var checked: Bool
        final var optional: Bool
        final var sortOrder: Double
        var lastModified: String?
        var stamps: ItemStamps
        var extra: [String: JSONValue]
        /// Still in its file's bytes (`EncodedStorage`): never written to; a change copies it.
        let isEncoded: Bool

        init(id: String, name: String, amount: String, section: String, checked: Bool, optional: Bool,
             sortOrder: Double, lastModified: String?, stamps: ItemStamps, extra: [String: JSONValue], isEncoded: Bool = false) {
            self.id = id
            self.name = name
            self.amount = amount
            self.section = section
            self.checked = checked
            self.optional = optional
            self.sortOrder = sortOrder
            self.lastModified = lastModified
            self.stamps = stamps
            self.extra = extra
            self.isEncoded = isEncoded
        }

        func copy() -> Storage {
            let copy = Storage(id: id, name: name, amount: amount, section: section, checked: checked, optional: optional,
                               sortOrder: sortOrder, lastModified: lastModified, stamps: stamps, extra: extra)
            return copy
        }

        var newestStamp: Stamp { stamps.newest }
    }

    /// A row read from a file the codec keeps (`EncodedRows`): its texts, flags and order read
    /// at once, its stamps and date (most of the work of reading a row) decoded the first time
    /// they are asked for, and kept. A whole-process command asks for them of very few rows.
    private final class EncodedStorage: Storage, @unchecked Sendable {  // immutable but for `decoded`, set once
        let file: any EncodedRows
        let row: EncodedRow
        let decoded = AtomicLazyReference<Storage>()

        init(id: String, name: String, amount: String, section: String, checked: Bool, optional: Bool, sortOrder: Double,
             row: EncodedRow, in file: any EncodedRows) {
            self.file = file
            self.row = row
            super.init(id: id, name: name, amount: amount, section: section, checked: checked, optional: optional, sortOrder: sortOrder,
                       lastModified: nil, stamps: ItemStamps(unfilled: ()), extra: [:], isEncoded: true)
        }

        /// The whole row, decoded once.
        var whole: Storage {
            if let done = decoded.load() { return done }
            return decoded.storeIfNil(file.item(row).storage)
        }

        override var lastModified: String? {
            get { whole.lastModified }
            set { preconditionFailure("an encoded row is copied before it changes") }
        }
        override var stamps: ItemStamps {
            get { whole.stamps }
            set { preconditionFailure("an encoded row is copied before it changes") }
        }
        override var extra: [String: JSONValue] {
            get { whole.extra }
            set { preconditionFailure("an encoded row is copied before it changes") }
        }
        override func copy() -> Storage { whole.copy() }
        override var newestStamp: Stamp { file.newestStamp(row) }
    }

    private var storage: Storage

    private mutating func unique() -> Storage {
        if storage.isEncoded || !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// A UUID in upper case (Get Bananas writes them that way); never changes.
    public var id: String {
        get { storage.id }
        set { unique().id = newValue }
    }
    public var name: String {
        get { storage.name }
        set { unique().name = newValue }
    }
    public var amount: String {
        get { storage.amount }
        set { unique().amount = newValue }
    }
    public var section: String {
        get { storage.section }
        set { unique().section = newValue }
    }
    public var checked: Bool {
        get { storage.checked }
        set { unique().checked = newValue }
    }
    public var optional: Bool {
        get { storage.optional }
        set { unique().optional = newValue }
    }
    /// Position among the items of the list; ties sort by id.
    public var sortOrder: Double {
        get { storage.sortOrder }
        set { unique().sortOrder = newValue }
    }
    /// When the row last changed, as the ISO 8601 text written in the file.
    public var lastModified: String? {
        get { storage.lastModified }
        set { unique().lastModified = newValue }
        _modify { yield &unique().lastModified }
    }
    public var stamps: ItemStamps {
        get { storage.stamps }
        set { unique().stamps = newValue }
        _modify { yield &unique().stamps }
    }
    /// Keys of this row we do not understand, kept so a rewrite never drops them.
    public var extra: [String: JSONValue] {
        get { storage.extra }
        set { unique().extra = newValue }
        _modify { yield &unique().extra }
    }

    public init(
        id: String, name: String, amount: String = "", section: String = "",
        checked: Bool = false, optional: Bool = false, sortOrder: Double = 0,
        lastModified: String? = nil, stamps: ItemStamps = ItemStamps(), extra: [String: JSONValue] = [:]
    ) {
        storage = Storage(id: id, name: name, amount: amount, section: section, checked: checked, optional: optional,
                          sortOrder: sortOrder, lastModified: lastModified, stamps: stamps, extra: extra)
    }

    /// A row still in the bytes of a file `file` read (`EncodedRows`): its stamps and date
    /// are read from there when asked for.
    public init(id: String, name: String, amount: String, section: String, checked: Bool, optional: Bool, sortOrder: Double,
                encoded row: EncodedRow, in file: any EncodedRows) {
        storage = EncodedStorage(id: id, name: name, amount: amount, section: section, checked: checked, optional: optional,
                                 sortOrder: sortOrder, row: row, in: file)
    }

    /// The newest stamp of any field (`stamps.newest`), read without decoding a row still in
    /// its file's bytes.
    public var newestStamp: Stamp { storage.newestStamp }

    /// True while the row is still in the bytes of the file it was read from.
    public var isEncoded: Bool { storage.isEncoded }

    /// The bytes the row is still in, if it is.
    public var encodedRows: (any EncodedRows)? {
        storage.isEncoded ? unsafeDowncast(storage, to: EncodedStorage.self).file : nil
    }

    /// True when both are the same unchanged copy (no field compared).
    public func isSameCopy(as other: Item) -> Bool { storage === other.storage }

    public static func == (a: Item, b: Item) -> Bool {
        if a.storage === b.storage { return true }
        let x = a.storage, y = b.storage
        return x.id == y.id && x.name == y.name && x.amount == y.amount && x.section == y.section
            && x.checked == y.checked && x.optional == y.optional && x.sortOrder == y.sortOrder
            && x.lastModified == y.lastModified && x.stamps == y.stamps && x.extra == y.extra
    }

    public func hash(into hasher: inout Hasher) {
        let x = storage
        hasher.combine(x.id); hasher.combine(x.name); hasher.combine(x.amount); hasher.combine(x.section)
        hasher.combine(x.checked); hasher.combine(x.optional); hasher.combine(x.sortOrder)
        hasher.combine(x.lastModified); hasher.combine(x.stamps); hasher.combine(x.extra)
    }

    public subscript(field: ItemField) -> FieldValue {
        get {
            switch field {
            case .name: .text(name)
            case .amount: .text(amount)
            case .section: .text(section)
            case .checked: .flag(checked)
            case .optional: .flag(optional)
            case .sortOrder: .order(sortOrder)
            }
        }
        set {
            switch (field, newValue) {
            case (.name, .text(let s)): name = s
            case (.amount, .text(let s)): amount = s
            case (.section, .text(let s)): section = s
            case (.checked, .flag(let b)): checked = b
            case (.optional, .flag(let b)): optional = b
            case (.sortOrder, .order(let d)): sortOrder = d
            default: preconditionFailure("value \(newValue) does not fit field \(field)")
            }
        }
    }

    /// The order items are listed in: by sortOrder, ties by id.
    public static func listOrder(_ a: Item, _ b: Item) -> Bool {
        a.sortOrder != b.sortOrder ? a.sortOrder < b.sortOrder : a.id.precedesInTextOrder(b.id)
    }
}
