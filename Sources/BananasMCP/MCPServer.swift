import BananasCore
import BananasFile
import BananasSync
import MCP
import Foundation

/// `bananas mcp`: the list for AI agents, over stdio (modelcontextprotocol/swift-sdk).
///
/// Every call hops to the main actor, where the `ListStore` lives: edits go through the same
/// store, journal and sync engine as the editor's. Nothing here writes to stdout: the
/// transport owns it.
///
/// Work in progress (issue 5): see the note for what is left.
public final class BananasMCPServer: Sendable {
    let store: ListStore

    @MainActor
    public init(store: ListStore) {
        self.store = store
    }

    /// Serves until the client closes stdin.
    public func run() async throws {
        let server = Server(
            name: "bananas", version: "0.1.0",
            capabilities: .init(resources: .init(subscribe: true, listChanged: false), tools: .init(listChanged: false)))
        await registerResource(on: server)
        await server.withMethodHandler(ListTools.self) { _ in
            .init(tools: BananasMCPServer.tools + BananasMCPServer.editingTools)
        }
        await server.withMethodHandler(CallTool.self) { [self] params in
            await call(params.name, params.arguments ?? [:])
        }
        try await server.start(transport: StdioTransport())
        await server.waitUntilCompleted()
    }

    static let listURI = "bananas://list"

    /// Clients subscribed to the list resource (the SDK keeps no track of them).
    @MainActor final class Subscribers {
        var uris: Set<String> = []
        var token: Subscription?
    }

    /// `bananas://list`: the list as JSON (what `get_shopping_list` returns unfiltered). A
    /// subscribed client is sent `notifications/resources/updated` on every change, from any
    /// writer: the store hears of file changes within milliseconds.
    func registerResource(on server: Server) async {
        let subscribers = await MainActor.run { Subscribers() }
        await server.withMethodHandler(ListResources.self) { _ in
            .init(resources: [Resource(
                name: "shopping-list", uri: Self.listURI, title: "Shopping list",
                description: "The whole shopping list as JSON: revision, sections, items.", mimeType: "application/json")])
        }
        await server.withMethodHandler(ReadResource.self) { [store] params in
            guard params.uri == Self.listURI else { throw MCPError.invalidParams("unknown resource \(params.uri); the list is \(Self.listURI)") }
            let json = await MainActor.run { Self.listJSON(store.list) }
            return .init(contents: [.text(json, uri: Self.listURI, mimeType: "application/json")])
        }
        await server.withMethodHandler(ResourceSubscribe.self) { params in
            guard params.uri == Self.listURI else { throw MCPError.invalidParams("unknown resource \(params.uri)") }
            await MainActor.run { _ = subscribers.uris.insert(params.uri) }
            return Empty()
        }
        await server.withMethodHandler(ResourceUnsubscribe.self) { params in
            await MainActor.run { _ = subscribers.uris.remove(params.uri) }
            return Empty()
        }
        await MainActor.run { [store] in
            subscribers.token = store.subscribe { change in
                guard change != .status, subscribers.uris.contains(Self.listURI) else { return }
                Task { try? await server.notify(ResourceUpdatedNotification.message(.init(uri: Self.listURI))) }
            }
        }
    }

    /// The list as `get_shopping_list` and the resource show it: revision, sections, `items`.
    @MainActor
    static func listValue(_ list: ShoppingList, items: [Item]) -> Value {
        .object([
            "revision": .string(Revision.of(list)),
            "sections": .array(list.displaySections.map(Value.string)),
            "items": .array(items.map { item in
                .object([
                    "id": .string(item.id), "name": .string(item.name), "amount": .string(item.amount),
                    "section": .string(item.section), "checked": .bool(item.checked), "optional": .bool(item.optional),
                ])
            }),
        ])
    }

