/// The newest states of a published history, one line each, appended by each write, so a
/// write reads and writes only what it adds; the history's file (`encoded`) is rewritten
/// only now and then, folding the log into it (docs/sync.md, "The published history"):
///
///     {"log": 1, "head": [number, "hash", "kind", "mark", firstSeen], "oldest": firstSeen}
///     [number, "hash", "kind", "mark", firstSeen, {"id": row | null, ...}, {"key": section | null, ...}]
///     ...
///
/// The first line names the history file's head when the log began, and when its oldest
/// state was first seen here; each line after it is one `Publication`, rows and sections as
/// the history file writes them.
public struct HistoryLog: Sendable {
    public static let formatVersion = 1

    /// The history file's head when the log began.
    public var folded: PublishedHistory.State
    /// When the oldest state in the history file was first seen here.
    public var oldest: Int64
    /// The newest state: the last whole line's, or `folded`.
    public var head: PublishedHistory.State
    /// Bytes up to the end of the last whole line. A line cut short (a crash while
    /// appending) is not part of the log, and the next line is written over it.
    public var length: Int

    /// The first and last lines of a log, without reading the lines between; nil when the
    /// first line is not a log's (damaged, or a newer format).
    public init?(summarizing bytes: [UInt8]) {
        guard let end = bytes.lastIndex(of: UInt8(ascii: "\n")),
              let firstEnd = bytes.firstIndex(of: UInt8(ascii: "\n")),
              case .object(let top)? = try? JSONText.parse(Array(bytes[..<firstEnd])),
              top["log"]?.doubleValue == Double(Self.formatVersion),
              let head = top["head"].flatMap(PublishedHistory.state), let oldest = PublishedHistory.int64(top["oldest"]) else { return nil }
        folded = head
        self.oldest = oldest
        self.head = head
        length = end + 1
        if firstEnd < end {
            let lastStart = bytes[..<end].lastIndex(of: UInt8(ascii: "\n"))! + 1
            guard let last = Self.publication(Array(bytes[lastStart..<end])) else { return nil }
            self.head = last.state
        }
    }

    /// The log's first line.
    public static func header(folded head: PublishedHistory.State, oldest: Int64) -> [UInt8] {
        var out = HistoryWriter()
        out.raw("{\"log\": \(formatVersion), \"head\": ")
        out.state(head)
        out.raw(", \"oldest\": \(oldest)}\n")
        return out.bytes
    }

    /// One publication's line.
    public static func line(_ publication: PublishedHistory.Publication) -> [UInt8] {
        var out = HistoryWriter()
        out.state(publication.state)
        out.bytes.removeLast()
        out.raw(", ")
        out.changes(publication.rows) { $0.row($1) }
        out.raw(", ")
        out.changes(publication.sections) { $0.section($1) }
        out.raw("]\n")
        return out.bytes
    }

    /// Every publication in a log's whole lines, in order, up to the first that does not read.
    public static func publications(in bytes: [UInt8]) -> [PublishedHistory.Publication] {
        var result: [PublishedHistory.Publication] = []
        var start = (bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count) + 1
        while start < bytes.count, let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            guard let publication = publication(Array(bytes[start..<end])) else { break }
            result.append(publication)
            start = end + 1
        }
        return result
    }

    static func publication(_ line: [UInt8]) -> PublishedHistory.Publication? {
        guard case .array(let fields)? = try? JSONText.parse(line), fields.count == 7,
              let state = PublishedHistory.state(.array(Array(fields[0..<5]))),
              let rows = fields[5].objectValue, let sections = fields[6].objectValue else { return nil }
        var result = PublishedHistory.Publication(state: state)
        for (id, value) in rows {
            guard let one = PublishedHistory.value(value, { PublishedHistory.row(id, $0) }) else { return nil }
            result.rows[id] = one
        }
        for (key, value) in sections {
            guard let one = PublishedHistory.value(value, { PublishedHistory.section(key, $0) }) else { return nil }
            result.sections[key] = one
        }
        return result
    }
}

extension PublishedHistory {
    /// Adds the publications after this history's head (those it holds are skipped). At a
    /// gap (a log begun after a history file newer than this one) the rest is left out: a
    /// history without its newest states only proves less.
    public mutating func apply(_ publications: [Publication]) {
        for publication in publications where publication.state.number >= nextNumber {
            guard publication.state.number == nextNumber else { return }
            apply(publication)
        }
    }

    /// When this device first saw each delete, as the state folder's `deletes-seen` holds it:
    /// a line per group first seen together, `firstSeen hidden key key …` (hidden: the
    /// compact stamp of the version the delete hides, `0` for an unstamped one, `-` for none
    /// known; keys in 16 hex digits).
    public static func encoded(sightings seen: [UInt64: DeleteSighting]) -> [UInt8] {
        var out = Array("bananas deletes-seen 1\n".utf8)
        for (sighting, keys) in groups(seen) {
            out.append(contentsOf: String(sighting.firstSeen).utf8)
            out.append(contentsOf: " \(sighting.hidden.map { $0.isZero ? "0" : text($0) } ?? "-")".utf8)
            for key in keys {
                out.append(UInt8(ascii: " "))
                out.append(contentsOf: hex(key, digits: 16).utf8)
            }
            out.append(UInt8(ascii: "\n"))
        }
        return out
    }

    /// The sightings `encoded(sightings:)` wrote; nil when these bytes are not such a file.
    public static func sightings(encoded bytes: [UInt8]) -> [UInt64: DeleteSighting]? {
        let header = Array("bananas deletes-seen 1\n".utf8)
        guard bytes.starts(with: header) else { return nil }
        var result: [UInt64: DeleteSighting] = [:]
        result.reserveCapacity(bytes.count / 17)  // a key and its space
        return bytes.withUnsafeBufferPointer { all -> [UInt64: DeleteSighting]? in
            var at = header.count
            // The next word of the line, and whether the line goes on after it.
            func word() -> UnsafeBufferPointer<UInt8>? {
                let start = at
                while at < all.count, all[at] != UInt8(ascii: " "), all[at] != UInt8(ascii: "\n") { at += 1 }
                guard at > start else { return nil }
                return UnsafeBufferPointer(rebasing: all[start..<at])
            }
            while at < all.count {
                guard let seenWord = word(), let seen = Int64(String(decoding: seenWord, as: UTF8.self)),
                      at < all.count, all[at] == UInt8(ascii: " ") else { return nil }
                at += 1
                guard let hiddenWord = word() else { return nil }
                var hidden: Stamp?
                if !hiddenWord.elementsEqual("-".utf8) {
                    guard let one = stamp(hiddenWord) else { return nil }
                    hidden = one
                }
                while at < all.count, all[at] == UInt8(ascii: " ") {
                    at += 1
                    guard let word = word(), word.count == 16, let key = hexNumber(word) else { return nil }
                    result[key] = DeleteSighting(hidden: hidden, firstSeen: seen)
                }
                guard at < all.count, all[at] == UInt8(ascii: "\n") else { return nil }
                at += 1
            }
            return result
        }
    }
}
