#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore

/// A list as read from a file, with what the reader had to work around.
public struct DecodedList: Sendable, Equatable {
    public var list: ShoppingList
    /// The file's `schemaVersion` (1 when the key is absent, as in Get Bananas files).
    public var schemaVersion: Int
    /// Rows kept but not shown, and other things worth telling the user, with locations.
    public var problems: [String]
}

/// BananaList.json, schema version 3, reading versions 1 and 2. See docs/file-format.md.
///
/// The decoder is forgiving (missing fields take defaults) but never lossy: unknown keys are
/// kept, and rows it cannot read are kept verbatim and reported. The encoder writes only
/// additive changes to the version-1 shape and gives the same bytes for the same list.
public enum ListCodec {
    public static let currentSchemaVersion = 4
    /// Files larger than this are refused (a shopping list of 100,000 items is about 50 MB).
    public static let maxFileSize = 128 * 1024 * 1024

    static let topLevelKeys: Set<String> = ["schemaVersion", "sections", "items", "sync"]
    static let itemKeys: Set<String> = ["id", "name", "amount", "section", "checked", "optional", "sortOrder", "lastModified", "stamps", "sectionKey", "v"]
    static let keyOrder = ["schemaVersion", "sections", "items", "sync",
                           "id", "name", "amount", "section", "checked", "optional", "sortOrder", "lastModified", "stamps", "sectionKey", "v",
                           "written", "sectionsStamp", "deleted", "deletedRows", "deletedItems", "conflicts", "memory",
                           "cleared", "forgotten", "remembered", "bought",
                           "key", "position", "removed", "at", "seen", "horizon", "rows", "item", "field", "lost", "lostStamp",
                           "resolved", "resolution", "firstSeen"]

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
        try decode(bytes, readingItemsDirectly: true)
    }

    /// `readingItemsDirectly: false` takes the general path for every row (the tests compare
    /// the two).
    static func decode(_ bytes: [UInt8], readingItemsDirectly: Bool) throws(DecodeError) -> DecodedList {
        var layout = LayoutRecorder()
        return try decode(bytes, readingItemsDirectly: readingItemsDirectly, layout: &layout)
    }

    // Long because the document's keys read in one pass, in the order the writer writes them.
    /// `rowsOnDemand`: rows in the shape the encoder writes stay in the bytes until a field
    /// of theirs is asked for (`FileRows`), for a command that looks at few of them.
    static func decode(_ bytes: [UInt8], readingItemsDirectly: Bool, rowsOnDemand: Bool = false, layout: inout LayoutRecorder) throws(DecodeError) -> DecodedList {
        let document: Document
        let onDemand = rowsOnDemand && readingItemsDirectly ? FileRows(bytes) : nil
        let conflictStream = ConflictStream()
        layout.idsFromFile = onDemand != nil
        do {
            document = try readDocument(bytes, direct: readingItemsDirectly, onDemand: onDemand, conflicts: conflictStream, layout: &layout)
        } catch {
            throw .syntax(error)
        }
        let (root, itemRows, shadowed) = (document.root, document.items, document.shadowed)
        guard case .object(let top) = root else {
            throw .structure("the top level is \(root.typeDescription), not an object")
        }

        var schemaVersion = 1
        if let value = top["schemaVersion"] {
            guard case .number(let literal) = value, let version = wholeNumber(literal), version >= 1 else {
                throw .structure("schemaVersion is \(value.typeDescription == "a number" ? "not a whole number from 1 up" : value.typeDescription)")
            }
            schemaVersion = version
        }

        var sections: [String] = []
        if let value = top["sections"] {
            guard case .array(let array) = value else { throw .structure("sections is \(value.typeDescription), not an array") }
            // Deduplicated through a set: a hostile file of 100,000 names must read in linear time.
            var seen = Set<String>(minimumCapacity: array.count)
            for (i, entry) in array.enumerated() {
                guard case .string(let name) = entry else { throw .structure("sections[\(i)] is \(entry.typeDescription), not a string") }
                if seen.insert(name).inserted { sections.append(name) }
            }
        }

        var problems: [String] = []
        var unreadable: [UnreadableRow] = []
        var table = DecodedRows(onDemand: itemRows == nil ? nil : onDemand, rows: itemRows?.count ?? 16)
        var explicitKeys = false
        if let itemRows {
            _ = decodeRows(itemRows, path: "items", problems: &problems, unreadable: &unreadable, table: &table, explicitKeys: &explicitKeys)
        } else if let value = top["items"] {
            guard case .array(let array) = value else { throw .structure("items is \(value.typeDescription), not an array") }
            _ = decodeRows(array.map { .value($0, text: nil) }, path: "items", problems: &problems, unreadable: &unreadable, table: &table,
                           explicitKeys: &explicitKeys)
        }

        var sync = DecodedSync()
        if let value = top["sync"] {
            guard case .object(let object) = value else { throw .structure("sync is \(value.typeDescription), not an object") }
            sync = document.sync ?? DecodedSync(object)
            if sync.extra[shadowedKey] != nil, let note = shadowedNote(sync.extra, at: "sync") { problems.append(note) }
            if let hidden = sync.hiddenRows {
                var ignored: [String] = []
                var ignoredRows: [UnreadableRow] = []
                var hiddenTable = DecodedRows(onDemand: nil, rows: hidden.count)
                let hiddenRows = decodeRows(hidden, path: "sync.deletedRows", problems: &ignored, unreadable: &ignoredRows,
                                            table: &hiddenTable, explicitKeys: &explicitKeys)
                let joining = hiddenRows.filter { !table.contains($0.id) }
                for row in joining { _ = table.insert(row) }
                layout.hiddenRows = joining.count
                // A row both visible and hidden: the visible one hid the other, which a reader
                // re-reading only changed rows would not know to bring back.
                if joining.count != hiddenRows.count || !ignoredRows.isEmpty { layout.usable = false }
            }
            sync.records += conflictStream.list.conflicts.values
            sync.folds += conflictStream.list.conflictFolds.values
        }

        var extra: [String: JSONValue] = [:]
        for (key, value) in top where !topLevelKeys.contains(key) { extra[key] = value }
        keepShadowed(shadowed, in: &extra, problems: &problems)

        var sectionEntries = sync.entries ?? ShoppingList.entries(forNames: sections, stamp: sync.sectionsStamp)
        if sync.entries != nil {
            // Names in the array that no section has (a writer that keeps `sync` but edited
            // the array by hand): sections of their own, unstamped.
            let known = Set(sectionEntries.values.map(\.name))
            var next = (sectionEntries.values.map(\.position).max() ?? 0).rounded(.down)
            for name in sections where !known.contains(name) && sectionEntries[name] == nil {
                next += 1024
                sectionEntries[name] = SectionEntry(key: name, position: next)
            }
        }
        var list = ShoppingList(
            sectionEntries: sectionEntries, rowsByID: table.finish(), tombstones: sync.tombstones, conflicts: sync.records, conflictFolds: sync.folds,
            memory: sync.memory, extra: extra, syncExtra: sync.extra, unreadableRows: unreadable
        )
        list.keySections(explicitKeys: explicitKeys)
        list.writeMark = sync.writeMark
        list.deletedItems = sync.deletedItems
        // Bounded as read, not only as written: a file's million records cost every later step.
        list.boundConflicts()
        return DecodedList(list: list, schemaVersion: schemaVersion, problems: problems)
    }

    /// A JSON number literal that is a whole number: `2`, and also `2.0` (what writers that keep
    /// every number as a double write); nil for `2.5`, `2e0` or anything else.
    static func wholeNumber(_ literal: String) -> Int? {
        guard let dot = literal.firstIndex(of: ".") else { return Int(literal) }
        let fraction = literal[literal.index(after: dot)...]
        guard !fraction.isEmpty, fraction.allSatisfy({ $0 == "0" }) else { return nil }
        return Int(literal[..<dot])
    }

    static func normalizedID(_ id: String) -> String {
        // Most ids are already upper case: no new string for them, and the bytes looked at
        // once.
        var bytes = id
        guard bytes.withUTF8({ $0.contains(where: { $0 >= UInt8(ascii: "a") }) }) else { return id }
        return ItemID.isUUID(id) ? id.uppercased() : id
    }

    /// A row as the reader found it: already an item (read directly), or a JSON value with
    /// its bytes (nil for rows that are never written back as read: `sync.deletedRows`).
    enum RawRow {
        case item(Item)
        /// Left in the file's bytes (`readEncodedRow`).
        case encoded(FileRowTable.Record)
        case value(JSONValue, text: String?)
    }

    /// Where `decodeRows` puts the rows it reads, each id once: the list's table, or, for a
    /// command reading rows on demand, a table of the file's rows left in its bytes.
    struct DecodedRows {
        var table: [String: Item] = [:]
        var file: FileRowTable.Builder?
        let source: FileRows?

        init(onDemand source: FileRows?, rows: Int) {
            self.source = source
            if let source {
                file = FileRowTable.Builder(bytes: source.bytes, source: source, rows: rows)
            } else {
                table.reserveCapacity(rows)
            }
        }

        func contains(_ id: String) -> Bool { file?.contains(id) ?? (table[id] != nil) }

        /// False, adding nothing, when the id is taken.
        mutating func insert(_ item: Item) -> Bool {
            if file != nil { return file!.append(item) }
            // One hash of the id: inserted unless it repeats (then the first is put back).
            guard let first = table.updateValue(item, forKey: item.id) else { return true }
            table[item.id] = first
            return false
        }

        mutating func insert(_ record: FileRowTable.Record) -> Bool { file!.append(record) }

        func finish() -> RowTable { file.map { RowTable(file: $0.finish()) } ?? RowTable(table) }
    }

    /// The top-level key that keeps the values a repeated top-level key shadowed.
    public static let shadowedKey = "shadowedKeys"

    /// Values of a top-level key the file repeats, which every JSON reader (Get Bananas's
    /// included) ignores, are kept under `shadowedKeys` (`{"key": …, "value": …}` in file
    /// order) rather than dropped at the next write, and reported at every read while there.
    static func keepShadowed(_ shadowed: [(key: String, value: JSONValue)], in extra: inout [String: JSONValue], problems: inout [String]) {
        guard let records = shadowedRecords(shadowed, existing: extra[shadowedKey]) else { return }
        extra[shadowedKey] = .array(records)
        for (i, record) in records.enumerated() {
            guard case .object(let fields) = record, case .string(let key)? = fields["key"] else { continue }
            var what = "a value"
            if case .array(let rows)? = fields["value"], key == "items" { what = "\(rows.count) rows" }
            problems.append("\(shadowedKey)[\(i)]: the file had \"\(key)\" twice; the last one is read, the other (\(what)) is kept here and not shown")
        }
    }

    /// The `shadowedKeys` records: those already there (`existing`), then `shadowed`'s;
    /// nil when there are none.
    static func shadowedRecords(_ shadowed: [(key: String, value: JSONValue)], existing: JSONValue?) -> [JSONValue]? {
        var kept: [JSONValue] = []
        switch existing {
        case nil: break
        case .array(let records)?: kept = records
        case let other?: kept = [.object(["key": .string(shadowedKey), "value": other])]
        }
        for (key, value) in shadowed { kept.append(.object(["key": .string(key), "value": value])) }
        return kept.isEmpty ? nil : kept
    }

    /// An object a repeated key was read from (a row, `sync`), with the values the key
    /// shadowed kept in it under `shadowedKeys`, as at the top level: every JSON reader reads
    /// the last one, and the others are written back instead of dropped (docs/file-format.md).
    static func keepingShadowed(_ shadowed: [(key: String, value: JSONValue)], in value: JSONValue) -> JSONValue {
        guard !shadowed.isEmpty, case .object(var object) = value,
              let records = shadowedRecords(shadowed, existing: object[shadowedKey]) else { return value }
        object[shadowedKey] = .array(records)
        return .object(object)
    }

    /// A note for an object (a row, `sync`) that keeps values of keys it had twice.
    static func shadowedNote(_ object: [String: JSONValue], at location: String) -> String? {
        guard case .array(let records)? = object[shadowedKey] else { return nil }
        let keys = records.compactMap { record -> String? in
            guard case .object(let fields) = record, case .string(let key)? = fields["key"] else { return nil }
            return "\"" + key + "\""
        }
        return "\(location) had \(keys.joined(separator: ", ")) twice; the last is read, the other is kept under \(location).\(shadowedKey) and not shown"
    }

    // Long because the rows' loop with the bookkeeping of unreadable rows kept in place, which needs each row's neighbours.
    /// The rows read as items, in file order (not those left in the bytes); `table` gets every
    /// row by id as it is read (one hash of each id, which also tells a repeated one).
    static func decodeRows(_ array: [RawRow], path: String, problems: inout [String], unreadable: inout [UnreadableRow],
                           table: inout DecodedRows, explicitKeys: inout Bool) -> [Item] {
        var rows: [Item] = []
        // Where each unreadable row sits: after the readable row before it (nil: none yet),
        // its place among the unreadable rows there, and which copy of its text it is.
        var anchor: Item?  // its position is made only for an unreadable row
        var anchorRecord: FileRowTable.Record?  // or this row's, left in the bytes
        var placeAtAnchor = 0
        var occurrences: [String: Int] = [:]
        func keep(_ value: JSONValue, text: String?) {
            let text = text ?? JSONText.compact(value)
            let occurrence = occurrences[text, default: 0]
            occurrences[text] = occurrence + 1
            let after = anchorRecord.map { record in
                UnreadableRow.Position(sortOrder: record.sortOrder, id: String(decoding: table.source!.bytes[Int(record.id.lowerBound)..<Int(record.id.upperBound)], as: UTF8.self))
            } ?? anchor.map(UnreadableRow.Position.init(of:))
            unreadable.append(UnreadableRow(text: text, after: after, index: placeAtAnchor, occurrence: occurrence))
            placeAtAnchor += 1
        }
        func placed(_ item: Item) {
            anchor = item
            anchorRecord = nil
            placeAtAnchor = 0
            // A row left in the bytes never names its section's key (`readEncodedRow`).
            if !item.isEncoded, item.section.utf8.first == 0 { explicitKeys = true }
        }
        var seenSeeds: [String: Int] = [:]
        var previousOrder: Double = 0
        for (index, raw) in array.enumerated() {
            var location: String { "\(path)[\(index)]" }  // only for problems: not made per row
            let value: JSONValue
            let text: String?
            switch raw {
            case .encoded(let record):
                if table.insert(record) {
                    previousOrder = record.sortOrder
                    (anchor, anchorRecord, placeAtAnchor) = (nil, record, 0)
                    continue
                }
                fallthrough
            case .item:
                // Read directly: it has an id and a sortOrder.
                var item = if case .item(let read) = raw { read } else if case .encoded(let record) = raw { table.source!.item(record.row) } else { preconditionFailure() }
                if !table.insert(item) {
                    let original = item.id
                    item.id = ItemID.derived(from: original + "#duplicate#\(index)")
                    problems.append("\(location) repeats the id \(original); it is shown with the new id \(item.id)")
                    _ = table.insert(item)
                }
                previousOrder = item.sortOrder
                rows.append(item)
                placed(item)
                continue
            case .value(let other, let bytes):
                value = other
                text = bytes
            }
            guard case .object(let object) = value else {
                problems.append("\(location) is \(value.typeDescription), not an item; kept in the file but not shown")
                keep(value, text: text)
                continue
            }
            if object[shadowedKey] != nil, let note = shadowedNote(object, at: location) { problems.append(note) }
            switch decodeItem(object) {
            case .failure(let reason):
                problems.append("\(location) \(reason); kept in the file but not shown")
                keep(value, text: text)
            case .success(var item):
                if item.id.isEmpty {
                    // No usable id: derive one from the row's content, the same on every read.
                    let seed = JSONText.compact(value)
                    let occurrence = seenSeeds[seed, default: 0]
                    seenSeeds[seed] = occurrence + 1
                    item.id = ItemID.derived(from: seed + "#\(occurrence)")
                }
                if table.contains(item.id) {
                    let original = item.id
                    item.id = ItemID.derived(from: original + "#duplicate#\(index)")
                    problems.append("\(location) repeats the id \(original); it is shown with the new id \(item.id)")
                }
                if object["sortOrder"] == nil || object["sortOrder"] == .null {
                    // Rows from writers that keep no order stay where the file has them.
                    item.sortOrder = previousOrder + 1
                }
                _ = table.insert(item)
                previousOrder = item.sortOrder
                rows.append(item)
                placed(item)
            }
        }
        return rows
    }

    // MARK: Reading items directly

    /// The document, with the `items` array read straight into items where a row has the
    /// shape bananas writes (known keys, each once, of the expected types); any other row is
    /// read as a JSON value and decoded as before, with its bytes (`direct: false` reads every
    /// row so). Same results and same errors as `JSONText.parse` followed by the general
    /// decoder, without a dictionary per item. A top-level key the file repeats is read as
    /// every JSON reader reads it (the last one wins); the values it shadows are returned.
    static func readDocument(_ bytes: [UInt8], direct: Bool = true, onDemand: FileRows? = nil, conflicts: ConflictStream? = nil,
                             layout: inout LayoutRecorder) throws(JSONSyntaxError) -> Document {
        var cursor = JSONCursor(bytes)
        cursor.skipWhitespace()
        guard cursor.current == UInt8(ascii: "{") else { return Document(root: try JSONText.parse(bytes)) }
        try cursor.enter()
        cursor.index += 1
        var object: [String: JSONValue] = [:]
        var items: [RawRow]?
        var itemsText: Range<Int>?
        var sync: (read: DecodedSync, text: Range<Int>)?
        var shadowed: [(key: String, value: JSONValue)] = []
        cursor.skipWhitespace()
        if cursor.take(UInt8(ascii: "}")) {
            cursor.leave()
            try cursor.end()
            return Document(root: .object(object))
        }
        while true {
            cursor.skipWhitespace()
            guard let first = cursor.current else { throw cursor.error("the file ends inside an object (truncated?)") }
            guard first == UInt8(ascii: "\"") else { throw cursor.error("expected a key in quotes, found \(cursor.describe(first))") }
            let key = try cursor.string()
            cursor.skipWhitespace()
            guard cursor.current == UInt8(ascii: ":") else {
                throw cursor.error(cursor.current != nil ? "expected ':' after key \"\(key)\"" : "the file ends inside an object (truncated?)")
            }
            cursor.index += 1
            cursor.skipWhitespace()
            if let earlier = object[key] {
                // A repeated key: the last one wins, and the earlier value is kept aside.
                layout.usable = false
                if key == "items", let range = itemsText, let array = try? JSONText.parse(Array(bytes[range])) {
                    shadowed.append((key, array))
                } else if key == "sync", let range = sync?.text {
                    // Read again as the tree reader reads it: no key repeated in it (or it
                    // would have been read so), its conflicts already read into the stream.
                    var again = JSONCursor(Array(bytes[range]))
                    let value = conflicts != nil ? try? again.valueKeepingShadowed(streaming: "conflicts", into: { _ in }).value : try? again.value()
                    shadowed.append((key, value ?? earlier))
                } else {
                    shadowed.append((key, earlier))
                }
            }
            if key == "items", cursor.current == UInt8(ascii: "[") {
                layout.ids.removeAll()
                layout.orders.removeAll()
                layout.ranges.removeAll()
                let start = cursor.index
                items = try readItems(&cursor, direct: direct, onDemand: onDemand, layout: &layout)
                itemsText = start..<cursor.index
                object[key] = .array([])
            } else if key == "sync" {
                (object[key], sync) = try readSync(&cursor, direct: direct, conflicts: conflicts)
            } else {
                object[key] = try cursor.value()
                if key == "items" { items = nil; itemsText = nil; layout.usable = false }
            }
            cursor.skipWhitespace()
            guard let next = cursor.current else { throw cursor.error("the file ends inside an object (truncated?)") }
            if next == UInt8(ascii: ",") { cursor.index += 1; continue }
            if next == UInt8(ascii: "}") { cursor.index += 1; cursor.leave(); break }
            throw cursor.error("expected ',' or '}' in an object, found \(cursor.describe(next))")
        }
        try cursor.end()
        return Document(root: .object(object), items: items, shadowed: shadowed, sync: sync?.read)
    }

    /// `sync`, from its first byte: read straight from the bytes when `direct` can (its value
    /// is then a placeholder, with what was read and where), else as a tree.
    static func readSync(_ cursor: inout JSONCursor, direct: Bool, conflicts: ConflictStream?)
        throws(JSONSyntaxError) -> (JSONValue, (read: DecodedSync, text: Range<Int>)?) {
        let start = cursor.index
        if direct, let read = try cursor.bytes.withUnsafeBufferPointer({ (buffer) throws(JSONSyntaxError) in
            try readPlainSync(&cursor, bytes: buffer, conflicts: conflicts)
        }) {
            return (.object([:]), (read, start..<cursor.index))
        }
        // `sync.conflicts` record by record, bounded as it is read (`ConflictStream`).
        let read: JSONValue, shadowed: [(key: String, value: JSONValue)]
        if let conflicts {
            (read, shadowed) = try cursor.valueKeepingShadowed(streaming: "conflicts", into: conflicts.add)
        } else {
            (read, shadowed) = try cursor.valueKeepingShadowed()
        }
        return (keepingShadowed(shadowed, in: read), nil)
    }

    /// A document as `readDocument` reads it.
    struct Document {
        var root: JSONValue
        /// The rows of `items`, when it was read so (its value in `root` is then a placeholder).
        var items: [RawRow]?
        /// Values of top-level keys the document repeats, in file order.
        var shadowed: [(key: String, value: JSONValue)] = []
        /// `sync`, when it was read straight from the bytes (its value in `root` is then a
        /// placeholder).
        var sync: DecodedSync?
    }

    /// `sync.conflicts` as it is read, one record at a time, folded and bounded whenever the
    /// records kept double (`ShoppingList.boundConflictsSoFar`): a file's million records are
    /// never held at once, as values or as JSON. A `conflicts` the file repeats in `sync` is read
    /// into the same records (a join: nothing lost), not kept aside as other repeated keys are.
    final class ConflictStream {
        var list = ShoppingList()
        private var boundAt = 0

        func add(_ value: JSONValue) {
            guard let record = ListCodec.decodeConflict(value) else { return }
            take(record)
        }

        func take(_ record: ConflictRecord) {
            list.takeRead(record, boundAt: &boundAt)
        }

        /// What was read so far, to go back to when a part is read again another way.
        var mark: (list: ShoppingList, boundAt: Int) { (list, boundAt) }

        func rewind(to mark: (list: ShoppingList, boundAt: Int)) { (list, boundAt) = mark }
    }

    static func readItems(_ cursor: inout JSONCursor, direct: Bool, onDemand: FileRows? = nil, layout: inout LayoutRecorder) throws(JSONSyntaxError) -> [RawRow] {
        try cursor.enter()
        cursor.index += 1
        layout.itemsStart = cursor.index
        cursor.skipWhitespace()
        if cursor.current == UInt8(ascii: "]") {
            layout.itemsEnd = cursor.index
            cursor.index += 1
            cursor.leave()
            return []
        }
        // The bytes in hand once, for matching keys and reading stamps in place.
        let bytes = cursor.bytes
        return try bytes.withUnsafeBufferPointer { (bytes) throws(JSONSyntaxError) -> [RawRow] in
            try readItems(&cursor, bytes: bytes, direct: direct, onDemand: onDemand, layout: &layout)
        }
    }

    /// The rows of a non-empty `items` array, from the first one.
    static func readItems(_ cursor: inout JSONCursor, bytes: UnsafeBufferPointer<UInt8>, direct: Bool, onDemand: FileRows? = nil,
                          layout: inout LayoutRecorder) throws(JSONSyntaxError) -> [RawRow] {
        var rows: [RawRow] = []
        // Room for as many rows as the bytes could hold, so the arrays do not grow by copies
        // (pages never written are never faulted in).
        let most = (bytes.count - cursor.index) / 128 + 1
        rows.reserveCapacity(most)
        layout.reserveCapacity(most)
        while true {
            cursor.skipWhitespace()
            let start = cursor.index
            if let onDemand, let (record, end) = readEncodedRow(bytes, at: start, file: onDemand) {
                cursor.index = end
                rows.append(.encoded(record))
                layout.row(id: nil, order: record.sortOrder, start..<end)
            } else if direct, let item = readPlainItem(&cursor, bytes: bytes) {
                rows.append(.item(item))
                layout.row(item, start..<cursor.index)
            } else {
                cursor.index = start
                let (read, shadowed) = try cursor.valueKeepingShadowed()
                let value = keepingShadowed(shadowed, in: read)
                rows.append(.value(value, text: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<cursor.index]), as: UTF8.self)))
                layout.usable = false
            }
            cursor.skipWhitespace()
            guard let next = cursor.current else { throw cursor.error("the file ends inside an array (truncated?)") }
            if next == UInt8(ascii: ",") { cursor.index += 1; continue }
            if next == UInt8(ascii: "]") { layout.itemsEnd = cursor.index; cursor.index += 1; cursor.leave(); return rows }
            throw cursor.error("expected ',' or ']' in an array, found \(cursor.describe(next))")
        }
    }

    // Long because one row read byte by byte, a key at a time, on the hot path of every read; a call per key per row would cost more than the row.
    /// One row in the shape bananas writes, or nil (the caller then reads it the general way,
    /// which also finds any error in it).
    static func readPlainItem(_ cursor: inout JSONCursor, bytes: UnsafeBufferPointer<UInt8>) -> Item? {
        // The row is walked on the buffer itself (`at`): through the cursor, in another module,
        // every byte looked at was a call. The cursor reads only what needs its care: a string
        // with escapes or beyond ASCII, a number other than a plain whole one, a `stamps` object.
        var at = cursor.index
        let end = bytes.count
        let quote = UInt8(ascii: "\"")
        func skipWhitespace() {
            while at < end {
                let byte = bytes[at]
                guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
                at += 1
            }
        }
        func take(_ byte: UInt8) -> Bool {
            guard at < end, bytes[at] == byte else { return false }
            at += 1
            return true
        }
        func take(word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard end - at >= count else { return false }
            for offset in 0..<count where bytes[at + offset] != word.utf8Start[offset] { return false }
            at += count
            return true
        }
        /// A string without escapes or control bytes, from its opening quote: where its bytes
        /// lie, stepped past; nil without a step for anything else (`JSONCursor.plainString`).
        func plainString(ascii: inout Bool) -> Range<Int>? {
            guard at < end, bytes[at] == quote else { return nil }
            // Eight bytes at a time: a string scanned byte by byte was a third of reading a row.
            let from = at + 1
            guard let (close, isASCII) = ListCodec.plainTextEnd(bytes.baseAddress!, from: from, end: end) else { return nil }
            at = close + 1
            ascii = isASCII
            return from..<close
        }
        func text() -> String? {
            guard at < end, bytes[at] == quote else { return nil }
            var ascii = false
            let start = at
            // ASCII needs no validation; anything else is read (and checked) by the cursor.
            if let range = plainString(ascii: &ascii), ascii { return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
            cursor.index = start
            guard let value = try? cursor.string() else { return nil }
            at = cursor.index
            return value
        }
        func flag() -> Bool? {
            if take(word: "true") { return true }
            if take(word: "false") { return false }
            return nil
        }
        guard take(UInt8(ascii: "{")) else { return nil }
        var id: String?, name: String?, sortOrder: Double?, lastModified: String?, noDate = false
        var amount = "", section = "", checked = false, optional = false
        var stamps: ItemStamps?  // made only for a row without them
        var sectionKey: String?
        var seen: UInt16 = 0  // a bit per key
        var ascii = false
        let literals = PlainKey.written
        var nextLiteral = 0
        /// The key at `at` when it is one of those the encoder writes next, in its spelling
        /// (`"name": `), stepped past: most rows are read without scanning their keys.
        func writtenKey() -> PlainKey? {
            guard at < end, bytes[at] == quote else { return nil }
            var k = nextLiteral
            while k < literals.count {
                let literal = literals[k].bytes
                if end - at >= literal.count, literal.withUnsafeBufferPointer({ memcmp(bytes.baseAddress! + at, $0.baseAddress!, $0.count) }) == 0 {
                    at += literal.count
                    nextLiteral = k + 1
                    return literals[k].key
                }
                k += 1
            }
            return nil
        }
        while true {
            skipWhitespace()
            let key: PlainKey
            if let written = writtenKey() {
                key = written
            } else {
                // Keys matched on their bytes: no String and no hashing per key.
                guard let range = plainString(ascii: &ascii), let other = PlainKey(utf8: UnsafeBufferPointer(rebasing: bytes[range])) else { return nil }
                key = other
                skipWhitespace()
                guard take(UInt8(ascii: ":")) else { return nil }
            }
            guard seen & key.bit == 0 else { return nil }
            seen |= key.bit
            skipWhitespace()
            switch key {
            case .id:
                guard let value = text(), !value.isEmpty else { return nil }
                id = normalizedID(value)
            case .name: guard let value = text() else { return nil }; name = value
            case .amount: guard let value = text() else { return nil }; amount = value
            case .section: guard let value = text() else { return nil }; section = value
            case .lastModified:
                if take(word: "null") { noDate = true } else { guard let value = text() else { return nil }; lastModified = value }
            case .checked: guard let value = flag() else { return nil }; checked = value
            case .optional: guard let value = flag() else { return nil }; optional = value
            case .sortOrder:
                guard at < end, bytes[at] == UInt8(ascii: "-") || (bytes[at] >= 0x30 && bytes[at] <= 0x39) else { return nil }
                if let value = plainWholeNumber(bytes, at: &at) {
                    sortOrder = value
                } else {
                    cursor.index = at
                    guard let literal = try? cursor.numberLiteral(), let value = Double(literal), value.isFinite else { return nil }
                    at = cursor.index
                    sortOrder = value
                }
            case .stamps:
                var read = stamps ?? ItemStamps()
                cursor.index = at
                guard readPlainStamps(&cursor, bytes: bytes, into: &read) else { return nil }
                at = cursor.index
                stamps = read
            case .sectionKey: guard let value = text() else { return nil }; sectionKey = value
            case .v:
                guard let range = plainString(ascii: &ascii),
                      let meta = Meta.decode(UnsafeBufferPointer(rebasing: bytes[range]), as: ItemField.self) else { return nil }
                stamps = meta.stamps  // flags: `g` (read by versions before rule 5) means nothing now
            }
            skipWhitespace()
            if take(UInt8(ascii: ",")) { continue }
            if take(UInt8(ascii: "}")) { break }
            return nil
        }
        cursor.index = at
        guard let id, let name, let sortOrder, !isBlank(name) else { return nil }
        let table = stamps ?? ItemStamps()
        var item = Item(id: id, name: name, amount: amount, section: sectionKey.map { ShoppingList.explicitKeyMark + $0 } ?? ShoppingList.sectionAsRead(section), checked: checked, optional: optional,
                        sortOrder: sortOrder, lastModified: noDate ? nil : lastModified ?? impliedDate(table), stamps: table)
        return item
    }

    /// `name.trimmingWhitespace().isEmpty`, answered from the first byte for nearly every name.
    static func isBlank(_ name: String) -> Bool {
        var bytes = name
        if let first = bytes.withUTF8({ $0.first }), first > 0x20, first < 0x7F { return false }
        return name.trimmingWhitespace().isEmpty
    }

    /// A `stamps` object of field names and well-formed stamp strings, each field once.
    static func readPlainStamps(_ cursor: inout JSONCursor, bytes: UnsafeBufferPointer<UInt8>, into stamps: inout ItemStamps) -> Bool {
        guard cursor.take(UInt8(ascii: "{")) else { return false }
        cursor.skipWhitespace()
        if cursor.take(UInt8(ascii: "}")) { return true }
        var seen: UInt16 = 0
        while true {
            cursor.skipWhitespace()
            guard let range = cursor.plainString(), let key = PlainKey(utf8: UnsafeBufferPointer(rebasing: bytes[range])),
                  let field = key.field, seen & key.bit == 0 else { return false }
            seen |= key.bit
            cursor.skipWhitespace()
            guard cursor.take(UInt8(ascii: ":")) else { return false }
            cursor.skipWhitespace()
            // Anything but a well-formed stamp (escapes, no stamp, bytes that are no UTF-8):
            // read the general way, which also tells a bad string from a string that is no stamp.
            guard let range = cursor.plainString(), let stamp = Stamp(encodedUTF8: UnsafeBufferPointer(rebasing: bytes[range])) else { return false }
            stamps[field] = stamp
            cursor.skipWhitespace()
            if cursor.take(UInt8(ascii: ",")) { continue }
            return cursor.take(UInt8(ascii: "}"))
        }
    }

    /// The keys of an item row, told apart by their bytes.
    enum PlainKey: UInt8 {
        case id, name, amount, section, checked, optional, sortOrder, lastModified, stamps, sectionKey, v

        init?(utf8 key: UnsafeBufferPointer<UInt8>) {
            func matches(_ name: StaticString) -> Bool {
                guard key.count == name.utf8CodeUnitCount else { return false }
                for offset in 0..<key.count where key[offset] != name.utf8Start[offset] { return false }
                return true
            }
            switch key.count {
            case 1 where matches("v"): self = .v
            case 2 where matches("id"): self = .id
            case 10 where matches("sectionKey"): self = .sectionKey
            case 4 where matches("name"): self = .name
            case 6 where matches("amount"): self = .amount
            case 6 where matches("stamps"): self = .stamps
            case 7 where matches("section"): self = .section
            case 7 where matches("checked"): self = .checked
            case 8 where matches("optional"): self = .optional
            case 9 where matches("sortOrder"): self = .sortOrder
            case 12 where matches("lastModified"): self = .lastModified
            default: return nil
            }
        }

        var bit: UInt16 { 1 << rawValue }

        /// The keys `appendPlainItem` writes, in its order.
        static let writtenOrder: [PlainKey] = [.id, .name, .amount, .section, .checked, .optional, .sortOrder, .lastModified, .sectionKey, .v]

        /// A written key as `appendPlainItem` spells it (quotes, colon, space), after the
        /// separator before every key but the first (`{` before the first).
        var writtenText: StaticString {
            switch self {
            case .id: "{\"id\": "
            case .name: ", \"name\": "
            case .amount: ", \"amount\": "
            case .section: ", \"section\": "
            case .checked: ", \"checked\": "
            case .optional: ", \"optional\": "
            case .sortOrder: ", \"sortOrder\": "
            case .lastModified: ", \"lastModified\": "
            case .sectionKey: ", \"sectionKey\": "
            case .v: ", \"v\": "
            case .stamps: ", \"stamps\": "
            }
        }

        /// The keys `appendPlainItem` writes, in its order and spelling, without the separator.
        static let written: [(key: PlainKey, bytes: [UInt8])] = writtenOrder.map { key in
            let text = key.writtenText
            return (key, Array(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount).drop { $0 != UInt8(ascii: "\"") }))
        }

        /// The merged field a key's stamp belongs to.
        var field: ItemField? {
            switch self {
            case .name: .name
            case .amount: .amount
            case .section: .section
            case .checked: .checked
            case .optional: .optional
            case .sortOrder: .sortOrder
            case .id, .lastModified, .stamps, .sectionKey, .v: nil
            }
        }
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
                id: "", name: name, amount: try text("amount").get(), section: ShoppingList.sectionAsRead(try text("section").get()),
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
            } else if case .null? = object["lastModified"] {
                item.lastModified = nil
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
            if case .string(let text)? = object["v"], let meta = Meta.decode(Array(text.utf8), as: ItemField.self) {
                item.stamps = meta.stamps
            } else if let other = object["v"] {
                extra["v"] = other
            }
            if case .string(let key)? = object["sectionKey"] { item.section = ShoppingList.explicitKeyMark + key } else if let other = object["sectionKey"] { extra["sectionKey"] = other }
            if object["lastModified"] == nil { item.lastModified = impliedDate(item.stamps) }
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
        var layout = LayoutRecorder()
        return encode(list, layout: &layout)
    }

    static func encode(_ list: ShoppingList, layout: inout LayoutRecorder) -> [UInt8] {
        let items = list.visibleRows
        return encodeDocument(list, capacity: items.count * 320 + 4096) { out in
            appendItems(items, of: list, to: &out, layout: &layout)
        }
    }

    /// The file's bytes around its items: everything up to and including the `[` of `items`,
    /// and everything from its `]` on (a splice that changed the sections or the `sync`
    /// object keeps the items' bytes and writes these again).
    static func frame(_ list: ShoppingList) -> (prefix: [UInt8], suffix: [UInt8]) {
        var split = 0
        let bytes = encodeDocument(list, capacity: 4096) { out in
            out.append(UInt8(ascii: "["))
            split = out.count
            out.append(UInt8(ascii: "]"))
        }
        return (Array(bytes[..<split]), Array(bytes[split...]))
    }

    /// The document with `items` written by `appendItems` in its place, and `sync` straight
    /// from the list (`appendSync`).
    static func encodeDocument(_ list: ShoppingList, capacity: Int, appendItems: (inout [UInt8]) -> Void) -> [UInt8] {
        var top = topLevel(list, includingSync: false)
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        // Placeholders that sort into their places.
        top["items"] = .array([])
        let writesSync = hasSync(list)
        if writesSync { top["sync"] = .object([:]) }
        let keys = top.keys.map { (rank: keyRank[$0] ?? Int.max, key: $0) }.sorted {
            $0.rank != $1.rank ? $0.rank < $1.rank : $0.key.precedesInTextOrder($1.key)
        }
        out.append(UInt8(ascii: "{"))
        for (i, entry) in keys.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            newline(&out, 1)
            JSONText.appendString(entry.key, to: &out)
            out.append(contentsOf: ": ".utf8)
            if entry.key == "items" {
                appendItems(&out)
            } else if entry.key == "sync", writesSync {
                appendSync(list, to: &out)
            } else {
                JSONText.append(top[entry.key]!, to: &out, indent: 1, rank: keyRank, rowKeys: rowKeys)
            }
        }
        newline(&out, 0)
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    /// The version-2 file for `list` as a JSON value (the journal writes it compact).
    public static func encodeValue(_ list: ShoppingList) -> JSONValue {
        var top = topLevel(list)
        var rows: [JSONValue] = []
        var unreadable = placedUnreadableRows(list)[...]
        func appendUnreadable(before position: UnreadableRow.Position?) {
            while let row = unreadable.first, position.map(row.goesBefore) ?? true {
                // The row's bytes were JSON when read.
                rows.append((try? JSONText.parse(Array(row.text.utf8))) ?? .string(row.text))
                unreadable.removeFirst()
            }
        }
        for item in list.visibleRows {
            appendUnreadable(before: UnreadableRow.Position(of: item))
            rows.append(encodeItem(item, in: list))
        }
        appendUnreadable(before: nil)
        top["items"] = .array(rows)
        return .object(top)
    }

    /// Every top-level key but `items` (and `sync` only `includingSync`).
    static func topLevel(_ list: ShoppingList, includingSync: Bool = true) -> [String: JSONValue] {
        var top = list.extra
        top["schemaVersion"] = .number(String(currentSchemaVersion))
        top["sections"] = .array(list.sections.map(JSONValue.string))
        if includingSync, hasSync(list) { top["sync"] = .object(syncValue(list)) }
        return top
    }

    static func compactStamp(_ stamp: Stamp) -> JSONValue { .string(stamp.compact ?? stamp.encoded) }

    /// What of `sync.memory` can be read; anything else is left out.
    static func decodeMemory(_ value: JSONValue) -> ItemMemory {
        guard case .object(let object) = value else { return ItemMemory() }
        var parts = MemoryParts()
        for (key, member) in object { parts.take(key, member) }
        return parts.memory
    }

    /// The keys of a deleted row written by place (version 4): its values in this order, then
    /// an object of any other keys it has.
    static let hiddenRowKeys = ["id", "name", "amount", "section", "checked", "optional", "sortOrder", "v"]

    /// A deleted row as written in `sync.deletedRows`: an array, not an object (no key names).
    static func hiddenRow(_ object: JSONValue) -> JSONValue {
        guard case .object(var keys) = object else { return object }
        var row: [JSONValue] = []
        for key in hiddenRowKeys {
            guard let value = keys.removeValue(forKey: key) else { return object }
            row.append(value)
        }
        if !keys.isEmpty { row.append(.object(keys)) }
        return .array(row)
    }

    /// A deleted row as the item decoder reads it: version 4's array as an object, an object
    /// (version 3) as it is.
    static func hiddenRowObject(_ value: JSONValue) -> JSONValue {
        guard case .array(let row) = value, row.count == hiddenRowKeys.count || row.count == hiddenRowKeys.count + 1 else { return value }
        var object: [String: JSONValue] = [:]
        if row.count > hiddenRowKeys.count, case .object(let rest) = row[hiddenRowKeys.count] { object = rest }
        for (key, value) in zip(hiddenRowKeys, row) { object[key] = value }
        return .object(object)
    }

    /// `sync.sections` as the tree writer writes `.array(entries.map(encodeSectionEntry))` in
    /// its place (`sync`'s first key): each entry's keys in `keyOrder`'s order.
    static func appendSectionEntries(_ list: ShoppingList, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (i, key) in list.sectionEntries.keys.sorted(by: { $0.precedesInTextOrder($1) }).enumerated() {
            let entry = list.sectionEntries[key]!
            if i > 0 { out.append(UInt8(ascii: ",")) }
            newline(&out, 3)
            out.append(UInt8(ascii: "{"))
            func field(_ name: StaticString, first: Bool = false) {
                if !first { out.append(UInt8(ascii: ",")) }
                newline(&out, 4)
                out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            }
            field("\"name\": ", first: true)
            JSONText.appendString(entry.name, to: &out)
            if let meta = Meta.encode(entry.stamps) {
                field("\"v\": ")
                JSONText.appendString(meta, to: &out)
            }
            if entry.key != entry.name {
                field("\"key\": ")
                JSONText.appendString(entry.key, to: &out)
            }
            field("\"position\": ")
            if case .number(let literal) = JSONValue.number(entry.position) { out.append(contentsOf: literal.utf8) }
            if entry.removed { field("\"removed\": true") }
            newline(&out, 3)
            out.append(UInt8(ascii: "}"))
        }
        newline(&out, 2)
        out.append(UInt8(ascii: "]"))
    }

    static func encodeSectionEntry(_ entry: SectionEntry) -> JSONValue {
        var object: [String: JSONValue] = ["name": .string(entry.name), "position": .number(entry.position)]
        if entry.key != entry.name { object["key"] = .string(entry.key) }
        if entry.removed { object["removed"] = .bool(true) }
        if let meta = Meta.encode(entry.stamps) { object["v"] = .string(meta) }
        return .object(object)
    }

    static func compactText(_ stamp: Stamp) -> String { stamp.compact ?? stamp.encoded }


    static func decodeTombstone(_ value: JSONValue) -> Tombstone? {
        switch value {
        case .string(let text):
            return Stamp(encoded: text).map(Tombstone.init(legacy:))
        case .object(let object):
            guard let at = object["at"]?.stringValue.flatMap(Meta.stamp) else { return nil }
            var tombstone = Tombstone(stamp: at, seen: ItemStamps(all: at))
            if let text = object["v"]?.stringValue, let meta = Meta.decode(Array(text.utf8), as: ItemField.self) { tombstone.seen = Knowledge(of: meta.stamps) }
            if case .number(let literal)? = object["firstSeen"], let millis = Int64(literal) { tombstone.firstSeen = millis }
            return tombstone
        default:
            return nil
        }
    }

    static func encodeConflict(_ record: ConflictRecord) -> JSONValue {
        var object: [String: JSONValue] = [
            "field": .string(record.key.subject.fieldName),
            "lost": fieldJSON(record.lost),
            "lostStamp": .string(record.lostStamp.compact ?? record.lostStamp.encoded),
        ]
        switch record.key.subject {
        case .item(let id, _): object["item"] = .string(id)
        case .section(let key, _): object["section"] = .string(key)
        }
        if !record.resolved.isZero {
            object["resolved"] = .string(record.resolved.compact ?? record.resolved.encoded)
            object["resolution"] = .string(record.resolution)
        }
        if record.firstSeen != 0 { object["firstSeen"] = .number(String(record.firstSeen)) }
        return .object(object)
    }

    static func decodeConflict(_ value: JSONValue) -> ConflictRecord? {
        guard case .object(let object) = value, let fieldName = object["field"]?.stringValue,
              let lostStamp = object["lostStamp"]?.stringValue.flatMap(Meta.stamp), let lostValue = object["lost"] else { return nil }
        let subject: ConflictRecord.Subject
        let lost: FieldValue
        if let id = object["item"]?.stringValue, let field = ItemField(rawValue: fieldName), let value = fieldValue(lostValue, for: field) {
            subject = .item(normalizedID(id), field)
            lost = value
        } else if let key = object["section"]?.stringValue, let field = SectionField(rawValue: fieldName) {
            subject = .section(key, field)
            switch (field, lostValue) {
            case (.name, .string(let text)): lost = .text(text)
            case (.removed, .bool(let flag)): lost = .flag(flag)
            case (.position, .number(let literal)): guard let order = Double(literal) else { return nil }; lost = .order(order)
            default: return nil
            }
        } else {
            return nil
        }
        var record = ConflictRecord(subject: subject, lost: lost, lostStamp: lostStamp)
        if let resolved = object["resolved"]?.stringValue.flatMap(Meta.stamp) {
            record.resolved = resolved
            record.resolution = object["resolution"]?.stringValue ?? "dismissed"
        }
        if case .number(let literal)? = object["firstSeen"], let millis = Int64(literal) { record.firstSeen = millis }
        return record
    }

    /// `sync.conflictsFolded`: one per field whose older lost values were folded
    /// (docs/file-format.md): its newest value as a record is written (`item`/`section`,
    /// `field`, `lost`, `lostStamp`, `resolved`, `resolution`, `firstSeen`), with the ids of
    /// the values folded, awaiting review (`folded`) and reviewed (`reviewed`), each a string
    /// of 16-hex-digit ids in ascending order, separated by spaces.
    static func encodeConflictFold(_ fold: ConflictFold) -> JSONValue {
        var record = ConflictRecord(subject: fold.subject, lost: fold.newest.lost, lostStamp: fold.newest.lostStamp,
                                    resolved: fold.resolved, resolution: fold.resolution, firstSeen: fold.firstSeen)
        if record.resolved.isZero { record.resolution = "" }
        guard case .object(var object) = encodeConflict(record) else { return .null }
        object["folded"] = .string(foldIDs(fold.awaiting))
        if !fold.reviewed.isEmpty { object["reviewed"] = .string(foldIDs(fold.reviewed)) }
        return .object(object)
    }

    static func foldIDs(_ ids: Set<UInt64>) -> String {
        ids.sorted().map { id in
            let digits = String(id, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined(separator: " ")
    }

    static func decodeConflictFold(_ value: JSONValue) -> ConflictFold? {
        guard let record = decodeConflict(value), case .object(let object) = value else { return nil }
        func ids(_ key: String) -> Set<UInt64> {
            guard let text = object[key]?.stringValue else { return [] }
            return Set(text.split(separator: " ").compactMap { $0.utf8.count == 16 ? UInt64($0, radix: 16) : nil })
        }
        let (awaiting, reviewed) = (ids("folded"), ids("reviewed"))
        guard !awaiting.isEmpty || !reviewed.isEmpty else { return nil }
        return ConflictFold(newest: record.key, awaiting: awaiting, reviewed: reviewed, resolved: record.resolved,
                            resolution: record.resolved.isZero ? "" : record.resolution, firstSeen: record.firstSeen)
    }

    public static func fieldJSON(_ value: FieldValue) -> JSONValue {
        switch value {
        case .text(let text): .string(text)
        case .flag(let flag): .bool(flag)
        case .order(let order): .number(order)
        }
    }

    static func fieldValue(_ value: JSONValue, for field: ItemField) -> FieldValue? {
        switch (field, value) {
        case (.name, .string(let text)), (.amount, .string(let text)), (.section, .string(let text)): .text(text)
        case (.checked, .bool(let flag)), (.optional, .bool(let flag)): .flag(flag)
        case (.sortOrder, .number(let literal)): Double(literal).map(FieldValue.order)
        default: nil
        }
    }

    /// The `lastModified` a row written without one has: the time of its newest stamp (the
    /// writer leaves the date out when it is that).
    static func impliedDate(_ stamps: ItemStamps) -> String? {
        let newest = stamps.newest
        return newest.isZero ? nil : Timestamp.iso8601(millis: newest.millis)
    }

    /// Whether `item.lastModified` is `impliedDate(item.stamps)`, so the writer leaves it out;
    /// compared without formatting the date.
    static func hasImpliedDate(_ item: Item) -> Bool {
        let newest = item.stamps.newest
        guard let date = item.lastModified else { return newest.isZero }
        return !newest.isZero && Timestamp.isISO8601(date, millis: newest.millis)
    }

    static let keyRank = JSONText.keyRanks(keyOrder)
    /// Arrays whose elements are written one to a line.
    public static let rowKeys: Set<String> = ["items", "deleted", "deletedRows", "deletedItems", "remembered"]
    static let trueBytes = Array("true".utf8), falseBytes = Array("false".utf8)
    /// The stamp fields in the order the writer sorts their keys.
    static let stampOrder = ItemField.allCases.sorted { (keyRank[$0.rawValue] ?? Int.max, $0.rawValue) < (keyRank[$1.rawValue] ?? Int.max, $1.rawValue) }

    static func newline(_ out: inout [UInt8], _ indent: Int) {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: indent * 2))
    }

    /// The `items` array, at the top level's first indent.
    /// The unreadable rows in the order they are written, each placed after the readable row
    /// it followed where that row is now: a row moves with its neighbour. One whose neighbour
    /// is gone (deleted, hidden) stays at the neighbour's last place, between the same rows
    /// that are left (docs/file-format.md, "Rows that cannot be read").
    static func placedUnreadableRows(_ list: ShoppingList) -> [UnreadableRow] {
        var rows = list.unreadableRows
        var moved = false
        for i in rows.indices {
            guard let after = rows[i].after, let anchor = list.rows[after.id], anchor.sortOrder != after.sortOrder,
                  list.isVisible(after.id) else { continue }
            rows[i].after = UnreadableRow.Position(of: anchor)
            moved = true
        }
        return moved ? rows.sorted(by: UnreadableRow.writeOrder) : rows
    }

    static func appendItems(_ items: [Item], of list: ShoppingList, to out: inout [UInt8], layout: inout LayoutRecorder) {
        let unreadable = placedUnreadableRows(list)
        layout.ids.reserveCapacity(items.count)
        layout.orders.reserveCapacity(items.count)
        layout.ranges.reserveCapacity(items.count)
        guard !items.isEmpty || !unreadable.isEmpty else {
            out.append(UInt8(ascii: "["))
            layout.itemsStart = out.count
            layout.itemsEnd = out.count
            out.append(UInt8(ascii: "]"))
            return
        }
        out.append(UInt8(ascii: "["))
        layout.itemsStart = out.count
        var first = true
        var nextUnreadable = 0
        // Rows that could not be read go back where they were: byte for byte, after the
        // readable row they followed (see `UnreadableRow.after`).
        func appendUnreadable(before position: UnreadableRow.Position?) {
            while nextUnreadable < unreadable.count {
                let row = unreadable[nextUnreadable]
                if let position, !row.goesBefore(position) { return }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                newline(&out, 2)
                out.append(contentsOf: row.text.utf8)
                layout.usable = false
                nextUnreadable += 1
            }
        }
        for item in items {
            if nextUnreadable < unreadable.count { appendUnreadable(before: UnreadableRow.Position(of: item)) }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            newline(&out, 2)
            let start = out.count
            if item.extra.isEmpty {
                appendPlainItem(item, section: list.sectionLabel(item.section), to: &out)
            } else {
                // Unknown keys sort among ours: the general writer keeps the order exact.
                JSONText.append(encodeItem(item, in: list), to: &out, indent: 2, rank: keyRank, inline: true)
            }
            layout.row(item, start..<out.count)
        }
        appendUnreadable(before: nil)
        newline(&out, 1)
        layout.itemsEnd = out.count
        out.append(UInt8(ascii: "]"))
    }

    /// A stamp as a JSON string: its bytes straight in when they need no escaping (always, for
    /// a stamp that was read or made by a clock).
    static func appendStamp(_ stamp: Stamp, to out: inout [UInt8]) {
        guard ReplicaID.isValid(stamp.replica) else {
            JSONText.appendString(stamp.encoded, to: &out)
            return
        }
        out.append(UInt8(ascii: "\""))
        stamp.appendEncoded(to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// An item without unknown keys, as the general writer would write `encodeItem(item, in:)`,
    /// on one line. `section` is how the list names the item's section (`sectionLabel`).
    static func appendPlainItem(_ item: Item, section label: (name: String, key: String?), to out: inout [UInt8]) {
        let section = label.name
        func key(_ name: StaticString, first: Bool = false) {
            if !first { out.append(UInt8(ascii: ",")); out.append(UInt8(ascii: " ")) }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            out.append(UInt8(ascii: "\""))
            out.append(UInt8(ascii: ":"))
            out.append(UInt8(ascii: " "))
        }
        func flag(_ value: Bool) { out.append(contentsOf: value ? trueBytes : falseBytes) }
        out.append(UInt8(ascii: "{"))
        key("id", first: true)
        JSONText.appendString(item.id, to: &out)
        key("name")
        JSONText.appendString(item.name, to: &out)
        key("amount")
        JSONText.appendString(item.amount, to: &out)
        key("section")
        JSONText.appendString(section, to: &out)
        key("checked")
        flag(item.checked)
        key("optional")
        flag(item.optional)
        key("sortOrder")
        if case .number(let literal) = JSONValue.number(item.sortOrder) { out.append(contentsOf: literal.utf8) }
        if !hasImpliedDate(item) {
            key("lastModified")
            if let date = item.lastModified { JSONText.appendString(date, to: &out) } else { out.append(contentsOf: "null".utf8) }
        }
        if let explicit = label.key {
            key("sectionKey")
            JSONText.appendString(explicit, to: &out)
        }
        let mark = out.count
        key("v")
        if !appendMetaString(item.stamps, to: &out) { out.removeSubrange(mark..<out.count) }
        out.append(UInt8(ascii: "}"))
    }

    /// A row's `v` text (`Meta.encode`) as a JSON string; false, with nothing written, when it
    /// has none.
    static func appendMetaString(_ stamps: ItemStamps, to out: inout [UInt8]) -> Bool {
        // The text straight into the output; escaped afterwards in the rare case it needs it
        // (a stamp out of the compact range whose replica is not plain letters and digits).
        out.append(UInt8(ascii: "\""))
        let metaStart = out.count
        guard Meta.append(stamps, flags: [], to: &out) else {
            out.removeLast()
            return false
        }
        if out[metaStart...].contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            let meta = Array(out[metaStart...])
            out.removeSubrange(metaStart - 1..<out.count)
            meta.withUnsafeBufferPointer { JSONText.appendString(utf8: $0, to: &out) }
        } else {
            out.append(UInt8(ascii: "\""))
        }
        return true
    }

    static func encodeItem(_ item: Item, in list: ShoppingList) -> JSONValue {
        var object = item.extra
        let (section, explicitKey) = list.sectionLabel(item.section)
        object["id"] = .string(item.id)
        object["name"] = .string(item.name)
        object["amount"] = .string(item.amount)
        object["section"] = .string(section)
        object["checked"] = .bool(item.checked)
        object["optional"] = .bool(item.optional)
        object["sortOrder"] = .number(item.sortOrder)
        if !hasImpliedDate(item) {
            object["lastModified"] = item.lastModified.map(JSONValue.string) ?? .null
        }
        if let explicitKey { object["sectionKey"] = .string(explicitKey) }
        if let meta = Meta.encode(item.stamps, flags: "") { object["v"] = .string(meta) }
        return .object(object)
    }
}

