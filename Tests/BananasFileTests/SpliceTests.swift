import BananasTestSupport
import Testing
import PropertyBased
@testable import BananasCore
@testable import BananasFile

/// The splicing reader and writer (ItemLayout) against whole decodes and encodes: whatever
/// changed between two versions of a file, the spliced result must be exactly the whole one.
@Suite struct SpliceTests {
    static let stamp = Stamp(millis: 1_790_000_000_000, counter: 0, replica: "0123456789ab")

    static func list(_ count: Int) -> ShoppingList {
        var rows: [Item] = []
        for n in 0..<count {
            rows.append(Item(id: "B0000000-0000-4000-8000-\(String(repeating: "0", count: 12 - String(n).count))\(n)",
                             name: "Item \(n)", amount: n % 3 == 0 ? "2 kg" : "", section: "S\(n % 4)", checked: n % 5 == 0,
                             sortOrder: Double(n * 1024), stamps: ItemStamps(all: stamp)))
        }
        return ShoppingList(sections: ["S0", "S1", "S2", "S3"], rows: rows)
    }

    /// One random change a writer might make: a field, an insert, a delete, a move, an
    /// unknown key, a section, a change outside `items`, a row in a shape of its own.
    static func mutate(_ list: inout ShoppingList, _ rng: inout Xoshiro, clock: inout StampClock) {
        let ids = list.items.map(\.id)
        let now: Int64 = 1_800_000_000_000
        guard let id = ids.isEmpty ? nil : ids[Int(rng.next() % UInt64(ids.count))] else {
            _ = try? list.apply(.insert(Item(id: "NEW-\(rng.next())", name: "New", sortOrder: 1)), stamp: clock.next(now: now))
            return
        }
        // A deleted row let go (`collectGarbage`), in the same write as the change below.
        if rng.next() % 6 == 0, let hidden = list.rows.keys.sorted().first(where: { !list.isVisible($0) }) { list.rows[hidden] = nil }
        switch rng.next() % 10 {
        case 0: _ = try? list.apply(.update(id: id, changes: [.checked: .flag(!(list.item(id)?.checked ?? false))]), stamp: clock.next(now: now))
        case 1: _ = try? list.apply(.update(id: id, changes: [.name: .text("Renamed \(rng.next() % 1000) ünï \"q\"")]), stamp: clock.next(now: now))
        case 2: _ = try? list.apply(.update(id: id, changes: [.amount: .text(String(repeating: "x", count: Int(rng.next() % 40)))]), stamp: clock.next(now: now))
        case 3:
            // Half of them after every row (an add, which a write splices in at the end).
            let order = rng.next() % 2 == 0 ? list.nextSortOrder : Double(rng.next() % 100_000)
            _ = try? list.apply(.insert(Item(id: "NEW-\(rng.next())", name: "New", sortOrder: order)), stamp: clock.next(now: now))
        case 4: _ = try? list.apply(.delete(id: id), stamp: clock.next(now: now))
        case 5: _ = try? list.apply(.update(id: id, changes: [.sortOrder: .order(Double(rng.next() % 100_000))]), stamp: clock.next(now: now))
        case 6: list.rows[id]?.extra["price"] = .number("\(rng.next() % 100)")
        case 7: _ = try? list.apply(.setSections(list.sections + ["Section \(rng.next())"]), stamp: clock.next(now: now))
        case 8: list.extra["note"] = .string("top \(rng.next() % 5)")
        default: _ = try? list.apply(.update(id: id, changes: [.section: .text("S\(rng.next() % 6)")]), stamp: clock.next(now: now))
        }
    }

