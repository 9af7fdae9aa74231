/// A strict JSON (RFC 8259) reader and a deterministic writer over bytes.
///
/// Our own rather than Foundation's because the file layer needs what Foundation does not
/// give: number literals kept verbatim (unknown keys are written back exactly), errors with
/// line and column, a nesting limit for hostile files, and output whose bytes depend only on
/// the value (stable key order), so "same list, same bytes" holds and equal writes are skipped.
public struct JSONSyntaxError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public let line: Int
    public let column: Int

    public var description: String { "line \(line), column \(column): \(message)" }
}

public enum JSONText {
    public static let maxDepth = 100

    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var parser = Parser(bytes: bytes)
        return try parser.parseDocument()
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Pretty-printed JSON with two-space indents and a final newline. Object keys come in
    /// `keyOrder` first, then the rest in code-point order.
    /// The elements of an array under one of `rowKeys` go on one line each (a list's rows:
    /// a row is a line in a diff).
    public static func serialize(_ value: JSONValue, keyOrder: [String] = [], rowKeys: Set<String> = []) -> [UInt8] {
        var writer = Writer(rank: keyRanks(keyOrder))
        writer.rowKeys = rowKeys
        writer.write(value, indent: 0)
        writer.out.append(UInt8(ascii: "\n"))
        return writer.out
    }

    /// Appends `value` as `serialize` would write it nested `indent` levels deep (no final
    /// newline), for writers that build a large document piece by piece. `rank` is the key
    /// order as `keyRanks(_:)` makes it.
    public static func append(_ value: JSONValue, to out: inout [UInt8], indent: Int, rank: [String: Int], rowKeys: Set<String> = [], inline: Bool = false) {
        var writer = Writer(rank: rank)
        writer.rowKeys = rowKeys
        writer.inline = inline
        swap(&writer.out, &out)
        writer.write(value, indent: indent)
        swap(&writer.out, &out)
    }

    /// Appends the value of the member `key` of an object nested `indent` levels deep, as
    /// `serialize` writes it there (an array under one of `rowKeys` one element to a line),
    /// for writers that write an object's members themselves.
    public static func appendMemberValue(_ value: JSONValue, key: String, to out: inout [UInt8], indent: Int, rank: [String: Int], rowKeys: Set<String> = []) {
        var writer = Writer(rank: rank)
        writer.rowKeys = rowKeys
        swap(&writer.out, &out)
        writer.writeMember(key, value, indent: indent)
        swap(&writer.out, &out)
    }

    /// Appends a string literal (quoted and escaped) as `serialize` writes it.
    public static func appendString(_ text: String, to out: inout [UInt8]) {
        writeString(text, into: &out)
    }