    /// The resource's text: `listValue` of the whole list, as JSON.
    @MainActor
    static func listJSON(_ list: ShoppingList) -> String {
        let data = (try? JSONEncoder().encode(listValue(list, items: list.items))) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static let tools: [Tool] = [
        Tool(
            name: "get_shopping_list",
            title: "Read the shopping list",
            description: """
                Returns the shopping list: its sections in order, and its items (id, name, amount, \
                section, checked, optional). Optional filters: `section` (exact name), \
                `unchecked_only`, `text` (case-insensitive substring of name or amount). The \
                `revision` changes whenever the list changes.
                """,
            inputSchema: .object([
                "type": .string("object"),
                "properties": .object([
                    "section": .object(["type": .string("string"), "maxLength": .int(TextRules.maxSection)]),
                    "unchecked_only": .object(["type": .string("boolean")]),
                    "text": .object(["type": .string("string"), "maxLength": .int(TextRules.maxName)]),
                ]),
                "additionalProperties": .bool(false),
            ]),
            annotations: .init(title: "Read the shopping list", readOnlyHint: true, destructiveHint: false,
                               idempotentHint: true, openWorldHint: false),
            outputSchema: .object([
                "type": .string("object"),
                "properties": .object([
                    "revision": .object(["type": .string("string")]),
                    "sections": .object(["type": .string("array"), "items": .object(["type": .string("string")])]),
                    "items": .object(["type": .string("array"), "items": itemSchema]),
                ]),
                "required": .array([.string("revision"), .string("sections"), .string("items")]),
            ])),
    ]

    static func string(_ max: Int, _ description: String) -> Value {
        .object(["type": .string("string"), "maxLength": .int(max), "description": .string(description)])
    }

    static func batch(_ entry: [String: Value], required: [String]) -> Value {
        .object([
            "type": .string("object"),
            "properties": .object([
                "items": .object([
                    "type": .string("array"), "minItems": .int(1), "maxItems": .int(500),
                    "items": .object([
                        "type": .string("object"), "properties": .object(entry),
                        "required": .array(required.map(Value.string)), "additionalProperties": .bool(false),
                    ]),
                ]),
                "expected_revision": .object([
                    "type": .string("string"),
                    "description": .string("The revision from get_shopping_list; if the list changed since, nothing is done and you are told to re-read."),
                ]),
            ]),
            "required": .array([.string("items")]),
        ])
    }

    static let itemRef = string(500, "The item: its id, a unique start of its id (4+ characters), or its exact name (any case).")

    static let resultsSchema: Value = .object([
        "type": .string("object"),
        "properties": .object([
            "results": .object([
                "type": .string("array"),
                "items": .object([
                    "type": .string("object"),
                    "properties": .object([
                        "entry": .object(["type": .string("integer")]), "item": .object(["type": .string("string")]),
                        "status": .object(["type": .string("string")]), "id": .object(["type": .string("string")]),
                        "error": .object(["type": .string("string")]),
                    ]),
                    "required": .array(["entry", "item", "status"].map(Value.string)),
                ]),
            ]),
            "revision": .object(["type": .string("string")]),
        ]),
        "required": .array([.string("results"), .string("revision")]),
    ])

    static let editingTools: [Tool] = [
        Tool(
            name: "add_items", title: "Add items",
            description: """
                Adds items to the shopping list in one call ("add bananas, milk and bread" is one call).                 Each entry: name, and optionally amount (e.g. "2 L"), section (default "Other"; created if                 new), optional (true for nice-to-have). A name already on the list unchecked is not added                 twice: its result says already_on_list (set allow_duplicates to insist); a checked one is                 unchecked instead. Returns each entry's result with the item id.
                """,
            inputSchema: {
                guard case .object(var schema) = batch([
                    "name": string(TextRules.maxName, "What to buy."),
                    "amount": string(TextRules.maxAmount, "How much, free text."),
                    "section": string(TextRules.maxSection, "Where it is in the shop, e.g. Dairy."),
                    "optional": .object(["type": .string("boolean")]),
                ], required: ["name"]), case .object(var properties)? = schema["properties"] else { return .null }
                properties["allow_duplicates"] = .object(["type": .string("boolean"), "description": .string("Add even when the name is already on the list unchecked.")])
                schema["properties"] = .object(properties)
                return .object(schema)
            }(),
            annotations: .init(title: "Add items", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false),
            outputSchema: resultsSchema),
        Tool(
            name: "update_items", title: "Change items",
            description: """
                Changes items: each entry names an item ("item": id, id prefix or exact name) and the                 fields to change — name, amount, section, checked, optional, position (1-based place                 within its section). Only the given fields change. Checking off is {"item": "Milk",                 "checked": true}. Returns each entry's result.
                """,
            inputSchema: batch([
                "item": itemRef,
                "name": string(TextRules.maxName, "New name."),
                "amount": string(TextRules.maxAmount, "New amount (empty to clear)."),
                "section": string(TextRules.maxSection, "Move to this section."),
                "checked": .object(["type": .string("boolean")]),
                "optional": .object(["type": .string("boolean")]),
                "position": .object(["type": .string("integer"), "minimum": .int(1)]),
            ], required: ["item"]),
            annotations: .init(title: "Change items", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false),
            outputSchema: resultsSchema),
        Tool(
            name: "remove_items", title: "Remove items",
            description: """
                Removes items from the list (destructive; the user can undo in the editor). Each entry:                 {"item": id, id prefix or exact name}. Returns each entry's result.
                """,
            inputSchema: batch(["item": itemRef], required: ["item"]),
            annotations: .init(title: "Remove items", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false),
            outputSchema: resultsSchema),
        Tool(
            name: "clear_checked", title: "Clear checked items",
            description: "Removes every checked item (destructive). Returns what it removed.",
            inputSchema: .object([
                "type": .string("object"),
                "properties": .object(["expected_revision": .object(["type": .string("string")])]),
                "additionalProperties": .bool(false),
            ]),
            annotations: .init(title: "Clear checked items", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false),
            outputSchema: resultsSchema),
    ]

    static let itemSchema: Value = .object([
        "type": .string("object"),
        "properties": .object([
            "id": .object(["type": .string("string")]),
            "name": .object(["type": .string("string")]),
            "amount": .object(["type": .string("string")]),
            "section": .object(["type": .string("string")]),
            "checked": .object(["type": .string("boolean")]),
            "optional": .object(["type": .string("boolean")]),
        ]),
        "required": .array(["id", "name", "amount", "section", "checked", "optional"].map(Value.string)),
    ])

    func call(_ name: String, _ arguments: [String: Value]) async -> CallTool.Result {
        if let tool = (Self.tools + Self.editingTools).first(where: { $0.name == name }),
           let problem = SchemaCheck.violation(.object(arguments), tool.inputSchema) {
            return EditingTools.failure("Invalid arguments for \(name): \(problem). Nothing was changed.")
        }
        switch name {
        case "get_shopping_list":
            return await MainActor.run { [store] in BananasMCPServer.getList(store, arguments) }
        case "add_items":
            return await MainActor.run { [store] in EditingTools.add(store, arguments) }
        case "update_items":
            return await MainActor.run { [store] in EditingTools.update(store, arguments) }
        case "remove_items":
            return await MainActor.run { [store] in EditingTools.remove(store, arguments) }
        case "clear_checked":
            return await MainActor.run { [store] in EditingTools.clearChecked(store, arguments) }
        default:
            return .init(content: [.text(text: "There is no tool named \(name).", annotations: nil, _meta: nil)], isError: true)
        }
    }

    @MainActor
    static func getList(_ store: ListStore, _ arguments: [String: Value]) -> CallTool.Result {
        let list = store.list
        var items = list.items
        if let section = arguments["section"]?.stringValue { items = items.filter { $0.section == section } }
        if arguments["unchecked_only"]?.boolValue == true { items = items.filter { !$0.checked } }
        if let text = arguments["text"]?.stringValue?.lowercased(), !text.isEmpty {
            items = items.filter { $0.name.lowercased().contains(text) || $0.amount.lowercased().contains(text) }
        }
        let structured = listValue(list, items: items)
        var summary = items.isEmpty ? "The list has no matching items." : "\(items.count) items:"
        for item in items {
            summary += "\n" + (item.checked ? "[x] " : "[ ] ") + item.name
                + (item.amount.isEmpty ? "" : " · " + item.amount) + " (" + item.section + ")"
        }
        return .init(content: [.text(text: summary, annotations: nil, _meta: nil)], structuredContent: Optional<Value>.some(structured), isError: false)
    }
}
