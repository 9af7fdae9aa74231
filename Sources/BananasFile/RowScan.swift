#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore

/// A list file bananas wrote, read for a one-row command without decoding it: where each
/// row sits and the few values a command looks at (id, name, section, checked, sortOrder),
/// found in the bytes. The frame around the rows (sections, tombstones, hidden rows, other
/// keys) and any row a command touches are decoded by the real decoder, from a small
/// document made of the frame and those rows (`decode(rows:)`).
///
/// Why: `bananas add` and `bananas check` on a 10,000-item list spent most of their time
/// decoding 10,000 rows (strings, stamps, an item box and a table entry each) to change one.
/// Only for bytes bananas's encoder wrote (their hash is in the base's written hashes; see
/// `ListFile.patch`), whose shape is known: any surprise makes `init` fail, and a query this
/// cannot answer exactly as `ShoppingList` would throws `Unavailable`; the command then takes
/// the whole-list path.
public struct RowScan {
    /// Thrown when the answer needs the whole list: the caller goes the usual way.
    public struct Unavailable: Error {}

    /// The file's bytes; taken by `applying`, which edits them in place.
    public internal(set) var bytes: [UInt8]
    /// The first byte after the `[` of `items`, and the `]` that closes it.
    let itemsOpen: Int, itemsClose: Int
    /// The visible rows in file order (= list order).
    var rows: [Row] = []
    /// The list without its visible rows: sections, tombstones, hidden rows, other keys.
    public let frame: ShoppingList

    struct Row {
        var range: Range<Int>
        var id: Range<Int>
        var name: Range<Int>
        var section: Range<Int>
        /// Bit 0: the name is plain (ASCII, no escapes); bit 1: the section is.
        var plain: UInt8
        var checked: Bool
        var sortOrder: Double
    }

    /// Nil when the bytes are not in the shape bananas writes (or hold rows it keeps as they
    /// are), or their frame does not decode cleanly.
    public init?(_ bytes: [UInt8]) {
        self.bytes = bytes
        guard let open = RowScan.find(RowScan.itemsKey, in: bytes) else { return nil }
        itemsOpen = open
        let scanned: (rows: [Row], close: Int)? = bytes.withUnsafeBufferPointer { RowScan.scanRows($0, from: open) }
        guard let scanned else { return nil }
        rows = scanned.rows
        itemsClose = scanned.close
        var document = Array(bytes[..<itemsOpen])
        document.append(contentsOf: bytes[itemsClose...])
        guard let decoded = try? ListCodec.decode(document), decoded.problems.isEmpty,
              decoded.schemaVersion == ListCodec.currentSchemaVersion, decoded.list.unreadableRows.isEmpty,
              decoded.list.rows.values.allSatisfy({ !decoded.list.isVisible($0.id) })
        else { return nil }
        frame = decoded.list
    }

    public var count: Int { rows.count }

    // MARK: What commands ask

    /// The list's own sections, in order.
    public var sections: [String] { frame.sections }

    /// The row's id.
    func id(_ i: Int) -> Substring {
        Substring(decoding: bytes[rows[i].id], as: UTF8.self)
    }

    /// The index of the visible row with this id, if any.
    func index(ofID id: String) -> Int? {
        let target = Array(id.utf8)
        return rows.indices.first { Bytes.equal(bytes[rows[$0].id], target) }
    }

    /// The frame and rows `indices` as a list, decoded by the real decoder.
    public func decode(rows indices: [Int]) throws(Unavailable) -> ShoppingList {
        var document = Array(bytes[..<itemsOpen])
        for (n, i) in indices.enumerated() {
            if n > 0 { document.append(UInt8(ascii: ",")) }
            document.append(contentsOf: bytes[rows[i].range])
        }
        document.append(contentsOf: bytes[itemsClose...])
        guard let decoded = try? ListCodec.decode(document), decoded.problems.isEmpty,
              decoded.list.rows.count == frame.rows.count + indices.count else { throw Unavailable() }
        return decoded.list
    }

    /// The visible item in row `i`.
    public func item(_ i: Int) throws(Unavailable) -> Item {
        let id = String(self.id(i))
        guard let item = try decode(rows: [i]).item(id) else { throw Unavailable() }
        return item
    }

