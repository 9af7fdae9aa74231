import BananasCore
import BananasSync
import MCP

/// The Get Bananas MCP server's tools, under its names (docs/mcp.md, "Get Bananas's tools"), so
/// an agent or a saved prompt made for Get Bananas works unchanged on the file it shares. Each
/// is a one-entry call of the bananas tool that does the same (`add_item` is `add_items`), on
/// the same store and pipeline, answered with that entry and the item as it is now; the
/// whole-list replace is taken in as a stampless save (DESIGN rule 5), never written over the
/// list.
@MainActor
enum GetBananasTools {
    /// `add_item {name, amount?, section?, optional?}`.
    static func addItem(_ store: ListStore, _ arguments: [String: Value]) async -> CallTool.Result {
        var entry: [String: Value] = [:]
        for key in ["name", "amount", "section", "optional"] { entry[key] = arguments[key] }
        return single(store, await EditingTools.add(store, batch(entry, arguments)))
    }

    /// `remove_item {name | id}`.
    static func removeItem(_ store: ListStore, _ arguments: [String: Value]) async -> CallTool.Result {
        guard let item = arguments["id"] ?? arguments["name"] else { return missingItem("remove_item") }
        return single(store, await EditingTools.remove(store, batch(["item": item], arguments)))
    }

    /// `update_item {name | id, new_name?, amount?, section?, checked?, optional?}`: with `id`,
    /// `name` is the new name (the item is named by its id); without, `name` names the item
    /// and `new_name` renames it.
    static func updateItem(_ store: ListStore, _ arguments: [String: Value]) async -> CallTool.Result {
        var entry: [String: Value] = [:]
        if let id = arguments["id"] {
            entry["item"] = id
            entry["name"] = arguments["new_name"] ?? arguments["name"]
        } else if let name = arguments["name"] {
            entry["item"] = name
            entry["name"] = arguments["new_name"]
        } else {
            return missingItem("update_item")
        }
        for key in ["amount", "section", "checked", "optional"] { entry[key] = arguments[key] }
        return single(store, await EditingTools.update(store, batch(entry, arguments)))
    }

    static func batch(_ entry: [String: Value], _ arguments: [String: Value]) -> [String: Value] {
        var call: [String: Value] = ["items": .array([.object(entry)])]
        call["expected_revision"] = arguments["expected_revision"]
        return call
    }

    static func missingItem(_ tool: String) -> CallTool.Result {
        Batch.failure("Invalid arguments for \(tool): give the item's id or its name. Nothing was changed.")
    }

    /// A one-entry batch's answer, with the item as it is now (`item`: its id and fields, the
    /// shape of the list file's items) when the entry found or made one.
    static func single(_ store: ListStore, _ result: CallTool.Result) -> CallTool.Result {
        guard case .object(var structured)? = result.structuredContent,
              case .object(let first)? = structured["results"]?.arrayValue?.first,
              let id = first["id"]?.stringValue else { return result }
        let shown = store.list.item(id) ?? removed(first)
        if let shown {
            structured["item"] = .object([
                "id": .string(id), "name": .string(shown.name), "amount": .string(shown.amount), "section": .string(shown.section),
                "checked": .bool(shown.checked), "optional": .bool(shown.optional),
            ])
        }
        return CallTool.Result(content: result.content, structuredContent: .object(structured), isError: result.isError)
    }

    /// A removed item, from the entry's `previous`.
    static func removed(_ entry: [String: Value]) -> Item? {
        guard let previous = entry["previous"]?.objectValue, let name = previous["name"]?.stringValue else { return nil }
        return Item(id: entry["id"]?.stringValue ?? "", name: name, amount: previous["amount"]?.stringValue ?? "",
                    section: previous["section"]?.stringValue ?? "", checked: previous["checked"]?.boolValue ?? false,
                    optional: previous["optional"]?.boolValue ?? false)
    }

    // MARK: update_shopping_list

