import BananasCore
import BananasFile
@testable import BananasServe
import BananasSync
import BananasTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization

/// A web server over a sandboxed list, driven in process through HummingbirdTesting's router
/// (no sockets): every route, with the gate in front, as the real binary has it.
@MainActor
final class Harness {
    let sandbox = Sandbox()
    let store: ListStore
    let web: WebList
    let registry: DeviceRegistry
    let events: EventHub
    let gate: Gate
    let clock = TestClock()

    init(settings: Gate.Settings = Gate.Settings(tls: false), writeLimit: RateLimiter = RateLimiter(capacity: 300, perSecond: 20),
         pairingLimit: RateLimiter = RateLimiter(capacity: 10, perSecond: 10.0 / 60)) {
        store = ListStore(file: sandbox.file(), mode: .live)
        web = WebList(store: store)
        let clock = self.clock
        registry = DeviceRegistry(stateDirectory: sandbox.stateDirectory, now: { clock.now })
        events = EventHub(web: web, registry: registry)
        gate = Gate(settings: settings, registry: registry, pairingLimit: pairingLimit, writeLimit: writeLimit)
    }

    func close() { _ = store.close() }

    var app: some ApplicationProtocol {
        Application(router: WebServer.router(web: web, events: events, gate: gate))
    }

    /// Pairs a device through the registry; its token.
    func pair(_ name: String = "phone") throws -> String {
        let code = try registry.newCode()
        guard case .paired(let device) = try registry.pair(code: code.code, name: name) else { fatalError("pairing refused") }
        return device.token
    }

    func add(_ name: String, section: String = "") throws -> Item {
        let plan = store.list.addEdit([name], section: section.isEmpty ? nil : section)
        _ = try store.perform(plan.edit, label: "add")
        return store.list.items.first { $0.name == name }!
    }
}

/// Time the registry reads, moved by the test.
final class TestClock: Sendable {
    private let value = Mutex<Int64>(1_800_000_000_000)
    var now: Int64 { value.withLock { $0 } }
    func advance(_ millis: Int64) { value.withLock { $0 += millis } }
}

extension HTTPFields {
    static func device(_ token: String, _ more: [HTTPField.Name: String] = [:]) -> HTTPFields {
        var fields: HTTPFields = [.authorization: "Bearer " + token]
        for (name, value) in more { fields[name] = value }
        return fields
    }
}

func body(_ value: JSONValue) -> ByteBuffer { ByteBuffer(string: JSONText.compact(value)) }

func body(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

func json(_ response: TestResponse) -> [String: JSONValue] {
    guard let value = try? JSONText.parse(Array(response.body.readableBytesView)) else { return [:] }
    return value.objectValue ?? [:]
}

func text(_ response: TestResponse) -> String {
    String(buffer: response.body)
}

func edit(_ fields: [String: JSONValue]) -> ByteBuffer {
    var fields = fields
    if fields["key"] == nil { fields["key"] = .string(UUID().uuidString) }
    return body(.object(fields))
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(String(value)) }
}

/// Reads an answer on the test's actor (HummingbirdTesting's callbacks are not).
func apply<T>(_ response: TestResponse, _ read: (TestResponse) throws -> T) rethrows -> T { try read(response) }
