#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore

/// Where each row of the `items` array sits in a file's bytes, so that the next read decodes
/// only the rows whose bytes changed, and the next write encodes only the rows that changed.
///
/// A flush changes one row of a file of thousands: decoding and encoding it all costs far more
/// than splicing the one row (docs/performance.md). A layout exists only for files
/// whose every row has the shape bananas writes (see `ListCodec.readPlainItem`) and that need
/// no repair (no problems, no `sync.deletedRows`): anything else is read and written whole.
public struct ItemLayout: Sendable {
    /// The first byte after the `[` of `items`.
    var itemsStart: Int
    /// The `]` that closes `items`.
    var itemsEnd: Int
    /// Every row in file order: its id, its sortOrder, its object's bytes.
    var ids: LayoutIDs
    var orders: [Double]
    var ranges: [Range<Int>]
    /// True when the rows are the list's visible items in list order (sortOrder, then id):
    /// what `ListCodec.encode` writes, so a re-encode may splice.
    var isListOrder: Bool
    /// True when the bytes are exactly what the encoder writes for the decoded list (it wrote
    /// them, or every row re-read since was checked): only then may a write copy them. A
    /// file from another writer (other spacing, key order, a repeated section) is not.
    var isCanonical: Bool

    /// Whether `ids` are exactly `list`'s visible items, in list order.
    static func isListOrder(ids: LayoutIDs, orders: [Double], of list: ShoppingList) -> Bool {
        let hidden = list.hiddenRowCount
        guard ids.count == list.rows.count - hidden else { return false }
        for i in ids.indices.dropFirst() {
            let a = orders[i - 1], b = orders[i]
            guard a < b || (a == b && ids[i - 1].precedesInTextOrder(ids[i])) else { return false }
        }
        if hidden > 0 {
            for id in ids where !list.isVisible(id) { return false }
        }
        return true
    }
}

/// Byte comparisons at memory speed (the generic `==` of `[UInt8]` goes a byte at a time).
enum Bytes {
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool { equal(a[...], b) }

    static func equal(_ a: ArraySlice<UInt8>, _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in a.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, a.count) == 0 } }
    }

    /// How many leading bytes `a` and `b` share.
    static func commonPrefix(_ a: [UInt8], _ b: [UInt8]) -> Int {
        let limit = min(a.count, b.count)
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in
                // Blocks first (memcmp is vectorised), then the differing block byte by byte.
                var i = 0
                let block = 4_096
                while i + block <= limit, memcmp(x.baseAddress! + i, y.baseAddress! + i, block) == 0 { i += block }
                while i < limit, x[i] == y[i] { i += 1 }
                return i
            }
        }
    }

    /// How many trailing bytes `a[..<aEnd]` and `b[..<bEnd]` share (the whole arrays by
    /// default), at most `limit`.
    static func commonSuffix(_ a: [UInt8], _ b: [UInt8], limit: Int, aEnd: Int? = nil, bEnd: Int? = nil) -> Int {
        let aEnd = aEnd ?? a.count, bEnd = bEnd ?? b.count
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in
                let block = 4_096
                var n = 0
                while n + block <= limit, memcmp(x.baseAddress! + (aEnd - n - block), y.baseAddress! + (bEnd - n - block), block) == 0 { n += block }
                while n < limit, x[aEnd - n - 1] == y[bEnd - n - 1] { n += 1 }
                return n
            }
        }
    }
}

extension ListCodec {
    /// What a file was decoded from or encoded to, to read or write the next version quickly.
    public struct Known: Sendable {
        public var bytes: [UInt8]
        public var decoded: DecodedList
        public var layout: ItemLayout

        public init(bytes: [UInt8], decoded: DecodedList, layout: ItemLayout) {
            self.bytes = bytes
            self.decoded = decoded
            self.layout = layout
        }
    }

    /// `decode(bytes)`, reading again only the rows whose bytes differ from `known`'s (when
    /// every change lies inside the `items` array and the new rows have the plain shape);
    /// otherwise a whole decode. Also returns the new file's layout, if it has one.
    public static func decode(_ bytes: [UInt8], after known: Known?, rowsOnDemand: Bool = false) throws(DecodeError) -> (DecodedList, ItemLayout?) {
        if let known, let spliced = decodeSplicing(bytes, after: known) { return spliced }
        var layout = LayoutRecorder()
        let decoded = try decode(bytes, readingItemsDirectly: true, rowsOnDemand: rowsOnDemand, layout: &layout)
        return (decoded, layout.finish(for: decoded))
    }

