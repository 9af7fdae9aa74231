import Testing
import PropertyBased
@testable import BananasCore
import BananasTestSupport

/// Remembered items (issue 24): what was bought comes back, with its section, ranked, with
/// typos, merged across devices, forgotten on request, bounded.
@Suite struct MemoryTests {
    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_800_000_000_000

    /// A device that shops: each call adds the names (with sections), checks them, and clears
    /// them, `days` after `start`.
    struct Shopper {
        var list: ShoppingList
        var clock: StampClock
        var ids = 0

        init(_ replica: String, list: ShoppingList = ShoppingList()) {
            self.list = list
            clock = StampClock(replica: replica)
        }

        mutating func stamp(_ now: Int64) -> Stamp {
            clock.observe(list.newestStamp, now: now)
            return clock.next(now: now)
        }

        mutating func add(_ name: String, section: String? = nil, amount: String? = nil, day: Int64) throws -> AddOutcome {
            let now = MemoryTests.start + day * MemoryTests.day
            ids += 1
            let id = "\(clock.replica)\(ids)"
            let plan = list.addEdit([name], amount: amount, section: section, makeID: { id })
            try list.apply(plan.edit, stamp: stamp(now))
            return plan.outcomes[0]
        }

        mutating func buy(_ names: [(String, String)], day: Int64) throws {
            let now = MemoryTests.start + day * MemoryTests.day
            for (name, section) in names { _ = try add(name, section: section, day: day) }
            for item in list.items where !item.checked {
                try list.apply(.update(id: item.id, changes: [.checked: .flag(true)]), stamp: stamp(now))
            }
            for item in list.items where item.checked { try list.apply(.delete(id: item.id), stamp: stamp(now)) }
        }

        func usual(day: Int64) -> [String] {
            list.usualItems(now: MemoryTests.start + day * MemoryTests.day).map(\.name)
        }
    }

    @Test func whatWasBoughtIsRememberedWithItsSection() throws {
        var me = Shopper("a")
        try me.buy([("Milk", "Dairy"), ("Bread", "Bakery")], day: 0)
        #expect(me.list.items.isEmpty)
        let milk = try #require(me.list.remembered(named: "milk", now: Self.start))
        #expect(milk.name == "Milk" && milk.section == "Dairy" && milk.timesBought == 1 && !milk.onList)
        #expect(Set(me.usual(day: 1)) == ["Milk", "Bread"])
        // Added back: filed where it was last, in its remembered spelling, and said so.
        let outcome = try me.add("milk", day: 7)
        guard case .added(let item, let placement) = outcome else { Issue.record("not added: \(outcome)"); return }
        #expect(item.name == "Milk" && item.section == "Dairy" && placement.reason == .lastTime)
        #expect(me.usual(day: 7) == ["Bread"], "an item on the list is not among the usual ones to add")
        // A name never seen and not in the catalogue goes to the default section, and is not "as last time".
        guard case .added(let new, let placement) = try me.add("Zorblax", day: 7) else { Issue.record("not added"); return }
        #expect(new.section == ShoppingList.defaultSection && placement.reason == .unknown)
        // A section given outright wins over the memory.
        try me.buy([], day: 7)
        guard case .added(let moved, let asked) = try me.add("Milk", section: "Fridge", day: 8) else { Issue.record("not added"); return }
        #expect(moved.section == "Fridge" && asked.reason == .asked)
        #expect(me.list.remembered(named: "Milk", now: Self.start)?.section == "Fridge", "the newest section is remembered")
    }

    @Test func theUsualAmountComesBackUnlessAnotherIsGiven() throws {
        var me = Shopper("a")
        _ = try me.add("Eggs", section: "Dairy", amount: "12", day: 0)
        try me.buy([], day: 0)
        guard case .added(let usual, let placement) = try me.add("eggs", day: 3), placement.reason == .lastTime else { Issue.record("not added"); return }
        #expect(usual.amount == "12")
        try me.list.apply(.delete(id: usual.id), stamp: me.stamp(Self.start + 3 * Self.day))
        guard case .added(let six, let again) = try me.add("eggs", amount: "6", day: 3), again.reason == .lastTime else { Issue.record("not added"); return }
        #expect(six.amount == "6" && six.section == "Dairy")
    }

