import Synchronization

/// The whole list as one value: what the file holds, plus the bookkeeping that lets any
/// number of copies merge into the same result (stamps, tombstones, rows hidden by a delete).
public struct ShoppingList: Hashable, Sendable {
    /// Every section by key, removed ones too (rule 6). `sections` is derived from them.
    public internal(set) var sectionEntries: [String: SectionEntry] {
        didSet { derived = DerivedSections() }
    }
    /// The names of the sections not removed, in display order: what version-1 readers read.
    public var sections: [String] { derived.value(of: sectionEntries).names }
    /// True when some section's name is not its key (it was renamed): items' sections are
    /// then shown by name, not by key.
    public var hasRenamedSections: Bool { derived.value(of: sectionEntries).renamed }
    /// `sections` and `hasRenamedSections`, derived at their first read after a change of the
    /// entries: a save adding n sections changes them n times, and deriving (a sort) at each
    /// change made reading it quadratic.
    private var derived = DerivedSections()
    /// Every row we know, by id, including rows hidden by a tombstone: they are kept so that
    /// an edit concurrent with the delete can bring the whole row back, whatever the order
    /// copies are merged in. A row's `section` is its section's key. For a command, the rows
    /// may still be in the bytes of the file it read (`RowTable`).
    public internal(set) var rows: RowTable
    /// Deletes by id.
    public internal(set) var tombstones: [UInt64: Tombstone]
    /// Values that lost to concurrent edits, for review on every device.
    public internal(set) var conflicts: [ConflictRecord.Key: ConflictRecord]
    /// Per field, the older lost values folded together when more await review than a list
    /// keeps (`ConflictFold`): no record at or before a fold's newest value is kept beside it.
    public internal(set) var conflictFolds: [ConflictRecord.Subject: ConflictFold] = [:]
    /// The stamp of the bananas write that produced this state of the file (zero: none). A
    /// writer that keeps `sync` as it found it (the Node server) keeps it too, which tells its
    /// whole-list save of the latest file from a stale copy of an older one.
    public var writeMark: Stamp = .zero
    /// What is remembered of items beyond the rows (docs/memory.md).
    public internal(set) var memory = ItemMemory()
    /// Deleted items whose rows were let go of, by id, kept for "recently deleted".
    public var deletedItems: [String: DeletedItem] = [:]
    /// Top-level keys we do not understand, kept across a rewrite.
    public var extra: [String: JSONValue]
    /// Keys inside `sync` we do not understand.
    public var syncExtra: [String: JSONValue]
    /// Rows the decoder could not read (blank name, wrong types), kept verbatim and in place
    /// so a rewrite never drops or moves them, in the order they are written
    /// (`UnreadableRow.writeOrder`).
    public var unreadableRows: [UnreadableRow]

    /// Every field compared; the rows side by side where their tables pair up
    /// (`differingRowIDs`), which spares hashing every id when most rows are the same boxes.
    public static func == (a: ShoppingList, b: ShoppingList) -> Bool {
        guard a.sectionEntries == b.sectionEntries, a.tombstones == b.tombstones, a.conflicts == b.conflicts, a.conflictFolds == b.conflictFolds, a.writeMark == b.writeMark, a.memory == b.memory,
              a.deletedItems == b.deletedItems, a.extra == b.extra, a.syncExtra == b.syncExtra, a.unreadableRows == b.unreadableRows else { return false }
        return a.rows == b.rows
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(sectionEntries)
        hasher.combine(rows)
        hasher.combine(tombstones)
        hasher.combine(conflicts)
        hasher.combine(conflictFolds)
        hasher.combine(memory)
    }

    /// A list whose `sections` (in that order) were all written with `sectionsStamp` (a
    /// version-1 or version-2 file, or a test).
    public init(
        sections: [String] = [], sectionsStamp: Stamp = .zero, rows: [Item] = [],
        tombstones: [UInt64: Tombstone] = [:], extra: [String: JSONValue] = [:],
        syncExtra: [String: JSONValue] = [:], unreadableRows: [UnreadableRow] = []
    ) {
        self.init(sectionEntries: Self.entries(forNames: sections, stamp: sectionsStamp), rows: rows,
                  tombstones: tombstones, extra: extra, syncExtra: syncExtra, unreadableRows: unreadableRows)
    }