    // Long because the splice's steps share the old layout's offsets and the new bytes; split, each part would take them all.
    static func decodeSplicing(_ bytes: [UInt8], after known: Known) -> (DecodedList, ItemLayout)? {
        let old = known.bytes, layout = known.layout
        guard known.decoded.problems.isEmpty else { return nil }
        var prefix = Bytes.commonPrefix(old, bytes)
        if prefix == old.count && prefix == bytes.count { return (known.decoded, layout) }
        var suffix = Bytes.commonSuffix(old, bytes, limit: min(old.count, bytes.count) - prefix)
        // How far the rows' end moved; a new `written` stamp (every write's) read from the frame.
        var delta = bytes.count - old.count
        var written: Stamp?
        if old.count - suffix > layout.itemsEnd {
            // Every write gives `sync.written` a new stamp: with nothing else changed after
            // the rows, they are still spliced (the frame after them is the same but for it).
            guard let moved = writtenOnlyDiffers(bytes, after: known) else { return nil }
            (delta, written) = (moved.itemsEnd - layout.itemsEnd, moved.stamp)
            prefix = min(prefix, layout.itemsEnd, moved.itemsEnd)
            let rowsSuffix = Bytes.commonSuffix(old, bytes, limit: min(layout.itemsEnd, moved.itemsEnd) - prefix,
                                                aEnd: layout.itemsEnd, bEnd: moved.itemsEnd)
            suffix = rowsSuffix + (old.count - layout.itemsEnd)
        }
        // Every difference inside the rows: the `[` in the common prefix, the `]` in the suffix.
        guard prefix >= layout.itemsStart, old.count - suffix <= layout.itemsEnd else { return nil }
        // Rows wholly inside the common prefix or suffix are the same rows.
        var kept = 0
        while kept < layout.ranges.count, layout.ranges[kept].upperBound <= prefix { kept += 1 }
        var tail = layout.ranges.count
        while tail > kept, layout.ranges[tail - 1].lowerBound >= old.count - suffix { tail -= 1 }
        let start = kept > 0 ? layout.ranges[kept - 1].upperBound : layout.itemsStart
        let end = (tail < layout.ranges.count ? layout.ranges[tail].lowerBound : layout.itemsEnd) + delta

        // Between them: separators and rows, nothing else.
        enum Last { case start, row, comma }
        var last: Last = kept > 0 ? .row : .start
        var cursor = JSONCursor(bytes)
        cursor.index = start
        var middle: [Item] = [], middleRanges: [Range<Int>] = []
        while true {
            cursor.skipWhitespace()
            guard cursor.index < end else { break }
            if last == .row {
                guard cursor.take(UInt8(ascii: ",")) else { return nil }
                last = .comma
                continue
            }
            let rowStart = cursor.index
            guard let item = bytes.withUnsafeBufferPointer({ readPlainItem(&cursor, bytes: $0) }), cursor.index <= end else { return nil }
            middle.append(known.decoded.list.keyed(item))
            middleRanges.append(rowStart..<cursor.index)
            last = .row
        }
        guard cursor.index == end else { return nil }
        if tail < layout.ranges.count { guard last != .row else { return nil } } else { guard last != .comma else { return nil } }

        var list = known.decoded.list
        // A repeated id: the whole decode reports it.
        guard list.replaceRows(ArraySlice(layout.ids[kept..<tail]), with: middle) else { return nil }
        var next = layout
        next.ids.replaceSubrange(kept..<tail, with: middle.map(\.id))
        next.orders.replaceSubrange(kept..<tail, with: middle.map(\.sortOrder))
        next.ranges.replaceSubrange(kept..<tail, with: middleRanges)
        if delta != 0 {
            for i in (kept + middle.count)..<next.ranges.count { next.ranges[i] = (next.ranges[i].lowerBound + delta)..<(next.ranges[i].upperBound + delta) }
        }
        next.itemsEnd += delta
        next.isListOrder = ItemLayout.isListOrder(ids: next.ids, orders: next.orders, of: list)
        if layout.isCanonical {
            // The re-read stretch as the encoder would write it (see `appendItems`).
            var expected: [UInt8] = []
            var first = kept == 0
            for item in middle {
                if !first { expected.append(UInt8(ascii: ",")) }
                first = false
                newline(&expected, 2)
                appendPlainItem(item, section: list.sectionLabel(item.section), to: &expected)
            }
            if tail < layout.ranges.count {
                if !first { expected.append(UInt8(ascii: ",")) }
                newline(&expected, 2)
            } else if !first {
                newline(&expected, 1)
            }
            next.isCanonical = bytes[start..<end].elementsEqual(expected)
        }
        var decoded = known.decoded
        decoded.list = list
        if let written { decoded.list.writeMark = written }
        return (decoded, next)
    }

