import BananasCore
@testable import BananasServe
import BananasTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// The gate: Host, Origin, token, rate limits, checked on requests as a browser or an attacker
/// sends them (the browser test sends the same over real sockets).
@Suite struct GateTests {
    let sandbox = Sandbox()

    func gate(_ settings: Gate.Settings = Gate.Settings(tls: false)) -> (Gate, String) {
        let registry = DeviceRegistry(stateDirectory: sandbox.stateDirectory)
        let code = try! registry.newCode()
        guard case .paired(let device) = try! registry.pair(code: code.code, name: "phone") else { fatalError() }
        return (Gate(settings: settings, registry: registry), device.token)
    }

    func request(_ path: String, method: HTTPRequest.Method = .get, authority: String? = "127.0.0.1:8080", _ headers: HTTPFields = [:]) -> Request {
        Request(head: HTTPRequest(method: method, scheme: "http", authority: authority, path: path, headerFields: headers), body: RequestBody(buffer: ByteBuffer()))
    }

    func status(_ verdict: Gate.Verdict) -> HTTPResponse.Status {
        switch verdict {
        case .pass: .ok
        case .refuse(let response): response.status
        }
    }

    @Test func hostNamesOtherThanAddressesAndLocalhostAreRefused() {
        let (gate, token) = gate(Gate.Settings(tls: false, hosts: ["laptop.tailnet.ts.net"]))
        let auth: HTTPFields = [.authorization: "Bearer " + token]
        for host in ["127.0.0.1:8080", "localhost:8080", "192.168.1.20:8080", "[::1]:8080", "[fe80::1]:9", "laptop.tailnet.ts.net", "LAPTOP.tailnet.ts.net:443"] {
            #expect(status(gate.check(request("/api/list", authority: host, auth), remote: "r")) == .ok, "\(host)")
        }
        // DNS rebinding: a name that resolves here but is not ours.
        for host in ["evil.example:8080", "localhost.evil.example", "1.2.3.4.nip.io", "300.1.1.1", ""] {
            #expect(status(gate.check(request("/api/list", authority: host, auth), remote: "r")) == .misdirectedRequest, "\(host)")
        }
        #expect(status(gate.check(request("/api/list", authority: nil, auth), remote: "r")) == .misdirectedRequest)
    }

    @Test func foreignOriginsAreRefused() {
        let (gate, token) = gate(Gate.Settings(tls: false, origins: ["https://list.example.com"], ))
        let auth = "Bearer " + token
        func check(_ origin: String?, _ site: String? = nil, method: HTTPRequest.Method = .post) -> HTTPResponse.Status {
            var headers: HTTPFields = [.authorization: auth]
            if let origin { headers[.origin] = origin }
            if let site { headers[HTTPField.Name("Sec-Fetch-Site")!] = site }
            return status(gate.check(request("/api/edits", method: method, headers), remote: "r"))
        }
        #expect(check("http://127.0.0.1:8080") == .ok)
        #expect(check(nil) == .ok)  // not a browser: no cross-site request to forge
        #expect(check("https://list.example.com") == .ok)  // the reverse proxy's
        #expect(check("http://evil.example") == .forbidden)
        #expect(check("https://127.0.0.1:8080") == .forbidden)  // not the scheme served
        #expect(check("http://127.0.0.1:8081") == .forbidden)
        #expect(check("null") == .forbidden)
        #expect(check(nil, "cross-site") == .forbidden)
        #expect(check("http://evil.example", method: .get) == .forbidden)
        #expect(check(nil, "same-origin") == .ok)
    }

    @Test func pairingIsPublicAndEverythingElseNeedsAToken() {
        let (gate, token) = gate()
        #expect(status(gate.check(request("/pair"), remote: "r")) == .ok)
        #expect(status(gate.check(request("/api/pair", method: .post), remote: "r")) == .ok)
        #expect(status(gate.check(request("/"), remote: "r")) == .unauthorized)
        #expect(status(gate.check(request("/api/list", [.cookie: "bananas_device=" + token]), remote: "r")) == .ok)
        #expect(status(gate.check(request("/api/list", [.cookie: "bananas_device=" + token.uppercased()]), remote: "r")) == .unauthorized)
        #expect(status(gate.check(request("/api/list", [.authorization: "Bearer " + token.dropLast() + (token.hasSuffix("0") ? "1" : "0")]), remote: "r")) == .unauthorized)
    }
}

@Suite struct DeviceRegistryTests {
    let sandbox = Sandbox()

    @Test func aCodeWorksOnceWithinFiveMinutesAndFiveTries() throws {
        let clock = TestClock()
        let registry = DeviceRegistry(stateDirectory: sandbox.stateDirectory, now: { clock.now })
        let code = try registry.newCode()
        #expect(code.code.count == 8)
        for _ in 0..<4 { #expect(try registry.pair(code: "ZZZZZZZZ", name: "x") == .refused) }
        guard case .paired(let device) = try registry.pair(code: code.code, name: "phone") else { Issue.record("refused"); return }
        #expect(device.token.count == 64)
        #expect(try registry.pair(code: code.code, name: "again") == .refused)

        // Five wrong codes end a code.
        let second = try registry.newCode()
        for _ in 0..<5 { #expect(try registry.pair(code: "ZZZZZZZZ", name: "x") == .refused) }
        #expect(try registry.pair(code: second.code, name: "x") == .refused)

        // A code expires after 5 minutes.
        let third = try registry.newCode()
        clock.advance(DeviceRegistry.codeLifetimeMillis + 1)
        #expect(try registry.pair(code: third.code, name: "x") == .refused)
        #expect(try registry.devices().map(\.name) == ["phone"])
    }

    @Test func tokensAreKeptPrivateInTheStateFolder() throws {
        let registry = DeviceRegistry(stateDirectory: sandbox.stateDirectory)
        let code = try registry.newCode()
        _ = try registry.pair(code: code.code, name: "phone")
        var st = stat()
        #expect(stat(registry.path, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o600)
        #expect(stat(registry.folder, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o700)
        #expect(registry.path.hasPrefix(sandbox.stateDirectory + "/"))
    }

    @Test func namesAreMadeSafeAndUnique() throws {
        let registry = DeviceRegistry(stateDirectory: sandbox.stateDirectory)
        var names: [String] = []
        for wanted in ["phone", "phone", "", "evil\u{1B}]0;x\u{07}name\u{202E}", String(repeating: "n", count: 300)] {
            let code = try registry.newCode()
            if case .paired(let device) = try registry.pair(code: code.code, name: wanted) { names.append(device.name) }
        }
        #expect(names[0] == "phone" && names[1] == "phone-2" && names[2] == "phone-3")
        #expect(!names[3].unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{202E}" })
        #expect(names[4].count == 40)
        try registry.revoke(name: "phone-2")
        #expect(try registry.devices().count == 4)
        #expect(throws: DeviceRegistry.Failure.noSuchDevice("nobody")) { try registry.revoke(name: "nobody") }
    }

    @Test func theQRCodeIsASquareWithItsFinderPatterns() throws {
        let code = try #require(QRCode("http://192.168.1.20:8080/pair#ABCDEFGH"))
        let size = code.modules.count
        #expect(size >= 21 && (size - 21) % 4 == 0)
        #expect(code.modules.allSatisfy { $0.count == size })
        // The finder pattern's outer ring, top left.
        #expect((0..<7).allSatisfy { code.modules[0][$0] && code.modules[6][$0] && code.modules[$0][0] && code.modules[$0][6] })
        #expect(!code.modules[1][1])
        #expect(code.lines(color: false).count == (size + 4 + 1) / 2)
    }
}