    static func writeString(_ text: String, into out: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendString(utf8: $0, to: &out) }
    }

    /// `appendString` for text already in UTF-8 bytes.
    public static func appendString(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escapes: copy them whole.
        var plain = true
        for byte in bytes where byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            plain = false
            break
        }
        if plain {
            out.append(contentsOf: bytes)
        } else {
            // Multi-byte UTF-8 sequences never contain bytes below 0x80, so bytes can be copied.
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
                case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                case 0x00..<0x20, 0x7F: out.append(contentsOf: ("\\u00" + hex(UInt64(byte), digits: 2)).utf8)
                default: out.append(byte)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The rank table `serialize` builds from a key order.
    public static func keyRanks(_ keyOrder: [String]) -> [String: Int] {
        Dictionary(keyOrder.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Compact JSON on one line (for the journal, logs and canonical comparison).
    public static func compact(_ value: JSONValue) -> String {
        var writer = Writer(rank: [:], pretty: false)
        writer.write(value, indent: 0)
        return String(decoding: writer.out, as: UTF8.self)
    }
}

/// The reader's position in a document, for readers that walk a large document themselves
/// (the list decoder reads items straight into values). Every method behaves, and fails, as
/// the whole-document reader does at the same place.
public struct JSONCursor {
    private var parser: Parser

    public init(_ bytes: [UInt8]) { parser = Parser(bytes: bytes) }

    public var index: Int {
        get { parser.index }
        set { parser.index = newValue }
    }
    /// The byte at the position, nil at the end.
    /// How many objects and arrays the position is inside (for a reader that walks ahead
    /// and goes back).
    public var depth: Int {
        get { parser.depth }
        set { parser.depth = newValue }
    }
    public var current: UInt8? { parser.index < parser.bytes.count ? parser.bytes[parser.index] : nil }
    public var bytes: [UInt8] { parser.bytes }

    public mutating func skipWhitespace() { parser.skipWhitespace() }
    /// Steps over `byte` if it is the current one.
    public mutating func take(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        parser.index += 1
        return true
    }
    /// Steps over `word` (`true`, `false`, `null`) if it comes next.
    public mutating func take(word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount, start = parser.index
        guard parser.bytes.count - start >= count else { return false }
        for offset in 0..<count where parser.bytes[start + offset] != word.utf8Start[offset] { return false }
        parser.index += count
        return true
    }
    /// A string without escapes, from its opening quote: where its bytes lie between the
    /// quotes, with the cursor stepped past it. Nil, without a step, for anything else. The
    /// bytes are not checked as UTF-8: this is for matching against ASCII (keys, stamps)
    /// without making a String.
    public mutating func plainString() -> Range<Int>? {
        let bytes = parser.bytes, start = parser.index
        guard start < bytes.count, bytes[start] == UInt8(ascii: "\"") else { return nil }
        var end = start + 1
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                parser.index = end + 1
                return (start + 1)..<end
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            end += 1
        }
        return nil
    }
    /// Any value, from the current byte.
    public mutating func value() throws(JSONSyntaxError) -> JSONValue { try parser.parseValue() }
    /// Any value, from the current byte, and when it is an object the values its repeated
    /// keys shadowed (its own members, not deeper ones, in file order): the last one wins,
    /// as in every JSON reader, and a writer that must drop nothing keeps the others.
    public mutating func valueKeepingShadowed() throws(JSONSyntaxError) -> (value: JSONValue, shadowed: [(key: String, value: JSONValue)]) {
        parser.shadowedDepth = parser.depth + 1
        parser.shadowed = []
        defer { parser.shadowedDepth = -1; parser.shadowed = [] }
        let value = try parser.parseValue()
        return (value, parser.shadowed)
    }

    /// `valueKeepingShadowed`, with the elements of the array under its member `key` handed to
    /// `sink` one at a time as they are read, never held together (an empty array stands in
    /// for it in the value): a member that may hold a million small records costs one at a time.
    public mutating func valueKeepingShadowed(streaming key: String, into sink: @escaping (JSONValue) -> Void)
        throws(JSONSyntaxError) -> (value: JSONValue, shadowed: [(key: String, value: JSONValue)]) {
        parser.stream = (key, sink)
        defer { parser.stream = nil }
        return try valueKeepingShadowed()
    }
    /// A string, from its opening quote.
    public mutating func string() throws(JSONSyntaxError) -> String { try parser.parseString() }
    /// A number's literal text, from its first byte.
    public mutating func numberLiteral() throws(JSONSyntaxError) -> String {
        guard case .number(let literal) = try parser.parseNumber() else { return "" }
        return literal
    }
    /// One level deeper (an object or array the caller walks itself); fails past the limit.
    public mutating func enter() throws(JSONSyntaxError) { try parser.enter() }
    public mutating func leave() { parser.depth -= 1 }
    public func error(_ message: String) -> JSONSyntaxError { parser.error(message) }
    public func describe(_ byte: UInt8) -> String { parser.describe(byte) }
    /// Checks that nothing but whitespace follows the document's value.
    public mutating func end() throws(JSONSyntaxError) {
        parser.skipWhitespace()
        if let byte = current { throw error("unexpected \(describe(byte)) after the end of the JSON value") }
    }
}

private struct Parser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0
    /// The depth of the object whose shadowed members are kept (`valueKeepingShadowed`).
    var shadowedDepth = -1
    var shadowed: [(key: String, value: JSONValue)] = []
    /// The member of the object at `shadowedDepth` whose array elements are streamed.
    var stream: (key: String, sink: (JSONValue) -> Void)?

    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        if index >= bytes.count { throw error("the file is empty") }
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count { throw error("unexpected \(describe(bytes[index])) after the end of the JSON value") }
        return value
    }

    func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        let end = min(offset ?? index, bytes.count)
        var line = 1, column = 1
        for byte in bytes[0..<end] {
            if byte == 0x0A { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        return JSONSyntaxError(message: message, line: line, column: column)
    }

    func describe(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard index < bytes.count else { throw error("the file ends in the middle of a value (truncated?)") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected \(describe(bytes[index])) where a value should start")
        }
    }

    mutating func expectWord(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count, (0..<count).allSatisfy({ bytes[index + $0] == word.utf8Start[$0] }) else {
            throw error("unexpected \(describe(bytes[index])) where a value should start")
        }
        index += count
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > JSONText.maxDepth { throw error("nesting deeper than \(JSONText.maxDepth) levels") }
    }

    mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        index += 1
        var object: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; depth -= 1; return .object(object) }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw error("the file ends inside an object (truncated?)") }
            guard bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key in quotes, found \(describe(bytes[index]))") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error(index < bytes.count ? "expected ':' after key \"\(key)\"" : "the file ends inside an object (truncated?)")
            }
            index += 1
            skipWhitespace()
            // A repeated key: the last one wins, as in most readers.
            let value: JSONValue
            if depth == shadowedDepth, let stream, stream.key == key, index < bytes.count, bytes[index] == UInt8(ascii: "[") {
                try parseArray(into: stream.sink)
                value = .array([])
            } else {
                value = try parseValue()
            }
            if let earlier = object.updateValue(value, forKey: key), depth == shadowedDepth {
                shadowed.append((key, earlier))
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("the file ends inside an object (truncated?)") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; depth -= 1; return .object(object) }
            throw error("expected ',' or '}' in an object, found \(describe(bytes[index]))")
        }
    }

    mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        index += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; depth -= 1; return .array(array) }
        while true {
            skipWhitespace()
            array.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw error("the file ends inside an array (truncated?)") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; depth -= 1; return .array(array) }
            throw error("expected ',' or ']' in an array, found \(describe(bytes[index]))")
        }
    }

    /// An array whose elements go to `sink` as they are read.
    mutating func parseArray(into sink: (JSONValue) -> Void) throws(JSONSyntaxError) {
        try enter()
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; depth -= 1; return }
        while true {
            skipWhitespace()
            sink(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw error("the file ends inside an array (truncated?)") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; depth -= 1; return }
            throw error("expected ',' or ']' in an array, found \(describe(bytes[index]))")
        }
    }

    mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            return index - from
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw error("the file ends inside a number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            throw error("invalid number")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            if digits() == 0 { throw error("invalid number: digits must follow '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            if digits() == 0 { throw error("invalid number: digits must follow the exponent") }
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    mutating func parseString() throws(JSONSyntaxError) -> String {
        // Most strings have no escapes: one validated copy of their bytes.
        var end = index + 1
        var ascii = true
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                let start = index + 1
                // ASCII needs no validation (and `String(validating:)` looks up generic
                // metadata at every call: a third of a decode).
                let plain = ascii
                    ? bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
                    : String(validating: bytes[start..<end], as: UTF8.self)
                guard let plain else { break }
                index = end + 1
                return plain
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            if byte >= 0x80 { ascii = false }
            end += 1
        }
        return try parseStringSlowly()
    }

    /// Escapes, invalid UTF-8, raw control characters, a missing end quote: scalar by scalar,
    /// with errors that say where.
    mutating func parseStringSlowly() throws(JSONSyntaxError) -> String {
        let quote = index
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flushRun(_ end: Int) throws(JSONSyntaxError) {
            guard runStart < end else { return }
            var decoder = UTF8()
            var iterator = bytes[runStart..<end].makeIterator()
            loop: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let s): scalars.append(s)
                case .emptyInput: break loop
                case .error: throw error("invalid UTF-8 in a string", at: runStart)
                }
            }
        }
        while true {
            guard index < bytes.count else { throw error("the file ends inside a string (truncated?)", at: quote) }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try flushRun(index)
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("a raw control character (\(describe(byte))) inside a string") }
            if byte == UInt8(ascii: "\\") {
                try flushRun(index)
                index += 1
                guard index < bytes.count else { throw error("the file ends inside a string (truncated?)") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    let high = try hex4()
                    if (0xD800...0xDBFF).contains(high) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("a lone UTF-16 surrogate in a \\u escape")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("a lone UTF-16 surrogate in a \\u escape") }
                        scalars.append(Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!)
                    } else if let scalar = Unicode.Scalar(high) {
                        scalars.append(scalar)
                    } else {
                        throw error("a lone UTF-16 surrogate in a \\u escape")
                    }
                default:
                    throw error("invalid escape \\\(describe(escape)) in a string")
                }
                runStart = index
                continue
            }
            index += 1
        }
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("the file ends inside a \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw error("invalid hex digit in a \\u escape")
            }
            value = value * 16 + digit
        }
        index += 4
        return value
    }
}