    /// When `bytes` are `known`'s but for the rows and the text of `sync.written` (as
    /// `encodeSplicing` replaces it, in the encoder's own form): where the rows end in `bytes`,
    /// and the new stamp. Nil for anything else.
    static func writtenOnlyDiffers(_ bytes: [UInt8], after known: Known) -> (itemsEnd: Int, stamp: Stamp)? {
        let old = known.bytes, itemsEnd = known.layout.itemsEnd
        let was = known.decoded.list.writeMark
        guard !was.isZero, let value = writtenValue(in: old, from: itemsEnd, is: was) else { return nil }
        // The same bytes after the stamp's text, and before it back to the rows' end.
        let after = old.count - value.upperBound
        guard bytes.count >= after, Bytes.commonSuffix(old, bytes, limit: after) == after else { return nil }
        let end = bytes.count - after
        guard end >= 2, bytes[end - 1] == UInt8(ascii: "\"") else { return nil }
        var start = end - 2
        while start >= 0, end - start < 80, bytes[start] != UInt8(ascii: "\"") {
            if bytes[start] == UInt8(ascii: "\\") { return nil }
            start -= 1
        }
        guard start >= 0, bytes[start] == UInt8(ascii: "\""), let stamp = Meta.stamp(bytes[(start + 1)..<(end - 1)]),
              !stamp.isZero, Array(bytes[start..<end]) == writtenText(stamp) else { return nil }
        let between = value.lowerBound - itemsEnd  // from the `]` to the stamp's text
        let newItemsEnd = start - between
        guard newItemsEnd > known.layout.itemsStart,
              old.withUnsafeBufferPointer({ x in bytes.withUnsafeBufferPointer { y in
                  memcmp(x.baseAddress! + itemsEnd, y.baseAddress! + newItemsEnd, between) == 0 } }) else { return nil }
        return (newItemsEnd, stamp)
    }

    /// `encode(list)`, copying the bytes of every row that is unchanged since `known` when only
    /// rows changed, in place (same ids, same order, same everything else); otherwise a whole
    /// encode. Also returns the new file's layout.
    public static func encode(_ list: ShoppingList, after known: Known?) -> ([UInt8], ItemLayout?) {
        if let known, let spliced = encodeSplicing(list, after: known) { return spliced }
        var layout = LayoutRecorder()
        let bytes = encode(list, layout: &layout)
        return (bytes, layout.finishEncoded(list))
    }

