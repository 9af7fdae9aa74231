import BananasCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes of one file whose rows a reader left in them (`ListCodec.decode(_:rowsOnDemand:)`):
/// a row is decoded when one of its fields is asked for, by the reader that reads every other
/// row (`ListCodec.readPlainItem`). Only rows in exactly the shape `appendPlainItem` writes
/// are left so, which is what makes reading them later the same as reading them now.
final class FileRows: EncodedRows {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func item(_ row: EncodedRow) -> Item {
        var cursor = JSONCursor(bytes)
        cursor.index = Int(row.bytes.lowerBound)
        let item = bytes.withUnsafeBufferPointer { ListCodec.readPlainItem(&cursor, bytes: $0) }
        guard let item else { preconditionFailure("a row found in the written shape reads as one") }
        return item
    }

    func text(_ range: Range<Int32>) -> String {
        bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[Int(range.lowerBound)..<Int(range.upperBound)]), as: UTF8.self) }
    }

    func newestStamp(_ row: EncodedRow) -> Stamp {
        bytes.withUnsafeBufferPointer { buffer in
            Meta.newestStampIfPlain(UnsafeBufferPointer(rebasing: buffer[Int(row.stamps.lowerBound)..<Int(row.stamps.upperBound)])) ?? .zero
        }
    }
}

extension ListCodec {
    /// The separators and keys `appendPlainItem` writes, in its order.
    private static let encodedKeys: [[UInt8]] = ["{\"id\": ", ", \"name\": ", ", \"amount\": ", ", \"section\": ", ", \"checked\": ",
                                                ", \"optional\": ", ", \"sortOrder\": ", ", \"lastModified\": ", ", \"v\": "].map { Array($0.utf8) }

    /// A row at `start` in exactly the shape `appendPlainItem` writes, its texts plain ASCII,
    /// its `v` text well formed with no flags, left in the bytes: an item whose id, flags and
    /// order are read and whose other fields are read from `file` when asked for. Nil, having
    /// read nothing, for any other row (the caller reads it the usual way).
    static func readEncodedRow(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, file: FileRows) -> (item: Item, end: Int)? {
        var at = start
        let end = bytes.count
        let quote = UInt8(ascii: "\"")
        func key(_ k: Int) -> Bool {
            let literal = encodedKeys[k]
            guard end - at >= literal.count,
                  literal.withUnsafeBufferPointer({ memcmp(bytes.baseAddress! + at, $0.baseAddress!, $0.count) }) == 0 else { return false }
            at += literal.count
            return true
        }
        /// A string of printable ASCII without escapes: its bytes' range, stepped past.
        func plain() -> Range<Int32>? {
            guard at < end, bytes[at] == quote else { return nil }
            let from = at + 1
            guard from < end, let found = memchr(bytes.baseAddress! + from, Int32(quote), end - from) else { return nil }
            let close = from + (UnsafeRawPointer(found) - UnsafeRawPointer(bytes.baseAddress! + from))
            var special: UInt8 = 0
            for i in from..<close {
                let byte = bytes[i]
                special |= (byte < 0x20 ? 1 : 0) | (byte >= 0x7F ? 1 : 0) | (byte == UInt8(ascii: "\\") ? 1 : 0)
            }
            guard special == 0, close <= Int(Int32.max) else { return nil }
            at = close + 1
            return Int32(from)..<Int32(close)
        }
        func flag() -> Bool? {
            if end - at >= 4, memcmp(bytes.baseAddress! + at, "true", 4) == 0 { at += 4; return true }
            if end - at >= 5, memcmp(bytes.baseAddress! + at, "false", 5) == 0 { at += 5; return false }
            return nil
        }
        guard key(0), let id = plain(), !id.isEmpty,
              key(1), let name = plain(), bytes[Int(name.lowerBound)..<Int(name.upperBound)].contains(where: { $0 != 0x20 }),
              key(2), let amount = plain(),
              key(3), let section = plain(),
              key(4), let checked = flag(),
              key(5), let optional = flag(),
              key(6), let sortOrder = plainWholeNumber(bytes, at: &at) else { return nil }
        if key(7) {
            if end - at >= 4, memcmp(bytes.baseAddress! + at, "null", 4) == 0 { at += 4 } else if plain() == nil { return nil }
        }
        guard key(8), let stamps = plain(),
              Meta.newestStampIfPlain(UnsafeBufferPointer(rebasing: bytes[Int(stamps.lowerBound)..<Int(stamps.upperBound)])) != nil,
              at < end, bytes[at] == UInt8(ascii: "}") else { return nil }
        at += 1
        let rawID = String(decoding: UnsafeBufferPointer(rebasing: bytes[Int(id.lowerBound)..<Int(id.upperBound)]), as: UTF8.self)
        let row = EncodedRow(bytes: Int32(start)..<Int32(at), name: name, amount: amount, section: section, stamps: stamps)
        return (Item(id: normalizedID(rawID), checked: checked, optional: optional, sortOrder: sortOrder, encoded: row, in: file), at)
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
    /// The newest stamp of an item's `v` text (zero when no field is stamped), when the text is
    /// well formed with every stamp in the compact form, no flags and at most 64 stamps; nil
    /// for any other text. What `decode` accepts of such a text, checked without building it.
    static func newestStampIfPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Stamp? {
        let bar = UInt8(ascii: "|")
        guard let tableEnd = bytes.firstIndex(of: bar) else { return nil }
        // The stamps' places (runs of spaces between them).
        var tokens: [Range<Int>] = []
        var i = 0
        while i < tableEnd {
            if bytes[i] == UInt8(ascii: " ") { i += 1; continue }
            var j = i
            while j < tableEnd, bytes[j] != UInt8(ascii: " ") {
                let byte = bytes[j]
                guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7A) else { return nil }
                j += 1
            }
            let length = j - i
            let fixed = Stamp.compactMillisDigits + Stamp.compactCounterDigits
            guard length > fixed, length - fixed <= 32 else { return nil }
            tokens.append(i..<j)
            i = j
        }
        guard tokens.count <= 64 else { return nil }
        // Six pieces, each empty, `i` or `i:j.k…`, every index a stamp of the table.
        var fields = 0
        var current: UInt64 = 0  // the stamps some field holds now
        var k = tableEnd + 1
        var atPieceStart = true
        var afterColon = false
        while true {
            let byte: UInt8? = k < bytes.count ? bytes[k] : nil
            if byte == nil || byte == UInt8(ascii: ",") {
                fields += 1
                guard fields <= ItemField.allCases.count else { return nil }
                if byte == nil { break }
                atPieceStart = true
                afterColon = false
                k += 1
                continue
            }
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
            while l < bytes.count, bytes[l] >= 0x30, bytes[l] <= 0x39 {
                index = index * 10 + Int(bytes[l] - 0x30)
                l += 1
            }
            guard l > k, l - k < 6, index < tokens.count else { return nil }
            if atPieceStart { current |= 1 << UInt64(index) }
            atPieceStart = false
            k = l
        }
        guard fields == ItemField.allCases.count else { return nil }
        var newest = Stamp.zero
        for (index, token) in tokens.enumerated() where current & (1 << UInt64(index)) != 0 {
            guard let stamp = Stamp(compactUTF8: UnsafeBufferPointer(rebasing: bytes[token])) else { return nil }
            newest = max(newest, stamp)
        }
        return newest
    }
}
