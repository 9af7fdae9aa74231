#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore

/// Everything the CLI prints goes through here, so stored text is always escaped.
public enum Output {
    static func line(_ text: String = "") {
        print(text)
    }

    static func error(_ text: String) {
        writeStandardError("bananas: " + text + "\n")
    }

    static func note(_ text: String) {
        writeStandardError(text + "\n")
    }

    static func writeStandardError(_ text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
    }

    /// Stored text made safe for the terminal.
    static func safe(_ text: String) -> String {
        TextRules.escaped(text)
    }

    /// `[ ] Oat milk · 2 L · optional`
    static func row(_ item: Item, showID: Bool) -> String {
        var text = (item.checked ? "[x] " : "[ ] ") + safe(item.name)
        if !item.amount.isEmpty { text += " · " + safe(item.amount) }
        if item.optional { text += " · optional" }
        if showID { text += "  (" + item.id.prefix(8) + ")" }
        return text
    }

    static func sectionTitle(_ name: String) -> String {
        name.isEmpty ? "(no section)" : safe(name)
    }

    /// An item as the `--json` outputs show it.
    public static func json(_ item: Item) -> JSONValue {
        .object([
            "id": .string(item.id), "name": .string(item.name), "amount": .string(item.amount),
            "section": .string(item.section), "checked": .bool(item.checked), "optional": .bool(item.optional),
        ])
    }

    static let jsonKeyOrder = ["file", "id", "name", "amount", "section", "checked", "optional", "sections", "items"]

    /// JSON that is safe on a terminal too: the writer escapes C0 controls in strings, and
    /// here C1 controls, DEL, bidi controls and line separators become `\uXXXX` as well
    /// (the same text to a JSON reader; none of them can occur outside a string).
    static func printJSON(_ value: JSONValue) {
        let text = String(decoding: JSONText.serialize(value, keyOrder: jsonKeyOrder).dropLast(), as: UTF8.self)
        guard text.unicodeScalars.contains(where: { $0 != "\n" && TextRules.isUnsafe($0) }) else {
            print(text)
            return
        }
        var safe = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar != "\n" && TextRules.isUnsafe(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                safe.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                safe.append(scalar)
            }
        }
        print(String(safe))
    }
}