    public init(
        sectionEntries: [String: SectionEntry], rows: [Item] = [], tombstones: [UInt64: Tombstone] = [:],
        conflicts: [ConflictRecord] = [], conflictFolds: [ConflictFold] = [], memory: ItemMemory = ItemMemory(), extra: [String: JSONValue] = [:],
        syncExtra: [String: JSONValue] = [:], unreadableRows: [UnreadableRow] = []
    ) {
        self.init(sectionEntries: sectionEntries, rowsByID: RowTable(Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })),
                  tombstones: tombstones, conflicts: conflicts, conflictFolds: conflictFolds, memory: memory, extra: extra, syncExtra: syncExtra,
                  unreadableRows: unreadableRows)
    }

    /// The rows already in a table by id, each under its own id (the codec fills one as it
    /// reads: a second table of 10,000 rows was a tenth of a whole-process command).
    public init(
        sectionEntries: [String: SectionEntry], rowsByID: RowTable, tombstones: [UInt64: Tombstone] = [:],
        conflicts: [ConflictRecord] = [], conflictFolds: [ConflictFold] = [], memory: ItemMemory = ItemMemory(), extra: [String: JSONValue] = [:],
        syncExtra: [String: JSONValue] = [:], unreadableRows: [UnreadableRow] = []
    ) {
        self.sectionEntries = sectionEntries
        self.memory = memory
        self.rows = rowsByID
        self.tombstones = tombstones
        self.conflicts = Dictionary(conflicts.map { ($0.key, $0) }, uniquingKeysWith: { $0.merged(with: $1) })
        self.extra = extra
        self.syncExtra = syncExtra
        self.unreadableRows = unreadableRows.sorted(by: UnreadableRow.writeOrder)
        if !conflictFolds.isEmpty {
            self.conflictFolds = Dictionary(conflictFolds.map { ($0.subject, $0) }, uniquingKeysWith: { $0.merged(with: $1) })
            dropFoldedRecords()
        }
    }

    /// Sections for names in order, each stamped `stamp`, positions 1024 apart (a name twice
    /// is one section, where it first comes).
    public static func entries(forNames names: [String], stamp: Stamp) -> [String: SectionEntry] {
        var entries: [String: SectionEntry] = [:]
        for name in names where entries[name] == nil {
            entries[name] = SectionEntry(key: name, position: Double(entries.count + 1) * 1024, stamps: .init(all: stamp))
        }
        return entries
    }

    static func deriveSections(_ entries: [String: SectionEntry]) -> (names: [String], renamed: Bool) {
        // Small keys sorted, not whole entries (sorting the entries of 100 sections was a
        // tenth of a whole-process `add`).
        var shown: [(position: Double, key: String, name: String)] = []
        shown.reserveCapacity(entries.count)
        var renamed = false
        for entry in entries.values {
            if entry.name != entry.key { renamed = true }
            if !entry.removed { shown.append((entry.position, entry.key, entry.name)) }
        }
        shown.sort { SectionEntry.displayOrder(($0.position, $0.key), ($1.position, $1.key)) }
        var names: [String] = []
        names.reserveCapacity(shown.count)
        var seen = Set<String>(minimumCapacity: shown.count)
        for entry in shown where seen.insert(entry.name).inserted { names.append(entry.name) }
        return (names, renamed)
    }

    /// Replaces the section entries (the codec, a merge).
    public mutating func setSectionEntries(_ entries: [String: SectionEntry]) {
        sectionEntries = entries
    }

    /// The name shown for a section key: its entry's name, or the key itself.
    public func sectionName(_ key: String) -> String {
        guard hasRenamedSections, let entry = sectionEntries[key] else { return key }
        return entry.name
    }

    /// The key of the section a person calls `name`: a section not removed of that name,
    /// else a removed one, else the name itself (a section nobody listed).
    public func sectionKey(named name: String) -> String {
        let own = sectionEntries[name]
        if let own, own.name == name, !own.removed { return name }
        guard hasRenamedSections || own != nil else { return name }
        let named = sectionEntries.values.filter { $0.name == name }
        if let shown = named.filter({ !$0.removed }).min(by: SectionEntry.displayOrder) { return shown.key }
        if let own, own.name == name { return name }
        if let any = named.min(by: SectionEntry.displayOrder) { return any.key }
        return name
    }

    /// `sectionKey(named:)` for filing an item under `name`. A name no section shows whose
    /// plain key belongs to a section renamed away from it would file the item under that
    /// section, by another name: it gets a section of its own instead, unlisted (removed), as
    /// a version-1 file shows an item whose section it does not list, keyed by the name and
    /// `stamp` (the same in every replica that makes this edit).
    mutating func sectionKey(filing name: String, stamp: Stamp) -> String {
        let key = sectionKey(named: name)
        guard let entry = sectionEntries[key], entry.name != name else { return key }
        let own = name + "@" + (stamp.compact ?? stamp.encoded)
        if sectionEntries[own] == nil {
            sectionEntries[own] = SectionEntry(key: own, name: name, position: nextSectionPosition, removed: true, stamps: .init(all: stamp))
        }
        return own
    }

    /// A row read from a file, its section as the list keys it: a reader marks a key the file
    /// named outright (`explicitKeyMark` first); any other section is a name, and goes to the
    /// section of that name.
    public func keyed(_ row: Item) -> Item {
        var section = row.section
        if section.utf8.first == 0 {
            section.removeFirst()
        } else if hasRenamedSections {
            section = sectionKey(named: section)
        }
        guard section != row.section else { return row }
        var copy = row
        copy.section = section
        return copy
    }

    public static let explicitKeyMark = "\u{0}"

    /// How a file names a row's section: the name it shows, and its key too when the name
    /// alone would read back as another section (`keyed`: a renamed section may share it).
    public func sectionLabel(_ key: String) -> (name: String, key: String?) {
        let name = sectionName(key)
        return (name, name == key && (!hasRenamedSections || sectionKey(named: name) == key) ? nil : key)
    }

    /// The `section` text a reader found in a row, as the row's section: the name, unless
    /// it begins with `explicitKeyMark` (a control character, only in a damaged or hostile
    /// file), which would read as the mark: such a name is its own key, so the name written
    /// back reads the same.
    public static func sectionAsRead(_ text: String) -> String {
        text.utf8.first == 0 ? explicitKeyMark + text : text
    }

    /// Every row through `keyed`. `explicitKeys`: false when the reader knows no row's section
    /// names its key outright (no walk over every row then).
    public mutating func keySections(explicitKeys: Bool = true) {
        guard hasRenamedSections || explicitKeys && rows.values.contains(where: { $0.section.utf8.first == 0 }) else { return }
        for (id, row) in rows {
            let keyedRow = keyed(row)
            if keyedRow.section != row.section { rows[id] = keyedRow }
        }
    }

    /// `row` as people see it: its section by name.
    public func shown(_ row: Item) -> Item {
        guard hasRenamedSections else { return row }
        let name = sectionName(row.section)
        if name == row.section { return row }
        var copy = row
        copy.section = name
        return copy
    }

    /// Removes the rows with `ids`, then adds `items` (a reader that decoded again only the
    /// rows whose bytes changed). False, with the list half changed, when an item's id is
    /// taken: the caller then decodes the whole file.
    public mutating func replaceRows(_ ids: ArraySlice<String>, with items: [Item]) -> Bool {
        // A row that stays is replaced in place, not removed and added again: a removal moves
        // other keys in the hash table, and then this table no longer pairs up key for key
        // with the store's copy of the list (`differingRowIDs`), which costs every later
        // merge and compare a lookup per row.
        let replaced = Set(ids)
        var placed = Set<String>()
        for item in items where rows.updateValue(item, forKey: item.id) != nil {
            guard replaced.contains(item.id), placed.insert(item.id).inserted else { return false }
        }
        for id in ids where !placed.contains(id) { rows.removeValue(forKey: id) }
        return true
    }

    /// How many rows a delete hides.
    public var hiddenRowCount: Int {
        guard !tombstones.isEmpty else { return 0 }
        // Ids read in place; a row is read whole only when a delete may hide it.
        var hidden = 0
        rows.forEachRow { row in
            if let deleted = tombstones[Tombstone.key(for: row.id)], deleted.hides(row.item) { hidden += 1 }
        }
        return hidden
    }

    /// The delete of this row id, if any.
    public func tombstone(for id: String) -> Tombstone? {
        tombstones.isEmpty ? nil : tombstones[Tombstone.key(for: id)]
    }

    /// A row is visible when it has no tombstone, or one of its fields carries an edit the
    /// deleter had not seen (an edit concurrent with a delete keeps the row).
    public func isVisible(_ id: String) -> Bool {
        guard let row = rows[id] else { return false }
        guard let deleted = tombstone(for: id) else { return true }
        return !deleted.hides(row)
    }

    /// The visible item with this id, its section by name.
    public func item(_ id: String) -> Item? {
        guard isVisible(id), let row = rows[id] else { return nil }
        return shown(row)
    }

    /// Visible items in list order (sortOrder, then id), sections by name.
    public var items: [Item] {
        hasRenamedSections ? visibleRows.map(shown) : visibleRows
    }

    /// Visible rows in list order (sortOrder, then id), as stored: sections by key.
    public var visibleRows: [Item] {
        // Sorting small keys, not whole items: moving and retaining large structs made
        // this 20x slower at 10,000 items.
        var visible: [Item] = []
        visible.reserveCapacity(rows.count)
        for row in rows.values where tombstones.isEmpty || isVisible(row.id) { visible.append(row) }
        let order = visible.indices.map { (order: visible[$0].sortOrder, id: visible[$0].id, index: $0) }
            .sorted { $0.order != $1.order ? $0.order < $1.order : $0.id.precedesInTextOrder($1.id) }
        return order.map { visible[$0.index] }
    }

    /// Rows hidden by a tombstone, in id order (as stored: sections by key).
    public var hiddenRows: [Item] {
        guard !tombstones.isEmpty else { return [] }
        return rows.values.filter { !isVisible($0.id) }.sorted { $0.id.precedesInTextOrder($1.id) }
    }

    /// Deleted items people may bring back ("recently deleted"), newest delete first, their
    /// sections by name.
    public var recentlyDeleted: [(item: Item, deleted: Tombstone)] {
        var found: [(item: Item, deleted: Tombstone)] = []
        if !tombstones.isEmpty {
            for row in rows.values {
                guard let tombstone = tombstone(for: row.id), tombstone.hides(row) else { continue }
                found.append((shown(row), tombstone))
            }
        }
        for entry in deletedItems.values where rows[entry.id] == nil {
            guard let tombstone = tombstone(for: entry.id) else { continue }
            found.append((shown(entry.item), tombstone))
        }
        return found.sorted { $0.deleted.stamp != $1.deleted.stamp ? $0.deleted.stamp > $1.deleted.stamp : $0.item.id.precedesInTextOrder($1.item.id) }
    }

    public var visibleCount: Int { rows.keys.reduce(0) { $0 + (isVisible($1) ? 1 : 0) } }

    /// The sections as shown: the list's own, then any section an item names that the list
    /// lacks, in the order those items come. No item is ever invisible.
    public var displaySections: [String] { displaySections(of: items) }

    /// `displaySections` for visible items already in list order (not ordered again).
    public func displaySections(of items: [Item]) -> [String] {
        var result = sections
        var seen = Set(sections)
        for item in items where !seen.contains(item.section) {
            seen.insert(item.section)
            result.append(item.section)
        }
        return result
    }

    /// Visible items grouped under `displaySections`, each group in list order.
    public func grouped() -> [(section: String, items: [Item])] {
        let all = items  // sorted once for both the groups and the section order
        var bySection: [String: [Item]] = [:]
        for item in all { bySection[item.section, default: []].append(item) }
        return displaySections(of: all).map { ($0, bySection[$0] ?? []) }
    }

    /// Every stamp in the list, for moving a clock past them. Rows still in the bytes of a file
    /// count as the newest stamp of any row of that file (read once per file): a stamp this
    /// list's holder has seen, which is all a clock needs.
    public var newestStamp: Stamp {
        var newest = max(newestSectionStamp, rows.newestStamp)
        for tombstone in tombstones.values { newest = max(newest, tombstone.stamp) }
        return newest
    }

    /// The stamp furthest ahead of `now` anywhere in the list, when one is: a replica whose
    /// clock runs fast (or a damaged file). Its lead is what `status` reports as skew.
    public func furthestAhead(of now: Int64) -> Stamp? {
        let newest = newestStamp
        return newest.millis > now ? newest : nil
    }

    var newestSectionStamp: Stamp {
        sectionEntries.values.reduce(Stamp.zero) { max($0, $1.stamps.newest) }
    }

    /// `newestStamp`, for a list all of whose stamps `other`'s holder has already seen: only
    /// the rows that differ from `other`'s are looked at, where the two row tables pair up.
    public func newestStamp(besides other: ShoppingList) -> Stamp {
        guard let ids = Self.differingRowIDs(rows, other.rows) else { return newestStamp }
        var newest = newestSectionStamp
        for id in ids { if let row = rows[id] { newest = max(newest, row.newestStamp) } }
        for tombstone in tombstones.values { newest = max(newest, tombstone.stamp) }
        return newest
    }

    /// A sortOrder after every item of the list.
    public var nextSortOrder: Double {
        Self.sortOrder(after: rows.highestSortOrder)
    }

    /// The order after every row, the highest being `highest` (nil: no rows).
    static func sortOrder(after highest: Double?) -> Double {
        (highest ?? 0).rounded(.down) + 1024
    }
}

