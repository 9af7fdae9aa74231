/// A stamp orders edits: wall-clock milliseconds, a counter for edits within the same
/// millisecond, and the id of the replica that made it (a hybrid logical clock).
///
/// The text form is fixed-width (`0001763720130123-000000-replica`) so that comparing two
/// stamps as strings compares them as tuples; other implementations can merge with plain
/// string comparison.
public struct Stamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let millis: Int64
    public let counter: Int
    public let replica: String

    /// The stamp of a value nobody stamped (a foreign writer, a version-1 file). Every real
    /// stamp is greater.
    public static let zero = Stamp(millis: 0, counter: 0, replica: "")

    static let millisDigits = 16
    static let counterDigits = 6
    static let maxCounter = 999_999

    public init(millis: Int64, counter: Int, replica: String) {
        self.millis = millis
        self.counter = counter
        self.replica = replica
    }

    public var isZero: Bool { self == .zero }

    /// The encoded form, e.g. `0001763720130123-000007-3f9a1c2e`.
    public var encoded: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Stamp.millisDigits + Stamp.counterDigits + 2 + replica.utf8.count)
        appendEncoded(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the encoded form's UTF-8 bytes (a file holds six stamps per item, written at
    /// every flush: no strings on the way).
    public func appendEncoded(to out: inout [UInt8]) {
        guard millis >= 0, millis < 10_000_000_000_000_000, counter >= 0, counter <= Stamp.maxCounter else {
            // Out of range (never made by a clock): as text, as before.
            out.append(contentsOf: (zeroPadded(millis, Stamp.millisDigits) + "-" + zeroPadded(Int64(counter), Stamp.counterDigits) + "-").utf8)
            var replica = replica
            replica.withUTF8 { out.append(contentsOf: $0) }
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Stamp.millisDigits + Stamp.counterDigits + 2) { digits in
            var rest = millis
            for at in stride(from: Stamp.millisDigits - 1, through: 0, by: -1) {
                digits[at] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            digits[Stamp.millisDigits] = UInt8(ascii: "-")
            var counterRest = counter
            for at in stride(from: Stamp.millisDigits + Stamp.counterDigits, through: Stamp.millisDigits + 1, by: -1) {
                digits[at] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: counterRest % 10)
                counterRest /= 10
            }
            digits[Stamp.millisDigits + Stamp.counterDigits + 1] = UInt8(ascii: "-")
            out.append(contentsOf: UnsafeBufferPointer(digits))
        }
        var replica = replica
        replica.withUTF8 { out.append(contentsOf: $0) }
    }

    public var description: String { encoded }

    /// Parses the encoded form; anything malformed is `nil` (callers treat it as unstamped).
    public init?(encoded text: String) {
        // Byte by byte: a file holds six stamps per item, read at every change.
        var text = text
        guard let parsed = text.withUTF8({ Stamp.parse($0) }) else { return nil }
        self = parsed
    }

    /// Parses the encoded form from its UTF-8 bytes (a reader walking a file's bytes makes no
    /// String for a stamp); anything malformed is `nil`.
    public init?(encodedUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        guard let parsed = Stamp.parse(bytes) else { return nil }
        self = parsed
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Stamp? {
        let counterStart = millisDigits + 1, replicaStart = millisDigits + counterDigits + 2
        guard bytes.count > replicaStart, bytes.count - replicaStart <= 32 else { return nil }
        let base = bytes.startIndex
        func number(_ from: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for offset in from..<(from + count) {
                let byte = bytes[base + offset]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard bytes[base + millisDigits] == UInt8(ascii: "-"), bytes[base + counterStart + counterDigits] == UInt8(ascii: "-"),
              let millis = number(0, millisDigits), let counter = number(counterStart, counterDigits)
        else { return nil }
        for offset in replicaStart..<bytes.count {
            let byte = bytes[base + offset]
            guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7A) else { return nil }
        }
        let replica = String(decoding: bytes[(base + replicaStart)...], as: UTF8.self)
        return Stamp(millis: millis, counter: Int(counter), replica: replica)
    }

    public static func < (lhs: Stamp, rhs: Stamp) -> Bool {
        if lhs.millis != rhs.millis { return lhs.millis < rhs.millis }
        if lhs.counter != rhs.counter { return lhs.counter < rhs.counter }
        return lhs.replica < rhs.replica
    }
}

extension Stamp {
    /// The stamp for the changes a writer that keeps no stamps made in a file (the Get
    /// Bananas server, a text editor): the time the file was written (`writtenAtNanos`, its
    /// mtime in nanoseconds: milliseconds, and the nanoseconds within the millisecond as the
    /// counter, so two writes in one millisecond keep their order), or just after `seen`, the
    /// newest stamp in the file and the base, if that is later (the edit replaced those values
    /// and must beat them) or if the file's time is unknown. Its replica is derived from the
    /// file's content hash, so every instance that reads these bytes makes the same stamp.
    ///
    /// Not the time an instance happens to read the file: an instance that read a writer's
    /// first change late (waiting for the lock, or not scheduled) stamped it after another
    /// instance had stamped the same writer's next change to that row, and the older value
    /// won (the reliability test's lost checks); and two instances gave one change two stamps,
    /// ordering it differently against an edit made between them.
    public static func foreignEdit(writtenAtNanos: Int64?, after seen: Stamp, content: UInt64) -> Stamp {
        let replica = "f" + hex(content, digits: 16)
        if let nanos = writtenAtNanos, nanos >= 0 {
            let written = Stamp(millis: nanos / 1_000_000, counter: Int(nanos % 1_000_000), replica: replica)
            if (written.millis, written.counter) > (seen.millis, seen.counter) { return written }
        }
        if seen.counter < Stamp.maxCounter { return Stamp(millis: seen.millis, counter: seen.counter + 1, replica: replica) }
        return Stamp(millis: seen.millis + 1, counter: 0, replica: replica)
    }
}

/// Replica ids: 1 to 32 lowercase ASCII letters or digits.
public enum ReplicaID {
    public static func isValid(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            !bytes.isEmpty && bytes.count <= 32 && !bytes.contains { !(($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A)) }
        }
    }

    /// A fresh random replica id (12 lowercase hex digits).
    public static func random<R: RandomNumberGenerator>(using rng: inout R) -> String {
        let value = UInt64.random(in: 0...UInt64(0xFFFF_FFFF_FFFF), using: &rng)
        return hex(value, digits: 12)
    }

    /// The replica of an edit stamped past a value ahead of its clock (`Stamp.edit`): `p` and
    /// 16 hex digits of a hash of the edit's stamp and the stamp it passes, one per edit.
    public static func passing(_ replaced: Stamp, by stamp: Stamp) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (stamp.encoded + " " + replaced.encoded).utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return "p" + hex(hash, digits: 16)
    }

    public static func random() -> String {
        var rng = SystemRandomNumberGenerator()
        return random(using: &rng)
    }
}

