import BananasTestSupport
import PropertyBased
import Testing
@testable import BananasCore
@testable import BananasFile

/// `sync` read straight from the bytes and written straight from the values, against the tree
/// of JSON values they stand in for: the same bytes written, the same list (or the same error)
/// read, whatever the file holds.
@Suite struct SyncCodecTests {
    static let names = ["Milk", "Crème \"fraîche\"", "Tab\there\\back", "🍌 bananas", "line\nbreak", "\u{7F}del", "ctl\u{01}", "e\u{301}", ""]

    /// Lists with every part of `sync`: sections renamed and removed, deletes (several sharing
    /// a time, told apart by what they saw or when they were first seen), deleted rows kept
    /// whole, recently deleted items, remembered names with and without purchases, forgets,
    /// a write mark, conflicts, and unknown keys (some named like ours or like row arrays).
    static func lists(count: Int, seed: UInt64) -> [ShoppingList] {
        var rng = Xoshiro(seed: (seed, 1, 2, 3))
        func pick<T>(_ values: [T]) -> T { values[Int(rng.next() % UInt64(values.count))] }
        func stamp(_ millis: Int64) -> Stamp {
            Stamp(millis: millis + Int64(rng.next() % 1000), counter: Int(rng.next() % 3), replica: pick(["abc123def456", "f00d", "r1"]))
        }
        let base: Int64 = 1_800_000_000_000
        var lists: [ShoppingList] = []
        for n in 0..<count {
            var list = ShoppingList(sections: ["Dairy", "Ünïcode", "Gone"])
            var time = base
            for i in 0..<(3 + n % 7) {
                time += 1000
                let id = i % 2 == 0 ? "ID-\(n)-\(i)" : "6513270E-269E-4D37-B2A7-4DE452E6B4\(String(format2: i))"
                try? list.apply(.insert(Item(id: id, name: pick(Self.names.filter { !$0.isEmpty }), amount: pick(["", "2 L", "ünï"]), section: pick(["Dairy", "", "Ünïcode"]),
                                             checked: rng.next() % 2 == 0, optional: rng.next() % 3 == 0)), stamp: stamp(time))
                if rng.next() % 2 == 0 { try? list.apply(.delete(id: id), stamp: stamp(time + 500)) }
            }
            try? list.apply(.updateSection(key: "Dairy", changes: [.name: .text("Milk \"stuff\"")]), stamp: stamp(time + 2000))
            try? list.apply(.updateSection(key: "Gone", changes: [.removed: .flag(true), .position: .order(1e20)]), stamp: stamp(time + 2000))
            // Deletes of one time that differ only in what they saw or when they were seen.
            let at = Stamp(millis: base + 7, counter: 0, replica: "abc123def456")
            for k in 0..<UInt64(4) {
                var seen = Knowledge(horizon: k == 3 ? Stamp(millis: base, counter: 0, replica: "f00d") : .zero)
                seen.add(stamp(base))
                seen.add(Stamp(millis: base + 1, counter: 0, replica: "r\(k)"))
                list.tombstones[k &* 0x9E37_79B9_7F4A_7C15 &+ rng.next() % 1000] = Tombstone(stamp: at, seen: seen, firstSeen: k == 2 ? 0 : base + Int64(k))
            }
            // A stamp past the compact form's range keeps the long one.
            list.tombstones[UInt64.max] = Tombstone(stamp: Stamp(millis: 9_000_000_000_000_000, counter: 0, replica: "r"), seen: Knowledge(), firstSeen: Int64.max)
            for i in 0..<(n % 5) {
                list.deletedItems["D-\(i)"] = DeletedItem(id: "D-\(i)", name: pick(Self.names), amount: pick(["", "1 kg"]), section: pick(["Dairy", "Ünïcode", ""]),
                                                          checked: i % 2 == 0)
            }
            var entries: [String: ItemMemory.Entry] = [:]
            for i in 0..<(n % 6) {
                let day = Stamp.dayMillis
                let purchases = (0..<Int(rng.next() % 4)).map { Stamp(millis: base - Int64($0 * 3) * day, counter: 0, replica: "") }
                let name = pick(Self.names.filter { !$0.isEmpty }) + " \(i)"
                entries[ItemMemory.fold(name)] = ItemMemory.Entry(
                    name: name, section: pick(["Dairy", "", "Ünïcode"]), amount: i % 3 == 0 ? "" : "3", optional: i % 4 == 1,
                    stamp: Stamp(millis: base + (i % 2 == 0 ? day : 0), counter: 0, replica: ""), purchases: purchases)
            }
            let forgotten: [String: Stamp] = n % 3 == 0 ? ["tea": stamp(base), "crème": stamp(base)] : [:]
            list.memory = ItemMemory(entries: entries, forgotten: forgotten, cleared: n % 4 == 0 ? stamp(base - 99) : .zero)
            if n % 2 == 0 { list.writeMark = stamp(base + 10) }
            if n % 3 == 1 {
                var boundAt = 0
                list.takeRead(ConflictRecord(subject: .item("ID-\(n)-0", .name), lost: .text("Old \"name\""), lostStamp: stamp(base), firstSeen: base), boundAt: &boundAt)
            }
            if n % 4 == 2 {
                list.syncExtra["zz"] = .object(["b": .number("2.50"), "a": .array([.null])])
                list.syncExtra["remembered"] = .array([.string("an unknown key named like a row array"), .number("1e3")])
                list.syncExtra["schemaVersion"] = .string("an unknown key that sorts first")
            }
            lists.append(list)
        }
        return lists
    }

