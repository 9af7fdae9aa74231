/// Remembered items (docs/memory.md): every name that was on the list, with the section, amount
/// and optional flag it last had, and when it was bought (checked, then cleared).
///
/// Most of the memory is not stored at all: it is read from the rows the list keeps anyway,
/// visible and deleted (a delete keeps its row hidden for months, and a delete of a checked
/// row is a purchase). Those rows merge by the contract, so the memory does too: two devices
/// that filed Milk under different sections resolve like any field, and nothing about the
/// memory is ever a conflict to review. What is stored (`ItemMemory`) is what the rows no longer
/// say: the rows garbage collection forgot, and the names a person asked to forget.
public struct ItemMemory: Hashable, Sendable {
    /// What is remembered of a name after its rows are gone.
    public struct Entry: Hashable, Sendable {
        public var name: String
        /// The section's key (a rename of the section carries the memory along).
        public var section: String
        public var amount: String
        public var optional: Bool
        /// When these values were last known: their newest edit, or a later purchase (the row
        /// still had them when it was bought). Never older than a purchase, so a forget either
        /// covers an entry whole or not at all, and merging then forgetting gives the same
        /// memory in any order (a kept purchase never keeps values older than the forget).
        /// To the day (`Stamp.day`): what is stored of a name is small, and a forget made
        /// after it was stored is stamped later than that day's start anyway.
        public var stamp: Stamp
        /// Purchases (the days of the deletes of checked rows), newest first.
        public var purchases: [Stamp]

        public init(name: String, section: String, amount: String = "", optional: Bool = false, stamp: Stamp, purchases: [Stamp] = []) {
            self.name = name
            self.section = section
            self.amount = amount
            self.optional = optional
            // As read from a file they are already days, newest first, one each.
            let kept = purchases.count <= ItemMemory.purchaseLimit && purchases.indices.allSatisfy {
                purchases[$0] == purchases[$0].day && ($0 == 0 || purchases[$0 - 1] > purchases[$0])
            }
            self.purchases = kept ? purchases : Self.bounded(purchases.map(\.day))
            self.stamp = max(stamp, self.purchases.first ?? .zero).day
        }

        /// The newer values (by stamp); the purchases of both.
        public func merged(with other: Entry) -> Entry {
            var result = (other.stamp, other.name, other.section, other.amount) > (stamp, name, section, amount) ? other : self
            result.purchases = Self.bounded(purchases + other.purchases)
            return result
        }

        static func bounded(_ purchases: [Stamp]) -> [Stamp] {
            Array(Set(purchases).sorted(by: >).prefix(ItemMemory.purchaseLimit))
        }
    }

    /// Names whose rows garbage collection forgot, by folded name.
    public internal(set) var entries: [String: Entry] = [:]
    /// Names a person asked to forget, by folded name: what was known of them up to the stamp
    /// is not remembered.
    public internal(set) var forgotten: [String: Stamp] = [:]
    /// `forget --all`: nothing known up to this stamp is remembered.
    public internal(set) var cleared: Stamp = .zero

    /// Purchases kept per stored name, and stored names kept at most.
    public static let purchaseLimit = 8
    public static let capacity = 1_000

    public init(entries: [String: Entry] = [:], forgotten: [String: Stamp] = [:], cleared: Stamp = .zero) {
        self.entries = entries
        self.forgotten = forgotten
        self.cleared = cleared
        dropForgotten()
    }

    public var isEmpty: Bool { entries.isEmpty && forgotten.isEmpty && cleared.isZero }

    /// How a name is compared: case and surrounding spaces do not matter.
    public static func fold(_ name: String) -> String {
        // Most names are plain ASCII with no spaces around them and often already in lower
        // case: those are answered without building new strings.
        var utf8 = name.utf8.makeIterator()
        var plain = true, lower = true, first = true
        var last: UInt8 = 0
        while let byte = utf8.next() {
            if byte >= 0x80 || (first && byte <= 0x20) { plain = false; break }
            if byte >= 0x41 && byte <= 0x5A { lower = false }
            first = false
            last = byte
        }
        if plain && last > 0x20 { return lower ? name : name.lowercased() }
        return name.trimmingWhitespace().lowercased()
    }