/// The per-replica clock that makes stamps. It never runs backwards and never jumps more
/// than `maxForwardJump` ahead of wall-clock time because of a stamp it observed. Time is
/// passed in, so the clock itself is pure.
public struct StampClock: Sendable {
    public let replica: String
    public private(set) var last: Stamp
    /// The largest observed lead of a stamp over our wall clock, in ms (0 when none).
    public private(set) var largestSkewSeen: Int64 = 0

    public static let maxForwardJump: Int64 = 60_000

    public init(replica: String) {
        self.replica = replica
        self.last = Stamp(millis: 0, counter: 0, replica: replica)
    }

    /// A new stamp greater than every stamp this clock made or accepted.
    public mutating func next(now: Int64) -> Stamp {
        var millis = max(now, last.millis)
        var counter = millis == last.millis ? last.counter + 1 : 0
        if counter > Stamp.maxCounter {
            millis += 1
            counter = 0
        }
        last = Stamp(millis: millis, counter: counter, replica: replica)
        return last
    }

    /// False when no stamp this clock made or observed can be ahead of `now`: it never saw one
    /// lead by more than a second (a lead over a minute is never taken in whole), and none
    /// it took is ahead now. Then a list whose every stamp it observed has none ahead either,
    /// and nothing need look for one in it.
    public func mayHaveSeenStamp(aheadOf now: Int64) -> Bool {
        last.millis > now || largestSkewSeen > 0
    }

    /// Moves the clock past a stamp seen in the file, so our next edit orders after it.
    /// A stamp more than a minute ahead of `now` only moves us a minute ahead, and is
    /// remembered as skew so the user can be warned.
    public mutating func observe(_ stamp: Stamp, now: Int64) {
        guard !stamp.isZero else { return }
        let lead = stamp.millis - now
        if lead > 1_000 { largestSkewSeen = max(largestSkewSeen, lead) }
        let ceiling = now + StampClock.maxForwardJump
        let accepted = stamp.millis > ceiling
            ? (millis: ceiling, counter: 0)
            : (millis: stamp.millis, counter: stamp.counter)
        if (accepted.millis, accepted.counter) > (last.millis, last.counter) {
            last = Stamp(millis: accepted.millis, counter: accepted.counter, replica: replica)
        }
    }
}

func zeroPadded(_ value: Int64, _ digits: Int) -> String {
    let text = String(value)
    return text.count >= digits ? text : String(repeating: "0", count: digits - text.count) + text
}

/// A hexadecimal number of up to 16 digits, either case, as `UInt64(_:radix: 16)` reads it,
/// read from its bytes; nil for anything else.
public func hexNumber<Bytes: Collection<UInt8>>(_ word: Bytes) -> UInt64? {
    guard !word.isEmpty, word.count <= 16 else { return nil }
    var value: UInt64 = 0
    for byte in word {
        let digit: UInt8
        switch byte {
        case 0x30...0x39: digit = byte - 0x30
        case 0x61...0x66: digit = byte - 0x61 + 10
        case 0x41...0x46: digit = byte - 0x41 + 10
        default: return nil
        }
        value = value << 4 | UInt64(digit)
    }
    return value
}

