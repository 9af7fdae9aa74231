import BananasCore

/// A list as read from a file, with what the reader had to work around.
public struct DecodedList: Sendable, Equatable {
    public var list: ShoppingList
    /// The file's `schemaVersion` (1 when the key is absent, as in Get Bananas files).
    public var schemaVersion: Int
    /// Rows kept but not shown, and other things worth telling the user, with locations.
    public var problems: [String]
}

/// BananaList.json, schema version 2, reading version 1. See docs/file-format.md.
///
/// The decoder is forgiving (missing fields take defaults) but never lossy: unknown keys are
/// kept, and rows it cannot read are kept verbatim and reported. The encoder writes only
/// additive changes to the version-1 shape and gives the same bytes for the same list.
public enum ListCodec {
    public static let currentSchemaVersion = 2
    /// Files larger than this are refused (a shopping list of 100,000 items is about 50 MB).
    public static let maxFileSize = 128 * 1024 * 1024

    static let topLevelKeys: Set<String> = ["schemaVersion", "sections", "items", "sync"]
    static let itemKeys: Set<String> = ["id", "name", "amount", "section", "checked", "optional", "sortOrder", "lastModified", "stamps"]
    static let syncKeys: Set<String> = ["sectionsStamp", "deleted", "deletedRows"]
    static let keyOrder = ["schemaVersion", "sections", "items", "sync",
                           "id", "name", "amount", "section", "checked", "optional", "sortOrder", "lastModified", "stamps",
                           "sectionsStamp", "deleted", "deletedRows"]

    public enum DecodeError: Error, Equatable, CustomStringConvertible {
        case syntax(JSONSyntaxError)
        case structure(String)

        public var description: String {
            switch self {
            case .syntax(let error): "invalid JSON at \(error)"
            case .structure(let message): message
            }
        }
    }

    // MARK: Decoding

    public static func decode(_ bytes: [UInt8]) throws(DecodeError) -> DecodedList {
        let root: JSONValue
        do { root = try JSONText.parse(bytes) } catch { throw .syntax(error) }
        guard case .object(let top) = root else {
            throw .structure("the top level is \(root.typeDescription), not an object")
        }

        var schemaVersion = 1
        if let value = top["schemaVersion"] {
            guard case .number(let literal) = value, let version = Int(literal), version >= 1 else {
                throw .structure("schemaVersion is \(value.typeDescription == "a number" ? "not a whole number from 1 up" : value.typeDescription)")
            }
            schemaVersion = version
        }

        var sections: [String] = []
        if let value = top["sections"] {
            guard case .array(let array) = value else { throw .structure("sections is \(value.typeDescription), not an array") }
            for (i, entry) in array.enumerated() {
                guard case .string(let name) = entry else { throw .structure("sections[\(i)] is \(entry.typeDescription), not a string") }
                if !sections.contains(name) { sections.append(name) }
            }
        }

        var problems: [String] = []
        var unreadable: [JSONValue] = []
        var rows: [Item] = []
        if let value = top["items"] {
            guard case .array(let array) = value else { throw .structure("items is \(value.typeDescription), not an array") }
            rows = decodeRows(array, path: "items", problems: &problems, unreadable: &unreadable)
        }

        var sectionsStamp = Stamp.zero
        var tombstones: [String: Stamp] = [:]
        var syncExtra: [String: JSONValue] = [:]
        if let value = top["sync"] {
            guard case .object(let sync) = value else { throw .structure("sync is \(value.typeDescription), not an object") }
            for (key, entry) in sync where !syncKeys.contains(key) { syncExtra[key] = entry }
            sectionsStamp = sync["sectionsStamp"]?.stringValue.flatMap(Stamp.init(encoded:)) ?? .zero
            if case .object(let deleted)? = sync["deleted"] {
                for (id, stamp) in deleted {
                    if let stamp = stamp.stringValue.flatMap(Stamp.init(encoded:)) {
                        tombstones[normalizedID(id)] = stamp
                    }
                }
            }
            if case .array(let hidden)? = sync["deletedRows"] {
                var ignored: [String] = []
                var ignoredRows: [JSONValue] = []
                let hiddenRows = decodeRows(hidden, path: "sync.deletedRows", problems: &ignored, unreadable: &ignoredRows)
                let visibleIDs = Set(rows.map(\.id))
                rows += hiddenRows.filter { !visibleIDs.contains($0.id) }
            }
        }

        var extra: [String: JSONValue] = [:]
        for (key, value) in top where !topLevelKeys.contains(key) { extra[key] = value }

        let list = ShoppingList(
            sections: sections, sectionsStamp: sectionsStamp, rows: rows, tombstones: tombstones,
            extra: extra, syncExtra: syncExtra, unreadableRows: ShoppingList.canonicalRows(unreadable)
        )
        return DecodedList(list: list, schemaVersion: schemaVersion, problems: problems)
    }

    static func normalizedID(_ id: String) -> String {
        ItemID.isUUID(id) ? id.uppercased() : id
    }