/// A row of `items` the decoder could not read: kept byte for byte, and written back where it
/// was among the readable rows (docs/file-format.md, "Rows that cannot be read").
public struct UnreadableRow: Hashable, Sendable {
    /// The row's bytes exactly as read (several lines, if it was written so).
    public var text: String
    /// The readable row it came after in the file, by list order (sortOrder, then id); nil
    /// when it came before every readable row. It is written after every visible row that
    /// sorts at or before this, so it stays after that row whoever moves or deletes others.
    public var after: Position?
    /// Its place among the unreadable rows that came after the same readable row.
    public var index: Int
    /// Which of the rows with the same text this is (0, 1, … in file order): two identical
    /// rows are two rows, and a merge of two copies of one file keeps them two, not four.
    public var occurrence: Int

    public struct Position: Hashable, Sendable, Comparable {
        public var sortOrder: Double
        public var id: String

        public init(sortOrder: Double, id: String) {
            self.sortOrder = sortOrder
            self.id = id
        }

        public init(of item: Item) { self.init(sortOrder: item.sortOrder, id: item.id) }

        /// The list's order: sortOrder, then id.
        public static func < (a: Position, b: Position) -> Bool {
            a.sortOrder != b.sortOrder ? a.sortOrder < b.sortOrder : a.id.precedesInTextOrder(b.id)
        }
    }

