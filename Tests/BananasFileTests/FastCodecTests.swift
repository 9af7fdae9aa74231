import BananasTestSupport
import PropertyBased
import Testing
@testable import BananasCore
@testable import BananasFile

/// The fast paths of the codec (issue 9) against the general ones they replace: the direct
/// item writer must give exactly the bytes of the tree writer, and the fast string and stamp
/// readers exactly what the careful ones read.
@Suite struct FastCodecTests {
    /// Lists with everything a writer must get right: escapes, non-ASCII, unknown keys that sort
    /// among ours (and one named like a top-level key), unreadable rows, tombstones, hidden rows,
    /// fractional and huge sort orders, zero and partial stamps.
    static func lists() -> [ShoppingList] {
        // Seeded: the same fixed lists every run, which the other tests here damage and compare.
        var rng = Xoshiro(seed: (7, 0, 0, 0))
        var lists: [ShoppingList] = [ShoppingList()]
        for size in [1, 5, 40] {
            var rows: [Item] = []
            for n in 0..<size {
                let names = ["Milk", "Crème \"fraîche\"", "Tab\there\\back", "🍌 bananas", "line\nbreak", "\u{7F}del", "ctl\u{01}"]
                var stamps = ItemStamps()
                for field in ItemField.allCases where rng.next() % 3 != 0 {
                    stamps[field] = Stamp(millis: Int64(rng.next() % 2_000_000_000_000), counter: Int(rng.next() % 1000), replica: "r\(rng.next() % 99)")
                }
                var extra: [String: JSONValue] = [:]
                if n % 4 == 1 { extra["price"] = .number("1.10") }
                if n % 4 == 2 { extra["aaa"] = .array([.null, .bool(true), .object(["z": .string("x"), "b": .number("1e3")])]) }
                if n % 4 == 3 { extra["sections"] = .string("sorts first: a top-level key's rank") }
                rows.append(Item(
                    id: "ID-\(n)", name: names[n % names.count], amount: n % 2 == 0 ? "" : "\(n) kg", section: n % 3 == 0 ? "Dairy" : "",
                    checked: n % 2 == 0, optional: n % 5 == 0, sortOrder: [0, 1.5, 1e20, -3, 1024][n % 5],
                    lastModified: n % 3 == 1 ? nil : "2026-11-21T10:00:00.000Z", stamps: stamps, extra: extra))
            }
            var list = ShoppingList(sections: ["Dairy", "Ünïcode"], rows: rows)
            // An unreadable row is written as read: here, as the tree writer writes its value.
            var row: [UInt8] = []
            JSONText.append(.object(["id": .number("7"), "weird": .bool(true)]), to: &row, indent: 2, rank: ListCodec.keyRank, inline: true)
            list.unreadableRows = [UnreadableRow(text: String(decoding: row, as: UTF8.self))]
            list.extra["zzz"] = .string("kept")
            if size > 1 {
                _ = try? list.apply(.delete(id: "ID-0"), stamp: Stamp(millis: 5, counter: 0, replica: "r"))
            }
            if size == 40 {
                // Conflict records of every kind the plain reader takes or leaves to the tree's:
                // text with escapes, flags, an order, reviewed, a section's, a lower-case id.
                let lost = Stamp(millis: 1_800_000_000_000, counter: 1, replica: "c0ffee000003")
                let later = Stamp(millis: 1_800_000_000_500, counter: 0, replica: "c0ffee000004")
                list.conflicts = Dictionary(uniqueKeysWithValues: [
                    ConflictRecord(subject: .item("ID-1", .amount), lost: .text("2 \"kg\"\n é🍌"), lostStamp: lost, firstSeen: 1_800_000_000_100),
                    ConflictRecord(subject: .item("ID-1", .name), lost: .text("Milk"), lostStamp: lost),
                    ConflictRecord(subject: .item("ID-2", .checked), lost: .flag(true), lostStamp: lost, resolved: later, resolution: "dismissed"),
                    ConflictRecord(subject: .item("ID-3", .sortOrder), lost: .order(1.5), lostStamp: lost),
                    ConflictRecord(subject: .item("id-lower", .optional), lost: .flag(false), lostStamp: later, resolved: later, resolution: "restored \u{1}"),
                    ConflictRecord(subject: .section("Dairy", .name), lost: .text("Milk stuff"), lostStamp: lost),
                ].map { ($0.key, $0) })
            }
            lists.append(list)
        }
        // Sections as a merge leaves them: renamed (a key that is not the name), removed,
        // stamped with superseded stamps, names with escapes, orders fractional, negative and
        // huge; unknown keys inside `sync`, one of them ranked before `sections`.
        for odd in [false, true] {
            var stamps = StampTable<SectionField>(all: Stamp(millis: 1_800_000_000_000, counter: 3, replica: "c0ffee000001"))
            stamps.supersede(.name, with: Stamp(millis: 1_800_000_000_001, counter: 0, replica: "c0ffee000002"))
            let entries = [
                SectionEntry(key: "Dairy", position: 1024),
                SectionEntry(key: "Fruit", name: "Fruit \"& veg\"\n", position: 1.5, stamps: stamps),
                SectionEntry(key: "Gone", position: -3, removed: true, stamps: .init(all: Stamp(millis: 5, counter: 0, replica: "r"))),
                SectionEntry(key: "Ünïcode@00mwxjkrc2000002fbd62ab147", name: "Ünïcode", position: 1e20, removed: true),
                SectionEntry(key: "🍌", position: 2048.25),
            ]
            var list = ShoppingList(sectionEntries: Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0) }),
                                    rows: [Item(id: "S-1", name: "Milk", section: "Dairy", sortOrder: 1)])
            list.syncExtra["zz"] = .object(["b": .number("2"), "a": .array([])])
            if odd { list.syncExtra["schemaVersion"] = .string("an unknown key inside sync that sorts first") }
            lists.append(list)
        }
        return lists
    }

    @Test func theDirectWriterGivesTheTreeWritersBytes() {
        for list in Self.lists() {
            let direct = ListCodec.encode(list)
            let tree = JSONText.serialize(ListCodec.encodeValue(list), keyOrder: ListCodec.keyOrder, rowKeys: ListCodec.rowKeys)
            #expect(direct == tree, "\(String(decoding: direct, as: UTF8.self))\n---\n\(String(decoding: tree, as: UTF8.self))")
        }
    }

    @Test func whatTheDirectWriterWritesReadsBack() throws {
        for list in Self.lists() {
            let decoded = try ListCodec.decode(ListCodec.encode(list))
            #expect(decoded.list == list)
        }
    }

    /// The direct item reader against the general one: the same list and problems, or the
    /// same error, on our lists, on the Get Bananas fixture, and on thousands of damaged copies
    /// (a byte changed, dropped, the rest cut off, a key slipped in). A failure shrinks to the
    /// smallest list, the earliest place and the simplest damage.
    @Test func theDirectReaderReadsWhatTheGeneralOneReads() async throws {
        let files = (Self.lists().map(ListCodec.encode) + [fixture("legacy-BananaList.json")]).filter { !$0.isEmpty }
        func expectSameReading(_ bytes: [UInt8]) {
            let direct = Result { () throws(ListCodec.DecodeError) -> DecodedList in try ListCodec.decode(bytes) }
            let general = Result { () throws(ListCodec.DecodeError) -> DecodedList in try ListCodec.decode(bytes, readingItemsDirectly: false) }
            #expect(direct == general, "\(String(decoding: bytes, as: UTF8.self))")
        }
        for bytes in files { expectSameReading(bytes) }
        await propertyCheck(count: 2_000, input: Gen.element(of: files), Gen.int(in: 0...1_000_000), Gen.int(in: 0...3), Gen.uint8(in: 0...255)) {
            file, place, damage, byte in
            var bytes = file!
            let at = place % bytes.count
            switch damage {
            case 0: bytes[at] = byte
            case 1: bytes.remove(at: at)
            case 2: bytes = Array(bytes[..<at])
            default: bytes.insert(contentsOf: Array(#","x":1"#.utf8), at: at)
            }
            expectSameReading(bytes)
        }
    }

    @Test func stampsReadFastAsTheyReadBefore() {
        let good = Stamp(millis: 1_763_720_130_123, counter: 7, replica: "3f9a1c2e")
        #expect(good.encoded == "0001763720130123-000007-3f9a1c2e")
        #expect(Stamp(encoded: good.encoded) == good)
        #expect(Stamp(encoded: "9999999999999999-999999-" + String(repeating: "z", count: 32))?.counter == 999_999)
        for bad in ["", "0001763720130123-000007-", "0001763720130123-000007", "001763720130123-000007-ab",
                    "0001763720130123-00007-ab", "0001763720130123-000007-AB", "0001763720130123-000007-a-b",
                    "000176372013012x-000007-ab", "0001763720130123-0000-7-ab", "0001763720130123_000007-ab",
                    "0001763720130123-000007-" + String(repeating: "a", count: 33), "٠٠٠١٧٦٣٧٢٠١٣٠١٢٣-000007-ab"] {
            #expect(Stamp(encoded: bad) == nil, "\(bad)")
        }
    }

    @Test func stringsReadFastAsTheyReadBefore() throws {
        #expect(try JSONText.parse(#"["plain", "é🍌", "a\"b", "\u00e9\ud83c\udf4c", ""]"#)
                == .array([.string("plain"), .string("é🍌"), .string("a\"b"), .string("é🍌"), .string("")]))
        // Invalid UTF-8 and raw control characters are still refused, with where.
        #expect(throws: JSONSyntaxError.self) { try JSONText.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONSyntaxError.self) { try JSONText.parse([0x22, 0x61, 0x0A, 0x22]) }
        #expect(throws: JSONSyntaxError.self) { try JSONText.parse([0x22, 0x61, 0x62]) }
        do {
            _ = try JSONText.parse([0x5B, 0x0A, 0x22, 0xFF, 0x22, 0x5D])
            Issue.record("invalid UTF-8 was read")
        } catch {
            #expect(error.line == 2)
        }
    }
}
