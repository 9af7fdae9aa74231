import PropertyBased
import Testing
@testable import BananasCore

/// Bounded, never silent (issue 38, failure 6; the merge contract, rule 2): a list keeps a
/// bounded number of conflict records, and a lost value the user has not reviewed is never
/// dropped without the review saying so. A field's older lost values are folded into one
/// entry that says how many it holds; restoring or dismissing it reviews them all.
@Suite struct ConflictBoundTests {
    static let now: Int64 = 1_000_000

    /// Writers `range` each set `field` of item `id` from `base`, none having seen another's:
    /// their copies. Merged, every value but the one with the newest stamp is lost.
    static func writers(_ range: Range<Int>, id: String = "A", field: ItemField = .amount, from base: ShoppingList) throws -> [ShoppingList] {
        try range.map { n in
            var copy = base
            try copy.apply(.update(id: id, changes: [field: .text("v\(n)")]), stamp: stamp(100 + Int64(n), "w\(n)"))
            return copy
        }
    }

    static func merged(_ copies: [ShoppingList]) -> ShoppingList {
        copies.dropFirst().reduce(copies[0]) { $0.merged(with: $1) }
    }

    /// Every lost value the review accounts for: the entries listed and the older values
    /// folded into them.
    static func accounted(_ list: ShoppingList, all: Bool = false) -> Int {
        list.conflictList(all: all).reduce(0) { $0 + $1.keys.count + $1.folded }
    }

    /// 250 values of one field lost (a phone and a laptop fighting over Bread's amount): the
    /// newest ten stay listed, the 240 older ones are one entry saying how many it holds.
    @Test func twoHundredFiftyLossesOfOneFieldAreFoldedAndCounted() throws {
        var list = Self.merged(try Self.writers(0..<251, from: try sampleList()))
        #expect(list.item("A")?.amount == "v250")
        #expect(list.conflicts.count == 250)
        list.collectGarbage(now: Self.now)

        let subject = ConflictRecord.Subject.item("A", .amount)
        #expect(list.conflicts.count == ShoppingList.conflictsKeptPerField)
        let fold = try #require(list.conflictFolds[subject])
        #expect(fold.count == 240)
        #expect(fold.newest.lost == .text("v239"), "the newest of the folded values is the one shown")

        let review = list.conflictList()
        #expect(review.count == 11)
        let folded = try #require(review.first { $0.folded > 0 })
        #expect(folded.folded == 239, "v239, and 239 older values of this field")
        #expect(folded.lost == .text("v239"))
        #expect(review.filter { $0.folded == 0 }.map(\.lost) == (240..<250).map { .text("v\($0)") }, "the newest ten, oldest first")
        #expect(Self.accounted(list) == 250, "every lost value is listed or counted")

        // Folding again changes nothing; a later write keeps the count.
        var again = list
        again.collectGarbage(now: Self.now + 1)
        #expect(again == list)
        #expect(Self.accounted(again) == 250)
    }

    /// One value lost on each of 250 items (a stampless save that beat 250 edits): none may
    /// vanish, whatever the list's capacity.
    @Test func twoHundredFiftyLossesAcrossTwoHundredFiftyItemsAllStay() throws {
        var base = ShoppingList(sections: ["Produce"])
        for n in 0..<250 {
            try base.apply(.insert(Item(id: "I\(n)", name: "item \(n)", section: "Produce", sortOrder: Double(n))), stamp: stamp(1))
        }
        var mine = base, theirs = base
        for n in 0..<250 {
            try mine.apply(.update(id: "I\(n)", changes: [.amount: .text("mine")]), stamp: stamp(10 + Int64(n), "me"))
            try theirs.apply(.update(id: "I\(n)", changes: [.amount: .text("theirs")]), stamp: stamp(1_000 + Int64(n), "them"))
        }
        var list = mine.merged(with: theirs)
        #expect(list.conflicts.count == 250)
        list.collectGarbage(now: Self.now)
        #expect(list.conflicts.count == 250, "no unreviewed record is dropped to meet a count")
        #expect(list.conflictFolds.isEmpty, "one value per field: nothing to fold")
        #expect(list.conflictList().count == 250)
        #expect(Set(list.conflictList().map(\.subjectID)) == Set((0..<250).map { "I\($0)" }))
    }

