import BananasCore
import MCP

/// What changed between two states of the list, for the answer to a stale
/// `expected_revision`: items added, removed and changed (by id), and the section order.
@MainActor
struct ListChanges {
    /// At most this many items of each kind are named; the counts are always complete.
    static let shown = AnswerBudget.shown

    var value: Value
    var text: String

    /// `old` is nil when this server never showed that revision (another process did, or
    /// it was long ago): then only the present is told.
    init(from old: ShoppingList?, to new: ShoppingList) {
        guard let old else {
            value = .object(["known": .bool(false)])
            text = "What changed is not known here (this server did not show that revision recently)."
            return
        }
        let before = Dictionary(old.items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let afterItems = new.items
        let after = Dictionary(afterItems.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let added = afterItems.filter { before[$0.id] == nil }
        let removed = old.items.filter { after[$0.id] == nil }
        var updated: [(item: Item, fields: [String: Value], words: [String])] = []
        for item in afterItems {
            guard let was = before[item.id] else { continue }
            let (fields, words) = Self.changes(from: was, to: item)
            if !fields.isEmpty { updated.append((item, fields, words)) }
        }
        func brief(_ item: Item) -> Value {
            .object(["id": .string(item.id), "name": .string(item.name), "section": .string(item.section), "checked": .bool(item.checked)])
        }
        var object: [String: Value] = [
            "known": .bool(true),
            "added_count": .int(added.count), "removed_count": .int(removed.count), "updated_count": .int(updated.count),
            "added": .array(added.prefix(Self.shown).map(brief)),
            "removed": .array(removed.prefix(Self.shown).map(brief)),
            "updated": .array(updated.prefix(Self.shown).map { change in
                var fields = change.fields
                fields["id"] = .string(change.item.id)
                fields["item"] = .string(change.item.name)
                return .object(fields)
            }),
        ]
        let sectionsChanged = old.displaySections != new.displaySections
        if sectionsChanged {
            object["sections"] = .array(new.displaySections.prefix(Self.shown).map(Value.string))
            object["section_count"] = .int(new.displaySections.count)
        }
        value = .object(object)

        var lines: [String] = []
        func names(_ items: ArraySlice<Item>) -> String {
            items.map { "\"\(TextRules.escaped($0.name))\" (\(TextRules.escaped($0.section)), id \(TextRules.escaped($0.id)))" }.joined(separator: ", ")
        }
        func more(_ count: Int) -> String { count > Self.shown ? " and \(count - Self.shown) more" : "" }
        if !added.isEmpty { lines.append("Added: " + names(added.prefix(Self.shown)) + more(added.count) + ".") }
        if !removed.isEmpty { lines.append("Removed: " + names(removed.prefix(Self.shown)) + more(removed.count) + ".") }
        if !updated.isEmpty {
            lines.append("Changed: " + updated.prefix(Self.shown).map { "\"\(TextRules.escaped($0.item.name))\" \($0.words.joined(separator: ", "))" }
                .joined(separator: "; ") + more(updated.count) + ".")
        }
        if sectionsChanged {
            lines.append("Sections now: " + new.displaySections.prefix(Self.shown).map { TextRules.escaped($0) }.joined(separator: ", ")
                + (new.displaySections.count > Self.shown ? " and \(new.displaySections.count - Self.shown) more (mode \"summary\" lists them)." : "."))
        }
        text = lines.isEmpty ? "No item or section changed visibly (only the order)." : "Since then: " + lines.joined(separator: " ")
    }

    /// The fields of an item that changed (by their JSON keys) and the words that say so; a
    /// new place is told only when nothing else changed.
    private static func changes(from was: Item, to item: Item) -> (fields: [String: Value], words: [String]) {
        var fields: [String: Value] = [:]
        var words: [String] = []
        if was.name != item.name {
            fields["name"] = .string(item.name)
            words.append("renamed from \"\(TextRules.escaped(was.name))\"")
        }
        if was.amount != item.amount {
            fields["amount"] = .string(item.amount)
            words.append("amount \"\(TextRules.escaped(item.amount))\"")
        }
        if was.section != item.section {
            fields["section"] = .string(item.section)
            words.append("moved to \(TextRules.escaped(item.section))")
        }
        if was.checked != item.checked {
            fields["checked"] = .bool(item.checked)
            words.append(item.checked ? "checked off" : "unchecked")
        }
        if was.optional != item.optional {
            fields["optional"] = .bool(item.optional)
            words.append(item.optional ? "made optional" : "made needed")
        }
        if was.sortOrder != item.sortOrder, fields.isEmpty {
            fields["position"] = .bool(true)
            words.append("moved in its section")
        }
        return (fields, words)
    }
}
