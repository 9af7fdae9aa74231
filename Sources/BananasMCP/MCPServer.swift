import BananasCore
import BananasFile
import BananasSync
import MCP

/// `bananas mcp`: the list for AI agents, over stdio (modelcontextprotocol/swift-sdk).
///
/// Every call hops to the main actor, where the `ListStore` lives: edits go through the same
/// store, journal and sync engine as the editor's. Nothing here writes to stdout: the
/// transport owns it.
///
/// Work in progress (issue 5): `get_shopping_list` is served; the editing tools are next.
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
            capabilities: .init(tools: .init(listChanged: false)))
        await server.withMethodHandler(ListTools.self) { _ in
            .init(tools: BananasMCPServer.tools)
        }
        await server.withMethodHandler(CallTool.self) { [self] params in
            await call(params.name, params.arguments ?? [:])
        }
        try await server.start(transport: StdioTransport())
        await server.waitUntilCompleted()
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
        switch name {
        case "get_shopping_list":
            return await MainActor.run { [store] in BananasMCPServer.getList(store, arguments) }
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
        let revision = String(store.revision)
        let structured: Value = .object([
            "revision": .string(revision),
            "sections": .array(list.displaySections.map(Value.string)),
            "items": .array(items.map { item in
                .object([
                    "id": .string(item.id), "name": .string(item.name), "amount": .string(item.amount),
                    "section": .string(item.section), "checked": .bool(item.checked), "optional": .bool(item.optional),
                ])
            }),
        ])
        var summary = items.isEmpty ? "The list has no matching items." : "\(items.count) items:"
        for item in items {
            summary += "\n" + (item.checked ? "[x] " : "[ ] ") + item.name
                + (item.amount.isEmpty ? "" : " · " + item.amount) + " (" + item.section + ")"
        }
        return .init(content: [.text(text: summary, annotations: nil, _meta: nil)], structuredContent: Optional<Value>.some(structured), isError: false)
    }
}
