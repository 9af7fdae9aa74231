import BananasCore
import BananasFile
import BananasSync
import Foundation
import Logging
import MCP

/// `bananas mcp`: the list for AI agents (modelcontextprotocol/swift-sdk).
///
/// Every call hops to the main actor, where the `ListStore` lives: edits go through the same
/// store, journal and sync engine as the editor's. Nothing here writes to stdout (the
/// transport owns it); the logger writes wherever it was bootstrapped to (stderr for
/// `bananas mcp`).
public final class BananasMCPServer: Sendable {
    let store: ListStore
    let logger: Logger

    /// `logger` defaults to one that discards everything (tests; `bananas mcp` passes its own).
    @MainActor
    public init(store: ListStore, logger: Logger = Logger(label: "bananas.mcp", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.store = store
        self.logger = logger
    }

    /// The names of the tools, in the order `tools/list` gives them.
    public static var toolNames: [String] { ToolCatalog.names }

    /// The names of the prompts, in the order `prompts/list` gives them.
    public static var promptNames: [String] { Guidance.prompts.map(\.name) }

    public static let listURI = "bananas://list"
    public static let version = "0.1.0"
    static let capabilities = Server.Capabilities(
        prompts: .init(listChanged: false), resources: .init(subscribe: true, listChanged: false), tools: .init(listChanged: false))

    /// An SDK server with every handler registered, ready to `start(transport:)`.
    public func makeServer() async -> Server {
        let server = Server(
            name: "bananas", version: Self.version, instructions: Guidance.instructions,
            capabilities: Self.capabilities)
        await registerResource(on: server)
        await server.withMethodHandler(ListPrompts.self) { _ in .init(prompts: Guidance.prompts) }
        await server.withMethodHandler(GetPrompt.self) { params in try Guidance.get(params.name, params.arguments ?? [:]) }
        await server.withMethodHandler(ListTools.self) { _ in
            .init(tools: ToolCatalog.all)
        }
        await server.withMethodHandler(CallTool.self) { [self] params in
            if let refusal = ToolCatalog.refusal(forUnknown: params.name, arguments: params.arguments ?? [:]) { throw MCPError.invalidParams(refusal) }
            return await call(params.name, params.arguments ?? [:])
        }
        await watchStatus()
        return server
    }

    /// Serves over stdio until the client closes stdin.
    public func run() async throws {
        let server = await makeServer()
        let path = await MainActor.run { [store] in store.file.path }
        logger.info("serving \(TextRules.escaped(path)) over stdio", metadata: ["tools": "\(ToolCatalog.all.count)"])
        var transportLogger = logger
        transportLogger[metadataKey: "part"] = "transport"
        do {
            let stdio = LineTransport(endingOn: [SIGTERM, SIGINT, SIGHUP], logger: transportLogger)
            try await server.start(transport: ToolCallTransport(wrapping: stdio, server: self))
        } catch {
            logger.error("could not start on stdio: \(TextRules.escaped("\(error)"))")
            throw error
        }
        await server.waitUntilCompleted()
        logger.info("the client closed the connection")
    }

    /// Calls `changed` after every change to the list (not to its sync state), as long as the
    /// returned token lives: `subscriptions/listen` streams.
    @MainActor
    func observeList(_ changed: @escaping @Sendable () -> Void) -> Subscription {
        store.subscribe { change in
            if change != .status { changed() }
        }
    }

    // MARK: Sync state in the log

    /// Logs when the list pauses (with the reason) and when it can be written again.
    func watchStatus() async {
        let logger = logger
        await MainActor.run { [store] in
            let watcher = StatusLog()
            watcher.note(store.status, logger: logger)
            // The store keeps the watcher alive through this handler, as long as it lives.
            watcher.token = store.subscribe { [weak store] _ in
                guard let store else { return }
                watcher.note(store.status, logger: logger)
            }
        }
    }

    @MainActor final class StatusLog {
        var token: Subscription?
        var lastReason: String?

        func note(_ status: SyncStatus, logger: Logger) {
            let reason = status.pausedBy?.pausedReason
            guard reason != lastReason else { return }
            if let paused = status.pausedBy {
                logger.warning("list paused (\(TextRules.escaped(paused.pausedReason))): \(paused.description)", metadata: ["pending": "\(status.pendingCount)"])
            } else if lastReason != nil {
                logger.notice("list writable again", metadata: ["pending": "\(status.pendingCount)"])
            }
            lastReason = reason
        }
    }

    // MARK: Resource

    /// Clients subscribed to the list resource (the SDK keeps no track of them).
    @MainActor final class Subscribers {
        var uris: Set<String> = []
        var token: Subscription?
    }

    /// `bananas://list`: the list as JSON (what `get_shopping_list` returns unfiltered). A
    /// subscribed client is sent `notifications/resources/updated` on every change, from any
    /// writer: the store hears of file changes within milliseconds.
    func registerResource(on server: Server) async {
        let logger = logger
        let subscribers = await MainActor.run { Subscribers() }
        await server.withMethodHandler(ListResources.self) { _ in
            .init(resources: [Resource(
                name: "shopping-list", uri: Self.listURI, title: "Shopping list",
                description: "The shopping list as JSON: revision, sections, and its first page of items (next_cursor continues with bananas://list?cursor=…).", mimeType: "application/json")])
        }
        await server.withMethodHandler(ListResourceTemplates.self) { _ in
            .init(templates: [Resource.Template(
                uriTemplate: Self.listURI + "{?cursor,mode,limit,section,text,unchecked_only}", name: "shopping-list-page",
                title: "A page of the shopping list",
                description: "The list a page at a time, as get_shopping_list pages it: follow next_cursor with ?cursor=.",
                mimeType: "application/json")])
        }
        await server.withMethodHandler(ReadResource.self) { [store] params in
            let json = try await MainActor.run { try Self.listJSON(store, uri: params.uri) }
            logger.debug("resource read", metadata: ["bytes": "\(json.utf8.count)"])
            return .init(contents: [.text(json, uri: params.uri, mimeType: "application/json")])
        }
        await server.withMethodHandler(ResourceSubscribe.self) { params in
            guard params.uri == Self.listURI else { throw MCPError.invalidParams("unknown resource \(params.uri); the list is \(Self.listURI)") }
            await MainActor.run { _ = subscribers.uris.insert(params.uri) }
            logger.info("client subscribed to \(TextRules.escaped(params.uri))")
            return Empty()
        }
        await server.withMethodHandler(ResourceUnsubscribe.self) { params in
            await MainActor.run { _ = subscribers.uris.remove(params.uri) }
            logger.info("client unsubscribed from \(TextRules.escaped(params.uri))")
            return Empty()
        }
        await MainActor.run { [store] in
            subscribers.token = store.subscribe { change in
                guard change != .status, subscribers.uris.contains(Self.listURI) else { return }
                Task {
                    do {
                        try await server.notify(ResourceUpdatedNotification.message(.init(uri: Self.listURI)))
                        logger.debug("notified resource update", metadata: ["change": "\(change)"])
                    } catch {
                        logger.error("could not send notifications/resources/updated: \(TextRules.escaped("\(error)"))")
                    }
                }
            }
        }
    }

    /// The resource's text: a page of the list (`ListPage`) as JSON, for `uri`
    /// (`bananas://list`, or with `?cursor=`, `?mode=` and the other filters).
    @MainActor
    static func listJSON(_ store: ListStore, uri: String) throws -> String {
        let answer: ListPage.Answer
        do {
            answer = try ListPage(uri: uri).answer(ListSnapshot.of(store))
        } catch {
            throw MCPError.invalidParams(error.message)
        }
        var bytes: [UInt8] = []
        ValueJSON.append(escaped(.object(answer.structured)), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Tools

    func call(_ name: String, _ arguments: [String: Value]) async -> CallTool.Result {
        let started = ContinuousClock.now
        if logger.logLevel <= .debug {
            let shown = (try? JSONEncoder().encode(Value.object(arguments))).map { String(decoding: $0, as: UTF8.self) } ?? ""
            logger.debug("tool \(TextRules.escaped(name)) called", metadata: ["arguments": "\(TextRules.escaped(String(shown.prefix(2_000))))"])
        }
        let result = Self.escaped(await dispatch(name, arguments))
        let ms = Int(((ContinuousClock.now - started) / .milliseconds(1)).rounded())
        let outcome = Self.outcome(result)
        let tool = TextRules.escaped(name)
        if result.isError == true {
            logger.notice("tool \(tool): \(outcome)", metadata: ["ms": "\(ms)"])
        } else {
            logger.info("tool \(tool): \(outcome)", metadata: ["ms": "\(ms)"])
        }
        return result
    }

    /// One escaping rule for everything an agent reads (TextRules.escaped: C0, C1, DEL, bidi
    /// controls, invisible and tag characters shown as `\u{…}`): the text and every string of
    /// the structured content, whichever tool made them.
    static func escaped(_ result: CallTool.Result) -> CallTool.Result {
        let content = result.content.map { item -> Tool.Content in
            if case .text(let text, let annotations, let meta) = item { return .text(text: TextRules.escaped(text, keepingNewlines: true), annotations: annotations, _meta: meta) }
            return item
        }
        return CallTool.Result(content: content, structuredContent: result.structuredContent.map(escaped), isError: result.isError)
    }

    /// Every string of `value` escaped (the same rule; the list resource's JSON too).
    static func escaped(_ value: Value) -> Value {
        switch value {
        case .string(let text): .string(TextRules.escaped(text))
        case .array(let values): .array(values.map(escaped))
        case .object(let fields): .object(fields.mapValues(escaped))
        default: value
        }
    }

    /// One line for the log: counts of each status, or the first line of a refusal.
    static func outcome(_ result: CallTool.Result) -> String {
        if case .object(let structured)? = result.structuredContent, case .array(let results)? = structured["results"] {
            var counts: [String: Int] = [:]
            for case .object(let entry) in results { counts[entry["status"]?.stringValue ?? "?", default: 0] += 1 }
            var text = counts.isEmpty ? "nothing to do" : counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            if let paused = structured["paused"]?.stringValue { text += "; not written yet (paused: \(paused))" }
            return text
        }
        if case .object(let structured)? = result.structuredContent, case .array(let items)? = structured["items"] {
            return "\(items.count) items"
        }
        if case .text(let text, _, _)? = result.content.first {
            return (result.isError == true ? "refused: " : "") + String(text.prefix { $0 != "\n" }.prefix(300))
        }
        return result.isError == true ? "error" : "ok"
    }

    func dispatch(_ name: String, _ arguments: [String: Value]) async -> CallTool.Result {
        guard let tool = ToolCatalog.all.first(where: { $0.name == name }) else {
            return EditingTools.failure("There is no tool named \(TextRules.escaped(name)). The tools are: \(ToolCatalog.names.joined(separator: ", ")).")
        }
        if let problem = SchemaCheck.violation(.object(arguments), tool.inputSchema) {
            return EditingTools.failure("Invalid arguments for \(name): \(TextRules.escaped(problem)). Nothing was changed.")
        }
        let store = store
        switch name {
        case "get_shopping_list": return await MainActor.run { BananasMCPServer.getList(store, arguments) }
        case "suggest_items": return await MainActor.run { BananasMCPServer.suggest(store, arguments) }
        case "add_items": return await EditingTools.add(store, arguments)
        case "update_items": return await EditingTools.update(store, arguments)
        case "remove_items": return await EditingTools.remove(store, arguments)
        case "clear_checked": return await EditingTools.clearChecked(store, arguments)
        case "add_sections": return await SectionTools.add(store, arguments)
        case "update_sections": return await SectionTools.update(store, arguments)
        case "remove_sections": return await SectionTools.remove(store, arguments)
        case "undo": return await EditingTools.undo(store, arguments)
        case "add_item": return await GetBananasTools.addItem(store, arguments)
        case "remove_item": return await GetBananasTools.removeItem(store, arguments)
        case "update_item": return await GetBananasTools.updateItem(store, arguments)
        case "update_shopping_list": return await GetBananasTools.replaceList(store, arguments)
        default: return EditingTools.failure("There is no tool named \(TextRules.escaped(name)).")
        }
    }

    /// `suggest_items`: the usual items not on the list, or remembered names matching `text`.
    @MainActor
    static func suggest(_ store: ListStore, _ arguments: [String: Value]) -> CallTool.Result {
        let limit = arguments["limit"]?.intValue ?? 30
        guard (1...200).contains(limit) else { return EditingTools.failure("limit must be a whole number from 1 to 200") }
        let text = arguments["text"]?.stringValue
        if let text, TextRules.firstHidden(in: text) != nil || text.count > TextRules.maxName {
            return EditingTools.failure("text has invisible or control characters, or is too long")
        }
        let now = store.time.nowMillis()
        let remembered = store.list.rememberedItems(now: now)
        let found = if let text, !text.trimmingWhitespace().isEmpty {
            Suggestions(remembered).matching(text, limit: limit)
        } else {
            Array(remembered.filter { $0.timesBought > 0 && !$0.onList }.prefix(limit))
        }
        var lines: [String] = []
        var used = 0
        // `limit` names, and no more than the size budget holds (names up to 500 characters).
        let fitting = found.prefix { item in
            used += 2 * (ListPage.jsonSize(TextRules.escaped(item.name)) + ListPage.jsonSize(TextRules.escaped(item.section)) + ListPage.jsonSize(TextRules.escaped(item.amount))) + 120
            return used <= AnswerBudget.characters
        }
        let values: [Value] = fitting.map { item in
            var fields: [String: Value] = [
                "name": .string(TextRules.escaped(item.name)), "section": .string(TextRules.escaped(item.section)),
                "times_bought": .int(item.timesBought),
            ]
            if !item.amount.isEmpty { fields["amount"] = .string(TextRules.escaped(item.amount)) }
            if item.optional { fields["optional"] = .bool(true) }
            var line = "- \(TextRules.escaped(item.name))" + (item.amount.isEmpty ? "" : " (\(TextRules.escaped(item.amount)))")
                + " · \(TextRules.escaped(item.section)) · bought \(item.timesBought)x"
            if let last = item.lastBought {
                let date = String(Timestamp.iso8601(millis: last).prefix(10))
                fields["last_bought"] = .string(date)
                line += ", last \(date)"
            }
            lines.append(line)
            return .object(fields)
        }
        let heading = found.isEmpty
            ? (text == nil ? "No usual items are missing from the list (items are remembered once bought: checked, then cleared)." : "No remembered item matches.")
            : (text == nil ? "Usual items not on the list, most useful first:" : "Remembered items matching, best first:")
        return .init(content: [.text(text: ([heading] + lines).joined(separator: "\n"), annotations: nil, _meta: nil)],
                     structuredContent: .object(["suggestions": .array(values)]))
    }

    @MainActor
    static func getList(_ store: ListStore, _ arguments: [String: Value]) -> CallTool.Result {
        let answer: ListPage.Answer
        do {
            answer = try ListPage(arguments: arguments).answer(ListSnapshot.of(store))
        } catch {
            return .init(content: [.text(text: error.message, annotations: nil, _meta: nil)],
                         structuredContent: error.suggestions.isEmpty ? nil : .object(["suggestions": .array(error.suggestions.map(Value.string))]),
                         isError: true)
        }
        var structured = answer.structured
        let status = store.status
        var sync: [String: Value] = ["state": .string(status.state.rawValue)]
        if status.pendingCount > 0 { sync["pending"] = .int(status.pendingCount) }
        var summary = ""
        if status.clockSkewMillis > SyncStatus.skewWarningMillis {
            // A clock ahead can win concurrent edits; the agent should say so (rule 1).
            sync["clock_skew_seconds"] = .int(Int(status.clockSkewMillis / 1000))
            if let replica = status.clockSkewReplica { sync["clock_skew_replica"] = .string(replica) }
            summary += "Note: a stamp in the list is \(SyncStatus.duration(status.clockSkewMillis)) ahead of this clock"
                + (status.clockSkewReplica.map { " (from \($0))" } ?? "") + "; edits made here still take effect.\n"
        }
        let deleted = store.list.recentlyDeleted
        if !deleted.isEmpty {
            sync["recently_deleted"] = .array(deleted.prefix(AnswerBudget.shown).map { entry in
                .object(["id": .string(entry.item.id), "name": .string(TextRules.escaped(entry.item.name)),
                         "section": .string(TextRules.escaped(entry.item.section))])
            })
        }
        if let paused = status.pausedBy {
            sync["paused"] = .string(paused.pausedReason)
            sync["detail"] = .string(paused.description)
            summary = "The list is paused (\(paused.pausedReason)): \(TextRules.escaped(paused.description))\n"
            summary += paused.isContentProblem
                ? "What follows is the last content that could be read; changes are refused until the file is fixed.\n"
                : "Changes are saved and will be written when this clears.\n"
        }
        structured["sync"] = .object(sync)
        return .init(content: [.text(text: summary + answer.text, annotations: nil, _meta: nil)],
                     structuredContent: Optional<Value>.some(.object(structured)), isError: false)
    }
}
