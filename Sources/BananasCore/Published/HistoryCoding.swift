/// The published history as bytes (the state folder's `published.json`; docs/sync.md):
///
///     {"version": 2, "appLine": 7,
///      "states": [[number, "hash", "w" | "r" | "s" | "m", "mark", firstSeen], ...],
///      "rows": {"id": [[from, null | [name, amount, section, checked, optional, sortOrder, "stamps"]], ...]},
///      "sections": {"key": [[from, null | [name, position, removed, "stamps"]], ...]},
///      "deleted": [[firstSeen, "hidden", "key key …"], ...]}
///
/// Stamps in their compact form (`0` for none); a record's stamps one stamp when all are equal, else
/// `"STAMP STAMP…|i,i,…"` (the distinct stamps, then each field's index). Version 1 (long
/// stamps, an array of stamps per record, `"deletes": {"key": [firstSeen, "hidden"]}`) is read too.
///
/// Bytes that do not decode are no history: every stampless save is then judged as one that
/// saw nothing (it deletes nothing, and what it replaces is kept for review).
extension PublishedHistory {
    public static let formatVersion = 2

    /// Written straight to bytes (no tree of values): a history holds every row of the list.
    public func encoded() -> [UInt8] {
        var out = HistoryWriter()
        out.bytes.reserveCapacity(estimatedBytes)
        out.raw("{\"version\": \(Self.formatVersion)")
        if let appLine { out.raw(", \"appLine\": \(appLine)") }
        if evidenceFloor > 0 { out.raw(", \"evidenceFloor\": \(evidenceFloor)") }
        out.raw(",\n\"states\": [")
        for (index, state) in states.enumerated() {
            out.raw(index == 0 ? "\n" : ",\n")
            out.state(state)
        }
        out.raw("],\n\"rows\": ")
        out.versions(rows) { $0.row($1) }
        out.raw(",\n\"sections\": ")
        out.versions(sections) { $0.section($1) }
        out.raw(",\n\"deleted\": [")
        for (index, (sighting, keys)) in Self.groups(deletesSeen).enumerated() {
            out.raw(index == 0 ? "\n[" : ",\n[")
            out.raw("\(sighting.firstSeen), ")
            if let hidden = sighting.hidden { out.string(Self.text(hidden)) } else { out.raw("null") }
            out.raw(", ")
            out.string(keys.map { hex($0, digits: 16) }.joined(separator: " "))
            out.raw("]")
        }
        out.raw("]}\n")
        return out.bytes
    }

    /// The deletes one edit made were first seen together: one entry for all their keys.
    static func groups(_ seen: [UInt64: DeleteSighting]) -> [(DeleteSighting, [UInt64])] {
        var sightings: [DeleteSighting: [UInt64]] = [:]
        for (key, sighting) in seen { sightings[sighting, default: []].append(key) }
        return sightings.map { sighting, keys in (sighting, keys.sorted()) }.sorted { $0.1[0] < $1.1[0] }
    }

    static func text(_ stamp: Stamp) -> String { stamp.compact ?? stamp.encoded }

    /// A stamp in either form (compact, or long with `-`).
    static func stamp(_ text: String) -> Stamp? {
        var text = text
        return text.withUTF8 { stamp($0) }
    }

    static func stamp(_ bytes: UnsafeBufferPointer<UInt8>) -> Stamp? {
        if bytes.count == 1, bytes[0] == UInt8(ascii: "0") { return .zero }
        // The first form's unstamped value (`Stamp.zero.encoded`), which no stamp parses.
        if bytes.count == 24, bytes.elementsEqual("0000000000000000-000000-".utf8) { return .zero }
        return bytes.contains(UInt8(ascii: "-")) ? Stamp(encodedUTF8: bytes) : Stamp(compactUTF8: bytes)
    }

    /// A record's stamps as `stamps` in `encoded` writes them; nil when malformed.
    static func stampTable<Field>(_ text: String) -> StampTable<Field>? {
        var text = text
        return text.withUTF8 { bytes -> StampTable<Field>? in
            guard let bar = bytes.firstIndex(of: UInt8(ascii: "|")) else { return stamp(bytes).map { StampTable(all: $0) } }
            var distinct: [Stamp] = []
            var start = 0
            for i in 0...bar where i == bar || bytes[i] == UInt8(ascii: " ") {
                if i > start {
                    guard let one = stamp(UnsafeBufferPointer(rebasing: bytes[start..<i])) else { return nil }
                    distinct.append(one)
                }
                start = i + 1
            }
            var values: [Stamp] = []
            var index = -1
            for i in (bar + 1)...bytes.count {
                if i == bytes.count || bytes[i] == UInt8(ascii: ",") {
                    guard index >= 0, index < distinct.count else { return nil }
                    values.append(distinct[index])
                    index = -1
                } else {
                    let byte = bytes[i]
                    guard byte >= 0x30, byte <= 0x39, index < 100 else { return nil }
                    index = max(index, 0) * 10 + Int(byte - 0x30)
                }
            }
            return values.count == Field.fieldCount ? StampTable(stamps: values) : nil
        }
    }

