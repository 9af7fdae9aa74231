import BananasCore

/// What a file's `sync` holds, as read (docs/file-format.md), filled member by member: from a
/// tree of JSON values (`take`), or straight from the bytes (`ListCodec.readPlainSync`), which
/// hands `take` every member, and every element of a member, that is not in the shape bananas
/// writes. Each rule of what a member means is in one place, whichever way it was read.
struct DecodedSync {
    var sectionsStamp = Stamp.zero
    /// Nil when `sync.sections` is not an array (the top-level `sections` then make them).
    var entries: [String: SectionEntry]?
    var tombstones: [UInt64: Tombstone] = [:]
    /// `sync.deletedRows`, nil when it is not an array.
    var hiddenRows: [ListCodec.RawRow]?
    var deletedItems: [String: DeletedItem] = [:]
    var records: [ConflictRecord] = []
    var folds: [ConflictFold] = []
    var writeMark = Stamp.zero
    var memory = ItemMemory()
    /// Unknown keys (`shadowedKeys` among them), kept for the next write.
    var extra: [String: JSONValue] = [:]

    init() {}

    init(_ object: [String: JSONValue]) {
        for (key, value) in object { take(key, value) }
    }

    mutating func take(_ key: String, _ value: JSONValue) {
        switch key {
        case "sectionsStamp": sectionsStamp = value.stringValue.flatMap(Stamp.init(encoded:)) ?? .zero
        case "sections":
            guard case .array(let stored) = value else { return }
            var read: [String: SectionEntry] = [:]
            for entry in stored { ListCodec.addSectionEntry(entry, to: &read) }
            entries = read
        case "deleted":
            switch value {
            case .array(let groups):
                for group in groups { ListCodec.decodeDeleteGroup(group, into: &tombstones) }
            case .object(let deleted):
                // Versions 2 and 3: one entry per row id.
                for (id, stamp) in deleted {
                    if let tombstone = ListCodec.decodeTombstone(stamp) { tombstones[Tombstone.key(for: ListCodec.normalizedID(id))] = tombstone }
                }
            default: break
            }
        case "deletedRows":
            guard case .array(let stored) = value else { return }
            hiddenRows = stored.map { .value(ListCodec.hiddenRowObject($0), text: nil) }
        case "deletedItems":
            guard case .array(let stored) = value else { return }
            for entry in stored { if let item = ListCodec.deletedItem(entry) { deletedItems[item.id] = item } }
        case "conflicts": if case .array(let stored) = value { records = stored.compactMap(ListCodec.decodeConflict) }
        case "conflictsFolded": if case .array(let stored) = value { folds = stored.compactMap(ListCodec.decodeConflictFold) }
        case "written": writeMark = value.stringValue.flatMap(Meta.stamp) ?? .zero
        case "memory": memory = ListCodec.decodeMemory(value)
        default: extra[key] = value
        }
    }
}

/// `sync.memory` as read, member by member (`ListCodec.decodeMemory`, `readPlainMemory`).
struct MemoryParts {
    var entries: [String: ItemMemory.Entry] = [:]
    var forgotten: [String: Stamp] = [:]
    var cleared = Stamp.zero

    var memory: ItemMemory { ItemMemory(entries: entries, forgotten: forgotten, cleared: cleared) }

    /// Anything unreadable is left out (the memory is a convenience: a damaged entry costs a
    /// suggestion, never an item).
    mutating func take(_ key: String, _ value: JSONValue) {
        switch key {
        case "remembered":
            guard case .array(let stored) = value else { return }
            for element in stored { takeRemembered(element) }
        case "forgotten":
            guard case .object(let stored) = value else { return }
            for (name, value) in stored {
                if let stamp = value.stringValue.flatMap(Meta.stamp) { forgotten[ItemMemory.fold(name)] = max(forgotten[ItemMemory.fold(name)] ?? .zero, stamp) }
            }
        case "cleared": cleared = value.stringValue.flatMap(Meta.stamp) ?? .zero
        default: break
        }
    }

    /// One element of `remembered`: version 4's array, or version 3's object.
    mutating func takeRemembered(_ element: JSONValue) {
        switch element {
        case .array(let fields):
            guard fields.count >= 3, fields.count <= 6, case .string(let name) = fields[0], case .string(let section) = fields[1],
                  case .string(var bought) = fields[2] else { return }
            var lastUsed = ""
            if fields.count > 3 { guard case .string(let text) = fields[3] else { return }; lastUsed = text }
            var amount = ""
            if fields.count > 4 { guard case .string(let text) = fields[4] else { return }; amount = text }
            var optional = false
            if fields.count > 5 { guard case .number(let flag) = fields[5] else { return }; optional = flag != "0" }
            let entry = bought.withUTF8 { bought in
                lastUsed.withUTF8 { lastUsed in
                    ListCodec.rememberedEntry(name: name, section: section, bought: bought, lastUsed: lastUsed, amount: amount, optional: optional)
                }
            }
            if let entry { remember(entry) }
        case .object(let row):
            guard case .string(let name)? = row["name"], case .string(let section)? = row["section"],
                  let stamp = row["v"]?.stringValue.flatMap(Meta.stamp) else { return }
            var amount = ""
            if case .string(let text)? = row["amount"] { amount = text }
            var optional = false
            if case .bool(let flag)? = row["optional"] { optional = flag }
            var purchases: [Stamp] = []
            if case .array(let bought)? = row["bought"] { purchases = bought.compactMap { $0.stringValue.flatMap(Meta.stamp) } }
            remember(ItemMemory.Entry(name: name, section: section, amount: amount, optional: optional, stamp: stamp, purchases: purchases))
        default: return
        }
    }

    /// Two entries of one name (told apart by case or spaces) are one, merged.
    mutating func remember(_ entry: ItemMemory.Entry) {
        let folded = ItemMemory.fold(entry.name)
        guard !folded.isEmpty else { return }
        entries[folded] = entries[folded].map { $0.merged(with: entry) } ?? entry
    }
}

