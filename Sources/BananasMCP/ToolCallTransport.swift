import BananasCore
import Foundation
import Logging
import MCP

/// A transport that answers `tools/call` itself and hands every other message to the SDK's
/// server.
///
/// The swift-sdk (0.12.1) runs a request through `TypedRequestHandler`, which encodes the
/// handler's result to JSON, decodes that back into a `Value` (where every node tries Bool,
/// Int, Double, String, array and object in turn, each miss a thrown error) and encodes it
/// once more to send it. For `get_shopping_list` on 1,000 items that was about 150 ms of a
/// 2 ms call, and seconds at 10,000 (docs/performance.md). Here the request is parsed with
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
                    if let call = ToolCallRequest(message) {
                        await self.begin(call)
                    } else {
                        continuation.yield(message)
                    }
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
        try await inner.send(data)
    }

    public func receive() -> AsyncThrowingStream<Data, Swift.Error> {
        // The server calls this after `connect`; a stream that ends at once otherwise.
        incoming ?? AsyncThrowingStream { $0.finish() }
    }

    /// Each call on a task of its own, as the SDK runs requests: a call that waits for the
    /// list's lock must not hold up a ping.
    private func begin(_ call: ToolCallRequest) {
        let number = nextCall
        nextCall += 1
        answering[number] = Task {
            await self.answer(call)
            self.answered(number)
        }
    }

    private func answered(_ number: Int) {
        answering[number] = nil
    }

    private func drain() async {
        while let (_, task) = answering.first {
            await task.value
        }
    }

    private func answer(_ call: ToolCallRequest) async {
        let result = await server.call(call.name, call.arguments)
        var out: [UInt8] = []
        out.reserveCapacity(4_096)
        out.append(contentsOf: #"{"jsonrpc":"2.0","id":"#.utf8)
        ValueJSON.append(call.id, to: &out)
        out.append(contentsOf: #","result":"#.utf8)
        ValueJSON.append(result, to: &out)
        out.append(UInt8(ascii: "}"))
        do {
            try await inner.send(Data(out))
        } catch {
            logger.error("could not send the result of \(call.name): \(error)")
        }
    }
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
              case .object(let object)? = try? JSONText.parse([UInt8](message)),
              object["jsonrpc"] == .string("2.0"), object["method"] == .string("tools/call"),
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