    public init(text: String, after: Position? = nil, index: Int = 0, occurrence: Int = 0) {
        self.text = text
        self.after = after
        self.index = index
        self.occurrence = occurrence
    }

    /// What makes two copies' rows one row in a merge: the same text, the same occurrence.
    struct Identity: Hashable {
        var text: String
        var occurrence: Int
    }

    var identity: Identity { Identity(text: text, occurrence: occurrence) }

    /// The order rows are written in: by place, then as read; text and occurrence only break
    /// ties between copies merged from different files.
    public static func writeOrder(_ a: UnreadableRow, _ b: UnreadableRow) -> Bool {
        if a.after != b.after {
            guard let x = a.after else { return true }
            guard let y = b.after else { return false }
            return x < y
        }
        if a.index != b.index { return a.index < b.index }
        if a.text != b.text { return a.text.precedesInTextOrder(b.text) }
        return a.occurrence < b.occurrence
    }

    /// True when this row goes before a visible row at `position`.
    public func goesBefore(_ position: Position) -> Bool {
        guard let after else { return true }
        return after < position
    }
}

/// What a list's section entries derive, made once at its first read: shared by the copies of
/// a list until their entries change (each change starts a new one).
final class DerivedSections: Sendable {
    private let made = Mutex<(names: [String], renamed: Bool)?>(nil)

    func value(of entries: [String: SectionEntry]) -> (names: [String], renamed: Bool) {
        made.withLock { made in
            if let made { return made }
            let derived = ShoppingList.deriveSections(entries)
            made = derived
            return derived
        }
    }
}
