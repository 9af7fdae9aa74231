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

    // Long because the history file's format written top to bottom, as the comment above shows it.
    /// Written straight to bytes (no tree of values): a history holds every row of the list,
    /// and is written at every write. A row's stamps are one string when all six are equal.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(estimatedBytes)
        func raw(_ text: String) { out.append(contentsOf: text.utf8) }
        func string(_ text: String) { JSONText.appendString(text, to: &out) }
        func number(_ value: Double) {
            if case .number(let text) = JSONValue.number(value) { raw(text) }
        }
        // Stamps are ASCII letters, digits and `-`: written between quotes as they are; none
        // (an unstamped field) is `0`.
        func stamp(_ stamp: Stamp) {
            if stamp.isZero { return raw("0") }
            if !stamp.appendCompact(to: &out) { stamp.appendEncoded(to: &out) }
        }
        func stamps<Field>(_ table: StampTable<Field>) {
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
            out.append(contentsOf: indices)
        }
        func versions<Value>(_ all: [String: [Version<Value>]], _ value: (Value) -> Void) {
            raw("{")
            for (index, key) in all.keys.sorted().enumerated() {
                raw(index == 0 ? "\n" : ",\n")
                string(key)
                raw(": [")
                for (at, version) in all[key]!.enumerated() {
                    if at > 0 { raw(", ") }
                    raw("[\(version.from), ")
                    if let v = version.value { value(v) } else { raw("null") }
                    raw("]")
                }
                raw("]")
            }
            raw("}")
        }
        raw("{\"version\": \(Self.formatVersion)")
        if let appLine { raw(", \"appLine\": \(appLine)") }
        if evidenceFloor > 0 { raw(", \"evidenceFloor\": \(evidenceFloor)") }
        raw(",\n\"states\": [")
        for (index, state) in states.enumerated() {
            if index > 0 { raw(",") }
            let (kind, mark): (String, Stamp) = switch state.kind {
            case .write(let mark): ("w", mark)
            case .received(let mark): ("r", mark)
            case .save(let marked): (marked ? "m" : "s", .zero)
            }
            raw("\n[\(state.number), \"\(hex(state.hash, digits: 16))\", \"\(kind)\", ")
            string(mark.isZero ? "" : Self.text(mark))
            raw(", \(state.firstSeen)]")
        }
        raw("],\n\"rows\": ")
        versions(rows) { row in
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
        raw(",\n\"sections\": ")
        versions(sections) { entry in
            raw("[")
            string(entry.name); raw(", ")
            number(entry.position)
            raw(entry.removed ? ", true, " : ", false, ")
            stamps(entry.stamps)
            raw("]")
        }
        // The deletes one edit made were first seen together: one entry for all their keys.
        var sightings: [DeleteSighting: [UInt64]] = [:]
        for (key, sighting) in deletesSeen { sightings[sighting, default: []].append(key) }
        let groups = sightings.map { sighting, keys in (sighting, keys.sorted()) }.sorted { $0.1[0] < $1.1[0] }
        raw(",\n\"deleted\": [")
        for (index, (sighting, keys)) in groups.enumerated() {
            raw(index == 0 ? "\n[" : ",\n[")
            raw("\(sighting.firstSeen), ")
            if let hidden = sighting.hidden { string(Self.text(hidden)) } else { raw("null") }
            raw(", ")
            string(keys.map { hex($0, digits: 16) }.joined(separator: " "))
            raw("]")
        }
        raw("]}\n")
        return out
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
        func int(_ value: JSONValue?) -> Int? { value?.doubleValue.flatMap { Int(exactly: $0) } }
        func int64(_ value: JSONValue?) -> Int64? { value?.doubleValue.flatMap { Int64(exactly: $0) } }
        func stamps<Field>(_ value: JSONValue?) -> StampTable<Field>? {
            if let text = value?.stringValue { return Self.stampTable(text) }
            guard let texts = value?.arrayValue, texts.count == Field.fieldCount else { return nil }
            let parsed = texts.compactMap { $0.stringValue.flatMap(Stamp.init(encoded:)) }
            return parsed.count == Field.fieldCount ? StampTable(stamps: parsed) : nil
        }
        func versions<Value>(_ value: JSONValue, _ decode: ([JSONValue]) -> Value?) -> [Version<Value>]? {
            guard let list = value.arrayValue else { return nil }
            var result: [Version<Value>] = []
            for entry in list {
                guard let pair = entry.arrayValue, pair.count == 2, let from = int(pair[0]) else { return nil }
                if case .null = pair[1] {
                    result.append(Version(from: from, value: nil))
                } else {
                    guard let fields = pair[1].arrayValue, let value = decode(fields) else { return nil }
                    result.append(Version(from: from, value: value))
                }
            }
            return result
        }
        for entry in statesJSON {
            guard let s = entry.arrayValue, s.count == 5, let number = int(s[0]),
                  let hashText = s[1].stringValue, let hash = UInt64(hashText, radix: 16),
                  let kindText = s[2].stringValue, let markText = s[3].stringValue, let seen = int64(s[4]) else { return nil }
            let kind: Kind
            switch kindText {
            case "w": kind = .write(mark: Self.stamp(markText) ?? .zero)
            case "r": kind = .received(mark: Self.stamp(markText) ?? .zero)
            case "s": kind = .save(marked: false)
            case "m": kind = .save(marked: true)
            default: return nil
            }
            states.append(State(number: number, hash: hash, kind: kind, firstSeen: seen))
        }
        for (id, value) in top["rows"]?.objectValue ?? [:] {
            guard let list = versions(value, { f -> Item? in
                guard f.count == 7, let name = f[0].stringValue, let amount = f[1].stringValue, let section = f[2].stringValue,
                      let checked = f[3].boolValue, let optional = f[4].boolValue, let order = f[5].doubleValue,
                      let table: ItemStamps = stamps(f[6]) else { return nil }
                return Item(id: id, name: name, amount: amount, section: section, checked: checked, optional: optional,
                            sortOrder: order, stamps: table)
            }) else { return nil }
            rows[id] = list
        }
        for (key, value) in top["sections"]?.objectValue ?? [:] {
            guard let list = versions(value, { f -> SectionEntry? in
                guard f.count == 4, let name = f[0].stringValue, let position = f[1].doubleValue, let removed = f[2].boolValue,
                      let table: StampTable<SectionField> = stamps(f[3]) else { return nil }
                return SectionEntry(key: key, name: name, position: position, removed: removed, stamps: table)
            }) else { return nil }
            sections[key] = list
        }
        for (name, value) in top["deletes"]?.objectValue ?? [:] {
            // By `Tombstone.key` in 16 hex digits; by row id before deletes were kept by key.
            let id = name.utf8.count == 16 ? UInt64(name, radix: 16) ?? Tombstone.key(for: name) : Tombstone.key(for: name)
            // `[firstSeen, hidden]`; a bare number before sightings kept the version.
            if let seen = int64(value) {
                deletesSeen[id] = DeleteSighting(hidden: nil, firstSeen: seen)
            } else if let pair = value.arrayValue, pair.count == 2, let seen = int64(pair[0]) {
                deletesSeen[id] = DeleteSighting(hidden: pair[1].stringValue.flatMap(Stamp.init(encoded:)), firstSeen: seen)
            }
        }
        for entry in top["deleted"]?.arrayValue ?? [] {
            guard let fields = entry.arrayValue, fields.count == 3, let seen = int64(fields[0]), let keys = fields[2].stringValue else { continue }
            let sighting = DeleteSighting(hidden: fields[1].stringValue.flatMap(Self.stamp), firstSeen: seen)
            for text in keys.split(separator: " ") { if let key = UInt64(text, radix: 16) { deletesSeen[key] = sighting } }
        }
        appLine = int(top["appLine"])
        evidenceFloor = int(top["evidenceFloor"]) ?? 0
    }
}