    // Long because the splice's steps share the old layout's offsets and the new buffer; split, each part would take them all.
    static func encodeSplicing(_ list: ShoppingList, after known: Known) -> ([UInt8], ItemLayout)? {
        let old = known.decoded.list, layout = known.layout
        guard layout.isListOrder, layout.isCanonical, known.decoded.schemaVersion == currentSchemaVersion,
              list.rows.count >= old.rows.count, !layout.ids.isEmpty, list.unreadableRows.isEmpty, old.unreadableRows.isEmpty,
              list.tombstones == old.tombstones, list.sectionEntries == old.sectionEntries || !list.hasRenamedSections && !old.hasRenamedSections
        else { return nil }
        // The sections and other keys are written again around the spliced items (an `add`
        // into a new section); the same tombstones keep which rows show, and where.
        let sameOtherKeys = list.sectionEntries == old.sectionEntries && list.conflicts == old.conflicts
            && list.conflictFolds == old.conflictFolds
            && list.memory == old.memory && list.extra == old.extra && list.syncExtra == old.syncExtra
        let sameFrame = sameOtherKeys && list.writeMark == old.writeMark
        // Deleted rows are written under `sync`: they must be the same rows.
        if !list.tombstones.isEmpty {
            for (id, row) in list.rows where list.tombstone(for: id) != nil && row != old.rows[id] { return nil }
        }
        // The rows that changed and those added, found by walking both tables side by side
        // where they pair up (no hash of every id).
        var added: [String] = []
        let differing = ShoppingList.differingRowIDs(list.rows, old.rows, added: &added)
        if differing == nil {
            // Tables that do not pair up: every row there was must still be here. A deleted
            // row let go in the write that adds one keeps the count, and the add would be lost.
            var kept = true
            old.rows.forEachRow { row in if kept, list.rows[row.id] == nil { kept = false } }
            guard kept else { return nil }
        }
        // New rows after every row there was (an add): written after the last one.
        var appended: [Item] = []
        if list.rows.count > old.rows.count {
            let newIDs = differing != nil ? added : list.rows.keys.filter { old.rows[$0] == nil }
            for id in newIDs {
                guard let item = list.rows[id], item.extra.isEmpty, list.isVisible(id) else { return nil }
                appended.append(item)
            }
            appended.sort(by: Item.listOrder)
            let lastOrder = layout.orders[layout.orders.count - 1], lastID = layout.ids[layout.ids.count - 1]
            guard let first = appended.first, first.sortOrder > lastOrder || (first.sortOrder == lastOrder && lastID.precedesInTextOrder(first.id)) else { return nil }
        }
        var changed: [(index: Int, item: Item)] = []
        if let ids = differing, ids.count <= 32 {
            // A few rows changed (a flush): find them in the layout by a scan, not by hashing
            // every id of the list twice.
            for id in ids {
                guard let i = layout.ids.firstIndex(of: id), let item = list.rows[id], let before = old.rows[id],
                      item.sortOrder == before.sortOrder, item.extra.isEmpty, list.isVisible(id) else { return nil }
                changed.append((i, item))
            }
            changed.sort { $0.index < $1.index }
        } else {
            for (i, id) in layout.ids.enumerated() {
                guard let item = list.rows[id], let before = old.rows[id] else { return nil }
                if item == before { continue }
                guard item.sortOrder == before.sortOrder, item.extra.isEmpty, list.isVisible(id) else { return nil }
                changed.append((i, item))
            }
        }
        // The same rows in the same order (`rows.count` equal, every id present): splice.
        // Written once into a buffer of about the final size: a buffer that grows, and a
        // second copy for a new frame, are megabytes of fresh memory to fault in.
        // The old frame is kept when nothing around the items changed but the write's own
        // mark, whose text is then replaced where the encoder wrote it (a fifth of a flush at
        // 10,000 items was encoding the frame again); otherwise a new frame is written.
        let oldMark = sameFrame || !sameOtherKeys || old.writeMark.isZero || list.writeMark.isZero ? nil
            : writtenValue(in: known.bytes, from: layout.itemsEnd, is: old.writeMark)
        let framing = sameFrame || oldMark != nil ? nil : frame(list)
        var out: [UInt8] = []
        out.reserveCapacity(known.bytes.count + (changed.count + appended.count) * 512
                            + (framing.map { $0.prefix.count + $0.suffix.count } ?? 0))
        var next = layout
        var copied = 0, shift = 0, changedIndex = 0
        if let framing {
            out.append(contentsOf: framing.prefix)
            copied = layout.itemsStart
            shift = framing.prefix.count - layout.itemsStart
            next.itemsStart += shift
        }
        known.bytes.withUnsafeBufferPointer { source in
            for (i, item) in changed {
                let range = layout.ranges[i]
                out.append(contentsOf: UnsafeBufferPointer(rebasing: source[copied..<range.lowerBound]))
                let start = out.count
                appendPlainItem(item, section: list.sectionLabel(item.section), to: &out)
                copied = range.upperBound
                // Rows up to this one move by the shift so far; this one may change length.
                while changedIndex < i { next.ranges[changedIndex] = next.ranges[changedIndex].lowerBound + shift..<next.ranges[changedIndex].upperBound + shift; changedIndex += 1 }
                next.ranges[i] = start..<out.count
                shift += (out.count - start) - range.count
                changedIndex = i + 1
            }
            if shift != 0 {
                for i in changedIndex..<next.ranges.count { next.ranges[i] = next.ranges[i].lowerBound + shift..<next.ranges[i].upperBound + shift }
            }
            if !appended.isEmpty {
                let end = layout.ranges[layout.ranges.count - 1].upperBound
                out.append(contentsOf: UnsafeBufferPointer(rebasing: source[copied..<end]))
                copied = end
                let before = out.count
                for item in appended {
                    out.append(UInt8(ascii: ","))
                    newline(&out, 2)
                    let start = out.count
                    appendPlainItem(item, section: list.sectionLabel(item.section), to: &out)
                    next.ids.append(item.id)
                    next.orders.append(item.sortOrder)
                    next.ranges.append(start..<out.count)
                }
                shift += out.count - before
            }
            if let framing {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: source[copied..<layout.itemsEnd]))
                out.append(contentsOf: framing.suffix)
            } else {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: source[copied...]))
            }
        }
        next.itemsEnd += shift
        if let oldMark { out.replaceSubrange(oldMark.lowerBound + shift..<oldMark.upperBound + shift, with: writtenText(list.writeMark)) }
        return (out, next)
    }
}