    static func decodeRows(_ array: [JSONValue], path: String, problems: inout [String], unreadable: inout [JSONValue]) -> [Item] {
        var rows: [Item] = []
        var seenIDs = Set<String>()
        var seenSeeds: [String: Int] = [:]
        var previousOrder: Double = 0
        for (index, value) in array.enumerated() {
            let location = "\(path)[\(index)]"
            guard case .object(let object) = value else {
                problems.append("\(location) is \(value.typeDescription), not an item; kept in the file but not shown")
                unreadable.append(value)
                continue
            }
            switch decodeItem(object) {
            case .failure(let reason):
                problems.append("\(location) \(reason); kept in the file but not shown")
                unreadable.append(value)
            case .success(var item):
                if item.id.isEmpty {
                    // No usable id: derive one from the row's content, the same on every read.
                    let seed = JSONText.compact(value)
                    let occurrence = seenSeeds[seed, default: 0]
                    seenSeeds[seed] = occurrence + 1
                    item.id = ItemID.derived(from: seed + "#\(occurrence)")
                }
                if seenIDs.contains(item.id) {
                    let original = item.id
                    item.id = ItemID.derived(from: original + "#duplicate#\(index)")
                    problems.append("\(location) repeats the id \(original); it is shown with the new id \(item.id)")
                }
                seenIDs.insert(item.id)
                if object["sortOrder"] == nil || object["sortOrder"] == .null {
                    // Rows from writers that keep no order stay where the file has them.
                    item.sortOrder = previousOrder + 1
                }
                previousOrder = item.sortOrder
                rows.append(item)
            }
        }
        return rows
    }

    enum ItemResult {
        case success(Item)
        case failure(String)
    }

    static func decodeItem(_ object: [String: JSONValue]) -> ItemResult {
        func text(_ key: String) -> Result<String, DecodeFailure> {
            switch object[key] {
            case nil, .null?: .success("")
            case .string(let s)?: .success(s)
            case let other?: .failure(DecodeFailure(message: "has \(key) as \(other.typeDescription), not a string"))
            }
        }
        func flag(_ key: String) -> Result<Bool, DecodeFailure> {
            switch object[key] {
            case nil, .null?: .success(false)
            case .bool(let b)?: .success(b)
            case let other?: .failure(DecodeFailure(message: "has \(key) as \(other.typeDescription), not true or false"))
            }
        }
        do {
            let name = try text("name").get()
            if name.trimmingWhitespace().isEmpty { return .failure("has no name") }
            var item = Item(
                id: "", name: name, amount: try text("amount").get(), section: try text("section").get(),
                checked: try flag("checked").get(), optional: try flag("optional").get()
            )
            if case .string(let id)? = object["id"], !id.isEmpty { item.id = normalizedID(id) }
            switch object["sortOrder"] {
            case nil, .null?: break
            case .number(let literal)?:
                guard let order = Double(literal), order.isFinite else { return .failure("has sortOrder \(literal), out of range") }
                item.sortOrder = order
            case let other?: return .failure("has sortOrder as \(other.typeDescription), not a number")
            }
            var extra: [String: JSONValue] = [:]
            for (key, value) in object where !itemKeys.contains(key) { extra[key] = value }
            if case .string(let date)? = object["lastModified"] {
                item.lastModified = date
            } else if let other = object["lastModified"] {
                extra["lastModified"] = other  // a form we do not write (e.g. a number): keep it
            }
            if case .object(let stamps)? = object["stamps"] {
                for field in ItemField.allCases {
                    if let stamp = stamps[field.rawValue]?.stringValue.flatMap(Stamp.init(encoded:)) {
                        item.stamps[field] = stamp
                    }
                }
            }
            item.extra = extra
            return .success(item)
        } catch {
            return .failure(error.message)
        }
    }

    struct DecodeFailure: Error { let message: String }

    // MARK: Encoding

    /// The version-2 file for `list`: deterministic, so the same list always gives the same bytes.
    ///
    /// The same bytes as `JSONText.serialize(encodeValue(list), keyOrder: keyOrder)`, but the
    /// items (nearly all of a file) are written straight from the values, not through a tree
    /// of JSON values: several times faster, and a flush writes the whole file every time.
    public static func encode(_ list: ShoppingList) -> [UInt8] {
        var top = topLevel(list)
        let items = list.items
        var out: [UInt8] = []
        out.reserveCapacity(items.count * 700 + 4096)
        top["items"] = .array([])  // a placeholder that sorts into its place
        let keys = top.keys.map { (rank: keyRank[$0] ?? Int.max, key: $0) }.sorted {
            $0.rank != $1.rank ? $0.rank < $1.rank : $0.key.utf8.lexicographicallyPrecedes($1.key.utf8)
        }
        out.append(UInt8(ascii: "{"))
        for (i, entry) in keys.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            newline(&out, 1)
            JSONText.appendString(entry.key, to: &out)
            out.append(contentsOf: ": ".utf8)
            if entry.key == "items" {
                appendItems(items, unreadable: list.unreadableRows, to: &out)
            } else {
                JSONText.append(top[entry.key]!, to: &out, indent: 1, rank: keyRank)
            }
        }
        newline(&out, 0)
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    /// The version-2 file for `list` as a JSON value (the journal writes it compact).
    public static func encodeValue(_ list: ShoppingList) -> JSONValue {
        var top = topLevel(list)
        top["items"] = .array(list.items.map(encodeItem) + list.unreadableRows)
        return .object(top)
    }