    /// About how many bytes `encoded` writes, counted without writing them.
    var estimatedBytes: Int {
        var total = 256 + states.count * 80 + deletesSeen.count * 60
        for (id, versions) in rows {
            total += id.utf8.count + 8
            for version in versions {
                total += 16 + (version.value.map { $0.name.utf8.count + $0.amount.utf8.count + $0.section.utf8.count + 80 } ?? 4)
            }
        }
        for (key, versions) in sections { total += key.utf8.count + versions.count * 80 }
        return total
    }

    /// The history these bytes hold; nil when they are not one (damaged, or a newer format).
    public init?(encoded bytes: [UInt8]) {
        guard case .object(let top)? = try? JSONText.parse(bytes),
              let version = top["version"]?.doubleValue, version == 1 || version == Double(Self.formatVersion),
              let statesJSON = top["states"]?.arrayValue else { return nil }
        for entry in statesJSON {
            guard let state = Self.state(entry) else { return nil }
            states.append(state)
        }
        for (id, value) in top["rows"]?.objectValue ?? [:] {
            guard let list = Self.versions(value, { Self.row(id, $0) }) else { return nil }
            rows[id] = list
        }
        for (key, value) in top["sections"]?.objectValue ?? [:] {
            guard let list = Self.versions(value, { Self.section(key, $0) }) else { return nil }
            sections[key] = list
        }
        for (name, value) in top["deletes"]?.objectValue ?? [:] {
            // By `Tombstone.key` in 16 hex digits; by row id before deletes were kept by key.
            let id = name.utf8.count == 16 ? UInt64(name, radix: 16) ?? Tombstone.key(for: name) : Tombstone.key(for: name)
            // `[firstSeen, hidden]`; a bare number before sightings kept the version.
            if let seen = Self.int64(value) {
                deletesSeen[id] = DeleteSighting(hidden: nil, firstSeen: seen)
            } else if let pair = value.arrayValue, pair.count == 2, let seen = Self.int64(pair[0]) {
                deletesSeen[id] = DeleteSighting(hidden: pair[1].stringValue.flatMap(Stamp.init(encoded:)), firstSeen: seen)
            }
        }
        for entry in top["deleted"]?.arrayValue ?? [] {
            guard let fields = entry.arrayValue, fields.count == 3, let seen = Self.int64(fields[0]), let keys = fields[2].stringValue else { continue }
            let sighting = DeleteSighting(hidden: fields[1].stringValue.flatMap(Self.stamp), firstSeen: seen)
            for text in keys.split(separator: " ") { if let key = UInt64(text, radix: 16) { deletesSeen[key] = sighting } }
        }
        appLine = Self.int(top["appLine"])
        evidenceFloor = Self.int(top["evidenceFloor"]) ?? 0
    }

    static func int(_ value: JSONValue?) -> Int? { value?.doubleValue.flatMap { Int(exactly: $0) } }
    static func int64(_ value: JSONValue?) -> Int64? { value?.doubleValue.flatMap { Int64(exactly: $0) } }

    /// `[number, "hash", "kind", "mark", firstSeen]`.
    static func state(_ value: JSONValue) -> State? {
        guard let s = value.arrayValue, s.count >= 5, let number = int(s[0]),
              let hashText = s[1].stringValue, let hash = UInt64(hashText, radix: 16),
              let kindText = s[2].stringValue, let markText = s[3].stringValue, let seen = int64(s[4]) else { return nil }
        let kind: Kind
        switch kindText {
        case "w": kind = .write(mark: stamp(markText) ?? .zero)
        case "r": kind = .received(mark: stamp(markText) ?? .zero)
        case "s": kind = .save(marked: false)
        case "m": kind = .save(marked: true)
        default: return nil
        }
        return State(number: number, hash: hash, kind: kind, firstSeen: seen)
    }

    static func stamps<Field>(_ value: JSONValue?) -> StampTable<Field>? {
        if let text = value?.stringValue { return stampTable(text) }
        guard let texts = value?.arrayValue, texts.count == Field.fieldCount else { return nil }
        let parsed = texts.compactMap { $0.stringValue.flatMap(Stamp.init(encoded:)) }
        return parsed.count == Field.fieldCount ? StampTable(stamps: parsed) : nil
    }

    /// `null` or a version's value; nil when malformed.
    static func value<Value>(_ value: JSONValue, _ decode: ([JSONValue]) -> Value?) -> Value?? {
        if case .null = value { return .some(nil) }
        guard let fields = value.arrayValue, let decoded = decode(fields) else { return nil }
        return .some(decoded)
    }

    static func versions<Value>(_ value: JSONValue, _ decode: ([JSONValue]) -> Value?) -> [Version<Value>]? {
        guard let list = value.arrayValue else { return nil }
        var result: [Version<Value>] = []
        for entry in list {
            guard let pair = entry.arrayValue, pair.count == 2, let from = int(pair[0]),
                  let one = Self.value(pair[1], decode) else { return nil }
            result.append(Version(from: from, value: one))
        }
        return result
    }

