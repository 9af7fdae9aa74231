import Synchronization

/// Every row of a list by id (`ShoppingList.rows`).
///
/// Usually a dictionary. A whole-process command reads its file with the rows left in the
/// bytes (`FileRowTable`): its table is then the file's rows, less those replaced or removed
/// since (a bit per row), plus a small dictionary of the rows added or replaced. A rule that
/// looks at a few fields of every row walks them in place (`forEachRow`), an edit touches
/// one row, and a write finds the rows that changed from the overlay alone; anything else
/// reads the rows as it would a dictionary's (docs/architecture.md, "Rows read on demand").
public struct RowTable: Sendable {
    /// Every row (no file), or the rows added or replaced since the file was read.
    private(set) var changed: [String: Item]
    /// The file's rows, when the table was read with them left in its bytes.
    private(set) var file: FileRowTable?
    /// A bit per row of `file` that `changed` replaces or that was removed (empty: none).
    private var masked: [UInt64] = []
    private var maskedCount = 0

    public init() { changed = [:] }

    public init(_ rows: [String: Item]) { changed = rows }

    public init(file: FileRowTable) {
        changed = [:]
        self.file = file
    }

    /// The file's rows, when the table was read with them left in its bytes.
    public var fileRows: FileRowTable? { file }

    /// The rows as a dictionary (built, for a table still in a file's bytes).
    public var dictionary: [String: Item] {
        guard file != nil else { return changed }
        var all: [String: Item] = [:]
        all.reserveCapacity(count)
        for (id, row) in self { all[id] = row }
        return all
    }

    public var count: Int { (file?.count ?? 0) - maskedCount + changed.count }
    public var isEmpty: Bool { count == 0 }

    private func isMasked(_ index: Int) -> Bool {
        !masked.isEmpty && masked[index >> 6] & (1 << UInt64(index & 63)) != 0
    }

    private mutating func mask(_ index: Int) {
        guard !isMasked(index), let file else { return }
        if masked.isEmpty { masked = Array(repeating: 0, count: (file.count + 63) >> 6) }
        masked[index >> 6] |= 1 << UInt64(index & 63)
        maskedCount += 1
    }

    public subscript(id: String) -> Item? {
        get {
            if let row = changed[id] { return row }
            guard let file, let index = file.index(of: id), !isMasked(index) else { return nil }
            return file.item(at: index)
        }
        set {
            if let file, changed[id] == nil, let index = file.index(of: id) { mask(index) }
            changed[id] = newValue
        }
    }

    @discardableResult
    public mutating func updateValue(_ row: Item, forKey id: String) -> Item? {
        let old = self[id]
        self[id] = row
        return old
    }

    @discardableResult
    public mutating func removeValue(forKey id: String) -> Item? {
        let old = self[id]
        if old != nil { self[id] = nil }
        return old
    }

    /// Calls `body` with every row, in no particular order, its fields read in place where the
    /// row is still in a file's bytes (`RowView.item` reads the whole row).
    public func forEachRow(_ body: (RowView) throws -> Void) rethrows {
        if let file {
            for index in 0..<file.count where !isMasked(index) {
                let whole = file.records[index].whole
                try body(whole >= 0 ? RowView(file.wholeRows[Int(whole)]) : RowView(file: file, index: index))
            }
        }
        for row in changed.values { try body(RowView(row)) }
    }

    /// The newest stamp of any row. Rows still in a file's bytes count as the newest stamp
    /// of any row of that file (read once per file): a stamp the list's holder has seen, which
    /// is all a clock needs.
    public var newestStamp: Stamp {
        var newest = Stamp.zero
        var files: [ObjectIdentifier] = []  // nearly always one
        func note(_ row: Item) {
            if let source = row.encodedRows {
                let id = ObjectIdentifier(source)
                if !files.contains(id) {
                    files.append(id)
                    newest = Swift.max(newest, source.newestStampOfAllRows)
                }
            } else {
                newest = Swift.max(newest, row.newestStamp)
            }
        }
        if let file {
            if file.hasEncodedRows {
                files.append(ObjectIdentifier(file.source))
                newest = file.source.newestStampOfAllRows
            }
            for row in file.wholeRows { note(row) }
        }
        for row in changed.values { note(row) }
        return newest
    }

    /// The highest sortOrder of any row (nil: no rows).
    public var highestSortOrder: Double? {
        var highest: Double?
        forEachRow { row in
            let order = row.sortOrder
            if highest.map({ order > $0 }) ?? true { highest = order }
        }
        return highest
    }