    static func expectSameReading(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let direct = Result { () throws(ListCodec.DecodeError) -> DecodedList in try ListCodec.decode(bytes) }
        let tree = Result { () throws(ListCodec.DecodeError) -> DecodedList in try ListCodec.decode(bytes, readingItemsDirectly: false) }
        #expect(direct == tree, "\(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
        if case .success(let read) = direct, case .success(let general) = tree {
            #expect(ListCodec.encode(read.list) == ListCodec.encode(general.list), sourceLocation: sourceLocation)
        }
    }

    static func treeBytes(_ list: ShoppingList) -> [UInt8] {
        JSONText.serialize(ListCodec.encodeValue(list), keyOrder: ListCodec.keyOrder, rowKeys: ListCodec.rowKeys)
    }

    @Test func everySyncPartIsWrittenAsTheTreeWriterWritesIt() throws {
        for list in Self.lists(count: 40, seed: 11) {
            let bytes = ListCodec.encode(list)
            #expect(bytes == Self.treeBytes(list), "\(String(decoding: bytes, as: UTF8.self))")
            // Read back, and written again: the same bytes.
            let read = try ListCodec.decode(bytes)
            #expect(ListCodec.encode(read.list) == bytes)
            Self.expectSameReading(bytes)
            var layout = LayoutRecorder()
            #expect(try ListCodec.readDocument(bytes, layout: &layout).sync != nil, "read straight from the bytes")
        }
    }

    @Test func theFixturesReadTheSameEitherWayAndRewriteToTheSameBytes() throws {
        for name in ["legacy-BananaList.json", "written/version-2.json", "written/small.json", "written/sections-and-deletes.json", "written/year-of-use.json"] {
            let bytes = fixture(name)
            Self.expectSameReading(bytes)
            let written = ListCodec.encode(try ListCodec.decode(bytes).list)
            #expect(written == Self.treeBytes(try ListCodec.decode(bytes).list), "\(name)")
            #expect(ListCodec.encode(try ListCodec.decode(written).list) == written, "\(name)")
            Self.expectSameReading(written)
        }
        // A file this version wrote (a year of weekly use) is written back byte for byte.
        let year = fixture("written/year-of-use.json")
        #expect(ListCodec.encode(try ListCodec.decode(year).list) == year)
        var layout = LayoutRecorder()
        #expect(try ListCodec.readDocument(year, layout: &layout).sync != nil, "read straight from the bytes")
    }