    /// Row `query` names, found as `Addressing.resolve(_:in:allowNamePrefix: true)` finds it:
    /// an exact id (any case), else the one visible item with that name (any case), else the
    /// one whose id starts with it (four characters or more), else the one whose name starts
    /// with it. Where that order ends in an error (several items, or none) this throws
    /// `Unavailable`, and the whole-list path says what the error is.
    public func resolveExactly(_ query: String) throws(Unavailable) -> Int {
        let folded = query.trimmingWhitespace().lowercased()
        guard !folded.isEmpty else { throw Unavailable() }
        let key = Array(folded.utf8)
        let ascii = RowScan.isASCII(key)
        if ascii {
            for i in rows.indices where RowScan.equalFolded(bytes[rows[i].id], key) { return i }
        } else {
            for i in rows.indices where try text(rows[i].id).lowercased() == folded { return i }
        }
        if let found = try unique({ i throws(Unavailable) in try nameMatches(i, folded: folded, key: key) }) { return found }
        if folded.count >= Addressing.minimumPrefix, let found = try unique({ i throws(Unavailable) in
            ascii ? RowScan.startsFolded(bytes[rows[i].id], key) : try text(rows[i].id).lowercased().hasPrefix(folded)
        }) { return found }
        if let found = try unique({ i throws(Unavailable) in
            rows[i].plain & 1 != 0 && ascii
                ? RowScan.startsFolded(bytes[rows[i].name], key) : try text(rows[i].name).lowercased().hasPrefix(folded)
        }) { return found }
        throw Unavailable()
    }

    /// The one row that matches; nil when none does; `Unavailable` when several do.
    private func unique(_ matches: (Int) throws(Unavailable) -> Bool) throws(Unavailable) -> Int? {
        var found: Int?
        for i in rows.indices where try matches(i) {
            guard found == nil else { throw Unavailable() }
            found = i
        }
        return found
    }

    /// Whether `bytes` lowercased (ASCII letters only) start with `key`.
    static func startsFolded(_ bytes: ArraySlice<UInt8>, _ key: [UInt8]) -> Bool {
        bytes.count >= key.count && equalFolded(bytes.prefix(key.count), key)
    }

    /// Whether row `i`'s name, lowercased, is `folded` (whose UTF-8 is `key`).
    private func nameMatches(_ i: Int, folded: String, key: [UInt8]) throws(Unavailable) -> Bool {
        let row = rows[i]
        if row.plain & 1 != 0, RowScan.isASCII(key) {
            // ASCII lowercases to ASCII, byte for byte, and two ASCII texts are equal as
            // Strings only when their bytes are (a non-ASCII text may equal an ASCII one
            // as a String: U+037E is ";").
            return row.name.count == key.count && RowScan.equalFolded(bytes[row.name], key)
        }
        return try text(row.name).lowercased() == folded
    }

    /// A JSON string's value, from the range of its quotes' insides.
    private func text(_ range: Range<Int>) throws(Unavailable) -> String {
        var cursor = JSONCursor(bytes)
        cursor.index = range.lowerBound - 1
        guard let value = try? cursor.string() else { throw Unavailable() }
        return value
    }

    static func isASCII(_ bytes: [UInt8]) -> Bool { bytes.allSatisfy { $0 < 0x80 } }

    /// Whether `bytes` lowercased (ASCII letters only) equal `key`, an ASCII-lowercased text
    /// or one with other bytes (which then never match an ASCII letter folded).
    static func equalFolded(_ bytes: ArraySlice<UInt8>, _ key: [UInt8]) -> Bool {
        guard bytes.count == key.count else { return false }
        var k = 0
        for byte in bytes {
            let lower = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            if lower != key[k] { return false }
            k += 1
        }
        return true
    }

    // MARK: Scanning

    static let itemsKey = Array("\n  \"items\": [".utf8)