    /// `[name, amount, section, checked, optional, sortOrder, "stamps"]`.
    static func row(_ id: String, _ f: [JSONValue]) -> Item? {
        guard f.count == 7, let name = f[0].stringValue, let amount = f[1].stringValue, let section = f[2].stringValue,
              let checked = f[3].boolValue, let optional = f[4].boolValue, let order = f[5].doubleValue,
              let table: ItemStamps = stamps(f[6]) else { return nil }
        return Item(id: id, name: name, amount: amount, section: section, checked: checked, optional: optional,
                    sortOrder: order, stamps: table)
    }

    /// `[name, position, removed, "stamps"]`.
    static func section(_ key: String, _ f: [JSONValue]) -> SectionEntry? {
        guard f.count == 4, let name = f[0].stringValue, let position = f[1].doubleValue, let removed = f[2].boolValue,
              let table: StampTable<SectionField> = stamps(f[3]) else { return nil }
        return SectionEntry(key: key, name: name, position: position, removed: removed, stamps: table)
    }
}

/// The history's parts as bytes, shared by its file and its log.
struct HistoryWriter {
    var bytes: [UInt8] = []

    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }
    mutating func string(_ text: String) { JSONText.appendString(text, to: &bytes) }
    mutating func number(_ value: Double) {
        if case .number(let text) = JSONValue.number(value) { raw(text) }
    }

    /// Stamps are ASCII letters, digits and `-`: written between quotes as they are; none
    /// (an unstamped field) is `0`.
    mutating func stamp(_ stamp: Stamp) {
        if stamp.isZero { return raw("0") }
        if !stamp.appendCompact(to: &bytes) { stamp.appendEncoded(to: &bytes) }
    }

    /// A record's stamps: one stamp when all are equal, else the distinct stamps, then each
    /// field's index.
    mutating func stamps<Field>(_ table: StampTable<Field>) {
        let first = table[Field.allCases.first!]
        raw("\"")
        defer { raw("\"") }
        if Field.allCases.allSatisfy({ table[$0] == first }) { return stamp(first) }
        var distinct: [Stamp] = []
        var indices: [UInt8] = []
        for field in Field.allCases {
            let value = table[field]
            var at = distinct.firstIndex(of: value) ?? distinct.count
            if at == distinct.count { distinct.append(value) }
            if !indices.isEmpty { indices.append(UInt8(ascii: ",")) }
            if at >= 10 { indices.append(UInt8(ascii: "0") + UInt8(at / 10)); at %= 10 }
            indices.append(UInt8(ascii: "0") + UInt8(at))
        }
        for (n, value) in distinct.enumerated() {
            if n > 0 { raw(" ") }
            stamp(value)
        }
        raw("|")
        bytes.append(contentsOf: indices)
    }

    mutating func state(_ state: PublishedHistory.State) {
        let (kind, mark): (String, Stamp) = switch state.kind {
        case .write(let mark): ("w", mark)
        case .received(let mark): ("r", mark)
        case .save(let marked): (marked ? "m" : "s", .zero)
        }
        raw("[\(state.number), \"\(hex(state.hash, digits: 16))\", \"\(kind)\", ")
        string(mark.isZero ? "" : PublishedHistory.text(mark))
        raw(", \(state.firstSeen)]")
    }

    mutating func row(_ row: Item) {
        raw("[")
        string(row.name); raw(", ")
        string(row.amount); raw(", ")
        string(row.section)
        raw(row.checked ? ", true" : ", false")
        raw(row.optional ? ", true, " : ", false, ")
        number(row.sortOrder); raw(", ")
        stamps(row.stamps)
        raw("]")
    }

    mutating func section(_ entry: SectionEntry) {
        raw("[")
        string(entry.name); raw(", ")
        number(entry.position)
        raw(entry.removed ? ", true, " : ", false, ")
        stamps(entry.stamps)
        raw("]")
    }

    /// `{"key": [[from, value | null], ...], ...}`, keys sorted.
    mutating func versions<Value>(_ all: [String: [PublishedHistory.Version<Value>]], _ value: (inout HistoryWriter, Value) -> Void) {
        raw("{")
        for (index, key) in all.keys.sorted().enumerated() {
            raw(index == 0 ? "\n" : ",\n")
            string(key)
            raw(": [")
            for (at, version) in all[key]!.enumerated() {
                if at > 0 { raw(", ") }
                raw("[\(version.from), ")
                if let v = version.value { value(&self, v) } else { raw("null") }
                raw("]")
            }
            raw("]")
        }
        raw("}")
    }

    /// `{"key": value | null, ...}`, keys sorted.
    mutating func changes<Value>(_ all: [String: Value?], _ value: (inout HistoryWriter, Value) -> Void) {
        raw("{")
        for (index, key) in all.keys.sorted().enumerated() {
            if index > 0 { raw(", ") }
            string(key)
            raw(": ")
            if let v = all[key]! { value(&self, v) } else { raw("null") }
        }
        raw("}")
    }
}
