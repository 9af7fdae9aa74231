/// The published history of one list on one device (DESIGN, rule 5): every state of the list
/// file that bananas wrote or took in here, each row's and each section's values and stamps
/// as that state held them. A stampless whole-list save is judged against it
/// (`ShoppingList.judging(save:…)`).
///
/// A state is stored as what changed since the one before it: per row (and per section) a
/// list of versions, each the row as it was from that state on (nil: not shown from then
/// on). So a state costs what its writer changed, and the history is bounded by age and by
/// bytes (`pruned`), never by a count of writes.
public struct PublishedHistory: Hashable, Sendable {
    /// Who produced a state.
    public enum Kind: Hashable, Sendable {
        /// A bananas write made here, with its write mark.
        case write(mark: Stamp)
        /// A bananas write made on another device, taken in here (its rows may be older than
        /// this history: they prove nothing of which state a save came from).
        case received(mark: Stamp)
        /// A whole-list save by a writer that keeps no stamps, as judged here. `marked`: it
        /// kept the mark of the bananas write it was made from (the Get Bananas server);
        /// unmarked saves (the app, a hand edit) form the app's line.
        case save(marked: Bool)
    }

    public struct State: Hashable, Sendable {
        /// Its place in the history: one more than the state before it, never reused.
        public var number: Int
        /// `Hash.content` of the file's bytes in that state.
        public var hash: UInt64
        public var kind: Kind
        /// When this device first saw it (its own clock): what expiry counts from.
        public var firstSeen: Int64
    }

    /// A row (or section) as it was from state `from` on; nil when that state did not show it.
    struct Version<Value: Hashable & Sendable>: Hashable, Sendable {
        var from: Int
        var value: Value?
    }

    /// Oldest first.
    public internal(set) var states: [State] = []
    var rows: [String: [Version<Item>]] = [:]
    var sections: [String: [Version<SectionEntry>]] = [:]
    /// The app's last save here (the newest unmarked `save`), if still kept.
    public internal(set) var appLine: Int?
    /// When this device first saw each delete (by `Tombstone.key`, with the version it hides): a delete
    /// expires counting from here, never from a stamp or what a file claims. A later version
    /// deleted is a delete first seen then.
    public internal(set) var deletesSeen: [UInt64: DeleteSighting] = [:]

    public struct DeleteSighting: Hashable, Sendable {
        /// `Tombstone.hidden`; nil in a history saved before sightings kept it (the first
        /// delete seen since then fills it in).
        public var hidden: Stamp?
        public var firstSeen: Int64
    }
    /// Rows first shown at or before this state may be older than the history (it began, or
    /// was pruned, there): they prove nothing of which state a save came from.
    public internal(set) var evidenceFloor = 0

    public init() {}

    /// How long a state is kept after this device first saw it (the head always is).
    public static let lifetimeMillis: Int64 = 90 * 86_400_000

    public var head: State? { states.last }
    public var isEmpty: Bool { states.isEmpty }

    /// The state whose bytes hash to `hash`, newest first.
    public func state(hashed hash: UInt64) -> State? { states.last { $0.hash == hash } }

    /// The bananas write with this mark.
    public func state(marked mark: Stamp) -> State? {
        guard !mark.isZero else { return nil }
        return states.last { $0.kind == .write(mark: mark) || $0.kind == .received(mark: mark) }
    }

    // MARK: Publishing

    /// Appends `list` as the state its file now holds: the rows it shows (with their stamps,
    /// not what they superseded) and its sections. `now` is this device's clock. `born`: the
    /// file did not exist before this state, so its rows were first published here (in a
    /// history's first state of an existing file, they may be older).
    public mutating func publish(_ list: ShoppingList, hash: UInt64, kind: Kind, now: Int64, born: Bool = false) {
        let number = (states.last?.number ?? 0) + 1
        var shown = Set<String>()
        for row in list.rows.values where list.isVisible(row.id) {
            shown.insert(row.id)
            if let last = rows[row.id]?.last?.value, Self.same(last, row) { continue }
            rows[row.id, default: []].append(Version(from: number, value: Self.published(row)))
        }
        for (id, versions) in rows where versions.last?.value != nil && !shown.contains(id) {
            rows[id]!.append(Version(from: number, value: nil))
        }
        // A row first met hidden (another device's, deleted) is known from here on: shown
        // later, it proves nothing of which state a save came from.
        for id in list.rows.keys where rows[id] == nil && !shown.contains(id) {
            rows[id] = [Version(from: number, value: nil)]
        }
        for (key, entry) in list.sectionEntries {
            var kept = entry
            kept.stamps = entry.stamps.withoutHistory
            if sections[key]?.last?.value != kept { sections[key, default: []].append(Version(from: number, value: kept)) }
        }
        for (key, versions) in sections where versions.last?.value != nil && list.sectionEntries[key] == nil {
            sections[key]!.append(Version(from: number, value: nil))
        }
        deletesSeen = deletesSeen.filter { list.tombstones[$0.key] != nil }
        for (key, tombstone) in list.tombstones where deleteFirstSeen(key, hiding: tombstone.hidden) == nil {
            deletesSeen[key] = DeleteSighting(hidden: tombstone.hidden, firstSeen: now)
        }
        for (key, sighting) in deletesSeen where sighting.hidden == nil { deletesSeen[key]!.hidden = list.tombstones[key]?.hidden }
        if states.isEmpty, !born, !list.rows.isEmpty { evidenceFloor = number }
        states.append(State(number: number, hash: hash, kind: kind, firstSeen: now))
        if kind == .save(marked: false) { appLine = number }
    }

