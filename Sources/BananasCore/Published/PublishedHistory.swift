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

        public init(number: Int, hash: UInt64, kind: Kind, firstSeen: Int64) {
            self.number = number
            self.hash = hash
            self.kind = kind
            self.firstSeen = firstSeen
        }
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
    public var deletesSeen: [UInt64: DeleteSighting] = [:]

    public struct DeleteSighting: Hashable, Sendable {
        /// `Tombstone.hidden`; nil in a history saved before sightings kept it (the first
        /// delete seen since then fills it in).
        public var hidden: Stamp?
        public var firstSeen: Int64

        /// When this device first saw the delete hiding the version `hiding`; nil when this
        /// sighting was of another version (a later version deleted is a new sighting).
        public func firstSeen(hiding: Stamp) -> Int64? {
            hidden == nil || hidden == hiding ? firstSeen : nil
        }
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

    /// What one state adds to the history: the state, and each row (and section) whose
    /// version changed with it (nil: not shown from this state on). The history's file keeps
    /// the newest states as these, appended one per write (`HistoryCoding.swift`).
    public struct Publication: Hashable, Sendable {
        public var state: State
        var rows: [String: Item?] = [:]
        var sections: [String: SectionEntry?] = [:]
    }

    /// What a state showed, as publishing the next one compares with it: each row and
    /// section known to the history, with its version then (nil: known, not shown).
    public struct Shown: Sendable {
        var rows: [String: Item?] = [:]
        var sections: [String: SectionEntry?] = [:]

        /// What a list file bananas wrote shows: exactly the state published with it, since
        /// every row it holds, shown or not, was known to the history once that state was in
        /// it (`publish`, and `pruned(keeping:)`).
        public init(written list: ShoppingList) {
            rows.reserveCapacity(list.rows.count)
            for (id, row) in list.rows { rows[id] = list.isVisible(id) ? .some(PublishedHistory.published(row)) : .some(nil) }
            for (key, entry) in list.sectionEntries { sections[key] = .some(PublishedHistory.published(entry)) }
        }

        init() {}
    }

    /// What the head state showed.
    public var shown: Shown {
        var result = Shown()
        result.rows.reserveCapacity(rows.count)
        for (id, versions) in rows { result.rows[id] = .some(versions.last?.value ?? nil) }
        for (key, versions) in sections { result.sections[key] = .some(versions.last?.value ?? nil) }
        return result
    }

    /// `list` as the state after one that showed `before`: the rows it shows that changed
    /// (values or stamps, not what they superseded), the rows it no longer shows, the rows
    /// first met hidden (another device's, deleted: shown later, they prove nothing of which
    /// state a save came from), and its sections likewise.
    public static func publication(of list: ShoppingList, after before: Shown, state: State) -> Publication {
        var ids = Set(list.rows.keys)
        ids.formUnion(before.rows.keys)
        return publication(of: list, after: before, rows: ids, state: state)
    }

    /// `publication(of:after:state:)` of a list written over `file`, when `file` is the newest
    /// state published and a write of ours (so it shows what that state showed): only rows
    /// that may differ between the two are looked at (`RowTable.differingRowIDs`, and the
    /// rows of deletes that changed), not every row of the list.
    public static func publication(of list: ShoppingList, over file: ShoppingList, state: State) -> Publication {
        var added: [String] = []
        guard let differing = RowTable.differingRowIDs(list.rows, file.rows, added: &added) else {
            return publication(of: list, after: Shown(written: file), state: state)
        }
        var ids = Set(differing)
        ids.formUnion(added)
        if list.tombstones != file.tombstones {
            var keys = Set<UInt64>()
            for (key, tombstone) in list.tombstones where file.tombstones[key] != tombstone { keys.insert(key) }
            for key in file.tombstones.keys where list.tombstones[key] == nil { keys.insert(key) }
            list.rows.forEachRow { row in
                if keys.contains(Tombstone.key(for: row.id)) { ids.insert(row.id) }
            }
        }
        var before = Shown()
        for id in ids {
            if let row = file.rows[id] { before.rows[id] = .some(file.isVisible(id) ? published(row) : nil) }
        }
        for (key, entry) in file.sectionEntries { before.sections[key] = .some(published(entry)) }
        return publication(of: list, after: before, rows: ids, state: state)
    }

    /// The publication, looking at the rows `ids` only.
    private static func publication(of list: ShoppingList, after before: Shown, rows ids: Set<String>, state: State) -> Publication {
        var result = Publication(state: state)
        for id in ids {
            let known = before.rows[id]
            if let row = list.rows[id] {
                if list.isVisible(id) {
                    if let last = known ?? nil, same(last, row) { continue }
                    result.rows[id] = .some(published(row))
                    continue
                }
                if known == nil { result.rows[id] = .some(nil) }
            }
            if let known, known != nil { result.rows[id] = .some(nil) }
        }
        for (key, entry) in list.sectionEntries {
            let kept = published(entry)
            if (before.sections[key] ?? nil) != kept { result.sections[key] = .some(kept) }
        }
        for (key, version) in before.sections where version != nil && list.sectionEntries[key] == nil { result.sections[key] = .some(nil) }
        return result
    }

    /// Adds the state `publication` describes.
    public mutating func apply(_ publication: Publication) {
        let number = publication.state.number
        // A row already known as not shown stays so: a log written against a list file may
        // name one the history knows from longer ago.
        for (id, value) in publication.rows where value != nil || rows[id]?.last.map({ $0.value != nil }) != false {
            rows[id, default: []].append(Version(from: number, value: value))
        }
        for (key, value) in publication.sections where value != nil || sections[key]?.last.map({ $0.value != nil }) != false {
            sections[key, default: []].append(Version(from: number, value: value))
        }
        states.append(publication.state)
        if publication.state.kind == .save(marked: false) { appLine = number }
    }

    /// The number the next state takes.
    public var nextNumber: Int { (states.last?.number ?? 0) + 1 }

    /// Appends `list` as the state its file now holds: the rows it shows (with their stamps,
    /// not what they superseded) and its sections. `now` is this device's clock. `born`: the
    /// file did not exist before this state, so its rows were first published here (in a
    /// history's first state of an existing file, they may be older).
    @discardableResult
    public mutating func publish(_ list: ShoppingList, hash: UInt64, kind: Kind, now: Int64, born: Bool = false) -> Publication {
        let state = State(number: nextNumber, hash: hash, kind: kind, firstSeen: now)
        if states.isEmpty, !born, !list.rows.isEmpty { evidenceFloor = state.number }
        let publication = Self.publication(of: list, after: shown, state: state)
        apply(publication)
        deletesSeen = Self.sightings(deletesSeen, of: list, now: now)
        return publication
    }

    /// When this device first saw each delete `list` holds: as `seen` says, and `now` for
    /// those it did not see before (or saw hiding an older version). Deletes no longer held
    /// are forgotten.
    public static func sightings(_ seen: [UInt64: DeleteSighting], of list: ShoppingList, now: Int64) -> [UInt64: DeleteSighting] {
        // Changed in place: most writes delete nothing, and the sightings stay as they were.
        var result = seen
        for (key, tombstone) in list.tombstones {
            let sighting = seen[key]
            if let sighting, sighting.hidden == tombstone.hidden { continue }
            let first = sighting?.firstSeen(hiding: tombstone.hidden) ?? now
            result[key] = DeleteSighting(hidden: tombstone.hidden, firstSeen: first)
        }
        if result.count != list.tombstones.count { result = result.filter { list.tombstones[$0.key] != nil } }
        return result
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

    /// A section as a state keeps it.
    static func published(_ entry: SectionEntry) -> SectionEntry {
        var kept = entry
        kept.stamps = entry.stamps.withoutHistory
        return kept
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
    /// as it showed them, so nothing older can be taken for an anchor. `head` is the list
    /// the newest state is of: a row it holds hidden stays known (`Shown(written:)`).
    public func pruned(now: Int64, maxBytes: Int, head: ShoppingList? = nil) -> PublishedHistory {
        var result = self
        let oldestKept = states.lastIndex { $0.firstSeen < now - Self.lifetimeMillis }.map { $0 + 1 } ?? 0
        result.dropStates(before: min(oldestKept, states.count - 1))
        while result.states.count > 1, result.estimatedBytes > maxBytes {
            result.dropStates(before: max(1, result.states.count / 4))
        }
        if let head, let first = result.states.first?.number, result.states.count < states.count {
            for id in head.rows.keys where result.rows[id] == nil { result.rows[id] = [Version(from: first, value: nil)] }
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
        deletesSeen[key]?.firstSeen(hiding: hiding)
    }
}
