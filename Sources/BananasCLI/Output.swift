#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore

/// Everything the CLI prints goes through here, so stored text is always escaped.
enum Output {
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
    static func json(_ item: Item) -> JSONValue {
        .object([
            "id": .string(item.id), "name": .string(item.name), "amount": .string(item.amount),
            "section": .string(item.section), "checked": .bool(item.checked), "optional": .bool(item.optional),
        ])
    }

    static let jsonKeyOrder = ["file", "id", "name", "amount", "section", "checked", "optional", "sections", "items"]

    static func printJSON(_ value: JSONValue) {
        let bytes = JSONText.serialize(value, keyOrder: jsonKeyOrder)
        print(String(decoding: bytes.dropLast(), as: UTF8.self))
    }
}
