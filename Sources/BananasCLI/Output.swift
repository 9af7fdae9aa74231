#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore
import BananasFile

/// Everything the CLI prints goes through here, so stored text is always escaped. The parts
/// that come from a file, a path, an argument or the environment are escaped where they are
/// put in (`safe`), and every line is passed through the same `TextRules.escaped` once more
/// on its way out (escaped text is plain ASCII, so that changes nothing already escaped): a
/// string someone forgot to escape still never reaches the terminal raw.
public enum Output {
    static func line(_ text: String = "") {
        print(TextRules.escaped(text, keepingNewlines: true))
    }

    static func error(_ text: String) {
        writeStandardError("bananas: " + TextRules.escaped(text, keepingNewlines: true) + "\n")
    }

    static func note(_ text: String) {
        writeStandardError(TextRules.escaped(text, keepingNewlines: true) + "\n")
    }

    static func writeStandardError(_ text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
    }

    /// The first problems a read found are shown one per line; this many at most, then one
    /// line that counts the rest (a hostile file can hold 100,000 unreadable rows).
    static let problemsShown = 10

    /// `note: …` lines for the problems a read found, summarised past `problemsShown`.
    /// The state folder could not take this machine's sync state, so its spare holds it.
    static func keptInSpare(_ kept: (folder: String, reason: ListFileError)) -> String {
        "note: this machine's sync state is kept in \(safe(kept.folder)) until its folder can take it again: \(kept.reason.description)"
    }

    /// Conflict copies a read command showed merged but left beside the list.
    static func waitingCopiesNote(_ names: [String]) -> String {
        let listed = names.map(safe).joined(separator: ", ")
        if names.count == 1 { return "note: a conflict copy is shown merged; the next edit merges it into the list and removes it (\(listed))" }
        return "note: \(names.count) conflict copies are shown merged; the next edit merges them into the list and removes them (\(listed))"
    }

    static func problemNotes(_ problems: [String]) -> [String] {
        var lines = problems.prefix(problemsShown).map { "note: " + safe($0) }
        if problems.count > problemsShown {
            lines.append("note: … and \(problems.count - problemsShown) more problems like these (bananas status --json lists them all)")
        }
        return lines
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
        if showID { text += "  (" + safe(String(item.id.prefix(8))) + ")" }
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
    /// here C1 controls, DEL, bidi controls, line separators and invisible characters become
    /// `\uXXXX` as well (surrogate pairs past U+FFFF): the same text to a JSON reader; none of
    /// them can occur outside a string.
    static func printJSON(_ value: JSONValue) {
        let text = String(decoding: JSONText.serialize(value, keyOrder: jsonKeyOrder).dropLast(), as: UTF8.self)
        func hidden(_ scalar: Unicode.Scalar) -> Bool {
            scalar != "\n" && (TextRules.isUnsafe(scalar) || TextRules.isInvisible(scalar))
        }
        guard text.unicodeScalars.contains(where: hidden) else {
            print(text)
            return
        }
        var safe = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard hidden(scalar) else {
                safe.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16, uppercase: true)
                safe.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            }
        }
        print(String(safe))
    }
}
