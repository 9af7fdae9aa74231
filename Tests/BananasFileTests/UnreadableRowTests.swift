import BananasTestSupport
import Foundation
import PropertyBased
import Testing
@testable import BananasCore
@testable import BananasFile

/// Issue 21, "rows are dropped on write": every row the reader could not read is written
/// back byte for byte, in place among the readable rows, as many times as the file had it;
/// a repeated top-level key is kept and reported. (`UnreadableCorpus` is the file.)
@Suite struct UnreadableRowTests {
    static let stamp = Stamp(millis: 1_800_000_000_000, counter: 0, replica: "abc123abc123")

    static func decode(_ text: String) throws -> DecodedList { try ListCodec.decode(Array(text.utf8)) }

    @Test("a round trip keeps every unreadable row verbatim, in place, and both identical rows")
    func roundTrip() throws {
        let before = UnreadableCorpus.rows(of: UnreadableCorpus.file)
        #expect(before.filter { $0.hasPrefix("U:") }.count == UnreadableCorpus.unreadable.count, "the helper sees the corpus")
        let decoded = try Self.decode(UnreadableCorpus.file)
        #expect(decoded.list.items.map(\.name) == ["Milk", "Eggs", "Bread"])
        #expect(decoded.list.unreadableRows.count == UnreadableCorpus.unreadable.count)
        let written = ListCodec.encode(decoded.list)
        #expect(UnreadableCorpus.rows(of: written) == before, "\(String(decoding: written, as: UTF8.self))")
        // And again: a second rewrite changes nothing.
        let again = ListCodec.encode(try ListCodec.decode(written).list)
        #expect(again == written)
        // The tree form (its values, not its bytes) has every row, in the same places.
        guard case .object(let top) = ListCodec.encodeValue(decoded.list), case .array(let rows)? = top["items"] else { Issue.record("no items"); return }
        let names = rows.map { row -> String in
            if case .object(let fields) = row, case .string(let name)? = fields["name"], ["Milk", "Eggs", "Bread"].contains(name) { return "R:" + name }
            return "U"
        }
        #expect(names == before.map { $0.hasPrefix("R:") ? $0 : "U" })
    }

    @Test("an add, a delete of a neighbour and an edit keep the unreadable rows where they were")
    func editsAround() throws {
        var list = try Self.decode(UnreadableCorpus.file).list
        let eggs = list.items.first { $0.name == "Eggs" }!
        let milk = list.items.first { $0.name == "Milk" }!
        try list.apply(.insert(Item(id: ItemID.random(), name: "Yogurt", section: "Dairy", sortOrder: list.nextSortOrder)), stamp: Self.stamp)
        try list.apply(.delete(id: eggs.id), stamp: Self.stamp.advanced())
        try list.apply(.update(id: milk.id, changes: [.name: .text("Oat milk")]), stamp: Self.stamp.advanced().advanced())
        let written = ListCodec.encode(list)
        var expected = UnreadableCorpus.rows(of: UnreadableCorpus.file).filter { $0 != "R:Eggs" }
        expected[expected.firstIndex(of: "R:Milk")!] = "R:Oat milk"
        expected.append("R:Yogurt")
        #expect(UnreadableCorpus.rows(of: written) == expected, "\(String(decoding: written, as: UTF8.self))")
        // Read again and written again (the rows now follow Milk, not the deleted Eggs): the same.
        let reread = try ListCodec.decode(written).list
        #expect(UnreadableCorpus.rows(of: ListCodec.encode(reread)) == expected)
        // A merge of the two states (as a store merges the file it reads) keeps each row once.
        let merged = list.merged(with: reread)
        #expect(merged.unreadableRows.count == UnreadableCorpus.unreadable.count)
        #expect(UnreadableCorpus.rows(of: ListCodec.encode(merged)) == expected)
        #expect(reread.merged(with: list) == merged, "commutative")
    }