    /// `list` written whole with a mark of its own, and what its writer knows after the write.
    static func written(_ list: ShoppingList, clock: inout StampClock) throws -> (list: ShoppingList, known: ListCodec.Known) {
        var list = list
        list.writeMark = clock.next(now: 1_800_000_000_000)
        let (bytes, layout) = ListCodec.encode(list, after: nil)
        let decoded = DecodedList(list: list, schemaVersion: ListCodec.currentSchemaVersion, problems: [])
        return (list, ListCodec.Known(bytes: bytes, decoded: decoded, layout: try #require(layout)))
    }

    @Test("a spliced encode is byte for byte the whole encode, and a spliced decode the whole decode")
    func splicingMatchesWholeCodec() throws {
        // Seeded: each step edits what the last one wrote, a fixed chain of writes to replay.
        var rng = Xoshiro(seed: (2026, 0, 0, 0))
        var clock = StampClock(replica: "fedcba987654")
        var spliced = 0, splicedReads = 0
        for round in 0..<30 {
            let list = SpliceTests.list(Int(rng.next() % 60))
            var (bytes, layout) = ListCodec.encode(list, after: nil)
            // What the writer knows after its write (ListFile keeps the list it wrote).
            var decoded = DecodedList(list: list, schemaVersion: ListCodec.currentSchemaVersion, problems: [])
            for step in 0..<15 {
                var next = decoded.list
                for _ in 0..<Int(1 + rng.next() % 3) { SpliceTests.mutate(&next, &rng, clock: &clock) }
                // A write's own mark, as `ListFile.update` gives every write (`sync.written`).
                if step % 3 != 0 { next.writeMark = clock.next(now: 1_800_000_000_000) }
                let known = layout.map { ListCodec.Known(bytes: bytes, decoded: decoded, layout: $0) }
                let (newBytes, newLayout) = ListCodec.encode(next, after: known)
                let wholeBytes = ListCodec.encode(next)
                if newBytes != wholeBytes {
                    let at = Bytes.commonPrefix(newBytes, wholeBytes)
                    Issue.record("round \(round): spliced bytes differ from a whole encode at \(at): \(String(decoding: newBytes[max(0, at - 300)..<min(newBytes.count, at + 200)], as: UTF8.self)) ≠ \(String(decoding: wholeBytes[max(0, at - 300)..<min(wholeBytes.count, at + 200)], as: UTF8.self))")
                }
                if let known, newBytes != bytes, ListCodec.encodeSplicing(next, after: known) != nil { spliced += 1 }
                // Another process that knew the previous version reads this one.
                let (readBack, readLayout) = try ListCodec.decode(newBytes, after: known)
                if let known, ListCodec.decodeSplicing(newBytes, after: known) != nil { splicedReads += 1 }
                let whole = try ListCodec.decode(newBytes)
                #expect(readBack == whole ? true : false, "round \(round): a spliced decode differs from a whole decode")
                if let readLayout {
                    for (i, range) in readLayout.ranges.enumerated() {
                        // Each range is exactly one row object (rows with unknown keys included).
                        guard case .object(let row)? = try? JSONText.parse(Array(newBytes[range])) else { Issue.record("not a row"); continue }
                        #expect(row["id"] == .string(readLayout.ids[i]), "round \(round) step \(step) row \(i): \(String(decoding: newBytes[range], as: UTF8.self).prefix(120))")
                    }
                }
                bytes = newBytes
                // Go on as the writer (it knows what it wrote) or as that reader.
                if step % 2 == 0 {
                    decoded = DecodedList(list: next, schemaVersion: ListCodec.currentSchemaVersion, problems: [])
                    layout = newLayout
                } else {
                    decoded = whole
                    layout = readLayout
                }
            }
        }
        // Most random changes move, add or remove rows (the writer then encodes whole); a
        // reader splices nearly everything.
        #expect(spliced > 15 && splicedReads > 60, "the splicing paths were hardly taken (\(spliced) writes, \(splicedReads) reads)")
    }

    @Test("a write that changes rows and its own mark replaces the mark's text, as a whole encode writes it, and a reader splices it")
    func aNewWriteStampIsSplicedIn() throws {
        var clock = StampClock(replica: "fedcba987654")
        let first = try SpliceTests.written(SpliceTests.list(40), clock: &clock)
        var (bytes, layout): ([UInt8], ItemLayout?) = (first.known.bytes, first.known.layout)
        var decoded = first.known.decoded
        for n in 0..<20 {
            var next = decoded.list
            let id = next.items[n].id
            try next.apply(.update(id: id, changes: [.checked: .flag(!(next.item(id)?.checked ?? false))]), stamp: clock.next(now: 1_800_000_000_000))
            // Stamps of other lengths too (out of the compact range: the long form).
            next.writeMark = n % 4 == 3 ? Stamp(millis: 9_000_000_000_000_000 + Int64(n), counter: n, replica: "r\(n)") : clock.next(now: 1_800_000_000_000)
            let known = ListCodec.Known(bytes: bytes, decoded: decoded, layout: try #require(layout))
            let spliced = try #require(ListCodec.encodeSplicing(next, after: known), "step \(n): not spliced")
            #expect(spliced.0 == ListCodec.encode(next), "step \(n)")
            // Another instance that knew the previous version reads only the changed row.
            let read = try #require(ListCodec.decodeSplicing(spliced.0, after: known), "step \(n): not read by splicing")
            #expect(read.0 == (try ListCodec.decode(spliced.0)) ? true : false, "step \(n)")
            #expect(read.0.list.writeMark == next.writeMark)
            (bytes, layout) = spliced
            decoded = DecodedList(list: next, schemaVersion: ListCodec.currentSchemaVersion, problems: [])
        }
    }

    @Test("a write that changes what is remembered (sync.memory) and not its own mark writes the memory, as a whole encode does")
    func aMemoryChangeIsWritten() throws {
        let list = SpliceTests.list(10)
        let (bytes, layout) = ListCodec.encode(list, after: nil)
        let known = ListCodec.Known(bytes: bytes, decoded: try ListCodec.decode(bytes), layout: try #require(layout))
        var clock = StampClock(replica: "fedcba987654")
        for alsoARow in [false, true] {
            var next = list
            try next.apply(.forget(nil), stamp: clock.next(now: 1_800_000_000_000))
            if alsoARow {
                let id = next.items[0].id
                try next.apply(.update(id: id, changes: [.checked: .flag(!next.items[0].checked)]), stamp: clock.next(now: 1_800_000_000_000))
            }
            #expect(next.memory != list.memory)
            let (written, _) = ListCodec.encode(next, after: known)
            #expect(written == ListCodec.encode(next) ? true : false, "alsoARow: \(alsoARow)")
            #expect(try ListCodec.decode(written).list.memory == next.memory, "alsoARow: \(alsoARow)")
        }
    }

    @Test("an add, into a section or a new one, with a row changed too: written in one buffer of the file's size, a new frame around the copied rows")
    func anAddIsWrittenOnce() throws {
        var clock = StampClock(replica: "fedcba987654")
        let (list, known) = try SpliceTests.written(SpliceTests.list(2_000), clock: &clock)
        // `add` (a new section, or remembered items: a new frame), and rows put after the
        // last one with nothing else changed (the frame kept, its `written` text replaced).
        for (section, changingARow) in [("Pantry", false), ("Pantry", true), ("S1", false), (nil, false), (nil, true)] {
            var next = list
            if let section {
                let added = next.addEdit(["Peer item", "Second item"], section: section, makeID: { "NEW-\(clock.next(now: 1).counter)" })
                try next.apply(added.edit, stamp: clock.next(now: 1_800_000_000_000))
            } else {
                for n in 0..<3 {
                    try next.apply(.insert(Item(id: "NEW-\(n)", name: "Put last \(n)", section: "S2", sortOrder: next.nextSortOrder)),
                                   stamp: clock.next(now: 1_800_000_000_000))
                }
                #expect(next.memory == list.memory && next.sectionEntries == list.sectionEntries)
            }
            if changingARow {
                try next.apply(.update(id: next.items[7].id, changes: [.name: .text("Renamed, and longer than it was")]), stamp: clock.next(now: 1_800_000_000_000))
            }
            next.writeMark = clock.next(now: 1_800_000_000_000)
            if let section { #expect(next.sections.contains(section) && list.sections.contains(section) == (section == "S1")) }
            let (written, newLayout) = try #require(ListCodec.encodeSplicing(next, after: known), "not spliced")
            #expect(written == ListCodec.encode(next) ? true : false, "\(section ?? "put last"), changingARow: \(changingARow)")
            // No buffer that grew, and no second copy of the rows for the frame.
            #expect(written.capacity <= written.count + 64 * 1024, "capacity \(written.capacity) for \(written.count) bytes")
            // The layout names each row's bytes, and the items array's, in the new file.
            #expect(newLayout.ids.count == next.items.count)
            #expect(written[newLayout.itemsStart - 1] == UInt8(ascii: "[") && written[newLayout.itemsEnd] == UInt8(ascii: "]"))
            for (i, range) in newLayout.ranges.enumerated() where i % 97 == 0 || i >= newLayout.ranges.count - 2 || i == 7 {
                guard case .object(let row)? = try? JSONText.parse(Array(written[range])) else { Issue.record("row \(i) is not an object"); continue }
                #expect(row["id"] == .string(newLayout.ids[i]), "row \(i)")
            }
        }
    }

    @Test("a file changed outside items, or with a row in another shape, is decoded whole and right")
    func foreignShapes() throws {
        let list = SpliceTests.list(5)
        let (bytes, layout) = ListCodec.encode(list, after: nil)
        let known = ListCodec.Known(bytes: bytes, decoded: try ListCodec.decode(bytes), layout: try #require(layout))
        let text = String(decoding: bytes, as: UTF8.self)
        for edited in [
            text.replacingFirst("\"Item 2\"", with: "\"Item 2\", \"price\": 3"),                 // an unknown key
            text.replacingFirst("\"Item 2\"", with: "\"\""),                                      // an unreadable row
            text.replacingFirst("\"id\": \"B0000000-0000-4000-8000-000000000003\"", with: "\"id\": \"B0000000-0000-4000-8000-000000000001\""),  // a repeated id
            text.replacingFirst("\"S0\",", with: "\"S9\","),                                       // sections
            text.replacingFirst("},\n    {", with: "}\n    {"),                                     // broken JSON
            text.replacingFirst("},\n    {", with: "},,\n    {"),
        ] {
            let newBytes = Array(edited.utf8)
            let whole = Result { try ListCodec.decode(newBytes) }
            let spliced = Result { try ListCodec.decode(newBytes, after: known).0 }
            switch (whole, spliced) {
            case (.success(let a), .success(let b)): #expect(a == b)
            case (.failure, .failure): break
            default: Issue.record("one decode failed and the other did not: \(edited.prefix(0))")
            }
        }
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        var copy = self
        copy.replaceSubrange(range, with: replacement)
        return copy
    }
}