/// The `v` text of schema versions 3 and 4: a table of stamps and its fields' stamps and
/// histories in one short string. `STAMP STAMP…|F,F,…[|FLAGS]`: the distinct stamps (compact
/// form; from version 4 a later stamp of the first one's replica without it), then per field
/// (in the fields' order) the index of its stamp, with `:i.j` for the stamps it superseded; an
/// empty field has no stamp. For a row with one stamp: `0mi4x0b9a400009d4d…|0,0,0,0,0,0`.
enum Meta {
    static func encode<Field: StampedField>(_ stamps: StampTable<Field>, flags: String = "") -> String? {
        var out: [UInt8] = []
        guard append(stamps, flags: Array(flags.utf8), to: &out) else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the text `encode` returns, unquoted; false (nothing appended) where it returns nil.
    /// Written byte by byte: a file has one per row, and a String per piece was a third of encoding.
    static func append<Field: StampedField>(_ stamps: StampTable<Field>, flags: [UInt8], to out: inout [UInt8]) -> Bool {
        var table: [Stamp] = []
        func index(_ stamp: Stamp) -> Int {
            for at in table.indices where table[at] == stamp { return at }
            table.append(stamp)
            return table.count - 1
        }
        var fields: [UInt8] = []
        var any = false
        var first = true
        for field in Field.allCases {
            if !first { fields.append(UInt8(ascii: ",")) }
            first = false
            let stamp = stamps[field]
            guard !stamp.isZero else { continue }
            any = true
            appendNumber(index(stamp), to: &fields)
            let seen = stamps.seen(field)
            for (n, older) in seen.enumerated() {
                fields.append(n == 0 ? UInt8(ascii: ":") : UInt8(ascii: "."))
                appendNumber(index(older), to: &fields)
            }
        }
        guard any || !flags.isEmpty else { return false }
        for (n, stamp) in table.enumerated() {
            if n > 0 { out.append(UInt8(ascii: " ")) }
            // A later stamp of the first one's replica leaves the replica out (version 4).
            if !stamp.appendCompact(to: &out, replica: n == 0 || stamp.replica != table[0].replica) { stamp.appendEncoded(to: &out) }
        }
        out.append(UInt8(ascii: "|"))
        out.append(contentsOf: fields)
        if !flags.isEmpty {
            out.append(UInt8(ascii: "|"))
            out.append(contentsOf: flags)
        }
        return true
    }

    static func appendNumber(_ value: Int, to out: inout [UInt8]) {
        if value < 10 { out.append(UInt8(ascii: "0") &+ UInt8(value)); return }
        out.append(contentsOf: String(value).utf8)
    }

    static func decode<Field: StampedField>(_ bytes: [UInt8], as field: Field.Type) -> (stamps: StampTable<Field>, flags: [UInt8])? {
        bytes.withUnsafeBufferPointer { decode($0, as: field) }
    }

    /// The inverse of `encode`, on the text's bytes; nil when it is not well formed.
    static func decode<Field: StampedField>(_ bytes: UnsafeBufferPointer<UInt8>, as: Field.Type) -> (stamps: StampTable<Field>, flags: [UInt8])? {
        let bar = UInt8(ascii: "|")
        guard let tableEnd = bytes.firstIndex(of: bar) else { return nil }
        if let common = decodeOneStamp(bytes, tableEnd: tableEnd, as: Field.self) { return (common, []) }
        var fieldsEnd = bytes.endIndex
        var flags: [UInt8] = []
        if let second = bytes[(tableEnd + 1)...].firstIndex(of: bar) {
            guard !bytes[(second + 1)...].contains(bar) else { return nil }
            fieldsEnd = second
            flags = Array(bytes[(second + 1)...])
        }
        // The stamps, separated by spaces (runs of them too). Most rows have one: an array
        // only from the second.
        var first: Stamp?
        var table: [Stamp] = []
        var count = 0
        var i = bytes.startIndex
        while i < tableEnd {
            if bytes[i] == UInt8(ascii: " ") { i += 1; continue }
            var j = i
            while j < tableEnd, bytes[j] != UInt8(ascii: " ") { j += 1 }
            let token = UnsafeBufferPointer(rebasing: bytes[i..<j])
            guard let stamp = count > 0 && token.count == Stamp.compactMillisDigits + Stamp.compactCounterDigits
                ? Stamp(compactUTF8: Array(token) + Array(first!.replica.utf8)) : stamp(token) else { return nil }
            if count == 0 { first = stamp } else { if count == 1 { table.append(first!) }; table.append(stamp) }
            count += 1
            i = j
        }
        func entry(_ at: Int) -> Stamp { count == 1 ? first! : table[at] }
        // One piece per field, separated by commas: `i` or `i:j.k…`.
        var stamps = StampTable<Field>()
        var fields = Field.allCases.makeIterator()
        var start = tableEnd + 1
        while true {
            var end = start
            while end < fieldsEnd, bytes[end] != UInt8(ascii: ",") { end += 1 }
            guard let field = fields.next() else { return nil }
            if end > start {
                var colon = start
                while colon < end, bytes[colon] != UInt8(ascii: ":") { colon += 1 }
                guard let at = number(UnsafeBufferPointer(rebasing: bytes[start..<colon])), at < count else { return nil }
                stamps[field] = entry(at)
                if colon < end {
                    var seen: [Stamp] = []
                    var k = colon + 1
                    while k < end {
                        if bytes[k] == UInt8(ascii: ".") { k += 1; continue }
                        var l = k
                        while l < end, bytes[l] != UInt8(ascii: "."), bytes[l] != UInt8(ascii: ":") { l += 1 }
                        guard l == end || bytes[l] == UInt8(ascii: "."),
                              let at = number(UnsafeBufferPointer(rebasing: bytes[k..<l])), at < count else { return nil }
                        seen.append(entry(at))
                        k = l
                    }
                    stamps.setSeen(field, seen)
                }
            }
            if end == fieldsEnd { break }
            start = end + 1
        }
        guard fields.next() == nil else { return nil }
        return (stamps, flags)
    }

    /// The text of most rows: one stamp, each field stamped with it (`0`) or not at all
    /// (empty), no history, no flags; nil for anything else, which the general walk reads
    /// (and judges). The whole-process commands read every row's text: the general walk
    /// built a table of zeros and wrote it over field by field (a fifth of a decode).
    static func decodeOneStamp<Field: StampedField>(_ bytes: UnsafeBufferPointer<UInt8>, tableEnd: Int, as: Field.Type) -> StampTable<Field>? {
        guard tableEnd > 0, !UnsafeBufferPointer(rebasing: bytes[..<tableEnd]).contains(UInt8(ascii: " ")),
              let single = stamp(UnsafeBufferPointer(rebasing: bytes[..<tableEnd])) else { return nil }
        let count = Field.fieldCount
        var values: [Stamp] = []
        values.reserveCapacity(count)
        var i = tableEnd + 1
        let end = bytes.count
        while true {
            if i < end, bytes[i] == UInt8(ascii: "0") {
                values.append(single)
                i += 1
            } else {
                values.append(.zero)
            }
            if values.count == count { return i == end ? StampTable(stamps: values) : nil }
            guard i < end, bytes[i] == UInt8(ascii: ",") else { return nil }
            i += 1
        }
    }

    static func number<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int? {
        guard !bytes.isEmpty, bytes.count < 6 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    /// A stamp in the compact form, or the long form (`…-…-replica`) for one out of its range.
    static func stamp<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Stamp? {
        if bytes.contains(UInt8(ascii: "-")) { return Stamp(encoded: String(decoding: bytes, as: UTF8.self)) }
        return Stamp(compactUTF8: bytes)
    }

    static func stamp(_ text: String) -> Stamp? { stamp(Array(text.utf8)) }
}