    @Test("two copies that both carry the same unreadable rows merge without duplicating them")
    func mergeDoesNotDuplicate() throws {
        let a = try Self.decode(UnreadableCorpus.file).list
        var b = a
        try b.apply(.insert(Item(id: ItemID.random(), name: "Jam", sortOrder: 2.5)), stamp: Self.stamp)
        let merged = a.merged(with: b)
        #expect(merged.unreadableRows == a.unreadableRows)
        #expect(merged.merged(with: merged) == merged)
        let rows = UnreadableCorpus.rows(of: ListCodec.encode(merged))
        #expect(rows.filter { $0.hasPrefix("U:") }.count == UnreadableCorpus.unreadable.count)
        // Jam (sortOrder 2.5) goes after Eggs and after the rows that followed Eggs.
        #expect(rows.firstIndex(of: "R:Jam")! > rows.firstIndex(of: "U:" + UnreadableCorpus.unreadable[6])!)
        // A copy with one of the two identical rows and one with both: two, not three.
        var one = a
        one.unreadableRows.removeAll { $0.occurrence == 1 }
        #expect(one.merged(with: a).unreadableRows.count == a.unreadableRows.count)
    }

    @Test("the merge of unreadable rows is commutative, associative and idempotent, and keeps each row once")
    func mergeLaws() async {
        let texts = ["1", "null", #"{"name": ""}"#, "[\n  2\n]"]
        let places: [UnreadableRow.Position?] = [nil, .init(sortOrder: 1, id: "A"), .init(sortOrder: 2, id: "B")]
        let row = zip(Gen.int(in: 0...3), Gen.int(in: 0...2), Gen.int(in: 0...1), Gen.int(in: 0...1)).map { text, place, index, occurrence in
            UnreadableRow(text: texts[text], after: places[place], index: index, occurrence: occurrence)
        }
        let list = row.array(of: 0...5).map { ShoppingList(unreadableRows: $0) }
        await propertyCheck(count: 500, input: list, list, list) { a, b, c in
            #expect(a.merged(with: b).unreadableRows == b.merged(with: a).unreadableRows)
            #expect(a.merged(with: b).merged(with: c).unreadableRows == a.merged(with: b.merged(with: c)).unreadableRows)
            let ab = a.merged(with: b)
            #expect(ab.merged(with: ab).unreadableRows == ab.unreadableRows)
            #expect(ab.merged(with: a).unreadableRows == ab.unreadableRows)
            let identities = ab.unreadableRows.map { "\($0.occurrence) \($0.text)" }
            #expect(Set(identities).count == identities.count, "each row once")
        }
    }

    @Test("a row that only the general reader reads has the same bytes and place either way")
    func bothReaders() throws {
        let bytes = Array(UnreadableCorpus.file.utf8)
        let direct = try ListCodec.decode(bytes)
        let general = try ListCodec.decode(bytes, readingItemsDirectly: false)
        #expect(direct == general)
    }

    @Test("a repeated items key: the last one is read, the other is kept under shadowedKeys and reported")
    func shadowedItems() throws {
        let text = #"{"sections": [], "items": [{"id": "a", "name": "Old"}, 7], "items": [{"id": "b", "name": "New"}], "extra": 1}"#
        let decoded = try Self.decode(text)
        #expect(decoded.list.items.map(\.name) == ["New"], "read as every JSON reader reads it")
        #expect(decoded.problems.contains { $0.contains("\"items\" twice") && $0.contains("2 rows") }, "\(decoded.problems)")
        let written = try JSONSerialization.jsonObject(with: Data(ListCodec.encode(decoded.list))) as! [String: Any]
        let kept = written[ListCodec.shadowedKey] as! [[String: Any]]
        #expect(kept.count == 1 && kept[0]["key"] as? String == "items")
        let rows = kept[0]["value"] as! [Any]
        #expect((rows[0] as? [String: Any])?["name"] as? String == "Old" && rows[1] as? Int == 7)
        #expect((written["items"] as! [[String: Any]]).map { $0["name"] as! String } == ["New"])
        // Read again: still reported, still kept, nothing added.
        let reread = try ListCodec.decode(ListCodec.encode(decoded.list))
        #expect(reread.list.extra[ListCodec.shadowedKey] == decoded.list.extra[ListCodec.shadowedKey])
        #expect(!reread.problems.isEmpty)
    }

    @Test("an unreadable row moves with the readable row before it; when that row is deleted it stays at its last place")
    func movesWithItsNeighbour() throws {
        let text = """
            {"sections": ["A"], "items": [
              {"id": "M", "name": "Milk", "section": "A", "sortOrder": 1},
              7,
              {"id": "E", "name": "Eggs", "section": "A", "sortOrder": 2},
              "x",
              {"id": "B", "name": "Bread", "section": "A", "sortOrder": 3}
            ]}
            """
        var list = try Self.decode(text).list
        try list.apply(.update(id: "M", changes: [.sortOrder: .order(4)]), stamp: Self.stamp)
        let moved = ["R:Eggs", "?:\"x\"", "R:Bread", "R:Milk", "?:7"]
        #expect(UnreadableCorpus.rows(of: ListCodec.encode(list)) == moved)
        // The tree form (the journal's) places them alike, and a re-read keeps the place.
        #expect(UnreadableCorpus.rows(of: JSONText.compact(ListCodec.encodeValue(list))) == moved)
        let reread = try ListCodec.decode(ListCodec.encode(list)).list
        #expect(UnreadableCorpus.rows(of: ListCodec.encode(reread)) == moved)
        #expect(UnreadableCorpus.rows(of: ListCodec.encode(list.merged(with: reread))) == moved, "a merge with the re-read file too")
        // Eggs deleted: "x" stays where Eggs was, before Bread.
        try list.apply(.delete(id: "E"), stamp: Self.stamp.advanced())
        #expect(UnreadableCorpus.rows(of: ListCodec.encode(list)) == ["?:\"x\"", "R:Bread", "R:Milk", "?:7"])
    }

    @Test("a key repeated inside a row or inside sync: the last is read, as JSON.parse reads it; the others are kept there under shadowedKeys, written back and reported")
    func shadowedInRowsAndSync() throws {
        let text = """
            {"sections": ["A"], "items": [
              {"id": "A1", "name": "Old", "amount": "1", "name": "New", "section": "A", "sortOrder": 1, "amount": "2"},
              {"id": "B2", "name": "Milk", "name": "", "section": "A", "sortOrder": 2}
            ], "sync": {"mystery": 1, "deleted": {}, "mystery": [2]}}
            """
        let decoded = try Self.decode(text)
        #expect(decoded.list.items.map(\.name) == ["New"] && decoded.list.items[0].amount == "2", "the last value, as Get Bananas reads it")
        #expect(decoded.problems.contains { $0.contains("items[0] had \"name\", \"amount\" twice") }, "\(decoded.problems)")
        #expect(decoded.problems.contains { $0.hasPrefix("sync had \"mystery\" twice") }, "\(decoded.problems)")
        #expect(try ListCodec.decode(Array(text.utf8), readingItemsDirectly: false) == decoded, "both readers")
        let bytes = ListCodec.encode(decoded.list)
        let written = try JSONSerialization.jsonObject(with: Data(bytes)) as! [String: Any]
        let rows = written["items"] as! [Any]
        let row = rows[0] as! [String: Any]
        #expect(row["name"] as? String == "New" && row["amount"] as? String == "2")
        let keptInRow = (row[ListCodec.shadowedKey] as? [[String: Any]]) ?? []
        #expect(keptInRow.map { $0["key"] as! String } == ["name", "amount"])
        #expect(keptInRow.map { $0["value"] as! String } == ["Old", "1"])
        // The row whose last name is blank is unreadable: kept as it was, both names and all.
        #expect(String(decoding: bytes, as: UTF8.self).contains(#"{"id": "B2", "name": "Milk", "name": "", "section": "A", "sortOrder": 2}"#))
        let sync = written["sync"] as! [String: Any]
        #expect(sync["mystery"] as? [Int] == [2])
        let keptInSync = (sync[ListCodec.shadowedKey] as? [[String: Any]]) ?? []
        #expect(keptInSync.count == 1 && keptInSync.first?["key"] as? String == "mystery" && keptInSync.first?["value"] as? Int == 1)
        // Read and written again: the same bytes, still reported.
        let reread = try ListCodec.decode(bytes)
        #expect(ListCodec.encode(reread.list) == bytes)
        #expect(reread.problems.contains { $0.contains("items[0] had") } && reread.problems.contains { $0.hasPrefix("sync had") })
    }

    @Test("bananas writing through ListFile keeps the corpus rows: byte for byte, in place")
    func throughTheFile() throws {
        let folder = TempFolder()
        createTestFile(atPath: folder.listPath, contents: Data(UnreadableCorpus.file.utf8))
        let file = ListFile(path: folder.listPath)
        try addItem("Yogurt", to: file)
        #expect(UnreadableCorpus.rows(of: folder.bytes()!) == UnreadableCorpus.rows(of: UnreadableCorpus.file) + ["R:Yogurt"])
    }
}

extension Stamp {
    func advanced() -> Stamp { Stamp(millis: millis, counter: counter + 1, replica: replica) }
}