    @Test func suggestionsToleranceTyposAndRankByUse() throws {
        var me = Shopper("a")
        for week in 0..<4 { try me.buy([("Milk", "Dairy")], day: Int64(week) * 7) }
        try me.buy([("Mint", "Produce"), ("Millet", "Pantry"), ("Oat milk", "Dairy"), ("Lemons", "Produce")], day: 20)
        let suggest = Suggestions(me.list.rememberedItems(now: Self.start + 28 * Self.day))
        #expect(suggest.matching("mi").first?.name == "Milk", "bought every week: first among the prefix matches")
        #expect(suggest.matching("mlik").first?.name == "Milk", "a swapped pair of letters")
        #expect(suggest.matching("milj").first?.name == "Milk", "a wrong letter")
        #expect(suggest.matching("ml").first?.name == "Milk", "the letters in order")
        #expect(suggest.matching("lemosn").map(\.name) == ["Lemons"])
        #expect(suggest.matching("milk").map(\.name) == ["Milk", "Oat milk", "Millet"], "the whole name, a word of another, then a typo away")
        #expect(suggest.matching("zz").isEmpty)
        #expect(suggest.matching("m").map(\.name).last == "Oat milk", "one letter: names that start with it, then words")
        #expect(suggest.matching("m").count == 4, "one letter: no typos, no letters in order")
        #expect(suggest.matching("", limit: 8).isEmpty)
        #expect(Suggestions.prefixDistance(Suggestions.letters("xyzw"), Suggestions.letters("milk"), limit: 1) == 2)
    }

    @Test func twoDevicesMemoriesBecomeOne() throws {
        var phone = Shopper("p"), laptop = Shopper("l")
        try phone.buy([("Milk", "Dairy"), ("Coffee", "Pantry")], day: 0)
        try laptop.buy([("Milk", "Fridge"), ("Tea", "Pantry")], day: 1)
        let one = phone.list.merged(with: laptop.list), other = laptop.list.merged(with: phone.list)
        #expect(one == other)
        let now = Self.start + 2 * Self.day
        #expect(one.rememberedItems(now: now) == other.rememberedItems(now: now))
        #expect(one.remembered(named: "Milk", now: now)?.section == "Fridge", "the newer section wins, on both")
        #expect(one.remembered(named: "Milk", now: now)?.timesBought == 2, "both devices' purchases count")
        #expect(Set(one.usualItems(now: now).map(\.name)) == ["Milk", "Coffee", "Tea"])
        #expect(one.conflictList().isEmpty, "memory is never a conflict to review")
    }

    @Test func forgottenNamesStayForgottenAcrossDevices() throws {
        var me = Shopper("a")
        try me.buy([("Milk", "Dairy"), ("Cake", "Bakery")], day: 0)
        var other = Shopper("b", list: me.list)
        try me.list.apply(.forget("cake"), stamp: me.stamp(Self.start + Self.day))
        #expect(me.list.remembered(named: "Cake", now: Self.start) == nil)
        #expect(me.usual(day: 2) == ["Milk"])
        #expect(throws: EditError.notRemembered("Cake")) { try me.list.apply(.forget("Cake"), stamp: me.stamp(Self.start + Self.day)) }
        // The other device never saw the forget and still knows Cake: merging keeps it forgotten.
        let merged = other.list.merged(with: me.list)
        #expect(merged.usualItems(now: Self.start + 2 * Self.day).map(\.name) == ["Milk"])
        // Bought again after the forget (on the other device): remembered again.
        other.list = merged
        try other.buy([("Cake", "Bakery")], day: 3)
        #expect(other.list.remembered(named: "cake", now: Self.start + 4 * Self.day)?.timesBought == 1)
        // Forget everything: items on the list stay, nothing is remembered.
        _ = try other.add("Milk", day: 4)
        try other.list.apply(.forget(nil), stamp: other.stamp(Self.start + 4 * Self.day))
        #expect(other.list.rememberedItems(now: Self.start + 4 * Self.day).isEmpty)
        #expect(other.list.items.map(\.name) == ["Milk"])
    }

    @Test func aForgetBeatsStampsFromAClockFarAhead() throws {
        var fast = Shopper("f")
        let ahead = Int64(100) * 365 * Self.day
        var list = ShoppingList()
        try list.apply(.insert(Item(id: "X", name: "Milk", section: "Dairy")), stamp: Stamp(millis: Self.start + ahead, counter: 0, replica: "f"))
        fast.list = list
        var me = Shopper("a", list: list)
        try me.list.apply(.forget("Milk"), stamp: Stamp(millis: Self.start, counter: 0, replica: "a"))
        #expect(me.list.remembered(named: "Milk", now: Self.start) == nil)
        #expect(me.list.merged(with: fast.list).remembered(named: "Milk", now: Self.start) == nil)
        // Scores stay sane: a purchase dated in the future counts as today, not more.
        try fast.buy([("Tea", "Pantry")], day: 0)
        let tea = try #require(fast.list.remembered(named: "Tea", now: Self.start))
        #expect(tea.score <= 1.25)
    }

