import BananasCore
import BananasFile
import BananasSync
import MCP

/// The editing tools: batches of item-level edits, each entry answered on its own. Every
/// batch is one edit in the store (one undo step, one flush).
@MainActor
enum EditingTools {
    /// Stamps a scratch copy's edits so later entries of a batch see earlier ones (newer than
    /// any real stamp; the real edit gets a real stamp from the store).
    static let scratch = Stamp(millis: 9_999_999_999_999_999, counter: 0, replica: "scratch")

    /// One entry's outcome, as the agent sees it.
    struct Outcome {
        var entry: Int
        var item: String
        var status: String
        var id: String?
        var error: String?

        var value: Value {
            var object: [String: Value] = ["entry": .int(entry), "item": .string(item), "status": .string(status)]
            if let id { object["id"] = .string(id) }
            if let error { object["error"] = .string(error) }
            return .object(object)
        }
    }

    /// Refuses when the list cannot take edits now, or changed since `expected_revision`.
    static func precheck(_ store: ListStore, _ arguments: [String: Value]) -> CallTool.Result? {
        if let paused = store.status.pausedBy, paused.isContentProblem {
            return failure("The list is paused (\(paused.pausedReason)): \(paused.description). Nothing was changed.")
        }
        if let expected = arguments["expected_revision"]?.stringValue, expected != Revision.of(store.list) {
            return failure("The list changed since revision \(expected) (now \(Revision.of(store.list))). Call get_shopping_list again, then retry with what you read.")
        }
        return nil
    }

    nonisolated static func failure(_ text: String) -> CallTool.Result {
        .init(content: [.text(text: text, annotations: nil, _meta: nil)], isError: true)
    }

    static func entries(_ arguments: [String: Value]) -> [[String: Value]]? {
        arguments["items"]?.arrayValue?.compactMap(\.objectValue)
    }

    static func text(_ value: Value?, as kind: TextRules.Kind) throws -> String? {
        guard let value else { return nil }
        guard let string = value.stringValue else { throw ToolInputError("\(kind.rawValue) must be a string") }
        return kind == .amount && string.trimmingWhitespace().isEmpty ? "" : try TextRules.validated(string, as: kind)
    }

    static func flag(_ value: Value?, _ name: String) throws -> Bool? {
        guard let value else { return nil }
        guard let bool = value.boolValue else { throw ToolInputError("\(name) must be true or false") }
        return bool
    }