    /// The stamp up to which nothing about the folded name is remembered.
    func forgetting(_ folded: String) -> Stamp {
        max(cleared, forgotten[folded] ?? .zero)
    }

    /// Union: each entry's newer values and both sides' purchases; the later forget.
    /// Commutative, associative and idempotent, like the list's merge.
    mutating func merge(_ other: ItemMemory) {
        guard other != self else { return }
        for (key, theirs) in other.entries {
            entries[key] = entries[key].map { $0.merged(with: theirs) } ?? theirs
        }
        forgotten.merge(other.forgotten, uniquingKeysWith: max)
        cleared = max(cleared, other.cleared)
        dropForgotten()
    }

    /// Drops what a forget covers.
    mutating func dropForgotten() {
        guard !cleared.isZero || !forgotten.isEmpty else { return }
        for (key, entry) in entries {
            let forget = forgetting(key)
            guard !forget.isZero else { continue }
            var kept = entry
            kept.purchases = entry.purchases.filter { $0 > forget }
            if kept.stamp <= forget && kept.purchases.isEmpty {
                entries[key] = nil
            } else if kept != entry {
                entries[key] = kept
            }
        }
    }
}

/// A remembered name as surfaces show it.
public struct RememberedItem: Hashable, Sendable {
    public let name: String
    /// The section it was last in, by name.
    public var section: String
    public var amount: String
    public var optional: Bool
    /// How many purchases are known (the last months', and up to `ItemMemory.purchaseLimit`
    /// older ones).
    public var timesBought: Int
    /// When it was last bought (milliseconds since 1970; nil: never).
    public var lastBought: Int64?
    /// When it was last added, edited or bought.
    public var lastUsed: Int64
    /// True when an item of this name is on the list, not checked.
    public var onList: Bool
    /// How useful the name is now: each purchase counts, the recent ones most.
    public var score: Double
    /// The name as compared (`ItemMemory.fold`).
    public let folded: String

    public init(name: String, section: String, amount: String, optional: Bool, timesBought: Int, lastBought: Int64?,
                lastUsed: Int64, onList: Bool, score: Double) {
        self.name = name
        self.section = section
        self.amount = amount
        self.optional = optional
        self.timesBought = timesBought
        self.lastBought = lastBought
        self.lastUsed = lastUsed
        self.onList = onList
        self.score = score
        folded = ItemMemory.fold(name)
    }
}

extension ShoppingList {
    /// Everything remembered, most useful first (at most `ItemMemory.capacity` names).
    public func rememberedItems(now: Int64) -> [RememberedItem] {
        var sources: [String: MemorySources] = [:]
        for row in rows.values {
            let folded = ItemMemory.fold(row.name)
            if let source = memorySource(row, folded: folded) { sources[folded, default: MemorySources()].add(source, from: self) }
        }
        for (folded, entry) in memory.entries {
            sources[folded, default: MemorySources()].add(entry, from: self)
        }
        let items = sources.values.map { $0.remembered(now: now) }
        // Sorting small keys, not the items: moving whole items was half the time at 10,000.
        let order = items.indices.map { (score: items[$0].score, folded: items[$0].folded, index: $0) }
            .sorted { $0.score != $1.score ? $0.score > $1.score : $0.folded.precedesInTextOrder($1.folded) }
        return order.prefix(ItemMemory.capacity).map { items[$0.index] }
    }

    /// What is remembered of one name (case and spaces aside), or nil.
    public func remembered(named name: String, now: Int64) -> RememberedItem? {
        let folded = ItemMemory.fold(name)
        guard !folded.isEmpty else { return nil }
        var found = MemorySources()
        for row in rows.values where row.name.utf8.count >= folded.utf8.count {
            if ItemMemory.fold(row.name) == folded, let source = memorySource(row, folded: folded) { found.add(source, from: self) }
        }
        if let entry = memory.entries[folded] { found.add(entry, from: self) }
        return found.isEmpty ? nil : found.remembered(now: now)
    }

