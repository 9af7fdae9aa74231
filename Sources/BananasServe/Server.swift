import BananasCore
import BananasFile
import BananasSync
import Dispatch
import HTTPTypes
import Hummingbird

/// `bananas serve`: the routes of the page and its API over a `WebList` (docs/serve.md has
/// the API). Every route runs behind `GateMiddleware`.
public enum WebServer {
    /// The largest request body taken (an edit is a few hundred bytes; a 1 MB name is refused
    /// by the text rules, not by a cut-off body).
    static let maxBody = 4 * 1024 * 1024

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
        router.get("/api/placement") { request, _ in
            let name = String(request.uri.queryParameters["name"] ?? "")
            return Gate.json(await MainActor.run { web.placement(name) })
        }
        router.post("/api/edits") { request, context in
            guard let body = try await json(request) else {
                return Gate.refusal(.badRequest, "bad_request", "The body must be a JSON object.")
            }
            let answer = await MainActor.run { web.edit(body) }
            return Gate.json(answer.body, status: HTTPResponse.Status(code: answer.status))
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