    // MARK: Tables compared

    /// True when both are one table: a copy of the other not written to since (equal
    /// references are one storage). Then no row differs, and none need be looked at. False
    /// says nothing: two tables may hold equal rows.
    static func isSameTable(_ a: RowTable, _ b: RowTable) -> Bool {
        guard a.file === b.file, a.maskedCount == b.maskedCount else { return false }
        func sameStorage<T>(_ x: T, _ y: T) -> Bool { withUnsafeBytes(of: x) { p in withUnsafeBytes(of: y) { q in p.elementsEqual(q) } } }
        return sameStorage(a.changed, b.changed) && sameStorage(a.masked, b.masked)
    }

    /// For two tables of one file: the ids that may differ (rows masked on either side, rows
    /// either side added or replaced); nil for tables not of one file.
    private static func overlayIDs(_ a: RowTable, _ b: RowTable) -> [String]? {
        guard let file = a.file, file === b.file else { return nil }
        var ids = Set<String>(a.changed.keys)
        ids.formUnion(b.changed.keys)
        for word in 0..<Swift.max(a.masked.count, b.masked.count) {
            var bits = (word < a.masked.count ? a.masked[word] : 0) | (word < b.masked.count ? b.masked[word] : 0)
            while bits != 0 {
                ids.insert(file.id(at: word << 6 + bits.trailingZeroBitCount))
                bits &= bits - 1
            }
        }
        return Array(ids)
    }

    /// The ids of rows that differ between two tables holding the same ids, found without a
    /// look at every row where the tables pair up (dictionaries whose buckets line up, or two
    /// tables of one file). `equalCopies` lists rows equal but not the same box. Nil when the
    /// tables do not pair up (the caller then compares by lookups), or hold different ids.
    static func differingRowIDs(_ a: RowTable, _ b: RowTable, equalCopies: inout [String]) -> [String]? {
        guard a.count == b.count else { return nil }
        if isSameTable(a, b) { return [] }
        if a.file == nil && b.file == nil { return differingRowIDs(a.changed, b.changed, equalCopies: &equalCopies) }
        guard let candidates = overlayIDs(a, b) else { return nil }
        var ids: [String] = []
        for id in candidates {
            let left = a[id], right = b[id]
            guard let left, let right else {
                if left == nil && right == nil { continue }
                return nil
            }
            if left.isSameCopy(as: right) { continue }
            if left == right { equalCopies.append(id) } else { ids.append(id) }
        }
        return ids
    }

    /// `differingRowIDs` for a table that may also hold rows `b` lacks (an add put them in):
    /// those are listed in `added`. Nil when the tables do not pair up, or `b` holds a row
    /// `a` lacks.
    static func differingRowIDs(_ a: RowTable, _ b: RowTable, added: inout [String]) -> [String]? {
        guard a.count >= b.count else { return nil }
        if a.count == b.count {
            var copies: [String] = []
            return differingRowIDs(a, b, equalCopies: &copies)
        }
        if a.file == nil && b.file == nil { return differingRowIDs(a.changed, b.changed, added: &added) }
        guard let candidates = overlayIDs(a, b) else { return nil }
        var ids: [String] = []
        for id in candidates {
            let left = a[id], right = b[id]
            switch (left, right) {
            case (nil, nil): continue
            case (nil, _?): return nil
            case (_?, nil): added.append(id)
            case (let left?, let right?): if !left.isSameCopy(as: right) && left != right { ids.append(id) }
            }
        }
        guard added.count == a.count - b.count else { return nil }
        return ids
    }

    /// `differingRowIDs` of two dictionaries: walked side by side, bucket by bucket; nil as
    /// soon as a key is out of step.
    static func differingRowIDs(_ rows: [String: Item], _ other: [String: Item], equalCopies: inout [String]) -> [String]? {
        guard rows.count == other.count else { return nil }
        if withUnsafeBytes(of: rows, { x in withUnsafeBytes(of: other) { y in x.elementsEqual(y) } }) { return [] }
        var ids: [String] = []
        var left = rows.makeIterator(), right = other.makeIterator()
        while let (id, item) = left.next() {
            guard let (otherID, otherItem) = right.next(), id == otherID else { return nil }
            if item.isSameCopy(as: otherItem) { continue }
            if item == otherItem { equalCopies.append(id) } else { ids.append(id) }
        }
        return ids
    }