    /// What a row says of its name, unless a forget covers it all.
    func memorySource(_ row: Item, folded: String) -> MemorySources.Source? {
        guard !folded.isEmpty else { return nil }
        let forget = memory.forgetting(folded)
        let deleted = tombstone(for: row.id)
        var source = MemorySources.Source(row: row, visible: deleted.map { !$0.hides(row) } ?? true)
        if !source.visible, let deleted, row.checked, forget.isZero || deleted.stamp > forget {
            source.purchase = deleted.stamp
        }
        let newest = max(source.stamp, deleted?.stamp ?? .zero)
        guard forget.isZero || newest > forget || source.purchase != nil else { return nil }
        return source
    }

    /// The usual items: those bought before and not on the list now, most useful first.
    public func usualItems(now: Int64) -> [RememberedItem] {
        rememberedItems(now: now).filter { $0.timesBought > 0 && !$0.onList }
    }

    /// Folds the rows garbage collection is about to forget into the stored memory, and keeps
    /// the stored memory bounded: at most `capacity` names, forgets for as long as deletes.
    mutating func rememberForgottenRows(_ ids: [String], now: Int64) {
        for id in ids {
            guard let row = rows[id] else { continue }
            let folded = ItemMemory.fold(row.name)
            guard let source = memorySource(row, folded: folded) else { continue }
            let entry = ItemMemory.Entry(name: row.name, section: row.section, amount: row.amount, optional: row.optional,
                                         stamp: source.stamp, purchases: source.purchase.map { [$0] } ?? [])
            memory.entries[folded] = memory.entries[folded].map { $0.merged(with: entry) } ?? entry
        }
        memory.dropForgotten()
        for (key, stamp) in memory.forgotten where stamp.millis < now - Self.tombstoneLifetimeMillis {
            memory.forgotten[key] = nil
        }
        if memory.entries.count > ItemMemory.capacity {
            let ranked = memory.entries.map { key, entry in
                (key, MemorySources.score(purchases: entry.purchases, lastUsed: entry.stamp.millis, now: now))
            }.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0.precedesInTextOrder($1.0) }
            for (key, _) in ranked.dropFirst(ItemMemory.capacity) { memory.entries[key] = nil }
        }
    }

    /// The stamp a forget of `folded` must beat: the newest of everything remembered of it.
    func newestRemembered(_ folded: String?) -> Stamp {
        var newest = Stamp.zero
        for row in rows.values where folded == nil || ItemMemory.fold(row.name) == folded {
            newest = max(newest, row.stamps.newest, tombstone(for: row.id)?.stamp ?? .zero)
        }
        for (key, entry) in memory.entries where folded == nil || key == folded {
            newest = max(newest, entry.stamp, entry.purchases.first ?? .zero)
        }
        return max(newest, folded.map(memory.forgetting) ?? memory.cleared)
    }
}

/// Everything known of one name, gathered from its rows and its stored entry.
struct MemorySources {
    struct Source {
        var name: String
        var section: String
        var amount: String
        var optional: Bool
        var stamps: (name: Stamp, section: Stamp, amount: Stamp, optional: Stamp)
        var visible: Bool
        var checked: Bool
        var purchase: Stamp?

        init(row: Item, visible: Bool) {
            name = row.name
            section = row.section
            amount = row.amount
            optional = row.optional
            stamps = (row.stamps[.name], row.stamps[.section], row.stamps[.amount], row.stamps[.optional])
            self.visible = visible
            checked = row.checked
        }

        /// The newest of the remembered values' stamps.
        var stamp: Stamp { max(stamps.name, stamps.section, stamps.amount, stamps.optional) }
    }

