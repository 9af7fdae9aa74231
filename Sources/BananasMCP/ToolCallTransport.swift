import BananasCore
import BananasSync
import Foundation
import Logging
import MCP

/// A transport that answers `tools/call` itself and hands every other message to the SDK's
/// server.
///
/// The swift-sdk (0.12.1) runs a request through `TypedRequestHandler`, which encodes the
/// handler's result to JSON, decodes that back into a `Value` (where every node tries Bool,
/// Int, Double, String, array and object in turn, each miss a thrown error) and encodes it
/// once more to send it: most of a large `get_shopping_list` call (docs/performance.md). Here the request is parsed with
/// bananas's own JSON reader, the call goes to the same `BananasMCPServer.call` as the SDK's
/// handler (which stays registered, for batches), and the result is written straight to bytes
/// (`ValueJSON`). Everything else, `initialize` and resources included, goes through the SDK.
public actor ToolCallTransport: Transport {
    private let inner: any Transport
    private let server: BananasMCPServer
    public nonisolated let logger: Logger
    private var incoming: AsyncThrowingStream<Data, Swift.Error>?
    private var pump: Task<Void, Never>?
    /// Tool calls being answered. At the end of input they are waited for before the SDK hears
    /// of it (and the server shuts down): a client that sends a call and closes stdin still
    /// gets its answer, and the edit is not cut off.
    private var answering: [Int: Task<Void, Never>] = [:]
    private var nextCall = 0
    /// An `initialize` went by. Before it, a handshake-era client's `tools/call` is refused:
    /// it would change the list for a client that never agreed on a protocol.
    private var initialized = false
    /// Requests of the stateless revision (2026-07-28) that the SDK answers, by their id's
    /// JSON, and their method: their results get the fields that revision requires.
    private var modern: [String: String] = [:]
    /// Open `subscriptions/listen` requests, by their id's JSON: the id, and the URIs honored.
    private var listens: [String: (id: JSONValue, uris: [String])] = [:]
    private var listening: ListObservation?
    /// Requests handed to the SDK and not answered yet, by their id's JSON. The SDK answers
    /// each on a task of its own and stops at the end of input without waiting for them:
    /// the end of input is held back until they are answered.
    private var awaitingSDK: Set<String> = []
    /// How long the end of input waits for the SDK's answers.
    static let sdkDrainMillis = 5_000

    /// The stateless protocol revision answered here, beside the SDK's handshake revisions.
    public static let statelessRevision = "2026-07-28"
    /// Every revision spoken: the stateless one, then the SDK's handshake ones, newest first.
    static let supportedVersions = [statelessRevision] + Version.supported.sorted(by: >)
    static let versionKey = "io.modelcontextprotocol/protocolVersion"
    static let subscriptionKey = "io.modelcontextprotocol/subscriptionId"
    /// Results of these methods say how long a client may cache them (2026-07-28).
    static let cacheable: Set<String> = ["tools/list", "resources/list", "resources/templates/list", "resources/read", "prompts/list"]

    public init(wrapping inner: any Transport, server: BananasMCPServer) {
        self.inner = inner
        self.server = server
        logger = server.logger
    }

    public func connect() async throws {
        guard incoming == nil else { return }
        try await inner.connect()
        let upstream = await inner.receive()
        let (stream, continuation) = AsyncThrowingStream<Data, Swift.Error>.makeStream()
        incoming = stream
        pump = Task { [weak self] in
            do {
                for try await message in upstream {
                    guard let self else { break }
                    if let forward = await self.route(message) { continuation.yield(forward) }
                }
                await self?.drain()
                continuation.finish()
            } catch {
                await self?.drain()
                continuation.finish(throwing: error)
            }
        }
    }

    public func disconnect() async {
        pump?.cancel()
        await inner.disconnect()
    }

    public func send(_ data: Data) async throws {
        guard !awaitingSDK.isEmpty || !modern.isEmpty,
              case .object(let object)? = try? JSONText.parse([UInt8](data)), let id = object["id"] else {
            try await inner.send(data)
            return
        }
        let key = JSONText.compact(id)
        // Taken off only once written: the end of input waits for the bytes, not the intent.
        defer { awaitingSDK.remove(key) }
        if let method = modern.removeValue(forKey: key), let patched = completingModernResult(object, method: method) {
            try await inner.send(patched)
            return
        }
        try await inner.send(data)
    }

    public func receive() -> AsyncThrowingStream<Data, Swift.Error> {
        // The server calls this after `connect`; a stream that ends at once otherwise.
        incoming ?? AsyncThrowingStream { $0.finish() }
    }

    // MARK: Routing

    /// Answers what is answered here, and returns what goes on to the SDK.
    private func route(_ message: Data) async -> Data? {
        let parsed: JSONValue
        do {
            parsed = try JSONText.parse([UInt8](message))
        } catch {
            // No id can be read from a line that does not parse: JSON-RPC answers with null.
            await sendError(id: .null, code: -32700, message: "Parse error: \(error)")
            return nil
        }
        guard case .object(let object) = parsed else {
            if case .array(let batch) = parsed, !batch.isEmpty { return await routeBatch(batch, message) }
            await sendError(id: .null, code: -32600, message: "Invalid Request: a JSON-RPC message is an object with \"jsonrpc\": \"2.0\" and a method (or a result or error).")
            return nil
        }
        if let problem = Self.invalidity(object) {
            // The SDK would answer with an id of its own making: JSON-RPC wants the request's
            // id when it can be read, else null.
            await sendError(id: Self.readableID(object) ?? .null, code: -32600, message: "Invalid Request: \(problem)")
            return nil
        }
        let method = object["method"]?.stringValue
        let params = object["params"]?.objectValue
        if method == "initialize" { initialized = true }
        if method == "notifications/cancelled", let request = params?["requestId"] {
            listens[JSONText.compact(request)] = nil
            awaitingSDK.remove(JSONText.compact(request))  // the SDK does not answer it
        }
        guard let method, let id = object["id"], id != .null else { return message }
        guard let forward = await routeRequest(message, object, id: id, method: method, params: params) else { return nil }
        awaitingSDK.insert(JSONText.compact(id))
        return forward
    }

    /// A batch: each member that is no JSON-RPC message (`[1,2,3]`) is answered here, in one
    /// array, with its id when one can be read, else null, as JSON-RPC 2.0 has it (the SDK
    /// answered with ids of its own making); the other members go on to the SDK as a batch.
    private func routeBatch(_ batch: [JSONValue], _ message: Data) async -> Data? {
        var valid: [JSONValue] = []
        var errors: [JSONValue] = []
        for member in batch {
            guard case .object(let object) = member else {
                errors.append(Self.errorMessage(id: .null, code: -32600, message: "Invalid Request: a member of a batch must be a JSON-RPC message (an object), not \(JSONText.compact(member).prefix(40))."))
                continue
            }
            if let problem = Self.invalidity(object) {
                errors.append(Self.errorMessage(id: Self.readableID(object) ?? .null, code: -32600, message: "Invalid Request: \(problem)"))
            } else {
                valid.append(member)
            }
        }
        if !errors.isEmpty { await sendLine(.array(errors)) }
        if valid.isEmpty { return nil }
        return errors.isEmpty ? message : Data(JSONText.compact(.array(valid)).utf8)
    }

    static func errorMessage(id: JSONValue, code: Int, message: String) -> JSONValue {
        .object(["jsonrpc": .string("2.0"), "id": id, "error": .object(["code": .number(String(code)), "message": .string(message)])])
    }

    /// Why `object` is no JSON-RPC 2.0 request, notification or response, or nil.
    static func invalidity(_ object: [String: JSONValue]) -> String? {
        guard object["jsonrpc"] == .string("2.0") else { return "\"jsonrpc\" must be \"2.0\"." }
        if let id = object["id"] {
            switch id {
            case .string, .number, .null: break
            default: return "\"id\" must be a string or a number."
            }
        }
        guard let method = object["method"] else {
            if object["id"] != nil, object["result"] != nil || object["error"] != nil { return nil }  // a response
            return "the message has no \"method\" (a request names one; a response carries \"result\" or \"error\")."
        }
        guard case .string = method else { return "\"method\" must be a string." }
        if let params = object["params"] {
            switch params {
            case .object, .array: break
            default: return "\"params\" must be an object."
            }
        }
        return nil
    }

    static func readableID(_ object: [String: JSONValue]) -> JSONValue? {
        switch object["id"] {
        case .string?, .number?: object["id"]
        default: nil
        }
    }

    private func routeRequest(_ message: Data, _ object: [String: JSONValue], id: JSONValue, method: String, params: [String: JSONValue]?) async -> Data? {
        let version = params?["_meta"]?.objectValue?[Self.versionKey]?.stringValue
        if version != nil || method == "server/discover" {
            return await routeStateless(message, object, id: id, method: method, version: version)
        }
        if method == "tools/call" {
            guard initialized else {
                await sendError(id: id, code: -32600, message: "The server is not initialized: send initialize first (or, in protocol \(Self.statelessRevision), give the protocol version in each request's _meta). Nothing was changed.")
                return nil
            }
            if let call = ToolCallRequest(object) {
                begin(call, stateless: false)
            } else {
                await sendError(id: id, code: -32602, message: ToolCallRequest.problem(object))
            }
            return nil
        }
        return message
    }

    /// A request of the stateless revision: no handshake, the version in every request's
    /// `_meta`, `server/discover`, `resultType` in every result, `subscriptions/listen`.
    private func routeStateless(_ message: Data, _ object: [String: JSONValue], id: JSONValue, method: String, version: String?) async -> Data? {
        if let version, version != Self.statelessRevision {
            await sendError(
                id: id, code: -32022, message: "Unsupported protocol version \(version)",
                data: .object(["supported": .array(Self.supportedVersions.map(JSONValue.string)), "requested": .string(version)]))
            return nil
        }
        switch method {
        case "server/discover":
            await sendResult(id: id, discoverResult())
        case "tools/call":
            if let call = ToolCallRequest(object) {
                begin(call, stateless: true)
            } else {
                await sendError(id: id, code: -32602, message: ToolCallRequest.problem(object))
            }
        case "subscriptions/listen":
            await listen(id: id, params: object["params"]?.objectValue ?? [:])
        default:
            return forward(message, id: id, method: method)
        }
        return nil
    }

    private func forward(_ message: Data, id: JSONValue, method: String) -> Data {
        modern[JSONText.compact(id)] = method
        return message
    }

    /// The SDK's result for a stateless request, with `resultType` (and, where the revision
    /// requires it, how long it may be cached: not at all, the list changes any time).
    private func completingModernResult(_ response: [String: JSONValue], method: String) -> Data? {
        var object = response
        guard case .object(var result)? = object["result"] else { return nil }
        result["resultType"] = result["resultType"] ?? .string("complete")
        if Self.cacheable.contains(method) {
            result["ttlMs"] = result["ttlMs"] ?? .number("0")
            result["cacheScope"] = result["cacheScope"] ?? .string("private")
        }
        object["result"] = .object(result)
        return Data(JSONText.compact(.object(object)).utf8)
    }

    private func discoverResult() -> JSONValue {
        var capabilities = JSONValue.object([:])
        if let encoded = try? JSONEncoder().encode(BananasMCPServer.capabilities), let value = try? JSONText.parse([UInt8](encoded)) {
            capabilities = value
        }
        return .object([
            "supportedVersions": .array(Self.supportedVersions.map(JSONValue.string)),
            "capabilities": capabilities,
            "instructions": .string(Guidance.instructions),
            "ttlMs": .number("0"), "cacheScope": .string("private"), "resultType": .string("complete"),
            "_meta": .object(["io.modelcontextprotocol/serverInfo": .object([
                "name": .string("bananas"), "version": .string(BananasMCPServer.version),
            ])]),
        ])
    }

    // MARK: subscriptions/listen

    /// Opens a listen stream: acknowledged at once with what is honored (the list's
    /// resource), then `notifications/resources/updated` on every change, each with the
    /// stream's id; the request is answered when the server ends.
    private func listen(id: JSONValue, params: [String: JSONValue]) async {
        let filter = params["notifications"]?.objectValue ?? [:]
        let uris = (filter["resourceSubscriptions"]?.arrayValue ?? []).compactMap(\.stringValue).filter {
            $0 == BananasMCPServer.listURI || $0.hasPrefix(BananasMCPServer.listURI + "?")
        }
        listens[JSONText.compact(id)] = (id, uris)
        var honored: [String: JSONValue] = [:]
        if !uris.isEmpty { honored["resourceSubscriptions"] = .array(uris.map(JSONValue.string)) }
        await sendNotification("notifications/subscriptions/acknowledged", [
            "notifications": .object(honored), "_meta": .object([Self.subscriptionKey: id]),
        ])
        logger.info("client listens", metadata: ["resources": "\(TextRules.escaped("\(uris)"))"])
        if listening == nil {
            let server = server
            listening = await MainActor.run {
                ListObservation(server.observeList { [weak self] in
                    Task { await self?.listChanged() }
                })
            }
        }
    }

    private func listChanged() async {
        for (_, listen) in listens.sorted(by: { $0.key < $1.key }) {
            for uri in listen.uris {
                await sendNotification("notifications/resources/updated", ["uri": .string(uri), "_meta": .object([Self.subscriptionKey: listen.id])])
            }
        }
    }

    // MARK: Answering

    /// Each call on a task of its own, as the SDK runs requests: a call that waits for the
    /// list's lock must not hold up a ping.
    private func begin(_ call: ToolCallRequest, stateless: Bool) {
        let number = nextCall
        nextCall += 1
        answering[number] = Task {
            await self.answer(call, stateless: stateless)
            self.answered(number)
        }
    }

    private func answered(_ number: Int) {
        answering[number] = nil
    }

    /// At the end of input: the calls still running are answered, and open listen streams
    /// are ended gracefully (their request answered).
    private func drain() async {
        while let (_, task) = answering.first {
            await task.value
        }
        let deadline = ContinuousClock.now + .milliseconds(Self.sdkDrainMillis)
        while !awaitingSDK.isEmpty, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
        for (_, listen) in listens.sorted(by: { $0.key < $1.key }) {
            await sendResult(id: listen.id, .object(["resultType": .string("complete"), "_meta": .object([Self.subscriptionKey: listen.id])]))
        }
        listens = [:]
        listening = nil
    }

    private func answer(_ call: ToolCallRequest, stateless: Bool) async {
        if let refusal = ToolCatalog.refusal(forUnknown: call.name, arguments: call.arguments) {
            await sendError(id: call.id, code: -32602, message: refusal)
            return
        }
        let result = await server.call(call.name, call.arguments)
        var out: [UInt8] = []
        out.reserveCapacity(4_096)
        out.append(contentsOf: #"{"jsonrpc":"2.0","id":"#.utf8)
        ValueJSON.append(call.id, to: &out)
        out.append(contentsOf: #","result":"#.utf8)
        ValueJSON.append(result, to: &out)
        if stateless {
            out.removeLast()  // the result's closing brace
            out.append(contentsOf: #","resultType":"complete"}"#.utf8)
        }
        out.append(UInt8(ascii: "}"))
        do {
            try await inner.send(Data(out))
        } catch {
            logger.error("could not send the result of \(TextRules.escaped(call.name)): \(TextRules.escaped("\(error)"))")
        }
    }

    private func sendResult(id: JSONValue, _ result: JSONValue) async {
        await sendLine(.object(["jsonrpc": .string("2.0"), "id": id, "result": result]))
    }

    private func sendError(id: JSONValue, code: Int, message: String, data: JSONValue? = nil) async {
        var error: [String: JSONValue] = ["code": .number(String(code)), "message": .string(message)]
        if let data { error["data"] = data }
        await sendLine(.object(["jsonrpc": .string("2.0"), "id": id, "error": .object(error)]))
    }

    private func sendNotification(_ method: String, _ params: [String: JSONValue]) async {
        await sendLine(.object(["jsonrpc": .string("2.0"), "method": .string(method), "params": .object(params)]))
    }

    private func sendLine(_ message: JSONValue) async {
        do {
            try await inner.send(Data(JSONText.compact(message).utf8))
        } catch {
            logger.error("could not send a message: \(TextRules.escaped("\(error)"))")
        }
    }
}

/// Holds a store subscription for an actor (it is made and let go on the main actor's side).
final class ListObservation: @unchecked Sendable {
    let token: Subscription
    init(_ token: Subscription) { self.token = token }
}

/// A `tools/call` request as it came in: its id (string or number, echoed as it was), the
/// tool's name and its arguments. Anything else (a notification, a response, a batch, another
/// method, a malformed call) is not one, and goes to the SDK, which answers errors as it does.
struct ToolCallRequest {
    var id: JSONValue
    var name: String
    var arguments: [String: Value]

    init?(_ message: Data) {
        // A cheap look before parsing: most messages are not tool calls.
        guard message.count < ListLimits.maxRequestBytes,
              message.range(of: Data("tools/call".utf8)) != nil,
              case .object(let object)? = try? JSONText.parse([UInt8](message)) else { return nil }
        self.init(object)
    }

    /// Why a `tools/call` is not one, in words a client's author acts on (the SDK answered
    /// with Foundation's decoding error).
    static func problem(_ object: [String: JSONValue]) -> String {
        guard case .object(let params)? = object["params"] else {
            return "Invalid params: tools/call needs params {\"name\": a tool's name, \"arguments\": an object}."
        }
        guard case .string? = params["name"] else {
            return "Invalid params: tools/call needs \"name\", the tool's name as a string (tools/list gives them)."
        }
        switch params["arguments"] {
        case nil, .null?, .object?: return "Invalid params: the tools/call request is malformed."
        case .array?: return "Invalid params: \"arguments\" must be an object of named arguments, not an array; e.g. {\"items\": [{\"name\": \"Milk\"}]}. Nothing was changed."
        default: return "Invalid params: \"arguments\" must be an object of named arguments. Nothing was changed."
        }
    }

    init?(_ object: [String: JSONValue]) {
        guard object["jsonrpc"] == .string("2.0"), object["method"] == .string("tools/call"),
              let id = object["id"], case .object(let params)? = object["params"],
              case .string(let name)? = params["name"]
        else { return nil }
        switch id {
        case .string, .number: self.id = id
        default: return nil
        }
        self.name = name
        switch params["arguments"] {
        case nil, .null?: arguments = [:]
        case .object(let fields)?: arguments = fields.mapValues(ValueJSON.value)
        default: return nil  // the SDK refuses it
        }
    }
}

enum ListLimits {
    /// Larger requests go the SDK's way (nothing an agent sends comes near it).
    static let maxRequestBytes = 64 * 1024 * 1024
}

/// JSON for the SDK's `Value`, written and converted without Codable.
enum ValueJSON {
    /// A parsed JSON value as the SDK's decoder would make it: numbers that are integers
    /// become `.int`, others `.double`.
    static func value(_ json: JSONValue) -> Value {
        switch json {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .number(let text): number(text)
        case .string(let text): .string(text)
        case .array(let elements): .array(elements.map(value))
        case .object(let fields): .object(fields.mapValues(value))
        }
    }

    /// As the SDK's `Value` decoder reads a number: an integer when it is a whole number that
    /// fits (`2`, `2.0`, `1e2`), else a double.
    static func number(_ text: String) -> Value {
        if let integer = Int(text) { return .int(integer) }
        guard let double = Double(text) else { return .null }
        if double.rounded() == double, let integer = Int(exactly: double) { return .int(integer) }
        return .double(double)
    }

    static func append(_ id: JSONValue, to out: inout [UInt8]) {
        switch id {
        case .string(let text): JSONText.appendString(text, to: &out)
        case .number(let text): out.append(contentsOf: text.utf8)
        default: out.append(contentsOf: "null".utf8)
        }
    }

    /// A tool's result, with the keys the SDK writes (`content`, `structuredContent`,
    /// `isError`, `_meta`).
    static func append(_ result: CallTool.Result, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"content":["#.utf8)
        for (index, content) in result.content.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            if case .text(let text, nil, nil) = content {
                out.append(contentsOf: #"{"type":"text","text":"#.utf8)
                JSONText.appendString(text, to: &out)
                out.append(UInt8(ascii: "}"))
            } else {
                // Images, resources and annotated text (none of our tools makes them).
                out.append(contentsOf: (try? JSONEncoder().encode(content)) ?? Data("null".utf8))
            }
        }
        out.append(UInt8(ascii: "]"))
        if let structured = result.structuredContent {
            out.append(contentsOf: #","structuredContent":"#.utf8)
            append(structured, to: &out)
        }
        if let isError = result.isError {
            out.append(contentsOf: (isError ? #","isError":true"# : #","isError":false"#).utf8)
        }
        if let meta = result._meta, let encoded = try? JSONEncoder().encode(meta) {
            out.append(contentsOf: #","_meta":"#.utf8)
            out.append(contentsOf: encoded)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A `Value` as JSON, as `JSONEncoder` writes it (but for key order and spacing, which
    /// JSON leaves free).
    static func append(_ value: Value, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number): out.append(contentsOf: String(number).utf8)
        case .double(let number):
            // JSON has no NaN or infinity; the SDK's encoder would throw, and fail the call.
            out.append(contentsOf: (number.isFinite ? "\(number)" : "null").utf8)
        case .string(let text): JSONText.appendString(text, to: &out)
        case .data(let mimeType, let data):
            JSONText.appendString(data.dataURLEncoded(mimeType: mimeType), to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                append(element, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            var first = true
            for (key, field) in fields {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                JSONText.appendString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                append(field, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
