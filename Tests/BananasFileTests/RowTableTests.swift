import BananasTestSupport
import PropertyBased
import Testing
@testable import BananasCore
@testable import BananasFile

/// A table of a file's rows left in its bytes (`RowTable` over a `FileRowTable`, what a
/// whole-process command reads) against a plain dictionary of the same rows, the oracle: the
/// same edits on both, and after each one every lookup, count, walk, compare and hash agrees,
/// and the rows two tables of one file differ by are exactly those a lookup of every id finds.
@Suite struct RowTableTests {
    /// The oracle's answer to `differingRowIDs(a, b, added:)`: nil when `b` holds an id `a`
    /// lacks.
    static func byLookup(_ a: [String: Item], _ b: [String: Item]) -> (differing: Set<String>, added: Set<String>)? {
        guard Set(b.keys).isSubset(of: Set(a.keys)) else { return nil }
        return (Set(b.keys.filter { a[$0]! != b[$0]! }), Set(a.keys).subtracting(b.keys))
    }

    static func expectAgree(_ table: RowTable, _ oracle: [String: Item], _ context: String) {
        #expect(table.count == oracle.count && table.isEmpty == oracle.isEmpty, "\(context): count")
        var seen: [String: Item] = [:]
        for (id, row) in table {
            #expect(seen.updateValue(row, forKey: id) == nil, "\(context): \(id) walked twice")
            #expect(row.id == id, "\(context): \(id) under another id")
        }
        #expect(seen == oracle, "\(context): the rows walked")
        for (id, row) in oracle { #expect(table[id] == row, "\(context): lookup of \(id)") }
        #expect(table["NOT-AN-ID"] == nil)
        var viewed: [String: (String, String, Double, Bool)] = [:]
        let probes = Array(oracle.values.prefix(6).flatMap { [$0.name, $0.section] }) + ["É", "e\u{301}", "", "ß"]
        table.forEachRow { view in
            viewed[view.id] = (view.name, view.section, view.sortOrder, view.checked)
            // The in-place compares answer as the String rules do.
            for probe in probes {
                let folded = probe.lowercased()
                #expect(view.name(lowercasedEquals: TextQuery(folded)) == view.name.lowercasedEquals(folded), "\(context): \(view.id)'s name against \(probe)")
                #expect(view.section(lowercasedEquals: TextQuery(folded)) == view.section.lowercasedEquals(folded), "\(context): \(view.id)'s section against \(probe)")
                #expect(view.section(is: TextQuery(probe)) == (view.section == probe), "\(context): \(view.id)'s section is \(probe)")
            }
        }
        #expect(viewed.count == oracle.count, "\(context): rows viewed")
        for (id, row) in oracle {
            let view = viewed[id]
            #expect(view?.0 == row.name && view?.1 == row.section && view?.2 == row.sortOrder && view?.3 == row.checked,
                    "\(context): the view of \(id)")
        }
        let plain = RowTable(oracle)
        #expect(table == plain && plain == table && table.hashValue == plain.hashValue, "\(context): compared with a dictionary")
        #expect(table.dictionary == oracle, "\(context): as a dictionary")
        let newest = oracle.values.map(\.stamps.newest).max() ?? .zero
        #expect(table.newestStamp >= newest, "\(context): the newest stamp")
        #expect(table.highestSortOrder == oracle.values.map(\.sortOrder).max(), "\(context): the highest order")
    }

    @Test func aFilesTableAnswersAsADictionaryOfItsRows() throws {
        var rng = Xoshiro(seed: (41, 0, 0, 0))
        var paired = 0, fileRows = 0
        for (n, list) in EncodedRowsTests.editedLists().enumerated() {
            let bytes = ListCodec.encode(list)
            let read = try EncodedRowsTests.onDemand(bytes).rows
            guard read.file != nil else { continue }
            fileRows += read.file!.count
            var table = read, oracle = read.dictionary
            #expect(oracle == (try ListCodec.decode(bytes).list.rows.dictionary), "list \(n): the rows read whole")
            Self.expectAgree(table, oracle, "list \(n)")
            let ids = Array(oracle.keys)
            guard !ids.isEmpty else { continue }
            var (earlier, earlierOracle) = (table, oracle)
            for step in 0..<40 {
                let context = "list \(n), step \(step)"
                switch rng.below(6) {
                case 0, 1:  // a row changed
                    var row = oracle[ids[rng.below(ids.count)]] ?? Item(id: "GONE", name: "x")
                    row.checked.toggle()
                    row.name += "!"
                    table[row.id] = row
                    oracle[row.id] = row
                case 2:  // a row added
                    let row = Item(id: "NEW-\(n)-\(step)", name: "new \(step)", section: "S", sortOrder: Double(step) * 3)
                    table.updateValue(row, forKey: row.id)
                    oracle[row.id] = row
                case 3:  // a row removed (maybe one removed before)
                    let id = ids[rng.below(ids.count)]
                    #expect(table.removeValue(forKey: id) == oracle.removeValue(forKey: id), "\(context): removed")
                case 4:  // the same row put back: a copy, equal
                    let id = ids[rng.below(ids.count)]
                    if let row = read[id], oracle[id] != nil, oracle[id] == row {
                        table[id] = row
                        oracle[id] = row
                    }
                default:
                    break
                }
                Self.expectAgree(table, oracle, context)
                // Against the table as read: the rows that differ, by the overlays.
                var added: [String] = []
                let expected = Self.byLookup(oracle, read.dictionary)
                if let walked = RowTable.differingRowIDs(table, read, added: &added) {
                    paired += 1
                    #expect(Set(walked) == expected?.differing && walked.count == expected?.differing.count, "\(context): differing")
                    #expect(Set(added) == expected?.added && added.count == expected?.added.count, "\(context): added")
                } else {
                    #expect(expected == nil || oracle.count < read.count, "\(context): a table that pairs up must pair up")
                }
                var copies: [String] = []
                if let walked = RowTable.differingRowIDs(table, read, equalCopies: &copies) {
                    #expect(table.count == read.count && Set(walked).isDisjoint(with: copies))
                    #expect(Set(walked) == expected?.differing, "\(context): differing, same count")
                }
                #expect((table == read) == (oracle == read.dictionary), "\(context): compared with the table as read")
                // Against an earlier state of itself, both ways: two overlays on one file.
                for (a, b, x, y) in [(table, earlier, oracle, earlierOracle), (earlier, table, earlierOracle, oracle)] {
                    var added: [String] = []
                    let expected = Self.byLookup(x, y)
                    if let walked = RowTable.differingRowIDs(a, b, added: &added) {
                        #expect(Set(walked) == expected?.differing && Set(added) == expected?.added, "\(context): against an earlier state")
                    }
                    #expect((a == b) == (x == y), "\(context): compared with an earlier state")
                }
                if rng.below(8) == 0 { (earlier, earlierOracle) = (table, oracle) }
            }
        }
        #expect(fileRows > 200, "the lists should leave rows in their bytes (\(fileRows) did)")
        #expect(paired > 50, "tables of one file should pair up (\(paired) did)")
    }

