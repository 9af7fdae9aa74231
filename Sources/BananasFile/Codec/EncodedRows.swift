import BananasCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes of one file whose rows a reader left in them (`ListCodec.decode(_:rowsOnDemand:)`):
/// a row's stamps and date are decoded when asked for, by the reader that reads every other
/// row (`ListCodec.readPlainItem`). Only rows in exactly the shape `appendPlainItem` writes
/// are left so, which is what makes reading them later the same as reading them now.
final class FileRows: EncodedRows, @unchecked Sendable {  // `newest` is set only while the rows are read
    let bytes: [UInt8]
    /// The newest stamp's text among every row left in the bytes (compact stamps compare as
    /// their text does).
    private var newest: Range<Int32> = 0..<0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Called for each row left in the bytes, as it is read.
    func noteNewest(_ range: Range<Int32>) {
        guard !range.isEmpty else { return }
        if !newest.isEmpty {
            let (old, new) = (Int(newest.lowerBound), Int(range.lowerBound))
            let (oldCount, newCount) = (newest.count, range.count)
            let order = bytes.withUnsafeBufferPointer { memcmp($0.baseAddress! + old, $0.baseAddress! + new, min(oldCount, newCount)) }
            guard order < 0 || order == 0 && oldCount < newCount else { return }
        }
        newest = range
    }

    var newestStampOfAllRows: Stamp { newestStamp(EncodedRow(bytes: 0..<0, newestStamp: newest)) }

    func item(_ row: EncodedRow) -> Item {
        var cursor = JSONCursor(bytes)
        cursor.index = Int(row.bytes.lowerBound)
        let item = bytes.withUnsafeBufferPointer { ListCodec.readPlainItem(&cursor, bytes: $0) }
        guard let item else { preconditionFailure("a row found in the written shape reads as one") }
        return item
    }

    func newestStamp(_ row: EncodedRow) -> Stamp {
        guard !row.newestStamp.isEmpty else { return .zero }
        return bytes.withUnsafeBufferPointer { buffer in
            Stamp(compactUTF8: UnsafeBufferPointer(rebasing: buffer[Int(row.newestStamp.lowerBound)..<Int(row.newestStamp.upperBound)]))!
        }
    }
}

extension ListCodec {
    /// A row at `start` in exactly the shape `appendPlainItem` writes, its id in upper case,
    /// its texts without escapes (UTF-8 beyond ASCII), its `v` text well formed with no flags:
    /// where its texts lie, its flags and order (`FileRowTable.Record`); its stamps and date
    /// stay in `file`'s bytes until asked for. Nil, having read nothing, for any other row
    /// (the caller reads it the usual way).
    static func readEncodedRow(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, file: FileRows) -> (record: FileRowTable.Record, end: Int)? {
        var at = start
        let end = bytes.count
        let quote = UInt8(ascii: "\"")
        func key(_ key: PlainKey) -> Bool {
            let literal = key.writtenText
            let count = literal.utf8CodeUnitCount
            guard end - at >= count, memcmp(bytes.baseAddress! + at, literal.utf8Start, count) == 0 else { return false }
            at += count
            return true
        }
        /// A string without escapes or control bytes, stepped past: its bytes' range, when
        /// they are ASCII or valid UTF-8 (as the usual reader requires).
        var ascii = true  // of the last text read
        func text() -> Range<Int32>? {
            guard at < end, bytes[at] == quote else { return nil }
            let from = at + 1
            guard let (close, isASCII) = plainTextEnd(bytes.baseAddress!, from: from, end: end), close <= Int(Int32.max) else { return nil }
            at = close + 1
            guard isASCII || String(validating: UnsafeBufferPointer(rebasing: bytes[from..<close]), as: UTF8.self) != nil else { return nil }
            ascii = isASCII
            return Int32(from)..<Int32(close)
        }
        var asciiTexts: UInt8 = 0
        func flag() -> Bool? {
            if end - at >= 4, memcmp(bytes.baseAddress! + at, "true", 4) == 0 { at += 4; return true }
            if end - at >= 5, memcmp(bytes.baseAddress! + at, "false", 5) == 0 { at += 5; return false }
            return nil
        }
        guard key(.id), let id = text(), !id.isEmpty,
              // An id to normalise is read the usual way.
              !mayHaveLowerCase(bytes.baseAddress! + Int(id.lowerBound), count: id.count),
              key(.name), let name = text(), !isBlank(bytes, name), { asciiTexts |= ascii ? FileRowTable.Record.nameIsASCII : 0; return true }(),
              key(.amount), let amount = text(),
              key(.section), let section = text(), { asciiTexts |= ascii ? FileRowTable.Record.sectionIsASCII : 0; return true }(),
              key(.checked), let checked = flag(),
              key(.optional), let optional = flag(),
              key(.sortOrder), let sortOrder = plainWholeNumber(bytes, at: &at) else { return nil }
        if key(.lastModified) {
            // Read in full when asked for; taken here only in the plain form.
            if end - at >= 4, memcmp(bytes.baseAddress! + at, "null", 4) == 0 {
                at += 4
            } else {
                guard at < end, bytes[at] == quote,
                      let (close, ascii) = plainTextEnd(bytes.baseAddress!, from: at + 1, end: end), ascii else { return nil }
                at = close + 1
            }
        }
        guard key(.v), let stamps = text(),
              let newest = Meta.newestStampIfPlain(UnsafeBufferPointer(rebasing: bytes[Int(stamps.lowerBound)..<Int(stamps.upperBound)])),
              at < end, bytes[at] == UInt8(ascii: "}") else { return nil }
        at += 1
        let row = EncodedRow(bytes: Int32(start)..<Int32(at),
                             newestStamp: (stamps.lowerBound + Int32(newest.lowerBound))..<(stamps.lowerBound + Int32(newest.upperBound)))
        file.noteNewest(row.newestStamp)
        let record = FileRowTable.Record(id: id, name: name, amount: amount, section: section, sortOrder: sortOrder,
                                         checked: checked, optional: optional, asciiTexts: asciiTexts,
                                         idHash: FileRowTable.idHash(UnsafeBufferPointer(rebasing: bytes[Int(id.lowerBound)..<Int(id.upperBound)])), row: row)
        return (record, at)
    }