    /// Every top-level key but `items`.
    static func topLevel(_ list: ShoppingList) -> [String: JSONValue] {
        var top = list.extra
        top["schemaVersion"] = .number(String(currentSchemaVersion))
        top["sections"] = .array(list.sections.map(JSONValue.string))

        var sync = list.syncExtra
        if !list.sectionsStamp.isZero { sync["sectionsStamp"] = .string(list.sectionsStamp.encoded) }
        if !list.tombstones.isEmpty {
            sync["deleted"] = .object(list.tombstones.mapValues { .string($0.encoded) })
        }
        let hidden = list.hiddenRows
        if !hidden.isEmpty { sync["deletedRows"] = .array(hidden.map(encodeItem)) }
        if !sync.isEmpty { top["sync"] = .object(sync) }
        return top
    }

    static let keyRank = JSONText.keyRanks(keyOrder)
    /// The stamp fields in the order the writer sorts their keys.
    static let stampOrder = ItemField.allCases.sorted { (keyRank[$0.rawValue] ?? Int.max, $0.rawValue) < (keyRank[$1.rawValue] ?? Int.max, $1.rawValue) }

    static func newline(_ out: inout [UInt8], _ indent: Int) {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: indent * 2))
    }

    /// The `items` array, at the top level's first indent.
    static func appendItems(_ items: [Item], unreadable: [JSONValue], to out: inout [UInt8]) {
        guard !items.isEmpty || !unreadable.isEmpty else {
            out.append(contentsOf: "[]".utf8)
            return
        }
        out.append(UInt8(ascii: "["))
        var first = true
        for item in items {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            newline(&out, 2)
            if item.extra.isEmpty {
                appendPlainItem(item, to: &out)
            } else {
                // Unknown keys sort among ours: the general writer keeps the order exact.
                JSONText.append(encodeItem(item), to: &out, indent: 2, rank: keyRank)
            }
        }
        for row in unreadable {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            newline(&out, 2)
            JSONText.append(row, to: &out, indent: 2, rank: keyRank)
        }
        newline(&out, 1)
        out.append(UInt8(ascii: "]"))
    }

    /// An item without unknown keys, as the general writer would write `encodeItem(item)`.
    static func appendPlainItem(_ item: Item, to out: inout [UInt8]) {
        func key(_ name: StaticString, first: Bool = false) {
            if !first { out.append(UInt8(ascii: ",")) }
            newline(&out, 3)
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            out.append(contentsOf: "\": ".utf8)
        }
        func flag(_ value: Bool) { out.append(contentsOf: (value ? "true" : "false").utf8) }
        out.append(UInt8(ascii: "{"))
        key("id", first: true)
        JSONText.appendString(item.id, to: &out)
        key("name")
        JSONText.appendString(item.name, to: &out)
        key("amount")
        JSONText.appendString(item.amount, to: &out)
        key("section")
        JSONText.appendString(item.section, to: &out)
        key("checked")
        flag(item.checked)
        key("optional")
        flag(item.optional)
        key("sortOrder")
        if case .number(let literal) = JSONValue.number(item.sortOrder) { out.append(contentsOf: literal.utf8) }
        if let date = item.lastModified {
            key("lastModified")
            JSONText.appendString(date, to: &out)
        }
        var openedStamps = false
        for field in stampOrder where !item.stamps[field].isZero {
            if !openedStamps {
                key("stamps")
                out.append(UInt8(ascii: "{"))
            } else {
                out.append(UInt8(ascii: ","))
            }
            openedStamps = true
            newline(&out, 4)
            JSONText.appendString(field.rawValue, to: &out)
            out.append(contentsOf: ": ".utf8)
            JSONText.appendString(item.stamps[field].encoded, to: &out)
        }
        if openedStamps {
            newline(&out, 3)
            out.append(UInt8(ascii: "}"))
        }
        newline(&out, 2)
        out.append(UInt8(ascii: "}"))
    }

    static func encodeItem(_ item: Item) -> JSONValue {
        var object = item.extra
        object["id"] = .string(item.id)
        object["name"] = .string(item.name)
        object["amount"] = .string(item.amount)
        object["section"] = .string(item.section)
        object["checked"] = .bool(item.checked)
        object["optional"] = .bool(item.optional)
        object["sortOrder"] = .number(item.sortOrder)
        if let date = item.lastModified {
            object["lastModified"] = .string(date)
        }
        var stamps: [String: JSONValue] = [:]
        for field in ItemField.allCases where !item.stamps[field].isZero {
            stamps[field.rawValue] = .string(item.stamps[field].encoded)
        }
        if !stamps.isEmpty { object["stamps"] = .object(stamps) }
        return .object(object)
    }
}