    /// Applies `steps` as one edit and builds the answer.
    static func finish(_ store: ListStore, label: String, steps: [ListEdit], outcomes: [Outcome], verb: String) -> CallTool.Result {
        var outcomes = outcomes
        if !steps.isEmpty {
            do {
                try store.perform(.batch(steps), label: label)
            } catch {
                return failure("Nothing was changed: \(error)")
            }
        }
        let failed = outcomes.filter { $0.status == "error" }
        var summary = outcomes.map { o in
            "\(o.entry + 1). \(TextRules.escaped(o.item)): \(o.status)" + (o.error.map { " — " + $0 } ?? "")
        }.joined(separator: "\n")
        if let paused = store.status.pausedBy {
            summary += "\nSaved, and waiting to be written to the file: paused (\(paused.pausedReason))."
        }
        outcomes.sort { $0.entry < $1.entry }
        let structured: Value = .object([
            "results": .array(outcomes.map(\.value)),
            "revision": .string(Revision.of(store.list)),
        ])
        return .init(
            content: [.text(text: summary.isEmpty ? "Nothing to \(verb)." : summary, annotations: nil, _meta: nil)],
            structuredContent: Optional<Value>.some(structured),
            isError: !outcomes.isEmpty && failed.count == outcomes.count)
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as AddressError: error.description
        case let error as TextRules.Violation: error.description
        case let error as ToolInputError: error.message
        default: String(describing: error)
        }
    }

    /// What one entry of a batch did: the edits it makes (none for a refusal such as
    /// `already_on_list`) and the outcome reported for it.
    struct Step {
        var edits: [ListEdit]
        var item: String
        var status: String
        var id: String?
        var note: String? = nil
    }

    /// The shared shape of the batch tools: check, then take the entries one by one against a
    /// scratch copy (so later entries see earlier ones), collect per-entry outcomes, and apply
    /// everything that worked as one edit.
    static func batchTool(
        _ store: ListStore, _ arguments: [String: Value], usage: String, label: String,
        _ each: (_ entry: [String: Value], _ working: ShoppingList) throws -> Step
    ) -> CallTool.Result {
        if let refused = precheck(store, arguments) { return refused }
        guard let entries = entries(arguments), !entries.isEmpty else { return failure(usage) }
        var working = store.list
        var steps: [ListEdit] = []
        var outcomes: [Outcome] = []
        for (index, entry) in entries.enumerated() {
            do {
                let step = try each(entry, working)
                if !step.edits.isEmpty {
                    try working.apply(.batch(step.edits), stamp: scratch)
                    steps += step.edits
                }
                outcomes.append(Outcome(entry: index, item: step.item, status: step.status, id: step.id, error: step.note))
            } catch {
                let shown = (entry["item"] ?? entry["name"])?.stringValue ?? ""
                outcomes.append(Outcome(entry: index, item: shown, status: "error", error: describe(error)))
            }
        }
        return finish(store, label: label, steps: steps, outcomes: outcomes, verb: label)
    }

    // MARK: add_items

    static func add(_ store: ListStore, _ arguments: [String: Value]) -> CallTool.Result {
        let insist = arguments["allow_duplicates"]?.boolValue == true
        var order = store.list.nextSortOrder
        return batchTool(store, arguments, usage: "Give the items to add: {\"items\": [{\"name\": \"Milk\"}]}.", label: "add") { entry, working in
            guard let name = try text(entry["name"], as: .name) else { throw ToolInputError("name is required") }
            let amount = try text(entry["amount"], as: .amount) ?? ""
            let section = try text(entry["section"], as: .section) ?? "Other"
            let optional = try flag(entry["optional"], "optional") ?? false
            let existing = working.items.first { $0.name.lowercased() == name.lowercased() }
            if let existing, !insist {
                if !existing.checked {
                    return Step(edits: [], item: name, status: "already_on_list", id: existing.id,
                                note: "already on the list unchecked; pass allow_duplicates: true to add it again")
                }
                var changes: [ItemField: FieldValue] = [.checked: .flag(false)]
                if entry["amount"] != nil { changes[.amount] = .text(amount) }
                if entry["optional"] != nil { changes[.optional] = .flag(optional) }
                return Step(edits: [.update(id: existing.id, changes: changes)], item: name, status: "unchecked", id: existing.id)
            }
            let id = ItemID.random()
            order += 1
            let insert = ListEdit.insert(Item(id: id, name: name, amount: amount, section: section, optional: optional, sortOrder: order))
            return Step(edits: [working.ensureSectionEdit(section), insert].compactMap { $0 }, item: name, status: "added", id: id)
        }
    }

    // MARK: update_items

    static func update(_ store: ListStore, _ arguments: [String: Value]) -> CallTool.Result {
        batchTool(store, arguments, usage: "Give the changes: {\"items\": [{\"item\": \"Milk\", \"checked\": true}]}.", label: "update") { entry, working in
            let item = try Addressing.resolve(entry["item"]?.stringValue ?? "", in: working.items)
            var changes: [ItemField: FieldValue] = [:]
            var edits: [ListEdit] = []
            if let name = try text(entry["name"], as: .name) { changes[.name] = .text(name) }
            if let amount = try text(entry["amount"], as: .amount) { changes[.amount] = .text(amount) }
            if let section = try text(entry["section"], as: .section) {
                changes[.section] = .text(section)
                if let ensure = working.ensureSectionEdit(section) { edits.append(ensure) }
            }
            if let checked = try flag(entry["checked"], "checked") { changes[.checked] = .flag(checked) }
            if let optional = try flag(entry["optional"], "optional") { changes[.optional] = .flag(optional) }
            if let position = entry["position"] {
                guard let place = position.intValue, place >= 1 else { throw ToolInputError("position must be a whole number from 1") }
                let section = changes[.section].flatMap { if case .text(let s) = $0 { s } else { nil } } ?? item.section
                changes[.sortOrder] = .order(sortOrder(for: item.id, at: place, in: section, working))
            }
            guard !changes.isEmpty else { throw ToolInputError("nothing to change: give name, amount, section, checked, optional or position") }
            edits.append(.update(id: item.id, changes: changes))
            return Step(edits: edits, item: item.name, status: "updated", id: item.id)
        }
    }

    /// A sortOrder that puts the item at 1-based `place` among its section's other items.
    static func sortOrder(for id: String, at place: Int, in section: String, _ list: ShoppingList) -> Double {
        let others = list.items.filter { $0.section == section && $0.id != id }
        let index = min(place - 1, others.count)
        let before = index > 0 ? others[index - 1].sortOrder : nil
        let after = index < others.count ? others[index].sortOrder : nil
        switch (before, after) {
        case (nil, nil): return list.nextSortOrder
        case (let b?, nil): return b + 1024
        case (nil, let a?): return a - 1024
        case (let b?, let a?): return (a + b) / 2
        }
    }

    // MARK: remove_items, clear_checked

    static func remove(_ store: ListStore, _ arguments: [String: Value]) -> CallTool.Result {
        batchTool(store, arguments, usage: "Give the items to remove: {\"items\": [{\"item\": \"Milk\"}]}.", label: "remove") { entry, working in
            let item = try Addressing.resolve(entry["item"]?.stringValue ?? "", in: working.items)
            return Step(edits: [.delete(id: item.id)], item: item.name, status: "removed", id: item.id)
        }
    }

    static func clearChecked(_ store: ListStore, _ arguments: [String: Value]) -> CallTool.Result {
        if let refused = precheck(store, arguments) { return refused }
        let checked = store.list.items.filter(\.checked)
        let outcomes = checked.enumerated().map { Outcome(entry: $0.offset, item: $0.element.name, status: "removed", id: $0.element.id) }
        return finish(store, label: "clear checked", steps: checked.map { .delete(id: $0.id) }, outcomes: outcomes, verb: "clear: no item is checked")
    }
}

struct ToolInputError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A revision token for the list's visible content: the same content gives the same token in
/// any process, so an agent's `expected_revision` means "the list as I read it".
enum Revision {
    static func of(_ list: ShoppingList) -> String {
        var text = list.sections.joined(separator: "\u{1F}")
        for item in list.items {
            text += "\u{1E}" + item.id + "\u{1F}" + item.name + "\u{1F}" + item.amount + "\u{1F}" + item.section
                + (item.checked ? "\u{1F}1" : "\u{1F}0") + (item.optional ? "1" : "0") + String(item.sortOrder)
        }
        return String(Hash.fnv1a(Array(text.utf8)), radix: 16)
    }
}