    private var name: (String, Stamp)?
    private var section: (String, Stamp)?
    private var amount: (String, Stamp)?
    private var optional: (Bool, Stamp)?
    /// Purchases the rows show (their deletes' stamps), and the days of those stored
    /// (`ItemMemory.Entry`, kept to the day): a stored day stands for the purchases of that
    /// day no row shows, so a purchase both kept and still shown by a row counts once.
    private var purchases: Set<Stamp> = []
    private var storedDays: Set<Stamp> = []
    private var lastUsed = Stamp.zero
    private var onList = false
    private var sectionName: (String) -> String = { $0 }

    var isEmpty: Bool { name == nil }

    /// Each value from the source that stamped it last (a tie: the greater value, so any
    /// order of rows gives the same).
    private static func newer<Value>(_ current: (Value, Stamp)?, _ value: Value, _ stamp: Stamp, greater: (Value, Value) -> Bool) -> (Value, Stamp) {
        guard let current else { return (value, stamp) }
        if stamp != current.1 { return stamp > current.1 ? (value, stamp) : current }
        return greater(value, current.0) ? (value, stamp) : current
    }

    private mutating func add(name newName: String, section newSection: String, amount newAmount: String, optional newOptional: Bool,
                              stamps: (name: Stamp, section: Stamp, amount: Stamp, optional: Stamp), list: ShoppingList) {
        name = Self.newer(name, newName, stamps.name, greater: >)
        section = Self.newer(section, newSection, stamps.section, greater: >)
        amount = Self.newer(amount, newAmount, stamps.amount, greater: >)
        optional = Self.newer(optional, newOptional, stamps.optional) { $0 && !$1 }
        if list.hasRenamedSections { sectionName = list.sectionName }
    }

    mutating func add(_ source: Source, from list: ShoppingList) {
        add(name: source.name, section: source.section, amount: source.amount, optional: source.optional, stamps: source.stamps, list: list)
        if let purchase = source.purchase { purchases.insert(purchase) }
        lastUsed = max(lastUsed, source.stamp, source.purchase ?? .zero)
        if source.visible && !source.checked { onList = true }
    }

    mutating func add(_ entry: ItemMemory.Entry, from list: ShoppingList) {
        let stamp = entry.stamp
        add(name: entry.name, section: entry.section, amount: entry.amount, optional: entry.optional, stamps: (stamp, stamp, stamp, stamp), list: list)
        storedDays.formUnion(entry.purchases)
        lastUsed = max(lastUsed, stamp, entry.purchases.first ?? .zero)
    }

    func remembered(now: Int64) -> RememberedItem {
        let shownDays = Set(purchases.map(\.day))
        let all = Array(purchases) + storedDays.filter { !shownDays.contains($0) }
        let bought = all.map(\.millis)
        return RememberedItem(
            name: name?.0 ?? "", section: sectionName(section?.0 ?? ""), amount: amount?.0 ?? "",
            optional: optional?.0 ?? false, timesBought: all.count, lastBought: bought.max(),
            lastUsed: lastUsed.millis, onList: onList,
            score: Self.score(purchases: all, lastUsed: lastUsed.millis, now: now)
        )
    }

    /// Each purchase counts 1, halving every 30 days; having been on the list counts a
    /// little, so a name added recently but never bought still ranks.
    static func score(purchases: [Stamp], lastUsed: Int64, now: Int64) -> Double {
        func weight(_ millis: Int64) -> Double {
            let days = Double(max(0, now - millis)) / 86_400_000
            return 1 / (1 + days / 30) // a smooth decay without Foundation's pow
        }
        return purchases.reduce(0) { $0 + weight($1.millis) } + 0.25 * weight(lastUsed)
    }
}

extension RememberedItem {
    /// More useful first: by score, then by name (so ties come out the same everywhere).
    public static func moreUseful(_ a: RememberedItem, _ b: RememberedItem) -> Bool {
        a.score != b.score ? a.score > b.score : a.folded < b.folded
    }
}