    /// `differingRowIDs(_:_:added:)` of two dictionaries. A key out of step with `other`'s is
    /// looked up, so the answer is right however the tables lie.
    static func differingRowIDs(_ rows: [String: Item], _ other: [String: Item], added: inout [String]) -> [String]? {
        guard rows.count > other.count else { return nil }
        var ids: [String] = []
        // The other table's place by index, not an element held across steps: a row held
        // in a variable is retained and released at every step, a write to each row's box
        // (ten times the instructions of the walk itself, and a cache miss per row).
        var next = other.startIndex
        for (id, item) in rows {
            if next != other.endIndex {
                let (otherID, otherItem) = other[next]
                if id == otherID {
                    if !item.isSameCopy(as: otherItem) && item != otherItem { ids.append(id) }
                    next = other.index(after: next)
                    continue
                }
            }
            guard other[id] == nil, added.count < rows.count - other.count else { return nil }
            added.append(id)
        }
        guard next == other.endIndex, added.count == rows.count - other.count else { return nil }
        return ids
    }
}

extension RowTable: Sequence {
    public struct Iterator: IteratorProtocol {
        private let table: RowTable
        private var index = 0
        private var changed: Dictionary<String, Item>.Iterator

        init(_ table: RowTable) {
            self.table = table
            changed = table.changed.makeIterator()
        }

        public mutating func next() -> (key: String, value: Item)? {
            if let file = table.file {
                while index < file.count {
                    let at = index
                    index += 1
                    if !table.isMasked(at) {
                        let row = file.item(at: at)
                        return (row.id, row)
                    }
                }
            }
            return changed.next()
        }
    }

    public func makeIterator() -> Iterator { Iterator(self) }

    public var underestimatedCount: Int { count }

    /// The rows, in no particular order.
    public var values: LazyMapSequence<RowTable, Item> { lazy.map(\.value) }
    /// The ids, in no particular order.
    public var keys: LazyMapSequence<RowTable, String> { lazy.map(\.key) }
}

extension RowTable: Hashable {
    /// The same rows under the same ids; tables that pair up are compared by their
    /// differing rows alone.
    public static func == (a: RowTable, b: RowTable) -> Bool {
        var copies: [String] = []
        if let ids = differingRowIDs(a, b, equalCopies: &copies) { return ids.isEmpty }
        guard a.count == b.count else { return false }
        if a.file == nil && b.file == nil { return a.changed == b.changed }
        for (id, row) in a {
            guard let other = b[id], row.isSameCopy(as: other) || row == other else { return false }
        }
        return true
    }

    /// Independent of order and of how the table is held, as `==` is.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for (id, row) in self {
            var element = Hasher()
            element.combine(id)
            element.combine(row)
            combined ^= element.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

/// A text a walk compares every row's with (`RowView`), its UTF-8 looked at once.
public struct TextQuery: Sendable {
    public let text: String
    let utf8: [UInt8]
    let isASCII: Bool

    public init(_ text: String) {
        self.text = text
        utf8 = Array(text.utf8)
        isASCII = utf8.allSatisfy { $0 < 0x80 }
    }
}

/// One row as a walk over every row sees it (`RowTable.forEachRow`): the fields a rule asks
/// of every row, read in place from a file's bytes when the row is still there.
public struct RowView {
    private let file: FileRowTable?
    private let index: Int
    private let row: Item?

    init(_ row: Item) {
        self.row = row
        file = nil
        index = 0
    }

    // A view is small (the table and an index): one holding its row's record was copied
    // at every step of a walk, which cost more than reading the record's fields in place.
    init(file: FileRowTable, index: Int) {
        self.file = file
        self.index = index
        row = nil
    }

    private var record: FileRowTable.Record { file!.records[index] }

    /// The whole row.
    public var item: Item { row ?? file!.item(at: index) }
    public var id: String { row?.id ?? file!.id(at: index) }
    /// The id's length in UTF-8 bytes.
    public var idCount: Int { row?.id.utf8.count ?? record.id.count }
    public var name: String { row?.name ?? file!.name(at: index) }
    public var section: String { row?.section ?? file!.section(at: index) }
    public var sortOrder: Double { row?.sortOrder ?? record.sortOrder }

