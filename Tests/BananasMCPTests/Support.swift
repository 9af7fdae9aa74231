import BananasCore
import BananasFile
@testable import BananasMCP
import BananasSync
import Foundation
import Logging
import MCP
import BananasTestSupport
import Testing
import Synchronization

/// Collects log lines (level and message) for assertions.
final class LogCapture: Sendable {
    private let stored = Mutex<[(level: Logger.Level, message: String)]>([])

    func append(_ level: Logger.Level, _ message: String) {
        stored.withLock { $0.append((level, message)) }
    }

    var lines: [(level: Logger.Level, message: String)] { stored.withLock { $0 } }

    var logger: Logger {
        Logger(label: "bananas.mcp.test") { _ in Handler(capture: self) }
    }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var text = "\(event.message)"
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            if !all.isEmpty { text += " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
            capture.append(event.level, text)
        }
    }
}

/// Times of `notifications/resources/updated` received by a client.
final class Updates: Sendable {
    private let times = Mutex<[ContinuousClock.Instant]>([])

    func record() { times.withLock { $0.append(.now) } }

    var all: [ContinuousClock.Instant] { times.withLock { $0 } }
}

/// A real `ListStore` on a temp file, served by `BananasMCPServer` to an SDK `Client` over
/// the SDK's in-memory transport: the whole server, in process.
@MainActor
final class Harness {
    let box: Sandbox
    let store: ListStore
    let server: Server
    let client: Client
    let updates: Updates

    init(_ box: Sandbox = Sandbox(), logger: Logger? = nil, watch: FolderWatcher.Options = FolderWatcher.Options()) async throws {
        let updates = Updates()
        self.updates = updates
        self.box = box
        let store = ListStore(file: box.file(), mode: .live, watch: watch)
        self.store = store
        let mcp = logger.map { BananasMCPServer(store: store, logger: $0) } ?? BananasMCPServer(store: store)
        server = await mcp.makeServer()
        client = Client(name: "bananas-tests", version: "1")
        let (clientSide, serverSide) = await InMemoryTransport.createConnectedPair()
        // As `bananas mcp` serves: tool calls answered outside the SDK's handler table.
        try await server.start(transport: ToolCallTransport(wrapping: serverSide, server: mcp))
        await client.onNotification(ResourceUpdatedNotification.self) { _ in updates.record() }
        try await client.connect(transport: clientSide)
    }

    func close() async {
        await client.disconnect()
        await server.stop()
        store.close()
    }

    /// Calls a tool; a result that is not an error must match the tool's output schema.
    @discardableResult
    func call(_ name: String, _ arguments: [String: Value] = [:], sourceLocation: SourceLocation = #_sourceLocation) async throws -> CallTool.Result {
        let result = try await client.send(CallTool.request(.init(name: name, arguments: arguments))).value
        if result.isError != true, let tool = ToolCatalog.all.first(where: { $0.name == name }), let schema = tool.outputSchema {
            let structured = try #require(result.structuredContent, "\(name) answers structuredContent", sourceLocation: sourceLocation)
            #expect(SchemaCheck.violation(structured, schema, at: "structuredContent") == nil, sourceLocation: sourceLocation)
        }
        return result
    }

    func list(_ arguments: [String: Value] = [:]) async throws -> [String: Value] {
        try #require(try await call("get_shopping_list", arguments).structuredContent?.objectValue)
    }

    func names() async throws -> [String] {
        try await list()["items"]!.arrayValue!.map { $0.objectValue!["name"]!.stringValue! }
    }

    func revision() async throws -> String { try await list()["revision"]!.stringValue! }
}

extension CallTool.Result {
    var structured: [String: Value] { structuredContent?.objectValue ?? [:] }
    var results: [[String: Value]] { structured["results"]?.arrayValue?.compactMap(\.objectValue) ?? [] }
    var statuses: [String] { results.map { $0["status"]?.stringValue ?? "?" } }
    var text: String {
        content.compactMap { if case .text(let text, _, _) = $0 { text } else { nil } }.joined(separator: "\n")
    }
}

extension Array where Element == [String: Value] {
    subscript(name name: String) -> [String: Value]? { first { $0["name"]?.stringValue == name } }
}

extension ShoppingList {
    func named(_ name: String) -> Item? { items.first { $0.name == name } }
}