/// A walk over a document's bytes for the parts bananas writes in one shape: a step takes
/// only what the general reader reads the same way, and answers nil for anything else (the
/// caller then reads that part with the general reader, which also finds any error in it).
struct PlainReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var at: Int

    static var none: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: nil, count: 0) }

    var current: UInt8? { at < bytes.count ? bytes[at] : nil }

    mutating func skipWhitespace() {
        while at < bytes.count {
            let byte = bytes[at]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            at += 1
        }
    }

    mutating func take(_ byte: UInt8) -> Bool {
        guard at < bytes.count, bytes[at] == byte else { return false }
        at += 1
        return true
    }

    /// Whitespace, then `byte`.
    mutating func next(_ byte: UInt8) -> Bool {
        skipWhitespace()
        return take(byte)
    }

    /// A string of ASCII without escapes or control bytes: its bytes between the quotes.
    mutating func asciiString() -> UnsafeBufferPointer<UInt8>? {
        guard at < bytes.count, bytes[at] == UInt8(ascii: "\""),
              let (close, ascii) = ListCodec.plainTextEnd(bytes.baseAddress!, from: at + 1, end: bytes.count), ascii else { return nil }
        defer { at = close + 1 }
        return UnsafeBufferPointer(rebasing: bytes[(at + 1)..<close])
    }

    /// Any well-formed string: ASCII without escapes here, anything else by the cursor, which
    /// checks it.
    mutating func text(_ cursor: inout JSONCursor) -> String? {
        if let plain = asciiString() { return String(decoding: plain, as: UTF8.self) }
        guard current == UInt8(ascii: "\"") else { return nil }
        cursor.index = at
        guard let text = try? cursor.string() else { return nil }
        at = cursor.index
        return text
    }

    /// A key (ASCII without escapes) and its colon.
    mutating func key() -> UnsafeBufferPointer<UInt8>? {
        skipWhitespace()
        guard let key = asciiString(), next(UInt8(ascii: ":")) else { return nil }
        skipWhitespace()
        return key
    }

    mutating func flag() -> Bool? {
        if matches(word: "true") { return true }
        if matches(word: "false") { return false }
        return nil
    }

    mutating func matches(word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - at >= count else { return false }
        for offset in 0..<count where bytes[at + offset] != word.utf8Start[offset] { return false }
        at += count
        return true
    }

    /// The literal of a whole number without fraction or exponent (`-` allowed), JSON's form.
    mutating func wholeNumber() -> UnsafeBufferPointer<UInt8>? {
        var i = at
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        let digits = i
        while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
        guard i > digits, i - digits == 1 || bytes[digits] != UInt8(ascii: "0") else { return nil }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") || bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") { return nil }
        defer { at = i }
        return UnsafeBufferPointer(rebasing: bytes[at..<i])
    }

    /// A number as `Double(literal)` reads its literal (nil for a literal it cannot read).
    mutating func number(_ cursor: inout JSONCursor) -> Double? {
        guard let first = current, first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39) else { return nil }
        if let value = ListCodec.plainWholeNumber(bytes, at: &at) { return value }
        cursor.index = at
        guard let literal = try? cursor.numberLiteral(), let value = Double(literal) else { return nil }
        at = cursor.index
        return value
    }

    static func matches(_ key: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        guard key.count == name.utf8CodeUnitCount else { return false }
        for offset in 0..<key.count where key[offset] != name.utf8Start[offset] { return false }
        return true
    }
}

extension ListCodec {
    // MARK: Reading `sync`

    /// `sync` read straight from its bytes into values, from its `{`; nil, with nothing read,
    /// when it is not an object or repeats a key (the caller reads it as a tree, which keeps
    /// what the repeat shadowed), or when anything in it is not well formed (the tree reader
    /// then says where). A member or element not in the shape bananas writes (unknown keys in
    /// it, other types) is read as a JSON value and decoded by `DecodedSync.take`'s rules.
    static func readPlainSync(_ cursor: inout JSONCursor, bytes: UnsafeBufferPointer<UInt8>, conflicts: ConflictStream?) throws(JSONSyntaxError) -> DecodedSync? {
        let start = cursor.index, depth = cursor.depth
        let mark = conflicts?.mark
        var reader = PlainReader(bytes: bytes, at: start)
        if let read = try readPlainSyncMembers(&reader, &cursor, conflicts: conflicts) {
            cursor.index = reader.at
            return read
        }
        cursor.index = start
        cursor.depth = depth
        if let conflicts, let mark { conflicts.rewind(to: mark) }
        return nil
    }

    // Long because one switch over `sync`'s members, each read its own way.
    static func readPlainSyncMembers(_ reader: inout PlainReader, _ cursor: inout JSONCursor, conflicts: ConflictStream?) throws(JSONSyntaxError) -> DecodedSync? {
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        try cursor.enter()
        var sync = DecodedSync()
        if reader.next(UInt8(ascii: "}")) { cursor.leave(); return sync }
        var keys = Set<String>()
        while true {
            guard let keyBytes = reader.key() else { return nil }
            let key = String(decoding: keyBytes, as: UTF8.self)
            guard keys.insert(key).inserted else { return nil }
            /// The member as a value, decoded by the tree's rules.
            func general() throws(JSONSyntaxError) {
                cursor.index = reader.at
                sync.take(key, try cursor.value())
                reader.at = cursor.index
            }
            let isArray = reader.current == UInt8(ascii: "[")
            switch key {
            case "sections" where isArray:
                var entries: [String: SectionEntry] = [:]
                guard try readArray(&reader, &cursor, plain: { reader, cursor in readPlainSectionEntry(&reader, &cursor, to: &entries) },
                                    general: { addSectionEntry($0, to: &entries) }) else { return nil }
                sync.entries = entries
            case "deleted" where isArray:
                guard try readArray(&reader, &cursor, plain: { reader, _ in readPlainDeleteGroup(&reader, into: &sync.tombstones) },
                                    general: { decodeDeleteGroup($0, into: &sync.tombstones) }) else { return nil }
            case "deletedRows" where isArray:
                var rows: [RawRow] = []
                guard try readArray(&reader, &cursor, plain: { reader, cursor in
                    guard let item = readPlainHiddenRow(&reader, &cursor) else { return false }
                    rows.append(.item(item))
                    return true
                }, general: { rows.append(.value(hiddenRowObject($0), text: nil)) }) else { return nil }
                sync.hiddenRows = rows
            case "deletedItems" where isArray:
                guard try readArray(&reader, &cursor, plain: { reader, cursor in
                    guard let item = readPlainDeletedItem(&reader, &cursor) else { return false }
                    sync.deletedItems[item.id] = item
                    return true
                }, general: { if let item = deletedItem($0) { sync.deletedItems[item.id] = item } }) else { return nil }
            case "conflicts" where isArray && conflicts != nil:
                // Record by record, bounded as read, as the tree reader streams them.
                guard try readArray(&reader, &cursor, plain: { reader, cursor in
                    guard let record = readPlainConflict(&reader, &cursor) else { return false }
                    conflicts!.take(record)
                    return true
                }, general: { conflicts!.add($0) }) else { return nil }
            case "memory" where reader.current == UInt8(ascii: "{"):
                guard let memory = try readPlainMemory(&reader, &cursor) else { return nil }
                sync.memory = memory
            default:
                try general()
            }
            reader.skipWhitespace()
            if reader.take(UInt8(ascii: ",")) { continue }
            if reader.take(UInt8(ascii: "}")) { cursor.leave(); return sync }
            return nil
        }
    }

