import BananasCore
import HTTPTypes
import Hummingbird
import Synchronization

/// Who may reach the server, checked before any route runs: the Host header (no DNS
/// rebinding), the Origin (no other site's page can send an edit), the device token (cookie or
/// bearer), and the rate limits on pairing and writes. One place for all of it, so no route
/// can forget a check.
public struct Gate: Sendable {
    public struct Settings: Sendable {
        /// Served over TLS: origins are https, the cookie is Secure.
        public var tls: Bool
        /// Host names accepted besides IP literals and localhost (from `--public-url` and
        /// `--host`), lowercased, without port.
        public var hosts: Set<String>
        /// Origins accepted besides this server's own (`--public-url`: a reverse proxy's).
        public var origins: Set<String>

        public init(tls: Bool, hosts: Set<String> = [], origins: Set<String> = []) {
            self.tls = tls
            self.hosts = Set(hosts.map { $0.lowercased() })
            self.origins = Set(origins.map { $0.lowercased() })
        }

        /// Whether the cookie can be Secure: TLS here, or a public https URL (a proxy's).
        var secureCookie: Bool { tls || origins.contains { $0.hasPrefix("https://") } }
    }

    public let settings: Settings
    public let registry: DeviceRegistry
    let pairingLimit: RateLimiter
    let writeLimit: RateLimiter

    public static let cookieName = "bananas_device"

    public init(settings: Settings, registry: DeviceRegistry,
                pairingLimit: RateLimiter = RateLimiter(capacity: 10, perSecond: 10.0 / 60),
                writeLimit: RateLimiter = RateLimiter(capacity: 300, perSecond: 20)) {
        self.settings = settings
        self.registry = registry
        self.pairingLimit = pairingLimit
        self.writeLimit = writeLimit
    }

    /// Paths anyone may fetch: the pairing page and the page's static files, which hold no
    /// list data. Everything else needs a paired device.
    static let publicPaths: Set<String> = ["/pair", "/api/pair", "/app.js", "/style.css", "/sw.js", "/manifest.webmanifest", "/icon.svg"]

    public enum Verdict: Sendable {
        case pass(device: DeviceRegistry.Device?)
        case refuse(Response)
    }

    /// The checks, in order; `remote` is the peer's address (the pairing rate limit's key).
    public func check(_ request: Request, remote: String) -> Verdict {
        guard let host = request.head.authority.map(Self.hostPart), isAcceptable(host: host) else {
            return .refuse(Self.refusal(.misdirectedRequest, "unknown_host",
                                        "This server does not answer to that host name. Start it with --public-url or --host NAME to allow it."))
        }
        let path = request.uri.path
        if let origin = request.headers[.origin] {
            let own = (settings.tls ? "https://" : "http://") + (request.head.authority ?? "").lowercased()
            if origin.lowercased() != own && !settings.origins.contains(origin.lowercased()) {
                return .refuse(Self.refusal(.forbidden, "foreign_origin", "Requests from other sites are refused."))
            }
        }
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site == "cross-site" {
            return .refuse(Self.refusal(.forbidden, "foreign_origin", "Requests from other sites are refused."))
        }
        if path == "/api/pair", request.method == .post, !pairingLimit.take(remote) {
            return .refuse(Self.refusal(.tooManyRequests, "rate_limited", "Too many pairing attempts: wait a minute.", retryAfter: 60))
        }
        guard !Self.publicPaths.contains(path) else { return .pass(device: nil) }
        guard let token = Self.token(request), let device = registry.device(token: token) else {
            return .refuse(notPaired(request))
        }
        if request.method != .get && request.method != .head, !writeLimit.take(device.token) {
            return .refuse(Self.refusal(.tooManyRequests, "rate_limited", "Too many edits at once: they are retried in a moment.", retryAfter: 1))
        }
        return .pass(device: device)
    }

    /// The token from the cookie the pairing set, or `Authorization: Bearer` (scripts, tests).
    static func token(_ request: Request) -> String? {
        if let header = request.headers[.authorization], header.hasPrefix("Bearer ") { return String(header.dropFirst(7)) }
        return request.cookies[cookieName]?.value
    }

