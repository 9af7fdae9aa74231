/// When this device first saw each delete the list holds (the state folder's `deletes-seen`):
/// a delete's row, its name and the delete itself expire counting from here
/// (`ShoppingList.collectGarbage`), never from a stamp or a date a file claims, so a delete
/// made by a device whose clock is far behind is kept its whole window here.
public struct DeleteSightings: Hashable, Sendable {
    public var byKey: [UInt64: Sighting]

    public struct Sighting: Hashable, Sendable {
        /// `Tombstone.hidden`: a later version deleted (after a restore or an edit) is a new
        /// delete, seen anew. Nil in a file written before sightings kept it.
        public var hidden: Stamp?
        public var firstSeen: Int64

        public init(hidden: Stamp?, firstSeen: Int64) {
            self.hidden = hidden
            self.firstSeen = firstSeen
        }

        /// When this device first saw the delete hiding the version `hiding`; nil when this
        /// sighting was of another version.
        public func firstSeen(hiding: Stamp) -> Int64? {
            hidden == nil || hidden == hiding ? firstSeen : nil
        }
    }

    public init(_ byKey: [UInt64: Sighting] = [:]) { self.byKey = byKey }

    /// When this device first saw the delete kept under `key`, hiding `hidden`.
    public func firstSeen(_ key: UInt64, hiding hidden: Stamp) -> Int64? { byKey[key]?.firstSeen(hiding: hidden) }

    /// These sightings, with `now` for each delete of `list` not seen before (or seen hiding
    /// another version), and none for deletes the list no longer holds.
    public func updated(with list: ShoppingList, now: Int64) -> DeleteSightings {
        var result = byKey
        for (key, tombstone) in list.tombstones {
            let sighting = byKey[key]
            if let sighting, sighting.hidden == tombstone.hidden { continue }
            result[key] = Sighting(hidden: tombstone.hidden, firstSeen: sighting?.firstSeen(hiding: tombstone.hidden) ?? now)
        }
        if result.count != list.tombstones.count { result = result.filter { list.tombstones[$0.key] != nil } }
        return DeleteSightings(result)
    }

    private static let header = Array("bananas deletes-seen 1\n".utf8)

    /// A line per group first seen together, `firstSeen hidden key key …` (hidden: the compact
    /// stamp of the version the delete hides, `0` for an unstamped one, `-` for none known;
    /// keys in 16 hex digits).
    public var encoded: [UInt8] {
        var groups: [Sighting: [UInt64]] = [:]
        for (key, sighting) in byKey { groups[sighting, default: []].append(key) }
        var out = Self.header
        for (sighting, keys) in groups.map({ ($0.key, $0.value.sorted()) }).sorted(by: { $0.1[0] < $1.1[0] }) {
            out.append(contentsOf: String(sighting.firstSeen).utf8)
            out.append(contentsOf: " \(sighting.hidden.map { $0.isZero ? "0" : ($0.compact ?? $0.encoded) } ?? "-")".utf8)
            for key in keys {
                out.append(UInt8(ascii: " "))
                out.append(contentsOf: hex(key, digits: 16).utf8)
            }
            out.append(UInt8(ascii: "\n"))
        }
        return out
    }

    /// The sightings `encoded` wrote; nil when these bytes are not such a file.
    public init?(encoded bytes: [UInt8]) {
        guard bytes.starts(with: Self.header) else { return nil }
        var result: [UInt64: Sighting] = [:]
        for line in bytes[Self.header.count...].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast() {
            let words = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
            guard words.count >= 2, let seen = Int64(String(decoding: words[0], as: UTF8.self)) else { return nil }
            var hidden: Stamp?
            switch Array(words[1]) {
            case Array("-".utf8): hidden = nil
            case Array("0".utf8): hidden = .zero
            case let text:
                guard let stamp = text.contains(UInt8(ascii: "-")) ? Stamp(encoded: String(decoding: text, as: UTF8.self))
                    : Stamp(compactUTF8: text) else { return nil }
                hidden = stamp
            }
            for word in words.dropFirst(2) {
                guard word.count == 16, let key = hexNumber(word) else { return nil }
                result[key] = Sighting(hidden: hidden, firstSeen: seen)
            }
        }
        guard bytes.last == UInt8(ascii: "\n") || bytes.count == Self.header.count else { return nil }
        self.init(result)
    }
}