    /// `update_shopping_list {items: [{id?, name, amount?, section?, checked?, optional?}],
    /// sections?}`: the whole list as the agent wants it, taken in as a Get Bananas save
    /// (version 1, no stamps) by the store's one path for such saves
    /// (`ListStore.takeIn(save:)`, the judging a file goes through): an item the agent left
    /// out is deleted only when the save proves its writer saw it (rule 5), else kept, or
    /// kept for review; what others changed meanwhile stays. An item given without an id is
    /// the list's item of that name (any case), else a new one; a field not given keeps its value.
    static func replaceList(_ store: ListStore, _ arguments: [String: Value]) async -> CallTool.Result {
        if let refused = Batch.precheck(store) { return refused }
        if let answer = await Batch.confirm(store, arguments["expected_revision"]?.stringValue) { return answer }
        let document: JSONValue
        do { document = try saveDocument(arguments, list: store.list) } catch {
            return Batch.failure("Invalid arguments for update_shopping_list: \(Batch.describe(error)). Nothing was changed.")
        }
        let before = store.list
        let reviewsBefore = store.status.conflicts.count
        do {
            try await store.takeIn(save: Array(JSONText.compact(document).utf8))
        } catch {
            return Batch.failure("Nothing was changed: \(Batch.describe(error)). Retry in a moment.")
        }
        await Batch.waitForFile(store)
        let changes = ListChanges(from: before, to: store.list)
        let reviews = max(0, store.status.conflicts.count - reviewsBefore)
        let said = "Since then: "
        var text = "Taken in as a whole-list save, judged like any Get Bananas save: items others added or changed meanwhile stay. "
        text += changes.text.hasPrefix(said) ? "Changes: " + changes.text.dropFirst(said.count) : "Nothing changed: the list already was as given."
        if reviews > 0 {
            text += "\n\(reviews) change\(reviews == 1 ? "" : "s") could not be told from others' edits and \(reviews == 1 ? "waits" : "wait") for the user's review (bananas conflicts), nothing lost."
        }
        let written = store.status.pendingCount == 0
        var structured: [String: Value] = [
            "changed": changes.value, "review": .int(reviews),
            "revision": .string(ListSnapshot.of(store).revision), "written": .bool(written),
        ]
        if let paused = store.status.pausedBy { structured["paused"] = .string(paused.pausedReason) }
        return .init(content: [.text(text: text, annotations: nil, _meta: nil)], structuredContent: .object(structured), isError: false)
    }

    /// The agent's list as the Get Bananas app saves it: `sections` and `items` with the six
    /// keys it writes, each text checked as every surface checks it.
    static func saveDocument(_ arguments: [String: Value], list: ShoppingList) throws -> JSONValue {
        let given = arguments["items"]?.arrayValue?.compactMap(\.objectValue) ?? []
        var byName: [String: [Item]] = [:]
        for item in list.items { byName[item.name.lowercased(), default: []].append(item) }
        var taken: Set<String> = []
        var items: [JSONValue] = []
        var itemSections: [String] = []
        for (index, entry) in given.enumerated() {
            func at(_ error: any Error) -> ToolInputError { ToolInputError("items[\(index)]: \(Batch.describe(error))") }
            do {
                guard let name = try Batch.text(entry["name"], as: .name) else { throw ToolInputError("name is required") }
                var id = entry["id"]?.stringValue
                if id == nil, let same = byName[name.lowercased()]?.first(where: { !taken.contains($0.id) }) { id = same.id }
                let resolvedID = id ?? ItemID.random()
                taken.insert(resolvedID)
                let current = list.item(resolvedID)
                // A field not given keeps the item's value (a name alone changes nothing of it).
                let amount = try Batch.text(entry["amount"], as: .amount) ?? current?.amount ?? ""
                let section = try Batch.section(entry["section"], in: list) ?? current?.section
                    ?? list.placement(of: name).section
                if !itemSections.contains(section) { itemSections.append(section) }
                items.append(.object([
                    "id": .string(resolvedID), "name": .string(name), "amount": .string(amount), "section": .string(section),
                    "optional": .bool(try Batch.flag(entry["optional"], "optional") ?? current?.optional ?? false),
                    "checked": .bool(try Batch.flag(entry["checked"], "checked") ?? current?.checked ?? false),
                ]))
            } catch {
                throw at(error)
            }
        }
        var sections = try arguments["sections"]?.arrayValue?.map { value -> String in
            guard let name = try Batch.text(value, as: .section) else { throw ToolInputError("sections: each is a name") }
            return list.section(named: name) ?? name
        } ?? list.sections
        for section in itemSections where !sections.contains(section) { sections.append(section) }
        return .object(["sections": .array(sections.map(JSONValue.string)), "items": .array(items)])
    }
}