    /// `name.lowercasedEquals(folded.text)`, the name's bytes compared in place when both
    /// are ASCII.
    public func name(lowercasedEquals folded: TextQuery) -> Bool {
        guard let file else { return row!.name.lowercasedEquals(folded.text) }
        return file.text(record.name, ascii: record.asciiTexts & FileRowTable.Record.nameIsASCII != 0, lowercasedEquals: folded)
    }

    /// `section.lowercasedEquals(folded.text)`, compared in place as `name(lowercasedEquals:)` is.
    public func section(lowercasedEquals folded: TextQuery) -> Bool {
        guard let file else { return row!.section.lowercasedEquals(folded.text) }
        return file.text(record.section, ascii: record.asciiTexts & FileRowTable.Record.sectionIsASCII != 0, lowercasedEquals: folded)
    }

    /// `section == name.text`, compared in place.
    public func section(is name: TextQuery) -> Bool {
        guard let file else { return row!.section == name.text }
        return file.text(record.section, ascii: record.asciiTexts & FileRowTable.Record.sectionIsASCII != 0, is: name)
    }
    public var checked: Bool { row?.checked ?? record.checked }
}

/// The rows of one file as read, left in its bytes: what the codec found of each row in the
/// shape it writes (where its texts lie, its flags and order), and the rows it read in full.
/// Built by `FileRowTable.Builder`; never changed after. A row's `Item` is made the first
/// time it is asked for, and kept, so every caller holds the same box.
public final class FileRowTable: Sendable {
    /// A row in the shape the codec writes: where its texts lie in the bytes (ids in upper
    /// case, texts valid UTF-8 without escapes), its flags and order, its place for the
    /// reader of the whole row (`EncodedRows`).
    public struct Record: Sendable {
        public var id: Range<Int32>
        public var name: Range<Int32>
        public var amount: Range<Int32>
        public var section: Range<Int32>
        public var sortOrder: Double
        public var checked: Bool
        public var optional: Bool
        /// Which texts are all ASCII (`nameIsASCII`, `sectionIsASCII`).
        public var asciiTexts: UInt8
        /// `FileRowTable.idHash` of the id's bytes.
        public var idHash: UInt64
        /// Index into `wholeRows` for a row read in full (the other fields unused), else -1.
        var whole: Int32
        public var row: EncodedRow

        public static let nameIsASCII: UInt8 = 1
        public static let sectionIsASCII: UInt8 = 2

        public init(id: Range<Int32>, name: Range<Int32>, amount: Range<Int32>, section: Range<Int32>, sortOrder: Double,
                    checked: Bool, optional: Bool, asciiTexts: UInt8, idHash: UInt64, row: EncodedRow) {
            self.asciiTexts = asciiTexts
            self.idHash = idHash
            self.id = id
            self.name = name
            self.amount = amount
            self.section = section
            self.sortOrder = sortOrder
            self.checked = checked
            self.optional = optional
            self.row = row
            whole = -1
        }

        init(whole index: Int, sortOrder: Double) {
            id = 0..<0
            name = 0..<0
            amount = 0..<0
            section = 0..<0
            self.sortOrder = sortOrder
            checked = false
            optional = false
            asciiTexts = 0
            idHash = 0
            row = EncodedRow(bytes: 0..<0, newestStamp: 0..<0)
            whole = Int32(index)
        }
    }

    let bytes: [UInt8]
    /// Reads a whole row, and knows the newest stamp of every row left in the bytes.
    let source: any EncodedRows
    /// Every row in file order.
    let records: [Record]
    /// The rows read in full.
    let wholeRows: [Item]
    /// Open addressing over the ids (`Slots`).
    private let slots: [UInt64]
    /// Each row's item, made when first asked for.
    private let made: Mutex<[Item?]>

    public var count: Int { records.count }
    /// True when some row is still in the bytes.
    var hasEncodedRows: Bool { records.count > wholeRows.count }

    fileprivate init(_ builder: Builder) {
        bytes = builder.bytes
        source = builder.source
        records = builder.records
        wholeRows = builder.wholeRows
        slots = builder.slots
        made = Mutex([])
    }

    /// The index of the row with this id.
    public func index(of id: String) -> Int? {
        var id = id
        return id.withUTF8 { id in
            Slots.find(Self.idHash(id), in: slots) { Self.idMatches(records[$0], id, bytes: bytes, wholeRows: wholeRows) }
        }
    }