    func isAcceptable(host: String) -> Bool {
        host == "localhost" || Self.isIPLiteral(host) || settings.hosts.contains(host)
    }

    /// `example.com:8080` → `example.com`; `[::1]:8080` → `::1`; lowercased.
    public static func hostPart(_ authority: String) -> String {
        let lower = authority.lowercased()
        if lower.hasPrefix("[") {
            return String(lower.dropFirst().prefix { $0 != "]" })
        }
        return String(lower.prefix { $0 != ":" })
    }

    /// An address, not a name: a browser that sends it connected to it, so no DNS answer (a
    /// rebinding attack's tool) is involved.
    static func isIPLiteral(_ host: String) -> Bool {
        if host.contains(":") { return host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && UInt8(part) != nil }
    }

    func notPaired(_ request: Request) -> Response {
        if request.uri.path.hasPrefix("/api/") {
            return Self.refusal(.unauthorized, "not_paired", "This device is not paired (or its pairing was revoked). On the computer, run: bananas pair")
        }
        return Response(status: .unauthorized, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: Page.notPaired)))
    }

    public static func refusal(_ status: HTTPResponse.Status, _ code: String, _ message: String, retryAfter: Int? = nil) -> Response {
        var response = json(JSONValue.object(["ok": .bool(false), "error": .string(code), "message": .string(message)]), status: status)
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }

    public static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        let bytes = Array(JSONText.compact(value).utf8)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// Headers every answer carries: a strict Content-Security-Policy (scripts only from this
    /// server's files, no inline script, no framing), no sniffing, no referrer.
    static func secure(_ response: inout Response) {
        response.headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("Cross-Origin-Opener-Policy")!] = "same-origin"
        response.headers[HTTPField.Name("Cross-Origin-Resource-Policy")!] = "same-origin"
    }
}

/// A token bucket per key (a device, an address): `capacity` at once, then `perSecond`.
public final class RateLimiter: Sendable {
    let capacity: Double
    let perSecond: Double
    private let buckets = Mutex<[String: (tokens: Double, at: ContinuousClock.Instant)]>([:])

    public init(capacity: Double, perSecond: Double) {
        self.capacity = capacity
        self.perSecond = perSecond
    }

    public func take(_ key: String) -> Bool {
        let now = ContinuousClock.now
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? (capacity, now)
            let elapsed = bucket.at.duration(to: now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(capacity, bucket.tokens + seconds * perSecond)
            bucket.at = now
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return false
            }
            bucket.tokens -= 1
            buckets[key] = bucket
            if buckets.count > 10_000 { buckets = buckets.filter { $0.value.tokens < capacity } }
            return true
        }
    }
}

/// Hummingbird's middleware around every route: the gate, then the security headers on every
/// answer (refusals and errors too).
struct GateMiddleware: RouterMiddleware {
    typealias Context = ServeContext
    let gate: Gate

    func handle(_ request: Request, context: ServeContext, next: (Request, ServeContext) async throws -> Response) async throws -> Response {
        var response: Response
        switch gate.check(request, remote: context.remote) {
        case .refuse(let refusal):
            response = refusal
        case .pass(let device):
            var context = context
            context.device = device
            do {
                response = try await next(request, context)
            } catch let error as HTTPError {
                response = Gate.refusal(error.status, error.status == .notFound ? "not_found" : "bad_request",
                                        error.status == .notFound ? "No such page." : (error.body ?? "Bad request."))
            } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
                response = Gate.refusal(.contentTooLarge, "too_large",
                                        "The request is larger than \(WebServer.maxBody >> 20) MiB; an edit is a few hundred bytes. Nothing was changed.")
            } catch let error as any HTTPResponseError where error.status.code < 500 {
                response = Gate.refusal(error.status, "bad_request", "Bad request: \(error.status.reasonPhrase).")
            } catch {
                response = Gate.refusal(.internalServerError, "failed", "The server failed to answer.")
            }
        }
        Gate.secure(&response)
        return response
    }
}

/// The request context: the peer's address and the paired device, once the gate passed it.
public struct ServeContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remote: String
    public var device: DeviceRegistry.Device?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remote = source.channel.remoteAddress?.ipAddress ?? "local"
    }
}