    /// True when `row` shows what `kept` (a published version) holds: values and stamps.
    static func same(_ kept: Item, _ row: Item) -> Bool {
        kept.name == row.name && kept.amount == row.amount && kept.section == row.section && kept.checked == row.checked
            && kept.optional == row.optional && kept.sortOrder == row.sortOrder
            && ItemField.allCases.allSatisfy { kept.stamps[$0] == row.stamps[$0] }
    }

    /// A row as a state keeps it: values and stamps, nothing a merge or a reader adds.
    static func published(_ row: Item) -> Item {
        Item(id: row.id, name: row.name, amount: row.amount, section: row.section, checked: row.checked,
             optional: row.optional, sortOrder: row.sortOrder, stamps: row.stamps.withoutHistory)
    }

    // MARK: Reading

    /// The first state that showed row `id`, when that is known to be its first publication:
    /// the first state that held the row at all, made here (a write or a save taken in), not
    /// one received from another device, whose own history may have held it long before.
    public func firstShowing(_ id: String) -> Int? {
        guard let first = rows[id]?.first, first.value != nil, first.from > evidenceFloor,
              let state = states.first(where: { $0.number == first.from }) else { return nil }
        if case .received = state.kind { return nil }
        return first.from
    }

    /// The newest kept state a save provably comes from (rule 5's anchor): the state its
    /// bytes are (a sync engine put it back), the bananas write whose mark it kept, the app's
    /// previous save (an unmarked save comes from it), or the newest first publication of a
    /// row it holds (row ids are unique). Nil when there is no evidence.
    public func anchor(of save: ShoppingList, hash: UInt64) -> Int? {
        if let known = state(hashed: hash) { return known.number }
        // A file with stamps tells what it saw through them; only its write mark is evidence
        // (absence is not deletion for it: rule 4).
        guard save.isStampless else { return state(marked: save.writeMark)?.number }
        var newest = appLine
        for id in save.rows.keys {
            if let first = firstShowing(id), first > newest ?? .min { newest = first }
        }
        return newest
    }

    /// Row `id` as state `number` showed it (nil: not shown, or that state is not kept).
    public func row(_ id: String, at number: Int) -> Item? {
        rows[id]?.last { $0.from <= number }?.value ?? nil
    }

    /// The state numbered `number` as a list: its rows and sections with their stamps (no
    /// deletes, records or memory: a state is what a writer could read of the file).
    public func list(at number: Int) -> ShoppingList {
        var entries: [String: SectionEntry] = [:]
        for (key, versions) in sections {
            if let entry = versions.last(where: { $0.from <= number })?.value { entries[key] = entry }
        }
        var shown: [Item] = []
        for versions in rows.values {
            if let row = versions.last(where: { $0.from <= number })?.value { shown.append(row) }
        }
        return ShoppingList(sectionEntries: entries, rows: shown)
    }

    /// Every value some kept state showed for `field` of row `id`, with its stamp.
    public func publishedValues(_ id: String, _ field: ItemField) -> [(value: FieldValue, stamp: Stamp)] {
        (rows[id] ?? []).compactMap { $0.value.map { ($0[field], $0.stamps[field]) } }
    }

    /// Every name some kept state showed for section `key`.
    func publishedValues(section key: String, _ field: SectionField) -> [FieldValue] {
        (sections[key] ?? []).compactMap { $0.value?[field] }
    }

    // MARK: Bounds

    /// The history without the states first seen more than `lifetimeMillis` before `now`,
    /// and then without the oldest until its encoding fits `maxBytes` (the head is always
    /// kept). What the dropped states showed is folded into the oldest state kept: its rows
    /// as it showed them, so nothing older can be taken for an anchor.
    public func pruned(now: Int64, maxBytes: Int) -> PublishedHistory {
        var result = self
        let oldestKept = states.lastIndex { $0.firstSeen < now - Self.lifetimeMillis }.map { $0 + 1 } ?? 0
        result.dropStates(before: min(oldestKept, states.count - 1))
        while result.states.count > 1, result.estimatedBytes > maxBytes {
            result.dropStates(before: max(1, result.states.count / 4))
        }
        return result
    }

    /// Drops the first `count` states.
    private mutating func dropStates(before count: Int) {
        guard count > 0, count < states.count else { return }
        let first = states[count].number
        states.removeFirst(count)
        evidenceFloor = max(evidenceFloor, first)
        if let line = appLine, line < first { appLine = nil }
        func fold<Value>(_ versions: [Version<Value>]) -> [Version<Value>] {
            let older = versions.filter { $0.from < first }
            var kept = versions.filter { $0.from >= first }
            if let last = older.last, last.value != nil, kept.first?.from != first {
                kept.insert(Version(from: first, value: last.value), at: 0)
            }
            return kept
        }
        rows = rows.compactMapValues { versions in
            let kept = fold(versions)
            return kept.isEmpty ? nil : kept
        }
        sections = sections.compactMapValues { versions in
            let kept = fold(versions)
            return kept.isEmpty ? nil : kept
        }
    }

    /// When this device first saw the delete kept under `key` (`Tombstone.key`) hiding the
    /// version `hiding` (`Tombstone.hidden`); nil when it has not yet.
    public func deleteFirstSeen(_ key: UInt64, hiding: Stamp) -> Int64? {
        guard let sighting = deletesSeen[key], sighting.hidden == nil || sighting.hidden == hiding else { return nil }
        return sighting.firstSeen
    }
}