    /// An array, from its `[`, each element read by `plain` where it can (false: it could not,
    /// wherever it stopped), else read as a value and handed to `general`; false when the
    /// array is not well formed between its elements.
    static func readArray(_ reader: inout PlainReader, _ cursor: inout JSONCursor, plain: (inout PlainReader, inout JSONCursor) -> Bool,
                          general: (JSONValue) -> Void) throws(JSONSyntaxError) -> Bool {
        guard reader.take(UInt8(ascii: "[")) else { return false }
        try cursor.enter()
        if reader.next(UInt8(ascii: "]")) { cursor.leave(); return true }
        while true {
            reader.skipWhitespace()
            let start = reader.at
            if !plain(&reader, &cursor) {
                cursor.index = start
                general(try cursor.value())
                reader.at = cursor.index
            }
            reader.skipWhitespace()
            if reader.take(UInt8(ascii: ",")) { continue }
            if reader.take(UInt8(ascii: "]")) { cursor.leave(); return true }
            return false
        }
    }

    /// A record of `sync.conflicts` about an item, as `encodeConflict` writes it: `item`,
    /// `field`, `lost` (a string or a flag), `lostStamp`, `resolved`, `resolution`, `firstSeen`,
    /// each at most once, of their types; nil for anything else (the caller reads it as a value,
    /// `decodeConflict`). A file of a million records is read without a tree per record.
    static func readPlainConflict(_ reader: inout PlainReader, _ cursor: inout JSONCursor) -> ConflictRecord? {
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        var id: String?, fieldName: String?, lost: JSONValue?, lostStamp: Stamp?, resolved: Stamp?, resolution: String?
        var firstSeen: Int64?
        var found: UInt8 = 0
        guard !reader.next(UInt8(ascii: "}")) else { return nil }
        while true {
            guard let key = reader.key() else { return nil }
            let bit: UInt8
            if PlainReader.matches(key, "item") {
                bit = 1; guard let text = reader.text(&cursor) else { return nil }; id = text
            } else if PlainReader.matches(key, "field") {
                bit = 2; guard let text = reader.asciiString() else { return nil }; fieldName = String(decoding: text, as: UTF8.self)
            } else if PlainReader.matches(key, "lost") {
                bit = 4
                if let flag = reader.flag() { lost = .bool(flag) } else if let text = reader.text(&cursor) { lost = .string(text) } else { return nil }
            } else if PlainReader.matches(key, "lostStamp") {
                // An unreadable stamp drops the record, as `decodeConflict` does: left to it.
                bit = 8; guard let text = reader.asciiString(), let stamp = Meta.stamp(text) else { return nil }; lostStamp = stamp
            } else if PlainReader.matches(key, "resolved") {
                bit = 16; guard let text = reader.asciiString(), let stamp = Meta.stamp(text) else { return nil }; resolved = stamp
            } else if PlainReader.matches(key, "resolution") {
                bit = 32; guard let text = reader.text(&cursor) else { return nil }; resolution = text
            } else if PlainReader.matches(key, "firstSeen") {
                bit = 64
                guard let literal = reader.wholeNumber(), let millis = Int64(String(decoding: literal, as: UTF8.self)) else { return nil }
                firstSeen = millis
            } else {
                return nil
            }
            guard found & bit == 0 else { return nil }
            found |= bit
            reader.skipWhitespace()
            if reader.take(UInt8(ascii: ",")) { continue }
            if reader.take(UInt8(ascii: "}")) { break }
            return nil
        }
        guard let id, let fieldName, let field = ItemField(rawValue: fieldName), let lost, let value = fieldValue(lost, for: field),
              let lostStamp else { return nil }
        var record = ConflictRecord(subject: .item(normalizedID(id), field), lost: value, lostStamp: lostStamp)
        if let resolved {
            record.resolved = resolved
            record.resolution = resolution ?? "dismissed"
        }
        record.firstSeen = firstSeen ?? 0
        return record
    }

    /// `sync.memory`, from its `{`; nil when a key repeats or it is not well formed (the
    /// caller reads `sync` as a tree).
    static func readPlainMemory(_ reader: inout PlainReader, _ cursor: inout JSONCursor) throws(JSONSyntaxError) -> ItemMemory? {
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        try cursor.enter()
        var parts = MemoryParts()
        if reader.next(UInt8(ascii: "}")) { cursor.leave(); return parts.memory }
        var keys = Set<String>()
        while true {
            guard let keyBytes = reader.key() else { return nil }
            let key = String(decoding: keyBytes, as: UTF8.self)
            guard keys.insert(key).inserted else { return nil }
            if key == "remembered", reader.current == UInt8(ascii: "[") {
                // Room for the names the bytes could hold, up to what the list keeps.
                parts.entries.reserveCapacity(Swift.min((reader.bytes.count - reader.at) / 16, 2 * ItemMemory.capacity))
                guard try readArray(&reader, &cursor, plain: { reader, cursor in readPlainRemembered(&reader, &cursor, into: &parts) },
                                    general: { parts.takeRemembered($0) }) else { return nil }
            } else {
                cursor.index = reader.at
                parts.take(key, try cursor.value())
                reader.at = cursor.index
            }
            reader.skipWhitespace()
            if reader.take(UInt8(ascii: ",")) { continue }
            if reader.take(UInt8(ascii: "}")) { cursor.leave(); return parts.memory }
            return nil
        }
    }

