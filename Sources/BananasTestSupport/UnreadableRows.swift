import BananasCore

/// For tests only: a list file whose `items` hold rows no reader can show, of every kind, at
/// the start, in the middle and at the end, two of them identical, one over several lines;
/// and a way to see a file's rows as a reader of bytes sees them.
public enum UnreadableCorpus {
    /// The rows that cannot be read, exactly as the file holds them.
    public static let unreadable: [String] = [
        "42",
        #"{"name": "", "id": "blank-1"}"#,
        #"{"name": "", "id": "blank-1"}"#,
        "{\"name\": [\"nested\", {\"deep\": [1, 2, {\"x\": null}]}],\n      \"spread\": \"over lines\"\u{0009}  }",
        #"{"id": "huge", "name": "Huge", "sortOrder": 1e400}"#,
        "123456789012345678901234567890123456789",
        #"{"name": "Wrong", "checked": "yes"}"#,
        #""a string row""#,
        "null",
        "[1, [2, [3, {\"items\": []}]]]",
        "true",
    ]

    /// The file: readable rows Milk, Eggs and Bread (in list order) among the others.
    public static let file: String = {
        let u = unreadable
        let rows = [
            u[0],
            #"{"id": "AAAAAAAA-0000-4000-8000-000000000001", "name": "Milk", "section": "Dairy", "sortOrder": 1}"#,
            u[1], u[2],
            #"{"id": "AAAAAAAA-0000-4000-8000-000000000002", "name": "Eggs", "section": "Dairy", "sortOrder": 2}"#,
            u[3], u[4], u[5], u[6],
            #"{"id": "AAAAAAAA-0000-4000-8000-000000000003", "name": "Bread", "section": "Bakery", "sortOrder": 3}"#,
            u[7], u[8], u[9], u[10],
        ]
        return "{\n  \"sections\": [\"Dairy\", \"Bakery\"],\n  \"items\": [\n    " + rows.joined(separator: ",\n    ") + "\n  ]\n}\n"
    }()

    /// The rows of the top-level `items` array in file order: an unreadable row as its exact
    /// text (`"U:" + text`), any other row as `"R:" + its name`.
    public static func rows(of bytes: [UInt8]) -> [String] {
        var cursor = JSONCursor(bytes)
        cursor.skipWhitespace()
        guard cursor.take(UInt8(ascii: "{")) else { return ["not an object"] }
        var result: [String] = []
        while true {
            cursor.skipWhitespace()
            guard let key = try? cursor.value(), case .string(let name) = key else { return result + ["bad key"] }
            cursor.skipWhitespace()
            _ = cursor.take(UInt8(ascii: ":"))
            cursor.skipWhitespace()
            if name == "items", cursor.take(UInt8(ascii: "[")) {
                result = []
                cursor.skipWhitespace()
                while !cursor.take(UInt8(ascii: "]")) {
                    cursor.skipWhitespace()
                    let start = cursor.index
                    guard let row = try? cursor.value() else { return result + ["bad row"] }
                    let text = String(decoding: bytes[start..<cursor.index], as: UTF8.self)
                    if unreadable.contains(text) {
                        result.append("U:" + text)
                    } else if case .object(let fields) = row, case .string(let name)? = fields["name"] {
                        result.append("R:" + name)
                    } else {
                        result.append("?:" + text)
                    }
                    cursor.skipWhitespace()
                    _ = cursor.take(UInt8(ascii: ","))
                    cursor.skipWhitespace()
                }
            } else {
                guard (try? cursor.value()) != nil else { return result + ["bad value"] }
            }
            cursor.skipWhitespace()
            if cursor.take(UInt8(ascii: "}")) { return result }
            _ = cursor.take(UInt8(ascii: ","))
        }
    }

    public static func rows(of text: String) -> [String] { rows(of: Array(text.utf8)) }
}
