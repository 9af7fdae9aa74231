import BananasTestSupport
import Testing
import PropertyBased
@testable import BananasCore
@testable import BananasFile

/// The codec's byte-level pieces (the `v` text, the implied date) against the plain String
/// forms they replaced, kept here as the reference: same text written, same answers read,
/// on random and on damaged input.
@Suite struct CodecPiecesTests {
    // MARK: References (the String-based forms the byte-level ones replaced)

    static func referenceEncode<Field: StampedField>(_ stamps: StampTable<Field>, flags: String = "") -> String? {
        var table: [Stamp] = []
        func index(_ stamp: Stamp) -> Int {
            if let at = table.firstIndex(of: stamp) { return at }
            table.append(stamp)
            return table.count - 1
        }
        var fields: [String] = []
        var any = false
        for field in Field.allCases {
            let stamp = stamps[field]
            guard !stamp.isZero else { fields.append(""); continue }
            any = true
            var text = String(index(stamp))
            let seen = stamps.seen(field)
            if !seen.isEmpty { text += ":" + seen.map { String(index($0)) }.joined(separator: ".") }
            fields.append(text)
        }
        guard any else { return flags.isEmpty ? nil : "|" + Array(repeating: "", count: Field.allCases.count).joined(separator: ",") + "|" + flags }
        // A later stamp of the first one's replica is written without it (version 4).
        var text = table.enumerated().map { n, stamp in
            guard let compact = stamp.compact else { return stamp.encoded }
            return n > 0 && stamp.replica == table[0].replica ? String(compact.dropLast(stamp.replica.count)) : compact
        }.joined(separator: " ") + "|" + fields.joined(separator: ",")
        if !flags.isEmpty { text += "|" + flags }
        return text
    }

    static func referenceDecode<Field: StampedField>(_ bytes: [UInt8], as: Field.Type) -> (stamps: StampTable<Field>, flags: [UInt8])? {
        let parts = bytes.split(separator: UInt8(ascii: "|"), omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3 else { return nil }
        var table: [Stamp] = []
        for text in parts[0].split(separator: UInt8(ascii: " ")) {
            let replicaLeftOut = !table.isEmpty && text.count == Stamp.compactMillisDigits + Stamp.compactCounterDigits
            guard let stamp = Meta.stamp(replicaLeftOut ? Array(text) + Array(table[0].replica.utf8) : Array(text)) else { return nil }
            table.append(stamp)
        }
        let fields = parts[1].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard fields.count == Field.allCases.count else { return nil }
        var stamps = StampTable<Field>()
        for (field, text) in zip(Field.allCases, fields) where !text.isEmpty {
            let pieces = text.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            guard pieces.count <= 2, let at = Meta.number(pieces[0]), at < table.count else { return nil }
            stamps[field] = table[at]
            if pieces.count == 2 {
                var seen: [Stamp] = []
                for piece in pieces[1].split(separator: UInt8(ascii: ".")) {
                    guard let at = Meta.number(piece), at < table.count else { return nil }
                    seen.append(table[at])
                }
                stamps.setSeen(field, seen)
            }
        }
        return (stamps, parts.count == 3 ? Array(parts[2]) : [])
    }

    static func referenceISO8601(millis: Int64) -> String {
        func padded(_ value: Int64, _ digits: Int) -> String {
            let text = String(value)
            return text.count >= digits ? text : String(repeating: "0", count: digits - text.count) + text
        }
        let (days, msOfDay) = millis.quotientAndRemainder(dividingBy: 86_400_000)
        let (d, ms) = msOfDay < 0 ? (days - 1, msOfDay + 86_400_000) : (days, msOfDay)
        let z = d + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        let seconds = ms / 1000
        return padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2)
            + "T" + padded(seconds / 3600, 2) + ":" + padded(seconds / 60 % 60, 2) + ":" + padded(seconds % 60, 2)
            + "." + padded(ms % 1000, 3) + "Z"
    }

    // MARK: Random tables

    static func randomStamp(_ rng: inout Xoshiro) -> Stamp {
        switch rng.next() % 10 {
        case 0: Stamp(millis: 3_600_000_000_000_000 + Int64(rng.next() % 200_000_000_000_000), counter: Int(rng.next() % 1_000), replica: "r\(rng.next() % 9)")  // some out of the compact range
        case 1: Stamp(millis: Int64(rng.next() % 1_000), counter: 0, replica: "0123456789ab")
        default: Stamp(millis: 1_700_000_000_000 + Int64(rng.next() % 100_000_000_000), counter: Int(rng.next() % 40), replica: ["0123456789ab", "fedcba987654", "zz"][Int(rng.next() % 3)])
        }
    }