    /// A remembered name as `encodeMemory` writes it: `[name, section, bought(, lastUsed(,
    /// amount(, optional)))]`, strings and a whole number.
    static func readPlainRemembered(_ reader: inout PlainReader, _ cursor: inout JSONCursor, into parts: inout MemoryParts) -> Bool {
        guard reader.take(UInt8(ascii: "[")) else { return false }
        reader.skipWhitespace()
        guard let name = reader.text(&cursor), reader.next(UInt8(ascii: ",")) else { return false }
        reader.skipWhitespace()
        guard let section = reader.text(&cursor), reader.next(UInt8(ascii: ",")) else { return false }
        reader.skipWhitespace()
        guard let bought = reader.asciiString() else { return false }
        var lastUsed = PlainReader.none, amount = "", optional = false
        var fields = 3
        while reader.next(UInt8(ascii: ",")) {
            reader.skipWhitespace()
            fields += 1
            switch fields {
            case 4: guard let text = reader.asciiString() else { return false }; lastUsed = text
            case 5: guard let text = reader.text(&cursor) else { return false }; amount = text
            case 6:
                guard let literal = reader.wholeNumber() else { return false }
                optional = !(literal.count == 1 && literal[0] == UInt8(ascii: "0"))
            default: return false
            }
        }
        guard reader.take(UInt8(ascii: "]")) else { return false }
        if let entry = rememberedEntry(name: name, section: section, bought: bought, lastUsed: lastUsed, amount: amount, optional: optional) {
            parts.remember(entry)
        }
        return true
    }

    /// A version-4 remembered name (`encodeMemory`); nil when anything in it is unreadable.
    /// `lastUsed` empty: the newest purchase's day.
    static func rememberedEntry(name: String, section: String, bought: UnsafeBufferPointer<UInt8>, lastUsed: UnsafeBufferPointer<UInt8>,
                                amount: String, optional: Bool) -> ItemMemory.Entry? {
        func day(_ word: UnsafeBufferPointer<UInt8>) -> Stamp? {
            guard word.count <= 6, let days = Words.base36(word) else { return nil }
            return Stamp(millis: Int64(days) * Stamp.dayMillis, counter: 0, replica: "")
        }
        var purchases: [Stamp] = []
        purchases.reserveCapacity((bought.count + 1) / 2)
        var readable = true
        Words.each(in: bought) { word in
            guard let stamp = day(word) else { readable = false; return }
            purchases.append(stamp)
        }
        guard readable else { return nil }
        var used = purchases.max()
        if !lastUsed.isEmpty { guard let stamp = day(lastUsed) else { return nil }; used = stamp }
        guard let used else { return nil }
        return ItemMemory.Entry(name: name, section: section, amount: amount, optional: optional, stamp: used, purchases: purchases)
    }

    /// A delete group as `encodeDeleteGroups` writes it: the keys `at`, `seen`, `horizon`,
    /// `rows` (ASCII strings) and `firstSeen` (a whole number), each at most once.
    static func readPlainDeleteGroup(_ reader: inout PlainReader, into tombstones: inout [UInt64: Tombstone]) -> Bool {
        guard reader.take(UInt8(ascii: "{")) else { return false }
        var at: UnsafeBufferPointer<UInt8>?, seen = PlainReader.none, horizon: UnsafeBufferPointer<UInt8>?, rows: UnsafeBufferPointer<UInt8>?
        var firstSeen: Int64 = 0
        var found: UInt8 = 0
        if !reader.next(UInt8(ascii: "}")) {
            while true {
                guard let key = reader.key() else { return false }
                let bit: UInt8
                if PlainReader.matches(key, "at") {
                    bit = 1; at = reader.asciiString()
                } else if PlainReader.matches(key, "seen") {
                    bit = 2; guard let text = reader.asciiString() else { return false }; seen = text
                } else if PlainReader.matches(key, "horizon") {
                    bit = 4; horizon = reader.asciiString()
                } else if PlainReader.matches(key, "rows") {
                    bit = 8; rows = reader.asciiString()
                } else if PlainReader.matches(key, "firstSeen") {
                    bit = 16
                    // Past 64 bits the tree reader reads no date: its case.
                    guard let literal = reader.wholeNumber(), let millis = Int64(String(decoding: literal, as: UTF8.self)) else { return false }
                    firstSeen = millis
                } else {
                    return false
                }
                guard found & bit == 0, bit != 1 || at != nil, bit != 4 || horizon != nil, bit != 8 || rows != nil else { return false }
                found |= bit
                reader.skipWhitespace()
                if reader.take(UInt8(ascii: ",")) { continue }
                if reader.take(UInt8(ascii: "}")) { break }
                return false
            }
        }
        addDeleteGroup(at: at.flatMap(Meta.stamp), seen: seen, horizon: horizon.flatMap(Meta.stamp) ?? .zero, firstSeen: firstSeen, rows: rows, into: &tombstones)
        return true
    }

    /// One entry of `sync.deleted` (version 4) as a value; an entry it cannot read is skipped whole.
    static func decodeDeleteGroup(_ value: JSONValue, into tombstones: inout [UInt64: Tombstone]) {
        guard case .object(let object) = value, case .string(var rows)? = object["rows"] else { return }
        var seen = object["seen"]?.stringValue ?? ""
        var firstSeen: Int64 = 0
        if case .number(let literal)? = object["firstSeen"], let millis = Int64(literal) { firstSeen = millis }
        let at = object["at"]?.stringValue.flatMap(Meta.stamp), horizon = object["horizon"]?.stringValue.flatMap(Meta.stamp) ?? .zero
        rows.withUTF8 { rows in
            seen.withUTF8 { seen in addDeleteGroup(at: at, seen: seen, horizon: horizon, firstSeen: firstSeen, rows: rows, into: &tombstones) }
        }
    }