    public func id(at index: Int) -> String {
        let record = records[index]
        if record.whole >= 0 { return wholeRows[Int(record.whole)].id }
        return string(record.id)
    }

    func name(at index: Int) -> String {
        let record = records[index]
        return record.whole >= 0 ? wholeRows[Int(record.whole)].name : string(record.name)
    }

    func section(at index: Int) -> String {
        let record = records[index]
        return record.whole >= 0 ? wholeRows[Int(record.whole)].section : string(record.section)
    }

    /// The row's item: the same box at every call.
    public func item(at index: Int) -> Item {
        let record = records[index]
        if record.whole >= 0 { return wholeRows[Int(record.whole)] }
        if let known = made.withLock({ $0.isEmpty ? nil : $0[index] }) { return known }
        let item = Item(id: string(record.id), name: string(record.name), amount: string(record.amount), section: string(record.section),
                        checked: record.checked, optional: record.optional, sortOrder: record.sortOrder, encoded: record.row, in: source)
        return made.withLock { made in
            if made.isEmpty { made = Array(repeating: nil, count: records.count) }
            if let known = made[index] { return known }
            made[index] = item
            return item
        }
    }

    /// For a row still in the bytes: `text.lowercasedEquals(folded.text)` of one of its texts,
    /// on the bytes when both are ASCII (`ascii`: the row's text is).
    func text(_ range: Range<Int32>, ascii: Bool, lowercasedEquals folded: TextQuery) -> Bool {
        guard ascii, folded.isASCII else { return string(range).lowercasedEquals(folded.text) }
        guard range.count == folded.utf8.count else { return false }
        return bytes.withUnsafeBufferPointer { bytes in
            folded.utf8.withUnsafeBufferPointer { String.asciiLowercasedEquals(UnsafeBufferPointer(rebasing: bytes[Int(range.lowerBound)..<Int(range.upperBound)]), $0) }
        } ?? false
    }

    /// For a row still in the bytes: whether one of its texts is `text.text`; ASCII texts are
    /// the same text when their bytes are.
    func text(_ range: Range<Int32>, ascii: Bool, is text: TextQuery) -> Bool {
        guard ascii, text.isASCII else { return string(range) == text.text }
        guard range.count == text.utf8.count else { return false }
        return bytes.withUnsafeBufferPointer { bytes in
            text.utf8.withUnsafeBufferPointer { UnsafeBufferPointer(rebasing: bytes[Int(range.lowerBound)..<Int(range.upperBound)]).elementsEqual($0) }
        }
    }