    /// `isBlank` of the text in `range`, most names told by their first byte.
    static func isBlank(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int32>) -> Bool {
        if let first = range.first.map({ bytes[Int($0)] }), first > 0x20, first < 0x7F { return false }
        return isBlank(String(decoding: UnsafeBufferPointer(rebasing: bytes[Int(range.lowerBound)..<Int(range.upperBound)]), as: UTF8.self))
    }

    /// The end of a JSON string that needs no unescaping, from just after its opening quote:
    /// where its closing quote is, and whether the bytes before it are all ASCII (nothing to
    /// validate as UTF-8). Nil when a backslash or a control byte comes before a quote, or no
    /// quote comes. Eight bytes at a time: one pass finds the quote and checks the text.
    static func plainTextEnd(_ base: UnsafePointer<UInt8>, from: Int, end: Int) -> (close: Int, ascii: Bool)? {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = ones &* 0x22, backslashes = ones &* 0x5C, below = ones &* 0x20
        var i = from, high: UInt64 = 0
        while i + 8 <= end {
            let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let q = x ^ quotes, b = x ^ backslashes
            // A quote, a backslash or a byte under 0x20. Only a byte that is one borrows, so
            // the lowest byte flagged is one (those above it may be flagged wrongly).
            let found = (((q &- ones) & ~q) | ((b &- ones) & ~b) | ((x &- below) & ~x)) & highs
            if found != 0 {
                let k = found.trailingZeroBitCount / 8
                guard base[i + k] == UInt8(ascii: "\"") else { return nil }
                if k > 0 { high |= x & (UInt64.max >> (64 - 8 * k)) }
                return (i + k, high & highs == 0)
            }
            high |= x
            i += 8
        }
        while i < end {
            let byte = base[i]
            if byte == UInt8(ascii: "\"") { return (i, high & highs == 0) }
            guard byte >= 0x20, byte != UInt8(ascii: "\\") else { return nil }
            high |= UInt64(byte)
            i += 1
        }
        return nil
    }

    static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// For eight bytes under 0x80: the high bit of each one from `low` through `high` (both
    /// under 0x80). A byte from 0x80 up may spoil its neighbours' answers: callers refuse
    /// those first.
    @inline(__always)
    static func bytes(_ x: UInt64, from low: UInt8, through high: UInt8) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        return (x &+ ones &* UInt64(0x80 - low)) & ~(x &+ ones &* UInt64(0x7F - high)) & highBits
    }

    /// Whether the bytes hold a lower-case ASCII letter or a byte beyond ASCII (an id to
    /// normalise), eight at a time.
    static func mayHaveLowerCase(_ start: UnsafePointer<UInt8>, count: Int) -> Bool {
        var i = 0
        while i + 8 <= count {
            let x = UnsafeRawPointer(start + i).loadUnaligned(as: UInt64.self)
            if x & highBits != 0 || bytes(x, from: 0x61, through: 0x7A) != 0 { return true }
            i += 8
        }
        while i < count {
            if start[i] &- 0x61 < 26 || start[i] >= 0x80 { return true }
            i += 1
        }
        return false
    }

    /// A whole number of 1 to 15 digits without a leading zero, sign, fraction or exponent
    /// (every sortOrder bananas makes), as `Double(literal)` reads it, stepped past; nil without
    /// a step.
    static func plainWholeNumber(_ bytes: UnsafeBufferPointer<UInt8>, at: inout Int) -> Double? {
        let end = bytes.count
        var i = at, value: Int64 = 0
        while i < end, i - at < 16, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            value = value * 10 + Int64(bytes[i] - 0x30)
            i += 1
        }
        let digits = i - at
        guard digits >= 1, digits <= 15, digits == 1 || bytes[at] != UInt8(ascii: "0") else { return nil }
        if i < end, bytes[i] == UInt8(ascii: ".") || bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") { return nil }
        at = i
        return Double(value)
    }
}

