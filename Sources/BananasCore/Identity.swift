/// Ids and timestamps, made without Foundation so the core stays free of I/O.
public enum ItemID {
    /// A random (version 4) UUID in upper case, as Get Bananas writes them.
    public static func random<R: RandomNumberGenerator>(using rng: inout R) -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return format(bytes)
    }

    public static func random() -> String {
        var rng = SystemRandomNumberGenerator()
        return random(using: &rng)
    }

    /// A UUID derived from `seed` text (stable across reads), for rows that come without a
    /// usable id: every read of the same file gives them the same id.
    public static func derived(from seed: String) -> String {
        // Two FNV-1a passes with different offsets give 128 bits.
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in seed.utf8 {
            a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
            b = (b ^ UInt64(byte)) &* 0x100_0000_01b3 &+ 0x9E37_79B9
        }
        var bytes = (0..<8).map { UInt8(truncatingIfNeeded: a >> (8 * $0)) } + (0..<8).map { UInt8(truncatingIfNeeded: b >> (8 * $0)) }
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return format(bytes)
    }

    /// True for the 8-4-4-4-12 hex form (either case).
    public static func isUUID(_ text: String) -> Bool {
        // Read at every row of every decode: no copies.
        guard text.utf8.count == 36 else { return false }
        var i = 0
        for c in text.utf8 {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if c != UInt8(ascii: "-") { return false }
            } else if !((c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)) {
                return false
            }
            i += 1
        }
        return true
    }

    static func format(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF")
        var out = ""
        for (i, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(i) { out.append("-") }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return out
    }
}

public enum Timestamp {
    /// Milliseconds since 1970 as ISO 8601 UTC text: `2026-11-21T10:15:30.123Z`.
    public static func iso8601(millis: Int64) -> String {
        if let text = withISO8601(millis: millis, { String(decoding: $0, as: UTF8.self) }) { return text }
        let p = parts(millis)
        return zeroPadded(p.year, 4) + "-" + zeroPadded(p.month, 2) + "-" + zeroPadded(p.day, 2)
            + "T" + zeroPadded(p.seconds / 3600, 2) + ":" + zeroPadded(p.seconds / 60 % 60, 2) + ":" + zeroPadded(p.seconds % 60, 2)
            + "." + zeroPadded(p.ms % 1000, 3) + "Z"
    }

    /// `body` with the UTF-8 bytes of `iso8601(millis:)`, made without a String (the codec
    /// asks for the date a row's newest stamp implies at every row); nil for a year outside
    /// 0...9999, whose text is not 24 bytes.
    public static func withISO8601<Result>(millis: Int64, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        let p = parts(millis)
        guard p.year >= 0, p.year <= 9999 else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { out in
            func put(_ value: Int64, at: Int, _ digits: Int) {
                var rest = value
                for offset in stride(from: digits - 1, through: 0, by: -1) {
                    out[at + offset] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                }
            }
            put(p.year, at: 0, 4); out[4] = UInt8(ascii: "-")
            put(p.month, at: 5, 2); out[7] = UInt8(ascii: "-")
            put(p.day, at: 8, 2); out[10] = UInt8(ascii: "T")
            put(p.seconds / 3600, at: 11, 2); out[13] = UInt8(ascii: ":")
            put(p.seconds / 60 % 60, at: 14, 2); out[16] = UInt8(ascii: ":")
            put(p.seconds % 60, at: 17, 2); out[19] = UInt8(ascii: ".")
            put(p.ms % 1000, at: 20, 3); out[23] = UInt8(ascii: "Z")
            return body(UnsafeBufferPointer(out))
        }
    }

    /// True when `text` is `iso8601(millis:)`, compared without making that text.
    public static func isISO8601(_ text: String, millis: Int64) -> Bool {
        var bytes = text
        if let same = bytes.withUTF8({ bytes in withISO8601(millis: millis) { bytes.elementsEqual($0) } }) { return same }
        return text == iso8601(millis: millis)
    }

    private static func parts(_ millis: Int64) -> (year: Int64, month: Int64, day: Int64, seconds: Int64, ms: Int64) {
        let (days, msOfDay) = millis.quotientAndRemainder(dividingBy: 86_400_000)
        let (d, ms) = msOfDay < 0 ? (days - 1, msOfDay + 86_400_000) : (days, msOfDay)
        // Civil-from-days (Howard Hinnant's algorithm).
        let z = d + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day, ms / 1000, ms)
    }
}