    private func string(_ range: Range<Int32>) -> String {
        if range.isEmpty { return "" }
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[Int(range.lowerBound)..<Int(range.upperBound)]), as: UTF8.self) }
    }

    fileprivate static func idMatches(_ record: Record, _ id: UnsafeBufferPointer<UInt8>, bytes: [UInt8], wholeRows: [Item]) -> Bool {
        if record.whole >= 0 {
            var own = wholeRows[Int(record.whole)].id
            return own.withUTF8 { $0.elementsEqual(id) }
        }
        guard record.id.count == id.count else { return false }
        return bytes.withUnsafeBufferPointer { $0[Int(record.id.lowerBound)..<Int(record.id.upperBound)].elementsEqual(id) }
    }

    /// A hash of an id's bytes (FNV-1a, eight bytes at a time), for `Record.idHash`.
    public static func idHash(_ id: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        var i = 0
        let base = UnsafeRawPointer(id.baseAddress)
        while i + 8 <= id.count {
            h = (h ^ base!.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x100_0000_01b3
            h ^= h >> 29
            i += 8
        }
        while i < id.count {
            h = (h ^ UInt64(id[i])) &* 0x100_0000_01b3
            i += 1
        }
        return h ^ (h >> 32)
    }

    /// Open addressing with linear probing: a slot holds a record's index plus one (zero:
    /// empty) and the top half of its id's hash, so that most probes never look at a record.
    fileprivate enum Slots {
        static func value(index: Int, hash: UInt64) -> UInt64 { hash & 0xFFFF_FFFF_0000_0000 | UInt64(index + 1) }

        /// The index of the record `matches` accepts among those whose id hashes to `hash`.
        static func find(_ hash: UInt64, in slots: [UInt64], matches: (Int) -> Bool) -> Int? {
            probe(hash, in: slots, matches: matches).found
        }

        /// The record found, or the empty slot where it would go.
        static func probe(_ hash: UInt64, in slots: [UInt64], matches: (Int) -> Bool) -> (slot: Int, found: Int?) {
            guard !slots.isEmpty else { return (0, nil) }
            let mask = slots.count - 1, tag = hash & 0xFFFF_FFFF_0000_0000
            var at = Int(truncatingIfNeeded: hash) & mask
            while true {
                let value = slots[at]
                if value == 0 { return (at, nil) }
                if value & 0xFFFF_FFFF_0000_0000 == tag, matches(Int(value & 0xFFFF_FFFF) - 1) { return (at, Int(value & 0xFFFF_FFFF) - 1) }
                at = (at + 1) & mask
            }
        }
    }

    /// Collects a file's rows as the codec reads them, each id once.
    public struct Builder {
        fileprivate let bytes: [UInt8]
        fileprivate let source: any EncodedRows
        fileprivate var records: [Record] = []
        fileprivate var wholeRows: [Item] = []
        fileprivate var slots: [UInt64]
        /// Each record's id hash, for growing the slots.
        private var hashes: [UInt64] = []

        /// `rows`: about as many rows as the file may hold.
        public init(bytes: [UInt8], source: any EncodedRows, rows: Int) {
            self.bytes = bytes
            self.source = source
            records.reserveCapacity(rows)
            hashes.reserveCapacity(rows)
            var size = 16
            while size < rows * 2 { size <<= 1 }
            slots = Array(repeating: 0, count: size)
        }

        public var count: Int { records.count }

        /// True when a row with this id was added.
        public func contains(_ id: String) -> Bool {
            var id = id
            return id.withUTF8 { slot(for: $0, hash: FileRowTable.idHash($0)).found != nil }
        }

        /// Adds a row in the shape the codec writes (its `idHash` taken while its bytes were
        /// at hand). False, adding nothing, when its id is taken.
        public mutating func append(_ record: Record) -> Bool {
            // The probe written out: this runs for every row of a command's file.
            let hash = record.idHash, tag = hash & 0xFFFF_FFFF_0000_0000, mask = slots.count - 1
            var at = Int(truncatingIfNeeded: hash) & mask
            while case let value = slots[at], value != 0 {
                if value & 0xFFFF_FFFF_0000_0000 == tag, hasID(of: record, at: Int(value & 0xFFFF_FFFF) - 1) { return false }
                at = (at + 1) & mask
            }
            insert(record, hash: hash, at: at)
            return true
        }

        /// Whether the record at `index` has `record`'s id.
        private func hasID(of record: Record, at index: Int) -> Bool {
            bytes.withUnsafeBufferPointer {
                FileRowTable.idMatches(records[index], UnsafeBufferPointer(rebasing: $0[Int(record.id.lowerBound)..<Int(record.id.upperBound)]),
                                       bytes: bytes, wholeRows: wholeRows)
            }
        }

        /// Adds a row read in full. False, adding nothing, when its id is taken.
        public mutating func append(_ item: Item) -> Bool {
            var id = item.id
            let hash = id.withUTF8 { FileRowTable.idHash($0) }
            let (at, found) = id.withUTF8 { slot(for: $0, hash: hash) }
            guard found == nil else { return false }
            wholeRows.append(item)
            insert(Record(whole: wholeRows.count - 1, sortOrder: item.sortOrder), hash: hash, at: at)
            return true
        }

        private mutating func insert(_ record: Record, hash: UInt64, at slot: Int) {
            slots[slot] = Slots.value(index: records.count, hash: hash)
            records.append(record)
            hashes.append(hash)
            if records.count * 2 > slots.count { grow() }
        }

        private mutating func grow() {
            var bigger = [UInt64](repeating: 0, count: slots.count * 2)
            let mask = bigger.count - 1
            for (index, hash) in hashes.enumerated() {
                var at = Int(truncatingIfNeeded: hash) & mask
                while bigger[at] != 0 { at = (at + 1) & mask }
                bigger[at] = Slots.value(index: index, hash: hash)
            }
            slots = bigger
        }

        /// Where this id is, or where it would go.
        private func slot(for id: UnsafeBufferPointer<UInt8>, hash: UInt64) -> (slot: Int, found: Int?) {
            Slots.probe(hash, in: slots) { FileRowTable.idMatches(records[$0], id, bytes: bytes, wholeRows: wholeRows) }
        }

        public func finish() -> FileRowTable { FileRowTable(self) }
    }
}