    /// The rows of a delete group deleted by it: nothing without its stamp, its rows, or when
    /// a stamp it saw is unreadable; a key that is not 13 base-36 digits is skipped.
    static func addDeleteGroup(at: Stamp?, seen seenText: UnsafeBufferPointer<UInt8>, horizon: Stamp, firstSeen: Int64, rows: UnsafeBufferPointer<UInt8>?,
                               into tombstones: inout [UInt64: Tombstone]) {
        guard let at, let rows else { return }
        var seen = Knowledge(horizon: horizon)
        var readable = true
        Words.each(in: seenText) { word in
            guard let stamp = Meta.stamp(word) else { readable = false; return }
            seen.add(stamp)
        }
        guard readable else { return }
        let tombstone = Tombstone(stamp: at, seen: seen, firstSeen: firstSeen)
        // Room grown by doubling: a reserve of just enough for each group rehashed at each.
        let needed = tombstones.count + rows.count / 14 + 1
        if tombstones.capacity < needed { tombstones.reserveCapacity(Swift.max(needed, 2 * tombstones.capacity)) }
        Words.each(in: rows) { word in
            guard word.count == 13, let key = Words.base36(word) else { return }
            if let known = tombstones[key] { tombstones[key] = known.merged(with: tombstone) } else { tombstones[key] = tombstone }
        }
    }

    /// A section entry as `appendSectionEntries` writes it: `name`, `v`, `key`, `position`,
    /// `removed`, each at most once, of their types.
    static func readPlainSectionEntry(_ reader: inout PlainReader, _ cursor: inout JSONCursor, to entries: inout [String: SectionEntry]) -> Bool {
        guard reader.take(UInt8(ascii: "{")) else { return false }
        var name: String?, key: String?, position: Double?, removed = false, stamps: StampTable<SectionField>?
        var found: UInt8 = 0
        if !reader.next(UInt8(ascii: "}")) {
            while true {
                guard let member = reader.key() else { return false }
                let bit: UInt8
                if PlainReader.matches(member, "name") {
                    bit = 1; guard let text = reader.text(&cursor) else { return false }; name = text
                } else if PlainReader.matches(member, "v") {
                    bit = 2
                    guard let text = reader.asciiString(), let meta = Meta.decode(text, as: SectionField.self) else { return false }
                    stamps = meta.stamps
                } else if PlainReader.matches(member, "key") {
                    bit = 4; guard let text = reader.text(&cursor) else { return false }; key = text
                } else if PlainReader.matches(member, "position") {
                    bit = 8; guard let value = reader.number(&cursor) else { return false }; position = value
                } else if PlainReader.matches(member, "removed") {
                    bit = 16; guard let flag = reader.flag() else { return false }; removed = flag
                } else {
                    return false
                }
                guard found & bit == 0 else { return false }
                found |= bit
                reader.skipWhitespace()
                if reader.take(UInt8(ascii: ",")) { continue }
                if reader.take(UInt8(ascii: "}")) { break }
                return false
            }
        }
        guard let name else { return false }
        addSectionEntry(name: name, key: key, position: position, removed: removed, stamps: stamps, to: &entries)
        return true
    }

    /// One entry of `sync.sections` as a value; one without a name is skipped.
    static func addSectionEntry(_ value: JSONValue, to entries: inout [String: SectionEntry]) {
        guard case .object(let object) = value, case .string(let name)? = object["name"] else { return }
        var position: Double?
        if case .number(let literal)? = object["position"] { position = Double(literal) }
        var removed = false
        if case .bool(let flag)? = object["removed"] { removed = flag }
        var stamps: StampTable<SectionField>?
        if let text = object["v"]?.stringValue, let meta = Meta.decode(Array(text.utf8), as: SectionField.self) { stamps = meta.stamps }
        addSectionEntry(name: name, key: object["key"]?.stringValue, position: position, removed: removed, stamps: stamps, to: &entries)
    }

    /// A section by its key (its name without one), placed after those before it when its
    /// position is unreadable; the first of a key is kept.
    static func addSectionEntry(name: String, key: String?, position: Double?, removed: Bool, stamps: StampTable<SectionField>?,
                                to entries: inout [String: SectionEntry]) {
        let key = key ?? name
        var entry = SectionEntry(key: key, name: name, position: position.flatMap { $0.isFinite ? $0 : nil } ?? Double(entries.count + 1) * 1024,
                                 removed: removed)
        if let stamps { entry.stamps = stamps }
        if entries[key] == nil { entries[key] = entry }
    }

    /// A deleted row as `hiddenRow` writes one without other keys: `[id, name, amount,
    /// section, checked, optional, sortOrder, v]`; nil for anything the item decoder would read
    /// otherwise (no id, a blank name, an unreadable `v`) or report.
    static func readPlainHiddenRow(_ reader: inout PlainReader, _ cursor: inout JSONCursor) -> Item? {
        func separator() -> Bool {
            guard reader.next(UInt8(ascii: ",")) else { return false }
            reader.skipWhitespace()
            return true
        }
        guard reader.take(UInt8(ascii: "[")) else { return nil }
        reader.skipWhitespace()
        guard let id = reader.text(&cursor), !id.isEmpty, separator(),
              let name = reader.text(&cursor), !isBlank(name), separator(),
              let amount = reader.text(&cursor), separator(),
              let section = reader.text(&cursor), separator(),
              let checked = reader.flag(), separator(),
              let optional = reader.flag(), separator(),
              let sortOrder = reader.number(&cursor), sortOrder.isFinite, separator(),
              let v = reader.asciiString(), let meta = Meta.decode(v, as: ItemField.self),
              reader.next(UInt8(ascii: "]")) else { return nil }
        return Item(id: normalizedID(id), name: name, amount: amount, section: ShoppingList.sectionAsRead(section), checked: checked, optional: optional,
                    sortOrder: sortOrder, lastModified: impliedDate(meta.stamps), stamps: meta.stamps)
    }

    /// A recently deleted item as written: `[id, name, amount, section key]`, then `1` when it
    /// was checked.
    static func readPlainDeletedItem(_ reader: inout PlainReader, _ cursor: inout JSONCursor) -> DeletedItem? {
        guard reader.take(UInt8(ascii: "[")) else { return nil }
        var fields: [String] = []
        fields.reserveCapacity(4)
        for n in 0..<4 {
            if n > 0 { guard reader.next(UInt8(ascii: ",")) else { return nil } }
            reader.skipWhitespace()
            guard let text = reader.text(&cursor) else { return nil }
            fields.append(text)
        }
        var checked = false
        if reader.next(UInt8(ascii: ",")) {
            reader.skipWhitespace()
            guard let literal = reader.wholeNumber(), literal.count == 1, literal[0] == UInt8(ascii: "1") else { return nil }
            checked = true
        }
        guard reader.next(UInt8(ascii: "]")) else { return nil }
        return DeletedItem(id: fields[0], name: fields[1], amount: fields[2], section: fields[3], checked: checked)
    }