    static func randomTable(_ rng: inout Xoshiro) -> ItemStamps {
        var pool: [Stamp] = []
        for _ in 0..<(1 + rng.next() % 5) { pool.append(randomStamp(&rng)) }
        var table = ItemStamps()
        for field in ItemField.allCases where rng.next() % 4 != 0 {
            table[field] = pool[Int(rng.next() % UInt64(pool.count))]
            if rng.next() % 3 == 0 {
                table.setSeen(field, (0..<(rng.next() % 4)).map { _ in pool[Int(rng.next() % UInt64(pool.count))] })
            }
        }
        return table
    }

    @Test func theVTextIsTheReferenceTextAndReadsBack() {
        var rng = Xoshiro(seed: (20, 0, 0, 0))
        for n in 0..<3_000 {
            let table = n == 0 ? ItemStamps() : Self.randomTable(&rng)
            let flags = n % 7 == 0 ? "g" : ""
            let text = Meta.encode(table, flags: flags)
            #expect(text == Self.referenceEncode(table, flags: flags))
            guard let text else { continue }
            let read = Meta.decode(Array(text.utf8), as: ItemField.self)
            #expect(read?.stamps == table)
            #expect(read?.flags == Array(flags.utf8))
        }
        // Sections' stamps use the same text.
        var section = StampTable<SectionField>()
        section[.name] = Stamp(millis: 1_800_000_000_000, counter: 2, replica: "0123456789ab")
        #expect(Meta.encode(section) == Self.referenceEncode(section))
    }

    @Test func damagedVTextIsReadAsTheReferenceReadsIt() {
        var rng = Xoshiro(seed: (21, 0, 0, 0))
        let alphabet = Array("0123456789 |,:.-abz".utf8)
        var texts: [[UInt8]] = ["", "|", "||", "|,,,,,", "|,,,,,|", "|,,,,,|g|x", "|,,,,", "|,,,,,,", "0mi4x0b9a40000ab|0:,,,,,",
                                "0mi4x0b9a40000ab|0:1,,,,,", "0mi4x0b9a40000ab|0::0,,,,,", "0mi4x0b9a40000ab|0:0:0,,,,,",
                                "0mi4x0b9a40000ab  0mi4x0b9a40001ab |1:0..0,0,,,,0", " 0mi4x0b9a40000ab|000000,,,,,",
                                "0mi4x0b9a40000ab|00000,,,,,", "0mi4x0b9a40000ab|0.0,,,,,", "0001763720130123-000007-3f9a|0,,,,,",
                                // The one-stamp form most rows have, and its near misses.
                                "0mi4x0b9a40000ab|0,0,0,0,0,0", "0mi4x0b9a40000ab|0,,0,,0,", "0mi4x0b9a40000ab|0,0,0,0,0,0,",
                                "0mi4x0b9a40000ab|0,0,0,0,0,00", "0mi4x0b9a40000ab|0,0,0,0,0", "0mi4x0b9a40000ab|,,,,,",
                                "0mi4x0b9a40000ab|0,0,0,0,0,0|g", "0mi4x0b9a40000ab|0,0,0,0,0,1", "0mi4x0b9a40000ab|0,0,0,0,0,0 ",
                                "0mi4x0b9a40000ab |0,0,0,0,0,0", "0mi4x0b9a4000|0,0,0,0,0,0"].map { Array($0.utf8) }
        for _ in 0..<3_000 {
            var bytes = Array((Meta.encode(Self.randomTable(&rng), flags: rng.next() % 2 == 0 ? "g" : "") ?? "|,,,,,").utf8)
            for _ in 0...(rng.next() % 3) where !bytes.isEmpty {
                let at = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 3 {
                case 0: bytes[at] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: at)
                }
            }
            texts.append(bytes)
        }
        for bytes in texts {
            let fast = Meta.decode(bytes, as: ItemField.self), reference = Self.referenceDecode(bytes, as: ItemField.self)
            #expect(fast?.stamps == reference?.stamps && fast?.flags == reference?.flags, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test func theDateIsFormattedAndComparedAsTheReferenceDoes() {
        var rng = Xoshiro(seed: (22, 0, 0, 0))
        var samples: [Int64] = [0, -1, 1, 86_399_999, 86_400_000, -86_400_000, 951_782_400_000 /* 2000-02-29 */,
                                253_402_300_799_999 /* 9999-12-31T23:59:59.999Z */, 253_402_300_800_000, -62_167_219_200_000, -62_167_219_200_001]
        for _ in 0..<5_000 { samples.append(Int64(rng.next() % 600_000_000_000_000) - 100_000_000_000_000) }
        for millis in samples {
            let reference = Self.referenceISO8601(millis: millis)
            #expect(Timestamp.iso8601(millis: millis) == reference)
            #expect(Timestamp.isISO8601(reference, millis: millis))
            #expect(!Timestamp.isISO8601(reference, millis: millis + 1))
            #expect(!Timestamp.isISO8601(reference + " ", millis: millis))
        }
    }
}
