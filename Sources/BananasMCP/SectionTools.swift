import BananasCore
import BananasSync
import MCP

/// The section tools: what the editor does to sections (add, rename, reorder, remove), as
/// batches answered entry by entry. Moving items between sections is `update_items`.
/// Positions are 1-based places in the section order as `get_shopping_list` shows it.
@MainActor
enum SectionTools {
    static func entry(_ index: Int, section: String, status: String, edits: [ListEdit] = []) -> Batch.Entry {
        Batch.Entry(
            edits: edits,
            fields: ["entry": .int(index), "section": .string(section), "status": .string(status)],
            line: "\(index + 1). \(TextRules.escaped(section)): \(status.replacingUnderscores)")
    }

    static func failed(_ index: Int, _ entry: [String: Value], _ error: any Error) -> Batch.Entry {
        let shown = (entry["section"] ?? entry["name"])?.stringValue ?? ""
        let message = Batch.describe(error)
        var outcome = Batch.Entry(
            fields: ["entry": .int(index), "section": .string(shown), "status": .string("error"), "error": .string(message)],
            line: "\(index + 1). \(TextRules.escaped(shown)): error — \(message)", failed: true)
        if case SectionError.noSuchSection(_, let suggestions) = error, !suggestions.isEmpty {
            outcome.fields["suggestions"] = .array(suggestions.map(Value.string))
        }
        if let error = error as? ToolInputError, !error.suggestions.isEmpty {
            outcome.fields["suggestions"] = .array(error.suggestions.map(Value.string))
            outcome.fields["suggestions_total"] = .int(error.total)
        }
        return outcome
    }

    /// A new section's name: valid and not empty.
    static func newName(_ value: Value?) throws -> String? {
        try Batch.text(value, as: .section)
    }

    /// An existing section, matched in any case; unknown ones come with suggestions.
    static func existing(_ value: Value?, in list: ShoppingList) throws -> String {
        let name = value?.stringValue?.trimmingWhitespace() ?? ""
        if let found = list.section(named: name), !name.isEmpty { return found }
        let folded = name.lowercased()
        let close = folded.isEmpty ? [] : list.displaySections.filter {
            $0.lowercased().contains(folded) || folded.contains($0.lowercased())
        }
        // At most `AnswerBudget.shown`: a list may hold thousands of sections.
        let offered = close.isEmpty ? list.displaySections : close
        if offered.count > AnswerBudget.shown {
            throw ToolInputError("no section named \"\(TextRules.escaped(name))\"; \(close.isEmpty ? "the first sections are" : "close names are") "
                + offered.prefix(AnswerBudget.shown).map { "\"\(TextRules.escaped($0))\"" }.joined(separator: ", ")
                + " and \(offered.count - AnswerBudget.shown) more (get_shopping_list with mode \"summary\" lists every section)",
                suggestions: Array(offered.prefix(AnswerBudget.shown)), total: offered.count)
        }
        throw SectionError.noSuchSection(name, suggestions: offered)
    }

    static func place(_ value: Value?) throws -> Int? {
        guard let value else { return nil }
        guard let place = value.intValue, place >= 1 else { throw ToolInputError("position must be a whole number from 1") }
        return place
    }

    // MARK: add_sections

    static func add(_ store: ListStore, _ arguments: [String: Value]) async -> CallTool.Result {
        await Batch.run(store, arguments, key: "sections", label: "add section", usage: "Give the sections to add: {\"sections\": [{\"name\": \"Produce\"}]}.") { index, entry, working in
            guard let name = try newName(entry["name"]) else { throw ToolInputError("name is required") }
            let position = try place(entry["position"])
            if let found = working.section(named: name) {
                return self.entry(index, section: found, status: "already_exists")
            }
            var order = working.displaySections
            order.insert(name, at: min((position ?? order.count + 1) - 1, order.count))
            return self.entry(index, section: name, status: "added", edits: [.setSections(order)])
        } failed: { failed($0, $1, $2) }
    }

    // MARK: update_sections

    static func update(_ store: ListStore, _ arguments: [String: Value]) async -> CallTool.Result {
        await Batch.run(store, arguments, key: "sections", label: "change section", usage: "Give the changes: {\"sections\": [{\"section\": \"Veg\", \"name\": \"Produce\"}]}.") { index, entry, working in
            let current = try existing(entry["section"], in: working)
            let name = try newName(entry["name"])
            let position = try place(entry["position"])
            guard name != nil || position != nil else { throw ToolInputError("nothing to change: give name or position") }
            var edits: [ListEdit] = []
            var next = working
            var now = current
            if let name {
                let rename = try next.renameSectionEdit(current, to: name)
                try next.apply(rename, stamp: Batch.scratch)
                edits.append(rename)
                now = name
            }
            if let position {
                edits.append(try next.moveSectionEdit(now, to: position - 1))
            }
            var updated = self.entry(index, section: now, status: "updated", edits: edits)
            updated.fields["previous"] = .object(["name": .string(current),
                                                 "position": .int((working.displaySections.firstIndex(of: current) ?? 0) + 1)])
            return updated
        } failed: { failed($0, $1, $2) }
    }

    // MARK: remove_sections

    static func remove(_ store: ListStore, _ arguments: [String: Value]) async -> CallTool.Result {
        await Batch.run(store, arguments, key: "sections", label: "remove section", usage: "Give the sections to remove: {\"sections\": [{\"section\": \"Bakery\"}]}.") { index, entry, working in
            let current = try existing(entry["section"], in: working)
            let deleteItems = try Batch.flag(entry["delete_items"], "delete_items") ?? false
            let target = try Batch.section(entry["move_items_to"], in: working)
            if target != nil && deleteItems { throw ToolInputError("give move_items_to or delete_items, not both") }
            if let target, target == current { throw ToolInputError("move_items_to names the section being removed") }
            let edit = try working.removeSectionEdit(current, moveItemsTo: target, deleteItems: deleteItems)
            var removed = self.entry(index, section: current, status: "removed", edits: [edit])
            removed.fields["previous"] = .object(["name": .string(current),
                                                 "position": .int((working.displaySections.firstIndex(of: current) ?? 0) + 1)])
            return removed
        } failed: { failed($0, $1, $2) }
    }
}