    /// A recently deleted item as a value: four strings, and checked when a fifth is the number 1.
    static func deletedItem(_ value: JSONValue) -> DeletedItem? {
        guard case .array(let fields) = value, fields.count == 4 || fields.count == 5, case .string(let id) = fields[0], case .string(let name) = fields[1],
              case .string(let amount) = fields[2], case .string(let section) = fields[3] else { return nil }
        return DeletedItem(id: id, name: name, amount: amount, section: section, checked: fields.count == 5 && fields[4] == .number("1"))
    }
}

extension ListCodec {
    // MARK: Writing `sync`

    /// Whether the list writes a `sync` object.
    static func hasSync(_ list: ShoppingList) -> Bool {
        !list.syncExtra.isEmpty || !list.sectionEntries.isEmpty || !list.tombstones.isEmpty || !list.deletedItems.isEmpty || !list.writeMark.isZero
            || !list.conflicts.isEmpty || !list.conflictFolds.isEmpty || !list.memory.isEmpty
    }

    /// `sync` as a tree of JSON values (`encodeValue`; the direct writer `appendSync` writes
    /// the same bytes as this tree written in place).
    static func syncValue(_ list: ShoppingList) -> [String: JSONValue] {
        var sync = list.syncExtra
        if !list.sectionEntries.isEmpty {
            sync["sections"] = .array(list.sectionEntries.keys.sorted { $0.precedesInTextOrder($1) }.map { encodeSectionEntry(list.sectionEntries[$0]!) })
        }
        if !list.tombstones.isEmpty {
            sync["deleted"] = .array(sortedDeleteGroups(list.tombstones).map { deleteGroupValue($0.tombstone, keys: $0.keys) })
        }
        let hidden = list.hiddenRows
        if !hidden.isEmpty { sync["deletedRows"] = .array(hidden.map { hiddenRow(encodeItem($0, in: list)) }) }
        if !list.deletedItems.isEmpty {
            sync["deletedItems"] = .array(list.deletedItems.keys.sorted { $0.precedesInTextOrder($1) }.map { id in
                let entry = list.deletedItems[id]!
                let row: [JSONValue] = [.string(id), .string(entry.name), .string(entry.amount), .string(entry.section)]
                return .array(entry.checked ? row + [.number("1")] : row)
            })
        }
        if !list.writeMark.isZero { sync["written"] = .string(compactText(list.writeMark)) }
        if !list.conflicts.isEmpty { sync["conflicts"] = conflictsValue(list) }
        if !list.conflictFolds.isEmpty { sync["conflictsFolded"] = foldsValue(list) }
        if !list.memory.isEmpty { sync["memory"] = encodeMemory(list.memory) }
        return sync
    }

    static func conflictsValue(_ list: ShoppingList) -> JSONValue { .array(list.conflicts.keys.sorted().map { encodeConflict(list.conflicts[$0]!) }) }

    static func foldsValue(_ list: ShoppingList) -> JSONValue { .array(list.conflictFolds.keys.sorted().map { encodeConflictFold(list.conflictFolds[$0]!) }) }

