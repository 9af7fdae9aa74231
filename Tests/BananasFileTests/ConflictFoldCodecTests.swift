import Foundation
import Testing
@testable import BananasCore
@testable import BananasFile

/// A field's folded lost values in the file (`sync.conflictsFolded`, docs/file-format.md):
/// they survive a round trip, reviewed or not, and a file whose records a fold holds (an
/// older bananas wrote back records it still had) reads with them folded, not listed.
@Suite struct ConflictFoldCodecTests {
    static let now: Int64 = 1_800_000_000_000

    static func foldedList() throws -> ShoppingList {
        var base = ShoppingList(sections: ["Dairy"])
        try base.apply(.insert(Item(id: "A", name: "Milk", section: "Dairy")), stamp: Stamp(millis: now, counter: 0, replica: "origin"))
        let copies = try (0..<30).map { n in
            var copy = base
            try copy.apply(.update(id: "A", changes: [.amount: .text("\(n) L")]), stamp: Stamp(millis: now + 10 + Int64(n), counter: 0, replica: "w\(n)"))
            return copy
        }
        var list = copies.dropFirst().reduce(copies[0]) { $0.merged(with: $1) }
        list.collectGarbage(now: now + 100)
        return list
    }

    @Test func foldsRoundTrip() throws {
        var list = try Self.foldedList()
        #expect(list.conflictFolds.count == 1 && list.conflicts.count == 10)
        #expect(try ListCodec.decode(ListCodec.encode(list)).list == list)
        let entry = try #require(list.conflictList().first { $0.folded > 0 })
        try list.apply(list.dismissEdit([entry]), stamp: Stamp(millis: Self.now + 200, counter: 0, replica: "me"))
        let text = String(decoding: ListCodec.encode(list), as: UTF8.self)
        #expect(text.contains(#""conflictsFolded""#) && text.contains(#""reviewed""#))
        #expect(try ListCodec.decode(ListCodec.encode(list)).list == list)
    }

    @Test func recordsAFoldHoldsAreFoldedWhenRead() throws {
        let list = try Self.foldedList()
        var all = list
        // Every record again, as a copy that never folded them would write them back.
        var unfolded = try Self.foldedList()
        unfolded.conflictFolds = [:]
        let copies = try (0..<29).map { n in
            ConflictRecord(subject: .item("A", .amount), lost: .text("\(n) L"), lostStamp: Stamp(millis: Self.now + 10 + Int64(n), counter: 0, replica: "w\(n)"))
        }
        for record in copies { unfolded.conflicts[record.key] = record }
        all.merge(unfolded)
        #expect(all.conflicts.count == 10)
        let bytes = ListCodec.encode(list)
        guard case .object(var top) = try JSONText.parse(bytes), case .object(var sync)? = top["sync"] else { Issue.record("no sync"); return }
        sync["conflicts"] = .array(copies.map(ListCodec.encodeConflict))
        top["sync"] = .object(sync)
        let read = try ListCodec.decode(Array(JSONText.compact(.object(top)).utf8)).list
        #expect(read.conflicts.count == 10, "the 19 the fold holds are not listed again")
        #expect(Set(read.conflicts.keys) == Set(list.conflicts.keys))
        #expect(read.conflictFolds == list.conflictFolds)
    }
}