extension Meta {
    /// Where the newest stamp of an item's `v` text lies (an empty range when no field is
    /// stamped), when the text is well formed with every stamp in the compact form, no flags
    /// and at most 64 stamps; nil for any other text. What `decode` accepts of such a text,
    /// checked without building it. Compact stamps compare as their text does.
    static func newestStampIfPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard !bytes.isEmpty, let bar = memchr(bytes.baseAddress!, Int32(UInt8(ascii: "|")), bytes.count) else { return nil }
        let tableEnd = UnsafeRawPointer(bar) - UnsafeRawPointer(bytes.baseAddress!)
        if let one = newestOfOneStamp(bytes, tableEnd: tableEnd) { return one }
        return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: 64) { tokens -> Range<Int>? in
            // The stamps' places (runs of spaces between them).
            var count = 0
            var i = 0
            let fixed = Stamp.compactMillisDigits + Stamp.compactCounterDigits
            while i < tableEnd {
                if bytes[i] == UInt8(ascii: " ") { i += 1; continue }
                var j = i
                while j < tableEnd, bytes[j] != UInt8(ascii: " ") {
                    let byte = bytes[j]
                    guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7A) else { return nil }
                    j += 1
                }
                guard j - i > fixed, j - i - fixed <= 32, count < 64 else { return nil }
                tokens[count] = i..<j
                count += 1
                i = j
            }
            // Six pieces, each empty, `i` or `i:j.k…`, every index a stamp of the table.
            var fields = 0
            var current: UInt64 = 0  // the stamps some field holds now
            var k = tableEnd + 1
            var atPieceStart = true, afterColon = false
            while true {
                guard k < bytes.count, bytes[k] != UInt8(ascii: ",") else {
                    fields += 1
                    guard fields <= ItemField.fieldCount else { return nil }
                    if k >= bytes.count { break }
                    (atPieceStart, afterColon) = (true, false)
                    k += 1
                    continue
                }
                let byte = bytes[k]
                if byte == UInt8(ascii: ":") {
                    guard !afterColon, !atPieceStart else { return nil }
                    afterColon = true
                    k += 1
                    continue
                }
                if byte == UInt8(ascii: ".") {
                    guard afterColon else { return nil }
                    k += 1
                    continue
                }
                var l = k, index = 0
                // At most six digits are read: more would overflow before the check below.
                while l < bytes.count, l - k < 6, bytes[l] >= 0x30, bytes[l] <= 0x39 {
                    index = index * 10 + Int(bytes[l] - 0x30)
                    l += 1
                }
                guard l > k, l - k < 6, index < count, l == bytes.count || bytes[l] < 0x30 || bytes[l] > 0x39 else { return nil }
                if atPieceStart { current |= 1 << UInt64(index) }
                atPieceStart = false
                k = l
            }
            guard fields == ItemField.fieldCount else { return nil }
            var newest: Range<Int>?
            for index in 0..<count where current & (1 << UInt64(index)) != 0 {
                let token = tokens[index]
                if let best = newest, !UnsafeBufferPointer(rebasing: bytes[best]).lexicographicallyPrecedes(UnsafeBufferPointer(rebasing: bytes[token])) { continue }
                newest = token
            }
            return newest ?? 0..<0
        }
    }

    /// `newestStampIfPlain` of most rows' text: one stamp, each field stamped with it or not
    /// at all (`0` or nothing, six times); nil for any other text.
    static func newestOfOneStamp(_ bytes: UnsafeBufferPointer<UInt8>, tableEnd: Int) -> Range<Int>? {
        let fixed = Stamp.compactMillisDigits + Stamp.compactCounterDigits
        guard tableEnd > fixed, tableEnd - fixed <= 32, let base = bytes.baseAddress else { return nil }
        // Digits and lower-case letters only, eight at a time.
        var i = 0
        while i + 8 <= tableEnd {
            let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            guard x & ListCodec.highBits == 0,
                  ListCodec.bytes(x, from: 0x30, through: 0x39) | ListCodec.bytes(x, from: 0x61, through: 0x7A) == ListCodec.highBits else { return nil }
            i += 8
        }
        while i < tableEnd {
            let byte = base[i]
            guard (byte &- 0x30 < 10) || (byte &- 0x61 < 26) else { return nil }
            i += 1
        }
        let count = bytes.count
        i = tableEnd + 1
        var fields = 0, stamped = false
        while true {
            if i < count, base[i] == UInt8(ascii: "0") { stamped = true; i += 1 }
            fields += 1
            if fields == ItemField.fieldCount { return i == count ? (stamped ? 0..<tableEnd : 0..<0) : nil }
            guard i < count, base[i] == UInt8(ascii: ",") else { return nil }
            i += 1
        }
    }
}