func hex(_ value: UInt64, digits: Int) -> String {
    let text = String(value, radix: 16)
    return text.count >= digits ? text : String(repeating: "0", count: digits - text.count) + text
}

extension Stamp {
    /// The stamp for an edit made with the clock's `stamp` that replaces a value stamped
    /// `replaced`: whichever is greater of the two, the clock's stamp or the one just after
    /// `replaced` (with the editor's replica). An edit always beats the value its author saw,
    /// however far ahead the clock that stamped that value ran (the merge contract, rule 1).
    ///
    /// Such a stamp is ahead of the clock that made it, so its replica is one of its own (derived
    /// from the edit's stamp and the one it passes): the replica's own stamps stay in the order
    /// its clock made them, which is what a delete's `Knowledge` relies on.
    public static func edit(_ stamp: Stamp, replacing replaced: Stamp) -> Stamp {
        guard replaced >= stamp else { return stamp }
        let replica = ReplicaID.passing(replaced, by: stamp)
        if replaced.counter < Stamp.maxCounter {
            return Stamp(millis: replaced.millis, counter: replaced.counter + 1, replica: replica)
        }
        return Stamp(millis: replaced.millis + 1, counter: 0, replica: replica)
    }

    /// The start of its day (UTC), no counter, no replica: what the memory keeps of when an
    /// item was bought or last used (two purchases in one day count once).
    public var day: Stamp {
        let start = millis - ((millis % Self.dayMillis) + Self.dayMillis) % Self.dayMillis
        return start == millis && counter == 0 && replica.isEmpty ? self : Stamp(millis: start, counter: 0, replica: "")
    }

    public static let dayMillis: Int64 = 86_400_000

    /// How far this stamp's time is ahead of `now`, in ms (0 when it is not).
    public func lead(over now: Int64) -> Int64 { max(0, millis - now) }
}

// MARK: The compact text form (schema version 3)

extension Stamp {
    public static let compactMillisDigits = 10
    public static let compactCounterDigits = 4

    /// The compact form: milliseconds in 10 base-36 digits, the counter in 4, then the replica
    /// (`0mi4x0b9a40000` + `9d4dbd8e90d0`). Fixed-width digits in ASCII order, so comparing two
    /// compact stamps as strings still compares them as tuples. Nil when out of range.
    public func appendCompact(to out: inout [UInt8], replica withReplica: Bool = true) -> Bool {
        guard millis >= 0, millis < 3_656_158_440_062_976 /* 36^10 */, counter >= 0, counter < 1_679_616 /* 36^4 */ else { return false }
        // Digits in a buffer on the stack: the codec writes a stamp per field of every row.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.compactMillisDigits + Self.compactCounterDigits) { digits in
            func digit(_ value: Int) -> UInt8 { value < 10 ? UInt8(ascii: "0") &+ UInt8(value) : UInt8(ascii: "a") &+ UInt8(value - 10) }
            var rest = millis
            for at in stride(from: Self.compactMillisDigits - 1, through: 0, by: -1) {
                digits[at] = digit(Int(rest % 36))
                rest /= 36
            }
            var counterRest = counter
            for at in stride(from: digits.count - 1, through: Self.compactMillisDigits, by: -1) {
                digits[at] = digit(counterRest % 36)
                counterRest /= 36
            }
            out.append(contentsOf: UnsafeBufferPointer(digits))
        }
        guard withReplica else { return true }
        var replica = replica
        replica.withUTF8 { out.append(contentsOf: $0) }
        return true
    }

    public var compact: String? {
        var bytes: [UInt8] = []
        return appendCompact(to: &bytes) ? String(decoding: bytes, as: UTF8.self) : nil
    }

    /// Parses the compact form; nil when malformed. Inlinable: the codec (another module)
    /// parses a stamp per field of every row, and the generic form unspecialized goes through
    /// `Slice` witnesses at every byte.
    @inlinable
    public init?<Bytes: Collection<UInt8>>(compactUTF8 bytes: Bytes) {
        let fixed = Stamp.compactMillisDigits + Stamp.compactCounterDigits
        guard bytes.count > fixed, bytes.count - fixed <= 32 else { return nil }
        func digit(_ byte: UInt8) -> Int64? {
            switch byte {
            case 0x30...0x39: Int64(byte - 0x30)
            case 0x61...0x7A: Int64(byte - 0x61 + 10)
            default: nil
            }
        }
        var millis: Int64 = 0, counter: Int64 = 0
        var index = bytes.startIndex
        for position in 0..<fixed {
            guard let value = digit(bytes[index]) else { return nil }
            if position < Stamp.compactMillisDigits { millis = millis * 36 + value } else { counter = counter * 36 + value }
            index = bytes.index(after: index)
        }
        let replica = bytes[index...]
        guard replica.allSatisfy({ digit($0) != nil }) else { return nil }
        self.init(millis: millis, counter: Int(counter), replica: String(decoding: replica, as: UTF8.self))
    }
}
