/// Space-separated words of ASCII text, read and written byte by byte (the deletes' keys and
/// the remembered names' days: thousands per file, read at every command).
enum Words {
    /// Calls `body` with each word's bytes.
    static func each(in text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var text = text
        text.withUTF8 { each(in: $0, body) }
    }

    /// Calls `body` with each word's bytes, of text in UTF-8.
    static func each(in bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var start = 0
        for i in 0...bytes.count where i == bytes.count || bytes[i] == UInt8(ascii: " ") {
            if i > start { body(UnsafeBufferPointer(rebasing: bytes[start..<i])) }
            start = i + 1
        }
    }

    /// A base-36 number of lower-case digits; nil for anything else or one past 64 bits.
    static func base36<Bytes: Collection<UInt8>>(_ word: Bytes) -> UInt64? {
        guard !word.isEmpty else { return nil }
        var value: UInt64 = 0
        for byte in word {
            let digit: UInt64
            switch byte {
            case 0x30...0x39: digit = UInt64(byte - 0x30)
            case 0x61...0x7A: digit = UInt64(byte - 0x61 + 10)
            default: return nil
            }
            let (times, overflow) = value.multipliedReportingOverflow(by: 36)
            let (sum, carry) = times.addingReportingOverflow(digit)
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }

    /// `value` in base 36, as `String(value, radix: 36)` spells it.
    static func appendBase36(_ value: UInt64, to out: inout [UInt8]) {
        var digits = 1
        var rest = value / 36
        while rest > 0 { digits += 1; rest /= 36 }
        appendBase36(value, digits: digits, to: &out)
    }

    /// `value` in base 36, zero-padded to `digits` (so text order is number order).
    static func appendBase36(_ value: UInt64, digits: Int, to out: inout [UInt8]) {
        var rest = value
        let start = out.count
        for _ in 0..<digits { out.append(UInt8(ascii: "0")) }
        var at = out.count - 1
        while rest > 0, at >= start {
            let digit = UInt8(rest % 36)
            out[at] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
            rest /= 36
            at -= 1
        }
    }
}
