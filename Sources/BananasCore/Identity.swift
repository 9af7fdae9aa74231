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
        let seconds = ms / 1000
        return zeroPadded(year, 4) + "-" + zeroPadded(month, 2) + "-" + zeroPadded(day, 2)
            + "T" + zeroPadded(seconds / 3600, 2) + ":" + zeroPadded(seconds / 60 % 60, 2) + ":" + zeroPadded(seconds % 60, 2)
            + "." + zeroPadded(ms % 1000, 3) + "Z"
    }
}