private struct Writer {
    let rank: [String: Int]
    var pretty = true
    /// One line, with the spaces of the pretty form (a row).
    var inline = false
    var rowKeys: Set<String> = []
    var out: [UInt8] = []

    init(rank: [String: Int], pretty: Bool = true) {
        self.rank = rank
        self.pretty = pretty
    }

    mutating func newline(_ indent: Int) {
        guard pretty, !inline else { return }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: indent * 2))
    }

    mutating func write(_ value: JSONValue, indent: Int) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let literal): out.append(contentsOf: literal.utf8)
        case .string(let s): writeString(s)
        case .array(let array):
            if array.isEmpty { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (i, element) in array.enumerated() {
                if i > 0 { out.append(contentsOf: (inline ? ", " : ",").utf8) }
                newline(indent + 1)
                write(element, indent: indent + 1)
            }
            newline(indent)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            if object.isEmpty { out.append(contentsOf: "{}".utf8); return }
            out.append(UInt8(ascii: "{"))
            // Ranked keys first, by rank; then the rest in code-point order (UTF-8 byte order is
            // code-point order). Each key's rank is looked up once.
            let entries = object.map { (rank: rank[$0.key] ?? Int.max, key: $0.key, value: $0.value) }.sorted { a, b in
                a.rank != b.rank ? a.rank < b.rank : a.key.precedesInTextOrder(b.key)
            }
            for (i, entry) in entries.enumerated() {
                if i > 0 { out.append(contentsOf: (inline ? ", " : ",").utf8) }
                newline(indent + 1)
                writeString(entry.key)
                out.append(contentsOf: (pretty ? ": " : ":").utf8)
                writeMember(entry.key, entry.value, indent: indent)
            }
            newline(indent)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The value of the member `key` of an object at `indent`.
    mutating func writeMember(_ key: String, _ value: JSONValue, indent: Int) {
        if !inline, rowKeys.contains(key), case .array(let rows) = value, !rows.isEmpty {
            out.append(UInt8(ascii: "["))
            for (k, row) in rows.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 2)
                inline = true
                write(row, indent: indent + 2)
                inline = false
            }
            newline(indent + 1)
            out.append(UInt8(ascii: "]"))
        } else {
            write(value, indent: indent + 1)
        }
    }

    mutating func writeString(_ s: String) {
        JSONText.writeString(s, into: &out)
    }
}