    /// Three values lost on each of 250 items: 750 records are more than a list keeps, so
    /// each field keeps fewer of its newest listed (down to one) and folds the rest, counted.
    @Test func manyFieldsWithManyLossesKeepFewerEachAndCountTheRest() throws {
        var base = ShoppingList(sections: ["Produce"])
        for n in 0..<250 {
            try base.apply(.insert(Item(id: "I\(n)", name: "item \(n)", section: "Produce", sortOrder: Double(n))), stamp: stamp(1))
        }
        let copies = try (0..<4).map { w in
            var copy = base
            for n in 0..<250 { try copy.apply(.update(id: "I\(n)", changes: [.amount: .text("w\(w)")]), stamp: stamp(10 + Int64(w), "w\(w)")) }
            return copy
        }
        var list = Self.merged(copies)
        #expect(list.conflicts.count == 750)
        list.collectGarbage(now: Self.now)
        #expect(list.conflicts.count == 250, "one listed per field")
        #expect(list.conflictFolds.count == 250)
        #expect(Self.accounted(list) == 750)
        let review = list.conflictList()
        for n in 0..<250 {
            let entries = review.filter { $0.subjectID == "I\(n)" }
            #expect(entries.map(\.lost) == [.text("w1"), .text("w2")], "w0 folded into w1's entry, w2 listed")
            #expect(entries.map(\.folded) == [1, 0])
        }
    }