    /// The end of the first occurrence of `needle`. The items key at the top level's indent
    /// can only be the key itself: strings hold no raw newline.
    static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { word -> Int? in
                guard let base = haystack.baseAddress, let first = word.first, haystack.count >= word.count else { return nil }
                var i = 0
                let last = haystack.count - word.count
                while i <= last {
                    // The needle's first byte by memchr (vectorised), then the rest.
                    guard let hit = memchr(base + i, Int32(first), last - i + 1) else { return nil }
                    i = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + i, word.baseAddress!, word.count) == 0 { return i + word.count }
                    i += 1
                }
                return nil
            }
        }
    }

    /// The rows of `items` from `start` (just after its `[`), in the writer's exact layout:
    /// `[]`, or `[` then rows each on a new line at indent 2, joined by `,`, then `\n  ]`.
    static func scanRows(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> (rows: [Row], close: Int)? {
        var i = start
        var rows: [Row] = []
        if i < b.count, b[i] == UInt8(ascii: "]") { return (rows, i) }
        rows.reserveCapacity(b.count / 512 + 16)  // rows are about 600 bytes
        while true {
            guard expect(b, &i, rowIndent), let row = scanRow(b, &i) else { return nil }
            rows.append(row)
            guard i < b.count else { return nil }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            guard expect(b, &i, itemsEnd) else { return nil }
            return (rows, i - 1)
        }
    }

    static let rowIndent = Array("\n    ".utf8)
    static let keyIndent = Array("\n      \"".utf8)
    static let rowEnd = Array("\n    }".utf8)
    static let itemsEnd = Array("\n  ]".utf8)

    static func expect(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ word: [UInt8]) -> Bool {
        guard i + word.count <= b.count,
              word.withUnsafeBufferPointer({ memcmp(b.baseAddress! + i, $0.baseAddress!, word.count) }) == 0 else { return false }
        i += word.count
        return true
    }

    /// One row object from its `{`: each key at indent 3, values on the key's line. Only
    /// rows the decoder reads as items pass (known keys, each once, of the right types, an
    /// id, a name that is not blank, a sortOrder); a row with other keys, or one it keeps
    /// unread, fails the scan.
    static func scanRow(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Row? {
        let start = i
        guard i < b.count, b[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        var id: Range<Int>?, name: Range<Int>?, section: Range<Int>?, sortOrder: Double?
        var checked = false, plain: UInt8 = 0, seen: UInt16 = 0
        while true {
            guard expect(b, &i, keyIndent) else { return nil }
            let keyStart = i
            while i < b.count, b[i] != UInt8(ascii: "\"") {
                if b[i] == UInt8(ascii: "\\") { return nil }
                i += 1
            }
            let key = keyStart..<i
            i += 1
            guard expect(b, &i, [UInt8(ascii: ":"), UInt8(ascii: " ")]), i < b.count else { return nil }
            guard let field = RowKey(b, key), seen & (1 << field.rawValue) == 0 else { return nil }
            seen |= 1 << field.rawValue
            switch field {
            case .id:
                guard let (range, isPlain) = string(b, &i), isPlain, !range.isEmpty else { return nil }
                id = range
            case .name:
                guard let (range, isPlain) = string(b, &i) else { return nil }
                if isPlain {
                    guard range.contains(where: { b[$0] != 0x20 }) else { return nil }
                    plain |= 1
                } else {
                    var cursor = JSONCursor(Array(b[range.lowerBound - 1..<range.upperBound + 1]))
                    guard let text = try? cursor.string(), !text.trimmingWhitespace().isEmpty else { return nil }
                }
                name = range
            case .section:
                guard let (range, isPlain) = string(b, &i) else { return nil }
                section = range
                if isPlain { plain |= 2 }
            case .amount, .lastModified:
                guard string(b, &i) != nil else { return nil }
            case .checked, .optional:
                let value: Bool
                if expect(b, &i, trueWord) { value = true } else if expect(b, &i, falseWord) { value = false } else { return nil }
                if field == .checked { checked = value }
            case .sortOrder:
                let numberStart = i
                guard b[i] == UInt8(ascii: "-") || (b[i] >= 0x30 && b[i] <= 0x39) else { return nil }
                while i < b.count, b[i] != UInt8(ascii: ","), b[i] != 0x0A { i += 1 }
                guard let value = Double(String(decoding: UnsafeBufferPointer(rebasing: b[numberStart..<i]), as: UTF8.self)),
                      value.isFinite else { return nil }
                sortOrder = value
            case .stamps:
                // Stamps are digits, dashes and hex letters under field names: no brace
                // inside, so the object ends at the next `}`.
                guard b[i] == UInt8(ascii: "{"),
                      let close = memchr(b.baseAddress! + i, Int32(UInt8(ascii: "}")), b.count - i) else { return nil }
                i = b.baseAddress!.distance(to: close.assumingMemoryBound(to: UInt8.self)) + 1
            }
            guard i < b.count else { return nil }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            guard expect(b, &i, rowEnd) else { return nil }
            break
        }
        guard let id, let name, let section, let sortOrder else { return nil }
        return Row(range: start..<i, id: id, name: name, section: section, plain: plain, checked: checked, sortOrder: sortOrder)
    }

    /// The keys a row bananas reads directly may have.
    enum RowKey: Int {
        case id, name, amount, section, checked, optional, sortOrder, lastModified, stamps

        init?(_ b: UnsafeBufferPointer<UInt8>, _ key: Range<Int>) {
            // Told apart by length and first byte, then the bytes compared once.
            let candidate: RowKey
            switch (key.count, b[key.lowerBound]) {
            case (2, UInt8(ascii: "i")): candidate = .id
            case (4, UInt8(ascii: "n")): candidate = .name
            case (6, UInt8(ascii: "a")): candidate = .amount
            case (7, UInt8(ascii: "s")): candidate = .section
            case (7, UInt8(ascii: "c")): candidate = .checked
            case (8, UInt8(ascii: "o")): candidate = .optional
            case (9, UInt8(ascii: "s")): candidate = .sortOrder
            case (12, UInt8(ascii: "l")): candidate = .lastModified
            case (6, UInt8(ascii: "s")): candidate = .stamps
            default: return nil
            }
            let word = candidate.word
            guard memcmp(b.baseAddress! + key.lowerBound, word.utf8Start, key.count) == 0 else { return nil }
            self = candidate
        }

        var word: StaticString {
            switch self {
            case .id: "id"
            case .name: "name"
            case .amount: "amount"
            case .section: "section"
            case .checked: "checked"
            case .optional: "optional"
            case .sortOrder: "sortOrder"
            case .lastModified: "lastModified"
            case .stamps: "stamps"
            }
        }
    }

    static let trueWord = Array("true".utf8), falseWord = Array("false".utf8)

    /// A string from its opening quote: the range inside the quotes, and whether it is plain
    /// (ASCII, no escapes, no control characters).
    static func string(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> (Range<Int>, Bool)? {
        guard i < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
        i += 1
        let start = i
        var plain = true
        while i < b.count {
            // The next quote by memchr; an escape before it is looked at byte by byte.
            guard let hit = memchr(b.baseAddress! + i, Int32(UInt8(ascii: "\"")), b.count - i) else { return nil }
            let quote = b.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if memchr(b.baseAddress! + i, Int32(UInt8(ascii: "\\")), quote - i) == nil {
                for k in i..<quote where b[k] >= 0x80 || b[k] < 0x20 { plain = false; break }
                i = quote + 1
                return (start..<quote, plain)
            }
            plain = false
            while i < quote {
                i += b[i] == UInt8(ascii: "\\") ? 2 : 1
            }
            if i == quote {
                i += 1
                return (start..<quote, false)
            }
            // The quote was escaped: go on after it.
        }
        return nil
    }
}

// MARK: The questions `add` asks

extension RowScan: ItemQueries {
    /// As `ShoppingList.firstItem(named:)`.
    public func firstItem(named name: String) throws(Unavailable) -> Item? {
        let folded = name.lowercased()
        let key = Array(folded.utf8)
        var best: Int?
        for i in rows.indices where try nameMatches(i, folded: folded, key: key) {
            if let b = best, (rows[b].sortOrder, id(b)) < (rows[i].sortOrder, id(i)) { continue }
            best = i
        }
        guard let best else { return nil }
        return try item(best)
    }

    /// As `ShoppingList.nextSortOrder`: past every row, hidden ones too.
    public var nextSortOrder: Double {
        var top = frame.rows.values.map(\.sortOrder).max()
        for row in rows where top == nil || row.sortOrder > top! { top = row.sortOrder }
        return (top ?? 0).rounded(.down) + 1024
    }

    /// As `ShoppingList.section(named:)`, but for two spellings of the name among the items
    /// only (which one wins depends on the list's order): those throw.
    public func section(named name: String) throws(Unavailable) -> String? {
        if frame.sections.contains(name) { return name }
        let folded = name.lowercased()
        let exact = Array(name.utf8), key = Array(folded.utf8)
        let ascii = RowScan.isASCII(exact) && RowScan.isASCII(key)
        var variants: Set<String> = []
        for row in rows {
            let range = row.section
            if row.plain & 2 != 0, ascii {
                if Bytes.equal(bytes[range], exact) { return name }
                if range.count == key.count, RowScan.equalFolded(bytes[range], key) {
                    variants.insert(String(decoding: bytes[range], as: UTF8.self))
                }
            } else {
                let section = try text(range)
                if section == name { return name }
                if section.lowercased() == folded { variants.insert(section) }
            }
        }
        if let own = frame.sections.first(where: { $0.lowercased() == folded }) { return own }
        if variants.count <= 1 { return variants.first }
        throw Unavailable()
    }

    public func ensureSectionEdit(_ name: String) -> ListEdit? {
        frame.ensureSectionEdit(name)
    }
}