extension ListCodec {
    /// The `written` stamp's text as the encoder writes it, quotes included.
    static func writtenText(_ stamp: Stamp) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONText.appendString(stamp.compact ?? stamp.encoded, to: &bytes)
        return bytes
    }

    /// Where the value of the first `"written"` key after `from` lies, when it is `stamp`'s
    /// text (`writtenText`).
    static func writtenValue(in bytes: [UInt8], from: Int, is stamp: Stamp) -> Range<Int>? {
        let key = Array("\"written\": ".utf8), was = writtenText(stamp)
        guard from < bytes.count else { return nil }
        let found: Int? = bytes.withUnsafeBufferPointer { buffer in
            var i = from
            while i + key.count <= buffer.count {
                if buffer[i] == key[0], memcmp(buffer.baseAddress! + i, key, key.count) == 0 { return i + key.count }
                i += 1
            }
            return nil
        }
        guard let start = found, start + was.count <= bytes.count,
              bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress! + start, was, was.count) == 0 }) else { return nil }
        return start..<(start + was.count)
    }
}

/// Collects row positions while a file is decoded or encoded.
/// The ids of a layout's rows in file order: Strings, or (a file read with its rows left in
/// its bytes) that file's first rows, whose ids are made only when asked for, then Strings of
/// the rows written after them.
struct LayoutIDs: RandomAccessCollection, Sendable {
    private var file: FileRowTable?
    private var fileCount = 0
    private var strings: [String] = []

    init() {}

    init(_ strings: [String]) { self.strings = strings }

    init(file: FileRowTable, count: Int) {
        self.file = file
        fileCount = count
    }

    var startIndex: Int { 0 }
    var endIndex: Int { fileCount + strings.count }

    subscript(index: Int) -> String { index < fileCount ? file!.id(at: index) : strings[index - fileCount] }

    /// Where `id` is, by the file's index of ids where there is one (no scan).
    func firstIndex(of id: String) -> Int? {
        if let file, let index = file.index(of: id), index < fileCount { return index }
        return strings.firstIndex(of: id).map { $0 + fileCount }
    }

    mutating func append(_ id: String) { strings.append(id) }

    mutating func reserveCapacity(_ count: Int) { strings.reserveCapacity(count) }

    mutating func removeAll() { self = LayoutIDs() }

    mutating func replaceSubrange(_ range: Range<Int>, with ids: [String]) {
        var all = Array(self)
        all.replaceSubrange(range, with: ids)
        self = LayoutIDs(all)
    }
}

struct LayoutRecorder {
    var itemsStart = -1
    var itemsEnd = -1
    var ids = LayoutIDs()
    /// The rows' ids are the ids of the rows of the file read on demand (`RowTable.fileRows`),
    /// in the same order: not made per row.
    var idsFromFile = false
    var orders: [Double] = []
    var ranges: [Range<Int>] = []
    /// Rows from `sync.deletedRows` (hidden by a delete) that joined the list.
    var hiddenRows = 0
    /// False once a row without the plain shape (or a second `items`) was seen.
    var usable = true

    mutating func reserveCapacity(_ rows: Int) {
        ids.reserveCapacity(rows)
        orders.reserveCapacity(rows)
        ranges.reserveCapacity(rows)
    }

    mutating func row(_ item: Item, _ range: Range<Int>) {
        row(id: item.id, order: item.sortOrder, range)
    }

    mutating func row(id: String?, order: Double, _ range: Range<Int>) {
        if !idsFromFile, let id { ids.append(id) }
        orders.append(order)
        ranges.append(range)
    }

    func finish(for decoded: DecodedList) -> ItemLayout? {
        guard usable, itemsStart >= 0, itemsEnd >= itemsStart, decoded.problems.isEmpty,
              decoded.list.unreadableRows.isEmpty, orders.count + hiddenRows == decoded.list.rows.count else { return nil }
        var ids = ids
        if idsFromFile {
            // Every row of `items` went into the file's table in order, none repeated (no problems).
            guard let file = decoded.list.rows.fileRows, file.count >= orders.count else { return nil }
            ids = LayoutIDs(file: file, count: orders.count)
        }
        return ItemLayout(itemsStart: itemsStart, itemsEnd: itemsEnd, ids: ids, orders: orders, ranges: ranges,
                          isListOrder: ItemLayout.isListOrder(ids: ids, orders: orders, of: decoded.list), isCanonical: false)
    }

    func finishEncoded(_ list: ShoppingList) -> ItemLayout? {
        guard usable, itemsStart >= 0, itemsEnd >= itemsStart, list.unreadableRows.isEmpty else { return nil }
        // The encoder writes the visible items in list order (hidden rows go under `sync`).
        return ItemLayout(itemsStart: itemsStart, itemsEnd: itemsEnd, ids: ids, orders: orders, ranges: ranges, isListOrder: true, isCanonical: true)
    }
}