    /// Devices that fold apart, and copies merged in any order, end with the same records and
    /// folds; a stale copy that never folded brings none of the folded records back, and none
    /// is counted twice.
    @Test func foldingCommutes() throws {
        let base = try sampleList()
        let all = try Self.writers(0..<60, from: base)
        // a saw the first 40 writers, b the last 40 (20 in common), c a few of each.
        var a = Self.merged(Array(all[0..<40]))
        var b = Self.merged(Array(all[20..<60]))
        var c = Self.merged([all[5], all[30], all[55]])
        a.collectGarbage(now: Self.now)
        b.collectGarbage(now: Self.now)
        c.collectGarbage(now: Self.now)
        #expect(a.conflictFolds.count == 1 && b.conflictFolds.count == 1 && c.conflictFolds.isEmpty)

        let orders = [[a, b, c], [a, c, b], [b, a, c], [b, c, a], [c, a, b], [c, b, a]]
        let results = orders.map(Self.merged)
        for result in results.dropFirst() { #expect(result == results[0]) }
        #expect(a.merged(with: b).merged(with: c) == a.merged(with: b.merged(with: c)), "associative")
        #expect(results[0].merged(with: results[0]) == results[0], "idempotent")
        #expect(results[0].merged(with: a) == results[0] && results[0].merged(with: b) == results[0])
        #expect(Self.accounted(results[0]) == 59, "every value either device folded, counted once")

        // Written again by either device: the same list.
        var one = a.merged(with: b).merged(with: c), two = c.merged(with: b).merged(with: a)
        one.collectGarbage(now: Self.now + 5)
        two.collectGarbage(now: Self.now + 5)
        #expect(one == two)
        #expect(one.conflicts.count == ShoppingList.conflictsKeptPerField)
        #expect(Self.accounted(one) == 59)

        // A stale copy holding every record unfolded: merged, nothing comes back or counts twice.
        let stale = Self.merged(all)
        #expect(stale.conflicts.count == 59)
        var folded = stale
        folded.collectGarbage(now: Self.now)
        #expect(Self.accounted(folded) == 59)
        #expect(stale.merged(with: folded) == folded.merged(with: stale))
        #expect(stale.merged(with: folded).conflicts == folded.conflicts)
        #expect(Self.accounted(stale.merged(with: folded)) == 59)
    }

    /// Dismissing the folded entry reviews every value it holds; values folded after that
    /// await review again, counted from the dismissal on. The dismissal reaches other copies.
    @Test func dismissingAFoldedEntryReviewsWhatItFolds() throws {
        let base = try sampleList()
        let copies = try Self.writers(0..<251, from: base)
        var list = Self.merged(copies)
        list.collectGarbage(now: Self.now)
        let entry = try #require(list.conflictList().first { $0.folded > 0 })
        let before = list
        try list.apply(list.dismissEdit([entry]), stamp: stamp(5_000, "me"))
        #expect(list.conflictList().count == 10, "the fold reviewed, the ten listed values still await review")
        #expect(list.conflictList().allSatisfy { $0.folded == 0 })
        #expect(list.conflictFolds.values.first?.awaitingCount == 0)
        let reviewed = try #require(list.conflictList(all: true).first { $0.folded > 0 })
        #expect(reviewed.folded == 239 && reviewed.resolution == "dismissed")
        // Another device that had not seen the dismissal, merged: still dismissed.
        #expect(before.merged(with: list).conflictList().count == 10)
        #expect(list.merged(with: before) == before.merged(with: list))

        // Five more values lost to a newer one: the oldest five listed are folded, and only
        // they await review in the fold.
        var later = list
        for n in 251..<256 {
            var copy = base
            try copy.apply(.update(id: "A", changes: [.amount: .text("v\(n)")]), stamp: stamp(100 + Int64(n), "w\(n)"))
            later.merge(copy)
        }
        later.collectGarbage(now: Self.now + 10)
        let fold = try #require(later.conflictFolds.values.first)
        #expect(fold.count == 245 && fold.awaitingCount == 5)
        let grown = try #require(later.conflictList().first { $0.keys.contains(fold.newest) })
        #expect(grown.lost == .text("v244") && grown.folded == 4)
        #expect(Self.accounted(later) == 15, "ten listed, five in the fold awaiting review")

        // Reviewed folds expire as reviewed records do; one awaiting review never does.
        var month = later
        try month.apply(month.dismissEdit(month.conflictList()), stamp: stamp(6_000, "me"))
        month.collectGarbage(now: Self.now + 10 + ShoppingList.reviewedConflictLifetimeMillis + 1)
        #expect(month.conflictFolds.isEmpty && month.conflicts.isEmpty)
        var kept = later
        kept.collectGarbage(now: Self.now + 10 + ShoppingList.reviewedConflictLifetimeMillis + 1)
        #expect(kept.conflictFolds.count == 1 && Self.accounted(kept) == 15)
    }

    /// Restoring the folded entry makes its value current and reviews every value it folds.
    @Test func restoringAFoldedEntryReviewsWhatItFolds() throws {
        var list = Self.merged(try Self.writers(0..<251, from: try sampleList()))
        list.collectGarbage(now: Self.now)
        let entry = try #require(list.conflictList().first { $0.folded > 0 })
        try list.apply(try list.restoreEdit(entry), stamp: stamp(5_000, "me"))
        #expect(list.item("A")?.amount == "v239")
        #expect(list.conflictList().count == 10)
        #expect(!list.conflictList().contains { $0.folded > 0 })
        let restored = try #require(list.conflictList(all: true).first { $0.folded > 0 })
        #expect(restored.resolution == "restored")
        // A review of a fold that is gone, or of a value no fold holds, is no such conflict.
        let stray = ConflictRecord.Key(subject: .item("A", .amount), lostStamp: stamp(7, "x"), lost: .text("v7"))
        #expect(throws: EditError.noSuchConflict) { try list.apply(.review(stray, resolution: "dismissed"), stamp: stamp(6_000, "me")) }
    }

    /// A section's name fought over folds like an item's field.
    @Test func sectionFieldsFoldToo() throws {
        let base = try sampleList()
        let copies = try (0..<30).map { n in
            var copy = base
            try copy.apply(.updateSection(key: "Produce", changes: [.name: .text("P\(n)")]), stamp: stamp(100 + Int64(n), "w\(n)"))
            return copy
        }
        var list = Self.merged(copies)
        list.collectGarbage(now: Self.now)
        #expect(list.conflictFolds[.section("Produce", .name)]?.count == 19)
        #expect(Self.accounted(list) == 29)
        let entry = try #require(list.conflictList().first { $0.folded > 0 })
        #expect(entry.isSection && entry.folded == 18)
    }

    /// The values a field folds are found in one pass (`allButGreatest`), not by sorting them
    /// all: the same as the sorted keys without their greatest, for any keep, on keys drawn
    /// from a fixed seed (subjects, stamps and values that tie in every way but one).
    @Test func theFoldedAreTheSortedButTheGreatest() {
        var random = Xoshiro(seed: (55, 3, 0, 0))
        for round in 0..<300 {
            var keys = Set<ConflictRecord.Key>()
            for _ in 0..<Int.random(in: 0...40, using: &random) {
                let subject: ConflictRecord.Subject = Bool.random(using: &random)
                    ? .item("I\(Int.random(in: 0...2, using: &random))", [.amount, .name][Int.random(in: 0...1, using: &random)])
                    : .section("S\(Int.random(in: 0...1, using: &random))", .name)
                keys.insert(ConflictRecord.Key(subject: subject, lostStamp: stamp(Int64.random(in: 0...5, using: &random), "r\(Int.random(in: 0...2, using: &random))"),
                                               lost: .text("v\(Int.random(in: 0...3, using: &random))")))
            }
            let all = Array(keys).shuffled(using: &random)
            for keep in 0...12 {
                let going = ShoppingList.allButGreatest(keep, of: all)
                #expect(going.sorted() == Array(all.sorted().dropLast(keep)), "round \(round), keep \(keep)")
            }
        }
    }
}

