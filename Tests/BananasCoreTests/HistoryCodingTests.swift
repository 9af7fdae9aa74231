import Testing
@testable import BananasCore

/// The published history's file (`published.json`) reads back to the history written, in its
/// compact form, and the form before it is read too.
@Suite struct HistoryCodingTests {
    /// A history of a few writes: rows whose fields carry one stamp or several, a stamp out of
    /// the compact form's range, a renamed section, deletes seen (one edit's together).
    static func history() throws -> PublishedHistory {
        var list = ShoppingList(sections: ["Produce", "Dairy"])
        var history = PublishedHistory()
        let far = Stamp(millis: 9_999_999_999_999_999, counter: 7, replica: "far")
        try list.apply(.insert(Item(id: "A", name: "Apples", section: "Produce")), stamp: Stamp(millis: 1_800_000_000_000, counter: 0, replica: "a"))
        try list.apply(.insert(Item(id: "B", name: "Beans", section: "Dairy")), stamp: Stamp(millis: 1_800_000_000_001, counter: 3, replica: "b"))
        history.publish(list, hash: 1, kind: .write(mark: Stamp(millis: 1_800_000_000_002, counter: 0, replica: "m")), now: 1_800_000_000_002)
        try list.apply(.update(id: "A", changes: [.checked: .flag(true), .amount: .text("2")]), stamp: Stamp(millis: 1_800_000_000_010, counter: 0, replica: "c"))
        try list.apply(.update(id: "B", changes: [.name: .text("Black beans")]), stamp: far)
        try list.apply(.updateSection(key: "Dairy", changes: [.name: .text("Milk stuff")]), stamp: Stamp(millis: 1_800_000_000_011, counter: 0, replica: "c"))
        history.publish(list, hash: 2, kind: .save(marked: false), now: 1_800_000_000_020)
        try list.apply(.batch([.delete(id: "A"), .delete(id: "B")]), stamp: Stamp(millis: 1_800_000_000_030, counter: 0, replica: "d"))
        history.publish(list, hash: 3, kind: .received(mark: .zero), now: 1_800_000_000_040)
        return history
    }

    @Test func aHistoryReadsBackAsWritten() throws {
        let history = try Self.history()
        #expect(history.deletesSeen.count == 2)
        let read = try #require(PublishedHistory(encoded: history.encoded()))
        #expect(read == history)
        #expect(read.encoded() == history.encoded())
    }

    @Test func theFormerFormIsReadToo() throws {
        let former = """
            {"version": 1, "appLine": 2,
            "states": [
            [1, "0000000000000001", "w", "0001800000000002-000000-m", 1800000000002],
            [2, "0000000000000002", "s", "", 1800000000020]],
            "rows": {
            "A": [[1, ["Apples", "", "Produce", false, false, 0, "0001800000000000-000000-a"]], [2, ["Apples", "2", "Produce", true, false, 0, ["0001800000000000-000000-a", "0001800000000010-000000-c", "0001800000000000-000000-a", "0001800000000010-000000-c", "0001800000000000-000000-a", "0001800000000000-000000-a"]]]]},
            "sections": {},
            "deletes": {"B": [1800000000040, "0001800000000001-000003-b"]}}
            """
        let read = try #require(PublishedHistory(encoded: Array(former.utf8)))
        #expect(read.states.count == 2 && read.appLine == 2)
        let row = try #require(read.list(at: 2).rows["A"])
        #expect(row.amount == "2" && row.stamps[.checked] == Stamp(millis: 1_800_000_000_010, counter: 0, replica: "c"))
        #expect(read.deleteFirstSeen(Tombstone.key(for: "B"), hiding: Stamp(millis: 1_800_000_000_001, counter: 3, replica: "b")) == 1_800_000_000_040)
        #expect(PublishedHistory(encoded: read.encoded()) == read)
    }

    /// The first form wrote an unstamped value as a stamp no parser reads, which made the whole
    /// history unreadable: it reads now, as unstamped.
    @Test func anUnstampedValueInTheFormerFormReads() throws {
        let former = #"{"version": 1, "states": [[1, "0000000000000001", "w", "", 1]], "rows": {}, "sections": {"Dairy": [[1, ["Dairy", 2048, false, "0000000000000000-000000-"]]]}, "deletes": {}}"#
        let read = try #require(PublishedHistory(encoded: Array(former.utf8)))
        #expect(read.list(at: 1).sectionEntries["Dairy"]?.stamps[.name] == .zero)
    }
}
