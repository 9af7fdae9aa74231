import BananasCore
import BananasFile
import BananasSync
import Dispatch
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `bananas serve`: the routes of the page and its API over a `WebList` (docs/serve.md has
/// the API). Every route runs behind `GateMiddleware`.
public enum WebServer {
    /// The largest request body taken (an edit is a few hundred bytes; a 1 MB name is refused
    /// by the text rules, not by a cut-off body).
    static let maxBody = 4 * 1024 * 1024
    /// How long an edit that no journal took waits for a write of the file before it is
    /// answered 503 `not_saved`.
    static let notSavedWaitMillis: Int64 = 1_500

    /// How long a connection may stay idle, between requests or before its first request's
    /// head is complete (a client sending its headers a byte at a time is idle too), before
    /// it is closed. The page's event stream is never idle: a comment every few seconds.
    public static let idleTimeout = TimeAmount.seconds(20)

    /// The HTTP/1 channel: the idle timeout, bounded headers, and `connections` kept.
    public static func http1Configuration(_ connections: ConnectionTable) -> HTTP1Channel.Configuration {
        HTTP1Channel.Configuration(additionalChannelHandlers: [connections.handler()], idleTimeout: idleTimeout,
                                   httpDecoderConfiguration: .init(maxHeaderFieldSize: 16 * 1024, maxHeaderListSize: 32 * 1024, maxHeaderFieldCount: 100))
    }

    /// How many connections to keep at most: half the open-files limit (the list, its state
    /// and the watcher need the rest), at most 512.
    public static func connectionBound() -> Int {
        var limit = rlimit()
        #if os(Linux)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 512 }
        return max(16, min(512, Int(clamping: limit.rlim_cur) / 2))
    }

    public static func router(web: WebList, events: EventHub, gate: Gate) -> Router<ServeContext> {
        let router = Router(context: ServeContext.self)
        // Outermost, so refusals are compressed too; the gate and its headers inside it.
        router.add(middleware: CompressionMiddleware())
        router.add(middleware: GateMiddleware(gate: gate))

        for (path, asset) in Page.assets {
            router.get(RouterPath(stringLiteral: path)) { _, _ in asset.response() }
        }
        router.get("/") { _, _ in Page.index.response() }
        router.get("/pair") { _, _ in Page.index.response() }

        router.get("/api/list") { _, _ in
            Gate.json(await MainActor.run { web.snapshot() })
        }
        router.get("/api/device") { _, context in
            Gate.json(.object(["name": .string(context.device?.name ?? "")]))
        }
        router.get("/api/suggestions") { request, _ in
            let query = String(request.uri.queryParameters["q"] ?? "")
            return Gate.json(await MainActor.run { web.suggestions(query) })
        }
        router.post("/api/edits") { request, context in
            guard let body = try await json(request) else {
                return Gate.refusal(.badRequest, "bad_request", "The body must be a JSON object.")
            }
            let token = context.device?.token
            var answer = await MainActor.run { web.edit(body, device: token) }
            if WebList.isNotSaved(answer) {
                // A write may land it in a moment (the store retries): then it is answered ok.
                await web.waitForWrite(millis: notSavedWaitMillis)
                answer = await MainActor.run { web.edit(body, device: token) }
            }
            var response = Gate.json(answer.body, status: HTTPResponse.Status(code: answer.status))
            if let retryAfter = answer.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
            return response
        }
        router.post("/api/pair") { request, _ in
            guard let body = try await json(request)?.objectValue, let code = body["code"]?.stringValue else {
                return Gate.refusal(.badRequest, "bad_request", "Send {\"code\": \"…\", \"name\": \"…\"}.")
            }
            let name = body["name"]?.stringValue ?? ""
            do {
                switch try gate.registry.pair(code: code, name: name) {
                case .refused:
                    return Gate.refusal(.forbidden, "bad_code", "That code is wrong, used or expired. On the computer, run: bananas pair")
                case .paired(let device):
                    var response = Gate.json(.object(["ok": .bool(true), "name": .string(device.name)]))
                    response.setCookie(Cookie(name: Gate.cookieName, value: device.token, maxAge: 400 * 24 * 3600, path: "/",
                                              secure: gate.settings.secureCookie, httpOnly: true, sameSite: .strict))
                    return response
                }
            } catch {
                return Gate.refusal(.internalServerError, "failed", "Pairing failed: \(TextRules.escaped(String(describing: error)))")
            }
        }
        router.get("/api/events") { _, context in
            guard let device = context.device else { return Gate.refusal(.unauthorized, "not_paired", "Not paired.") }
            let (id, stream) = await events.listen(token: device.token)
            var response = Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                                    body: ResponseBody { writer in
                                        defer { Task { await events.stop(id) } }
                                        for await chunk in stream {
                                            try await writer.write(ByteBuffer(string: chunk))
                                        }
                                        try await writer.finish(nil)
                                    })
            response.headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
            return response
        }
        return router
    }

    static func json(_ request: Request) async throws -> JSONValue? {
        var request = request
        let buffer = try await request.collectBody(upTo: maxBody)
        guard let value = try? JSONText.parse(Array(buffer.readableBytesView)), value.objectValue != nil else { return nil }
        return value
    }
}

/// Server-sent events: every change of the store goes to every open page as the whole list
/// (`event: list`), at most once per turn of the main loop however many edits it holds.
/// A comment every few seconds keeps proxies from closing the stream and ends it at once
/// when the device it was opened for is revoked.
@MainActor
public final class EventHub {
    let web: WebList
    let registry: DeviceRegistry
    private var listeners: [Int: (token: String, continuation: AsyncStream<String>.Continuation)] = [:]
    private var nextID = 0
    private var subscription: Subscription?
    private var scheduled = false
    private var timer: DispatchSourceTimer?
    static let pingSeconds = 5

    public init(web: WebList, registry: DeviceRegistry) {
        self.web = web
        self.registry = registry
        subscription = web.store.subscribe { [weak self] _ in self?.changed() }
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + .seconds(Self.pingSeconds), repeating: .seconds(Self.pingSeconds))
        timer.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.ping() } }
        timer.resume()
        self.timer = timer
    }

    public func listen(token: String) -> (Int, AsyncStream<String>) {
        nextID += 1
        let id = nextID
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(4))
        continuation.yield("retry: 1000\n\n" + message())
        listeners[id] = (token, continuation)
        return (id, stream)
    }

    public func stop(_ id: Int) {
        listeners.removeValue(forKey: id)?.continuation.finish()
    }

    public var count: Int { listeners.count }

    private func changed() {
        guard !scheduled, !listeners.isEmpty else { return }
        scheduled = true
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                self.scheduled = false
                self.send(self.message())
            }
        }
    }

    private func message() -> String {
        "event: list\ndata: " + JSONText.compact(web.snapshot()) + "\n\n"
    }

    private func ping() { send(": ping\n\n") }

    private func send(_ text: String) {
        for (id, listener) in listeners {
            if registry.device(token: listener.token) == nil {
                stop(id)
                continue
            }
            listener.continuation.yield(text)
        }
    }
}
