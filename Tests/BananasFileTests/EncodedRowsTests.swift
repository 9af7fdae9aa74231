import BananasTestSupport
import PropertyBased
import Testing
@testable import BananasCore
@testable import BananasFile

/// Rows left in the bytes they were read from (`ListCodec.decode(_:rowsOnDemand:)`, what a
/// whole-process command reads) against rows decoded at once: every field, every compare,
/// every write must be the same, whichever rows a reader leaves and whichever it decodes.
@Suite struct EncodedRowsTests {
    static func onDemand(_ bytes: [UInt8]) throws -> ShoppingList {
        var layout = LayoutRecorder()
        return try ListCodec.decode(bytes, readingItemsDirectly: true, rowsOnDemand: true, layout: &layout).list
    }

    /// Every field of every row, read from `lazy` (rows still encoded) and from `eager`.
    static func expectSameRows(_ lazy: ShoppingList, _ eager: ShoppingList, _ context: String) {
        #expect(lazy.rows.count == eager.rows.count, "\(context)")
        for (id, row) in eager.rows {
            guard let other = lazy.rows[id] else { Issue.record("\(context): row \(id) missing"); continue }
            #expect(other.id == row.id && other.name == row.name && other.amount == row.amount && other.section == row.section
                    && other.checked == row.checked && other.optional == row.optional && other.sortOrder == row.sortOrder,
                    "\(context): row \(id)'s fields differ")
            #expect(other.newestStamp == row.stamps.newest, "\(context): row \(id)'s newest stamp")
            #expect(other.lastModified == row.lastModified && other.stamps == row.stamps && other.extra == row.extra,
                    "\(context): row \(id)'s stamps or date differ")
            #expect(other == row && row == other && other.hashValue == row.hashValue, "\(context): row \(id) compares unequal")
        }
    }

    /// Lists as the splice tests make them, edited by many steps (rows with several stamps and
    /// superseded ones, moved, renamed with escapes and non-ASCII text, unknown keys, deletes).
    static func editedLists() -> [ShoppingList] {
        var rng = Xoshiro(seed: (31, 0, 0, 0))
        var clock = StampClock(replica: "a1b2c3d4e5f6")
        var lists: [ShoppingList] = FastCodecTests.lists()
        // Texts beyond ASCII, blank ones among them (a row no reader shows), each stamped.
        let texts = ["\u{3000}", "\u{85}", " \u{A0} ", "é", "日本 🍌 café", "\u{FEFF}x", "\u{7F}", "a\u{2028}b", "\u{10FFFF}"]
        var unicode = ShoppingList(sections: ["Épicerie"])
        for (n, text) in texts.enumerated() {
            let stamp = Stamp(millis: 1_800_000_000_000 + Int64(n), counter: 0, replica: "c0ffee000001")
            _ = try? unicode.apply(.insert(Item(id: "U-\(n)", name: text, amount: texts[(n + 1) % texts.count],
                                            section: n % 2 == 0 ? "Épicerie" : text, sortOrder: Double(n))), stamp: stamp)
        }
        lists.append(unicode)
        for round in 0..<12 {
            var list = SpliceTests.list(Int(rng.next() % 50))
            for _ in 0..<(round * 6) { SpliceTests.mutate(&list, &rng, clock: &clock) }
            lists.append(list)
        }
        return lists
    }

    @Test func rowsLeftInTheBytesReadAsRowsReadAtOnce() throws {
        var leftEncoded = 0, beyondASCII = 0
        for (n, list) in Self.editedLists().enumerated() {
            let bytes = ListCodec.encode(list)
            let eager = try ListCodec.decode(bytes).list
            let lazy = try Self.onDemand(bytes)
            leftEncoded += lazy.rows.values.filter(\.isEncoded).count
            beyondASCII += lazy.rows.values.filter { $0.isEncoded && !$0.name.utf8.allSatisfy { $0 < 0x80 } }.count
            #expect(lazy == eager, "list \(n)")
            #expect(ListCodec.encode(lazy) == bytes, "list \(n) is written back otherwise")
            #expect(lazy.newestStamp == eager.newestStamp && lazy.items == eager.items, "list \(n)")
            Self.expectSameRows(lazy, eager, "list \(n)")
        }
        #expect(leftEncoded > 150, "too few rows were left in the bytes for this test to mean anything")
        #expect(beyondASCII >= 5, "rows with texts beyond ASCII are left in the bytes too")
    }

    /// Damaged files (a byte changed, removed or added anywhere, the end cut off) read the same
    /// with rows left in the bytes as read at once: the same list or the same error, every
    /// field of every row, and the same bytes written back. A row the quick reader accepts but
    /// the full reader would read otherwise (or refuse) shows here.
    @Test func damagedFilesReadTheSameOnDemand() async throws {
        let files = Self.editedLists().map(ListCodec.encode)
        let hostile = Array("\\\"|:., 0az9{}\n".utf8) + [0x7F, 0xC3, 0x00, 0x1F]
        func expectSameReading(_ bytes: [UInt8]) {
            let eager = Result { () throws(ListCodec.DecodeError) -> DecodedList in try ListCodec.decode(bytes) }
            let lazy = Result { () throws(ListCodec.DecodeError) -> DecodedList in
                var layout = LayoutRecorder()
                return try ListCodec.decode(bytes, readingItemsDirectly: true, rowsOnDemand: true, layout: &layout)
            }
            #expect(lazy == eager, "\(String(decoding: bytes, as: UTF8.self))")
            if case .success(let a) = lazy, case .success(let b) = eager {
                Self.expectSameRows(a.list, b.list, "damaged file")
                #expect(ListCodec.encode(a.list) == ListCodec.encode(b.list))
            }
        }
        await propertyCheck(count: 1_500, input: Gen.int(in: 0...(files.count - 1)), Gen.int(in: 0...1_000_000), Gen.int(in: 0...3),
                            Gen.uint8(in: 0...255), Gen.bool) { file, place, damage, byte, fromHostile in
            var bytes = files[file]
            guard !bytes.isEmpty else { return }
            let at = place % bytes.count
            let put = fromHostile ? hostile[Int(byte) % hostile.count] : byte
            switch damage {
            case 0: bytes[at] = put
            case 1: bytes.remove(at: at)
            case 2: bytes = Array(bytes[..<at])
            default: bytes.insert(put, at: at)
            }
            expectSameReading(bytes)
        }
    }

    @Test func aRowLeftInTheBytesChangesLikeAnyOther() throws {
        let list = SpliceTests.list(20)
        let lazy = try Self.onDemand(ListCodec.encode(list))
        let id = list.items[3].id
        #expect(lazy.rows[id]?.isEncoded == true)
        var edited = lazy
        let stamp = Stamp(millis: 1_900_000_000_000, counter: 0, replica: "0123456789ab")
        try edited.apply(.update(id: id, changes: [.name: .text("Renamed"), .checked: .flag(true)]), stamp: stamp)
        var expected = list
        try expected.apply(.update(id: id, changes: [.name: .text("Renamed"), .checked: .flag(true)]), stamp: stamp)
        #expect(edited == expected)
        #expect(edited.item(id)?.name == "Renamed" && edited.rows[id]?.isEncoded == false)
        // The list it was copied from still holds the row as read.
        #expect(lazy.item(id)?.name == list.item(id)?.name && lazy.rows[id]?.isEncoded == true)
        var merged = lazy
        merged.merge(expected)
        #expect(merged == expected)
        var other = expected
        other.merge(lazy)
        #expect(other == merged)
    }

    /// The eight-at-a-time scan of a string's bytes, byte by byte: where its closing quote is,
    /// whether what comes before it is ASCII, and nil for a backslash or control byte first.
    @Test func aStringsEndIsFoundAsByteByByte() async {
        await propertyCheck(count: 5_000, input: Gen.uint8(in: 0...255).array(of: 0...40), Gen.int(in: 0...3)) { bytes, skew in
            // Mostly printable text, with quotes, backslashes, control and high bytes mixed in.
            var padded = Array(repeating: UInt8(ascii: "a"), count: skew) + bytes.map { byte -> UInt8 in
                switch byte % 13 {
                case 0: UInt8(ascii: "\"")
                case 1: byte % 2 == 0 ? UInt8(ascii: "\\") : byte % 0x20
                case 2, 3: 0x80 | byte
                default: 0x20 + byte % 0x5F
                }
            }
            if bytes.count % 3 == 0, !padded.isEmpty { padded[bytes.count % padded.count] = bytes.first ?? 0 }
            var expected: (close: Int, ascii: Bool)?
            var ascii = true
            for i in skew..<padded.count {
                let byte = padded[i]
                if byte == UInt8(ascii: "\"") { expected = (i, ascii); break }
                if byte < 0x20 || byte == UInt8(ascii: "\\") { break }
                if byte >= 0x80 { ascii = false }
            }
            let found = padded.isEmpty ? nil : padded.withUnsafeBufferPointer { ListCodec.plainTextEnd($0.baseAddress!, from: skew, end: $0.count) }
            #expect(found?.close == expected?.close && found?.ascii == expected?.ascii, "\(padded)")
        }
    }

    /// The eight-at-a-time look for lower case in an id (or bytes beyond ASCII), byte by byte.
    @Test func anIdsCaseIsJudgedAsByteByByte() async {
        await propertyCheck(count: 3_000, input: Gen.uint8(in: 0...255).array(of: 0...44), Gen.int(in: 0...3)) { bytes, skew in
            // Mostly an upper-case id's bytes, with the letters' neighbours and others mixed in.
            let alphabet = Array("0123456789ABCDEF-`az{@Z[".utf8)
            let padded = Array(repeating: UInt8(ascii: "x"), count: skew)
                + bytes.map { $0 % 7 == 0 ? $0 : alphabet[Int($0) % alphabet.count] }
            let id = padded.dropFirst(skew)
            let expected = id.contains { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 >= 0x80 }
            let judged = padded.isEmpty ? false
                : padded.withUnsafeBufferPointer { ListCodec.mayHaveLowerCase($0.baseAddress! + skew, count: $0.count - skew) }
            #expect(judged == expected, "\(padded)")
        }
    }

    /// Whatever `v` text the quick reading of a row's newest stamp accepts, the full reader
    /// reads, to the same newest stamp and with no flags; damaged texts of every kind.
    @Test func theQuickStampReadingAcceptsOnlyWhatTheFullReaderReads() async {
        let good = [
            "0mubbs7i800000123456789ab|0,0,0,0,0,0",
            "0mubbs7i800000123456789ab 0mubbs7i800010fedcba987654|1,0:1,0,,0,1:0",
            "0mubbs7i800000123456789ab  0mubbs7i800010fedcba987654|1:0.0,0,,,,",
        ]
        for text in good {
            let decoded = Meta.decode(Array(text.utf8), as: ItemField.self)
            #expect(Meta.newestStampIfPlain(text) == decoded?.stamps.newest && decoded != nil, "\(text)")
        }
        // A stamp index of 20 or 40 digits overflowed an Int before its length was checked: a
        // trap at every read once bananas had written the row (issue 39, item 5).
        for text in ["0mubbs7i800000123456789ab 0mubbs7i800010fedcba987654|99999999999999999999,0,0,0,0,0",
                     "0mubbs7i800000123456789ab 0mubbs7i800010fedcba987654|1:" + String(repeating: "9", count: 40) + ",0,0,0,0,0",
                     "0mubbs7i800000123456789ab 0mubbs7i800010fedcba987654|0000001,0,0,0,0,0"] {
            #expect(Meta.newestStampIfPlain(text) == nil, "\(text)")
            _ = Meta.decode(Array(text.utf8), as: ItemField.self)
        }
        let alphabet = Array("0a1z|:., -g9/`{AZé".utf8)
        await propertyCheck(count: 2_000, input: Gen.uint64().array(of: 1...30), Gen.int(in: 0...2)) { draws, base in
            var choices = DrawnChoices(draws)
            var bytes = Array(good[base].utf8)
            for _ in 0..<(1 + choices.below(3)) {
                let at = choices.below(bytes.count + 1)
                switch choices.below(3) {
                case 0: bytes.insert(alphabet[choices.below(alphabet.count)], at: at)
                case 1: if at < bytes.count { bytes.remove(at: at) }
                default: if at < bytes.count { bytes[at] = alphabet[choices.below(alphabet.count)] }
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let quick = Meta.newestStampIfPlain(text) else { return }
            let full = Meta.decode(bytes, as: ItemField.self)
            #expect(full != nil && full?.flags.isEmpty == true && full?.stamps.newest == quick, "\(text)")
        }
    }
}

extension Meta {
    /// The newest stamp `newestStampIfPlain` finds, read.
    static func newestStampIfPlain(_ text: String) -> Stamp? {
        Array(text.utf8).withUnsafeBufferPointer { bytes in
            newestStampIfPlain(bytes).map { $0.isEmpty ? .zero : Stamp(compactUTF8: UnsafeBufferPointer(rebasing: bytes[$0]))! }
        }
    }
}