    @Test func rowsGarbageCollectedAreStillRememberedAndTheMemoryIsBounded() throws {
        var me = Shopper("a")
        let names = (0..<1_200).map { "Item \($0)" }
        var sightings: [UInt64: Int64] = [:]
        var list = ShoppingList()
        for (index, name) in names.enumerated() {
            // Three hours apart: the memory keeps days, and ranks older ones lower.
            let stamp = Stamp(millis: Self.start + Int64(index) * 3 * 3_600_000, counter: 0, replica: "a")
            try list.apply(.insert(Item(id: "i\(index)", name: name, section: "S\(index % 7)", checked: true)), stamp: stamp)
            try list.apply(.delete(id: "i\(index)"), stamp: stamp)
        }
        list.collectGarbage(now: Self.start, sightings: &sightings)
        let later = Self.start + 200 * Self.day
        list.collectGarbage(now: later, sightings: &sightings)
        #expect(list.rows.isEmpty && list.tombstones.isEmpty, "the deleted rows are gone after their lifetime")
        #expect(list.memory.entries.count == ItemMemory.capacity)
        #expect(list.rememberedItems(now: later).count == ItemMemory.capacity)
        let newest = try #require(list.remembered(named: "Item 1199", now: later))
        #expect(newest.section == "S\(1199 % 7)" && newest.timesBought == 1)
        #expect(list.remembered(named: "Item 0", now: later) == nil, "the least useful names go first")
        // Purchases per name are bounded too.
        me.list = ShoppingList()
        for week in 0..<20 { try me.buy([("Milk", "Dairy")], day: Int64(week) * 7) }
        me.list.collectGarbage(now: Self.start, sightings: &sightings)
        me.list.collectGarbage(now: Self.start + 400 * Self.day, sightings: &sightings)
        #expect(me.list.memory.entries["milk"]?.purchases.count == ItemMemory.purchaseLimit)
        #expect(me.list.remembered(named: "Milk", now: Self.start + 400 * Self.day)?.section == "Dairy")
    }

    /// Found by `memoryMergeIsAJoin` (shrunk): an entry kept only for a purchase after a
    /// `forget --all` kept values from before it, and which ones depended on the merge order.
    @Test func valuesBoughtAfterAForgetAreTheOnesKeptInAnyOrder() {
        // Days apart: what is stored of a name is kept to the day (`Stamp.day`).
        let day = Stamp.dayMillis
        let boughtAfter = ItemMemory(entries: ["milk": .init(name: "Milk", section: "Dairy", stamp: Stamp(millis: 0, counter: 0, replica: "a"),
                                                             purchases: [Stamp(millis: 6 * day, counter: 0, replica: "a")])])
        let editedBefore = ItemMemory(entries: ["milk": .init(name: "Milk", section: "Pantry", stamp: Stamp(millis: 1 * day, counter: 0, replica: "b"))])
        let forgetAll = ItemMemory(cleared: Stamp(millis: 5 * day, counter: 0, replica: "c"))
        func merged(_ x: ItemMemory, _ y: ItemMemory) -> ItemMemory { var z = x; z.merge(y); return z }
        let leftFirst = merged(merged(boughtAfter, editedBefore), forgetAll)
        let rightFirst = merged(boughtAfter, merged(editedBefore, forgetAll))
        #expect(leftFirst == rightFirst)
        #expect(leftFirst.entries["milk"]?.section == "Dairy", "the values the row had when it was bought, after the forget")
    }

    /// The stored memory merges like the rest: in any order, any number of times.
    @Test func memoryMergeIsAJoin() async {
        await propertyCheck(count: 100, input: Gen.uint64().array(of: 0...200)) { draws in
            var rng = DrawnChoices(draws)
            func memory() -> ItemMemory {
                var entries: [String: ItemMemory.Entry] = [:]
                var forgotten: [String: Stamp] = [:]
                for _ in 0..<rng.below(5) {
                    let name = ["Milk", "milk", "Tea", "Cake"][rng.below(4)]
                    let stamp = Stamp(millis: Int64(rng.below(20)), counter: 0, replica: ["a", "b"][rng.below(2)])
                    let entry = ItemMemory.Entry(name: name, section: ["Dairy", "Pantry"][rng.below(2)], stamp: stamp,
                                                 purchases: (0..<rng.below(12)).map { Stamp(millis: Int64($0) + Int64(rng.below(20)), counter: 0, replica: "a") })
                    entries[ItemMemory.fold(name)] = entries[ItemMemory.fold(name)].map { $0.merged(with: entry) } ?? entry
                    if rng.below(4) == 0 { forgotten[ItemMemory.fold(name)] = Stamp(millis: Int64(rng.below(20)), counter: 1, replica: "c") }
                }
                return ItemMemory(entries: entries, forgotten: forgotten, cleared: rng.below(6) == 0 ? Stamp(millis: 5, counter: 0, replica: "c") : .zero)
            }
            let (a, b, c) = (memory(), memory(), memory())
            func merged(_ x: ItemMemory, _ y: ItemMemory) -> ItemMemory { var z = x; z.merge(y); return z }
            #expect(merged(a, b) == merged(b, a))
            #expect(merged(merged(a, b), c) == merged(a, merged(b, c)))
            #expect(merged(a, a) == a)
        }
    }
}