    /// Hand edits the direct reader hands to the tree rules (or to the tree reader whole):
    /// unknown keys, other types, repeated keys, numbers past every range, escapes.
    @Test func hostileSyncPartsReadAsTheTreeReadsThem() throws {
        let year = String(decoding: fixture("written/year-of-use.json"), as: UTF8.self)
        let rich = Self.lists(count: 12, seed: 5).map { String(decoding: ListCodec.encode($0), as: UTF8.self) }
        let edits: [(String, String)] = [
            (#"{"at": "#, #"{"zz": [1, {"a": 2}], "at": "#),  // an unknown key in a delete group
            (#"{"at": "#, #"{"at": 5, "x": "#),
            (#"{"at": "#, #"{"at": "00mps50ugi00005913273181f8", "at": "#),  // a repeated key in a group
            (#""rows": ""#, #""rows": 7, "r": ""#),
            (#""rows": ""#, #""rows": "zzzzzzzzzzzzzzzzz "#),  // a key past 64 bits
            (#""seen": ""#, #""seen": "not-a-stamp "#),
            (#""seen": ""#, #""seen": null, "s": ""#),
            (#""seen": ""#, #""horizon": "x", "seen": ""#),
            (#""firstSeen": "#, #""firstSeen": 99999999999999999999, "f": "#),
            (#""firstSeen": "#, #""firstSeen": 1.5e3, "f": "#),
            (#""firstSeen": "#, #""firstSeen": "12", "f": "#),
            (#""deleted": ["#, #""deleted": [7, "x", null, [], {}, "#),
            (#""deleted": ["#, #""deleted": {"A": "0001795291172142-000007-1707d81d026f"}, "d2": ["#),
            (#""deletedRows": ["#, #""deletedRows": [[], {"id": "X", "name": "Hidden"}, ["A", "", "", "", true, false, 1, "x"], "#),
            (#""deletedRows": ["#, #""deletedRows": [["Z", "N\u0061me\n", "", "", true, false, 1e400, "00mww3g5ev0000d6dbd2ac2b57|0,0,0,0,0,0"], "#),
            (#""deletedRows": ["#, #""deletedRows": [["Z", "Nm", "", "", null, false, 1024, "00mww3g5ev0000d6dbd2ac2b57|0,0,0,0,0,0", {"sectionKey": "K", "q": 1}], "#),
            (", true, false, ", ", \"true\", false, "),
            (#""deletedItems": ["#, #""deletedItems": [["A", "B", "C", "D", 2], ["A", "B", "C", "D", true], ["E", "F\u00e9\"", "", ""], 5, ["G", 1, "", ""], ["H", "I", "", "", 1.0], "#),
            (#""deletedItems": ["#, #""deletedItems": [], "deletedItems": ["#),  // a repeated key in sync
            (#""remembered": ["#, #""remembered": [["x", "y"], ["n\u00e9\t", "s", "g0s zz", "", "", 2], ["a", "b", "", "", "", -0], ["c", "d", "", "g0", "", 1.0], {"name": "old", "section": "S", "v": "00mww3g5ev0000d6dbd2ac2b57"}, ["e", "f", "toolongday"], "#),
            (#""remembered": ["#, #""forgotten": {"tea": "00mww3g5ev0000d6dbd2ac2b57", "tea": 5}, "cleared": 3, "odd": [], "remembered": ["#),
            (#""memory": {"#, #""memory": {"remembered": [], "#),  // a repeated key in memory
            (#""memory": {"#, #""memory": 5, "m2": {"#),
            (#""sections": ["#, #""sections": [{"name": "A", "position": 1e999}, {"name": "B", "position": "1"}, {"key": "K"}, {"name": "C", "key": 4, "removed": "yes", "v": "junk"}, {"name": "D", "name": "E", "extra": 1}, "#),
            (#""written": "#, #""written": 12, "w": "#),
            ("\"sync\": {", "\"sync\": {\"shadowedKeys\": [1], \"zz\": {\"deep\": [[[]]]}, "),
            ("\"sync\": {", "\"sync\": 5, \"sync\": {"),  // a repeated sync: the last one is read
            (#""items": []"#, #""sync": {"deleted": [], "conflicts": [{"item": "A", "field": "name", "lost": "x", "lostStamp": "00mww3g5ev0000d6dbd2ac2b57"}]}, "items": []"#),
            ("\"sync\": {", "\"sync\": {,"),  // not JSON: the same error
            (#""rows": ""#, #""rows" ""#),
            (#""remembered": ["#, #""remembered": [["a" "b"], "#),
        ]
        for (from, to) in edits {
            var found = false
            for file in [year] + rich where file.contains(from) {
                found = true
                // Each place on its own, and all at once.
                var start = file.startIndex
                while let range = file.range(of: from, range: start..<file.endIndex) {
                    Self.expectSameReading(Array(file.replacingCharacters(in: range, with: to).utf8))
                    start = range.upperBound
                    if file.distance(from: file.startIndex, to: start) > 20_000 { break }
                }
                Self.expectSameReading(Array(file.replacingOccurrences(of: from, with: to).utf8))
            }
            #expect(found, "no file has \(from)")
        }
    }

    /// Damaged copies of files with every sync part: a byte changed, dropped, the rest cut
    /// off, a key slipped in, anywhere in `sync`.
    @Test func damagedSyncReadsAsTheTreeReadsIt() async throws {
        let files = Self.lists(count: 6, seed: 3).map(ListCodec.encode) + [fixture("written/year-of-use.json")]
        await propertyCheck(count: 2_000, input: Gen.element(of: files), Gen.int(in: 0...1_000_000), Gen.int(in: 0...3), Gen.uint8(in: 0...255)) {
            file, place, damage, byte in
            var bytes = file!
            let sync = bytes.firstRange(of: Array("\"sync\"".utf8))?.lowerBound ?? 0
            let at = sync + place % (bytes.count - sync)
            switch damage {
            case 0: bytes[at] = byte
            case 1: bytes.remove(at: at)
            case 2: bytes = Array(bytes[..<at])
            default: bytes.insert(contentsOf: Array(#","x":1"#.utf8), at: at)
            }
            Self.expectSameReading(bytes)
        }
    }
}

private extension String {
    init(format2 value: Int) { self = value < 10 ? "0\(value)" : "\(value)" }
}