    /// Two copies of one file's table, each without a different row: the same count, no row
    /// added or replaced on either side, yet not the same rows.
    @Test func copiesMissingDifferentRowsDiffer() throws {
        var list = ShoppingList(sections: ["A"])
        for n in 0..<6 { try list.apply(.insert(Item(id: "ID-\(n)", name: "item \(n)", section: "A", sortOrder: Double(n) * 1024)), stamp: Stamp(millis: 5, counter: n, replica: "a")) }
        let read = try EncodedRowsTests.onDemand(ListCodec.encode(list)).rows
        #expect(read.file?.count == 6)
        var a = read, b = read
        a["ID-1"] = nil
        b["ID-4"] = nil
        var copies: [String] = [], added: [String] = []
        #expect(RowTable.differingRowIDs(a, b, equalCopies: &copies) == nil)
        #expect(RowTable.differingRowIDs(a, b, added: &added) == nil)
        #expect(a != b && a.count == b.count)
        b["ID-1"] = nil
        #expect(RowTable.differingRowIDs(a, b, added: &added) == [] && added == ["ID-4"])
    }

    /// The index of ids through growth and repeats: ids of the bytes and of whole rows,
    /// from a table sized for far fewer rows.
    @Test func theIndexFindsEveryIdOnceThroughGrowth() {
        var rng = Xoshiro(seed: (43, 0, 0, 0))
        var text: [UInt8] = []
        var ranges: [Range<Int32>] = []
        let ids = (0..<3_000).map { n in n % 7 == 0 ? "ID-\(n)" : ItemID.random(using: &rng) }
        for id in ids {
            let start = Int32(text.count)
            text += Array(id.utf8)
            ranges.append(start..<Int32(text.count))
        }
        let source = FileRows(text)
        var builder = FileRowTable.Builder(bytes: text, source: source, rows: 10)
        for (n, id) in ids.enumerated() {
            let range = ranges[n]
            if n % 5 == 0 {
                let added = builder.append(Item(id: id, name: "whole \(n)", sortOrder: Double(n)))
                #expect(added)
            } else {
                let hash = text.withUnsafeBufferPointer { FileRowTable.idHash(UnsafeBufferPointer(rebasing: $0[Int(range.lowerBound)..<Int(range.upperBound)])) }
                let record = FileRowTable.Record(id: range, name: range, amount: 0..<0, section: 0..<0, sortOrder: Double(n), checked: false,
                                                 optional: false, asciiTexts: 3, idHash: hash, row: EncodedRow(bytes: 0..<0, newestStamp: 0..<0))
                let (added, again) = (builder.append(record), builder.append(record))
                #expect(added && !again, "a repeated id is refused")
            }
            let again = builder.append(Item(id: id, name: "again"))
            #expect(!again, "a repeated id is refused, whole or not")
            #expect(builder.contains(id))
        }
        #expect(!builder.contains("ID-1") && !builder.contains(""))
        let table = builder.finish()
        #expect(table.count == ids.count)
        for (n, id) in ids.enumerated() {
            #expect(table.index(of: id) == n && table.id(at: n) == id)
        }
        #expect(table.index(of: "id-7") == nil && table.index(of: "ID-7") == 7)
    }

    @Test func aRepeatedIdIsReadAsTheWholeReaderReadsIt() throws {
        var list = ShoppingList(sections: ["A"])
        for n in 0..<5 { try list.apply(.insert(Item(id: "ID-\(n)", name: "item \(n)", section: "A", sortOrder: Double(n) * 1024)), stamp: Stamp(millis: 5, counter: n, replica: "a")) }
        var text = String(decoding: ListCodec.encode(list), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"id\": \"ID-3\"", with: "\"id\": \"ID-1\"")
        let bytes = Array(text.utf8)
        let lazy = try ListCodec.decode(bytes, readingItemsDirectly: true, rowsOnDemand: true, layout: &EncodedRowsTests.recorder)
        let eager = try ListCodec.decode(bytes)
        #expect(lazy.problems == eager.problems && !eager.problems.isEmpty)
        #expect(lazy.list.rows.dictionary == eager.list.rows.dictionary && lazy.list.rows.count == 5)
        #expect(lazy.list == eager.list)
    }
}

extension EncodedRowsTests {
    nonisolated(unsafe) static var recorder = LayoutRecorder()
}