    // Long because one switch over `sync`'s members, each written its own way.
    /// `sync`, at the top level's first indent, written straight from the list: the bytes
    /// `syncValue` written by the tree writer gives. Conflicts (rare, and bounded) and
    /// unknown keys go through the tree writer.
    static func appendSync(_ list: ShoppingList, to out: inout [UInt8]) {
        let hidden = list.hiddenRows
        var present = Set(list.syncExtra.keys)
        func add(_ key: String, _ has: Bool) { if has { present.insert(key) } }
        add("sections", !list.sectionEntries.isEmpty)
        add("deleted", !list.tombstones.isEmpty)
        add("deletedRows", !hidden.isEmpty)
        add("deletedItems", !list.deletedItems.isEmpty)
        add("written", !list.writeMark.isZero)
        add("conflicts", !list.conflicts.isEmpty)
        add("conflictsFolded", !list.conflictFolds.isEmpty)
        add("memory", !list.memory.isEmpty)
        let keys = present.map { (rank: keyRank[$0] ?? Int.max, key: $0) }.sorted {
            $0.rank != $1.rank ? $0.rank < $1.rank : $0.key.precedesInTextOrder($1.key)
        }.map(\.key)
        out.append(UInt8(ascii: "{"))
        for (i, key) in keys.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            newline(&out, 2)
            JSONText.appendString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(UInt8(ascii: " "))
            switch key {
            case "sections" where !list.sectionEntries.isEmpty: appendSectionEntries(list, to: &out)
            case "deleted" where !list.tombstones.isEmpty: appendDeleteGroups(list.tombstones, to: &out)
            case "deletedRows" where !hidden.isEmpty:
                appendRows(hidden, to: &out) { item, out in
                    if !appendPlainHiddenRow(item, of: list, to: &out) {
                        JSONText.append(hiddenRow(encodeItem(item, in: list)), to: &out, indent: 3, rank: keyRank, inline: true)
                    }
                }
            case "deletedItems" where !list.deletedItems.isEmpty:
                appendRows(list.deletedItems.keys.sorted { $0.precedesInTextOrder($1) }, to: &out) { id, out in
                    let entry = list.deletedItems[id]!
                    out.append(UInt8(ascii: "["))
                    for (n, text) in [id, entry.name, entry.amount, entry.section].enumerated() {
                        if n > 0 { appendSeparator(&out) }
                        JSONText.appendString(text, to: &out)
                    }
                    if entry.checked { appendSeparator(&out); out.append(UInt8(ascii: "1")) }
                    out.append(UInt8(ascii: "]"))
                }
            case "written" where !list.writeMark.isZero: appendStampText(list.writeMark, to: &out)
            case "conflicts" where !list.conflicts.isEmpty:
                JSONText.appendMemberValue(conflictsValue(list), key: key, to: &out, indent: 1, rank: keyRank, rowKeys: rowKeys)
            case "conflictsFolded" where !list.conflictFolds.isEmpty:
                JSONText.appendMemberValue(foldsValue(list), key: key, to: &out, indent: 1, rank: keyRank, rowKeys: rowKeys)
            case "memory" where !list.memory.isEmpty: appendMemory(list.memory, to: &out)
            default: JSONText.appendMemberValue(list.syncExtra[key]!, key: key, to: &out, indent: 1, rank: keyRank, rowKeys: rowKeys)
            }
        }
        newline(&out, 1)
        out.append(UInt8(ascii: "}"))
    }

    /// An array of `sync` (at indent 2) one element to a line, as the tree writer writes the
    /// arrays under `rowKeys`.
    static func appendRows<Element>(_ elements: [Element], to out: inout [UInt8], _ appendRow: (Element, inout [UInt8]) -> Void) {
        out.append(UInt8(ascii: "["))
        for (n, element) in elements.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            newline(&out, 3)
            appendRow(element, &out)
        }
        newline(&out, 2)
        out.append(UInt8(ascii: "]"))
    }

    /// The separator between an inline array's or object's elements.
    static func appendSeparator(_ out: inout [UInt8]) {
        out.append(UInt8(ascii: ","))
        out.append(UInt8(ascii: " "))
    }

    /// A stamp's compact text (`compactText`) as a JSON string.
    static func appendStampText(_ stamp: Stamp, to out: inout [UInt8]) {
        guard ReplicaID.isValid(stamp.replica) else {
            JSONText.appendString(compactText(stamp), to: &out)
            return
        }
        out.append(UInt8(ascii: "\""))
        if !stamp.appendCompact(to: &out) { stamp.appendEncoded(to: &out) }
        out.append(UInt8(ascii: "\""))
    }

    /// A deleted row as `hiddenRow` writes it when it has no key but the eight written by
    /// place; false, with nothing written, for any other row.
    static func appendPlainHiddenRow(_ item: Item, of list: ShoppingList, to out: inout [UInt8]) -> Bool {
        let label = list.sectionLabel(item.section)
        guard item.extra.isEmpty, label.key == nil, hasImpliedDate(item) else { return false }
        let start = out.count
        out.append(UInt8(ascii: "["))
        for text in [item.id, item.name, item.amount, label.name] {
            JSONText.appendString(text, to: &out)
            appendSeparator(&out)
        }
        out.append(contentsOf: item.checked ? trueBytes : falseBytes)
        appendSeparator(&out)
        out.append(contentsOf: item.optional ? trueBytes : falseBytes)
        appendSeparator(&out)
        if case .number(let literal) = JSONValue.number(item.sortOrder) { out.append(contentsOf: literal.utf8) }
        appendSeparator(&out)
        guard appendMetaString(item.stamps, to: &out) else {
            out.removeSubrange(start...)
            return false
        }
        out.append(UInt8(ascii: "]"))
        return true
    }

    /// Deletes, one entry per delete edit: the rows it deleted share its stamp, what it saw
    /// and when it was first written, so those are written once, with the rows' keys
    /// (`Tombstone.key`, 13 base-36 digits each) in ascending order (docs/file-format.md).
    /// The groups in the order they are written: by their compact JSON text.
    static func sortedDeleteGroups(_ tombstones: [UInt64: Tombstone]) -> [(tombstone: Tombstone, keys: [UInt64])] {
        // Grouped first by the delete's time (a cheap hash), then among those of one time by
        // equality (the rows of one delete share their record's storage, so that is quick):
        // hashing a whole record hashes what it saw, at every row.
        var byTime: [Int64: [(tombstone: Tombstone, keys: [UInt64])]] = [:]
        for (key, tombstone) in tombstones {
            let time = tombstone.stamp.millis &* 1_679_616 &+ Int64(tombstone.stamp.counter)
            if let index = byTime[time]?.firstIndex(where: { $0.tombstone == tombstone }) {
                byTime[time]![index].keys.append(key)
            } else {
                byTime[time, default: []].append((tombstone, [key]))
            }
        }
        var sorted = byTime.values.joined().map { group in
            let at = compactText(group.tombstone.stamp)
            return (tombstone: group.tombstone, keys: group.keys.sorted(), at: at, plain: at.utf8.allSatisfy { $0 > 0x22 && $0 < 0x7F && $0 != 0x5C })
        }
        // The text starts `{"at":"STAMP"`: groups of different stamps whose text needs no
        // escapes compare as that text does (the quote after it sorts before any of its
        // bytes), so the whole text is made only for a tie or an odd stamp.
        sorted.sort { a, b in
            if a.plain, b.plain, a.at != b.at { return a.at < b.at }
            return JSONText.compact(deleteGroupValue(a.tombstone, keys: a.keys)) < JSONText.compact(deleteGroupValue(b.tombstone, keys: b.keys))
        }
        return sorted.map { ($0.tombstone, $0.keys) }
    }

    /// A delete group as a value: `at`, `seen`, `horizon`, `rows`, `firstSeen`.
    static func deleteGroupValue(_ tombstone: Tombstone, keys: [UInt64]) -> JSONValue {
        var object: [String: JSONValue] = ["at": .string(compactText(tombstone.stamp))]
        var text: [UInt8] = []
        appendSeen(tombstone.seen, to: &text)
        if !text.isEmpty { object["seen"] = .string(String(decoding: text, as: UTF8.self)) }
        if !tombstone.seen.horizon.isZero { object["horizon"] = .string(compactText(tombstone.seen.horizon)) }
        if tombstone.firstSeen != 0 { object["firstSeen"] = .number(String(tombstone.firstSeen)) }
        text.removeAll()
        appendRowKeys(keys, to: &text)
        object["rows"] = .string(String(decoding: text, as: UTF8.self))
        return .object(object)
    }

    /// What a delete saw: the newest stamp of each replica, in stamp order, separated by spaces.
    static func appendSeen(_ seen: Knowledge, to out: inout [UInt8]) {
        for (n, stamp) in seen.newest.values.sorted().enumerated() {
            if n > 0 { out.append(UInt8(ascii: " ")) }
            if !stamp.appendCompact(to: &out) { stamp.appendEncoded(to: &out) }
        }
    }

    static func appendRowKeys(_ keys: [UInt64], to out: inout [UInt8]) {
        out.reserveCapacity(out.count + keys.count * 14)
        for (n, key) in keys.enumerated() {
            if n > 0 { out.append(UInt8(ascii: " ")) }
            Words.appendBase36(key, digits: 13, to: &out)
        }
    }

    /// `sync.deleted` as the tree writer writes `deleteGroupValue`s, one to a line; through
    /// it when a stamp's text would need escaping.
    static func appendDeleteGroups(_ tombstones: [UInt64: Tombstone], to out: inout [UInt8]) {
        let groups = sortedDeleteGroups(tombstones)
        let plain = groups.allSatisfy { group in
            let seen = group.tombstone.seen
            return ReplicaID.isValid(group.tombstone.stamp.replica) && (seen.horizon.isZero || ReplicaID.isValid(seen.horizon.replica))
                && seen.newest.values.allSatisfy { ReplicaID.isValid($0.replica) }
        }
        guard plain else {
            JSONText.appendMemberValue(.array(groups.map { deleteGroupValue($0.tombstone, keys: $0.keys) }), key: "deleted", to: &out, indent: 1,
                                       rank: keyRank, rowKeys: rowKeys)
            return
        }
        appendRows(groups, to: &out) { group, out in
            let tombstone = group.tombstone
            out.append(contentsOf: #"{"at": "#.utf8)
            appendStampText(tombstone.stamp, to: &out)
            if !tombstone.seen.newest.isEmpty {
                out.append(contentsOf: #", "seen": ""#.utf8)
                appendSeen(tombstone.seen, to: &out)
                out.append(UInt8(ascii: "\""))
            }
            if !tombstone.seen.horizon.isZero {
                out.append(contentsOf: #", "horizon": "#.utf8)
                appendStampText(tombstone.seen.horizon, to: &out)
            }
            out.append(contentsOf: #", "rows": ""#.utf8)
            appendRowKeys(group.keys, to: &out)
            out.append(UInt8(ascii: "\""))
            if tombstone.firstSeen != 0 {
                out.append(contentsOf: #", "firstSeen": "#.utf8)
                out.append(contentsOf: String(tombstone.firstSeen).utf8)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A remembered name's fields as written: `[name, section, bought, lastUsed, amount,
    /// optional]`, trailing defaults left out. `bought` the days of the purchases and
    /// `lastUsed` the day of the last use, only when it is not the newest purchase's (days
    /// since 1970, base 36; docs/file-format.md).
    struct RememberedRow {
        let name: String
        let section: String
        var bought: [UInt8] = []
        var lastUsed: [UInt8] = []
        let amount: String
        let optional: Bool

        init(_ entry: ItemMemory.Entry) {
            (name, section, amount, optional) = (entry.name, entry.section, entry.amount, entry.optional)
            for (n, purchase) in entry.purchases.enumerated() {
                if n > 0 { bought.append(UInt8(ascii: " ")) }
                ListCodec.appendBase36Days(purchase.millis, to: &bought)
            }
            if entry.purchases.first?.millis != entry.stamp.millis { ListCodec.appendBase36Days(entry.stamp.millis, to: &lastUsed) }
        }

        /// How many fields are written (at least three).
        var count: Int { optional ? 6 : !amount.isEmpty ? 5 : !lastUsed.isEmpty ? 4 : 3 }

        var value: JSONValue {
            let fields: [JSONValue] = [.string(name), .string(section), .string(String(decoding: bought, as: UTF8.self)),
                                       .string(String(decoding: lastUsed, as: UTF8.self)), .string(amount), .number("1")]
            return .array(Array(fields.prefix(count)))
        }

        func append(to out: inout [UInt8]) {
            out.append(UInt8(ascii: "["))
            JSONText.appendString(name, to: &out)
            ListCodec.appendSeparator(&out)
            JSONText.appendString(section, to: &out)
            ListCodec.appendSeparator(&out)
            // Base-36 digits and spaces: nothing to escape.
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bought)
            out.append(UInt8(ascii: "\""))
            if count > 3 {
                ListCodec.appendSeparator(&out)
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: lastUsed)
                out.append(UInt8(ascii: "\""))
            }
            if count > 4 {
                ListCodec.appendSeparator(&out)
                JSONText.appendString(amount, to: &out)
            }
            if count > 5 {
                ListCodec.appendSeparator(&out)
                out.append(UInt8(ascii: "1"))
            }
            out.append(UInt8(ascii: "]"))
        }
    }

    static func appendBase36Days(_ millis: Int64, to out: inout [UInt8]) {
        Words.appendBase36(UInt64(max(0, millis / Stamp.dayMillis)), to: &out)
    }

    /// `sync.memory`: names whose rows are gone (`remembered`, one per line), forgets by
    /// folded name, and the stamp of the last `forget --all`.
    static func encodeMemory(_ memory: ItemMemory) -> JSONValue {
        var object: [String: JSONValue] = [:]
        if !memory.cleared.isZero { object["cleared"] = compactStamp(memory.cleared) }
        if !memory.forgotten.isEmpty { object["forgotten"] = forgottenValue(memory) }
        if !memory.entries.isEmpty {
            object["remembered"] = .array(memory.entries.keys.sorted { $0.precedesInTextOrder($1) }.map { RememberedRow(memory.entries[$0]!).value })
        }
        return .object(object)
    }

    static func forgottenValue(_ memory: ItemMemory) -> JSONValue { .object(memory.forgotten.mapValues(compactStamp)) }

    /// `encodeMemory` as the tree writer writes it in `sync` (keys `cleared`, `forgotten`,
    /// `remembered`, in `keyOrder`'s order).
    static func appendMemory(_ memory: ItemMemory, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var first = true
        func key(_ text: StaticString) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            newline(&out, 3)
            out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        if !memory.cleared.isZero {
            key(#""cleared": "#)
            appendStampText(memory.cleared, to: &out)
        }
        if !memory.forgotten.isEmpty {
            key(#""forgotten": "#)
            JSONText.appendMemberValue(forgottenValue(memory), key: "forgotten", to: &out, indent: 2, rank: keyRank, rowKeys: rowKeys)
        }
        if !memory.entries.isEmpty {
            key(#""remembered": ["#)
            for (n, name) in memory.entries.keys.sorted(by: { $0.precedesInTextOrder($1) }).enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, 4)
                RememberedRow(memory.entries[name]!).append(to: &out)
            }
            newline(&out, 3)
            out.append(UInt8(ascii: "]"))
        }
        newline(&out, 2)
        out.append(UInt8(ascii: "}"))
    }
}
