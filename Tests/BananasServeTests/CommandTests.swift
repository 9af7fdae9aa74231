import BananasServe
import Foundation
import Subprocess
import SystemPackage
import Testing

/// `bananas serve`, `bananas pair` and `bananas devices` as a user types them: `bananas` execs
/// `bananas-serve`, which answers `--help` and manages the paired devices.
@Suite struct CommandTests {
    static let bananas = ProcessInfo.processInfo.environment["BANANAS_BIN"] ?? BrowserTests.productsFolder + "/bananas"

    func run(_ arguments: [String], state: String) async throws -> (status: Int32, out: String, err: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = state
        environment["BANANAS_FILE"] = state + "/BananaList.json"
        environment["NO_COLOR"] = "1"
        let outcome = try await Subprocess.run(
            .path(FilePath(Self.bananas)), arguments: Arguments(arguments),
            environment: .custom(Dictionary(uniqueKeysWithValues: environment.map { (Environment.Key(rawValue: $0.key)!, $0.value) })),
            input: .none, output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
        let status: Int32 = if case .exited(let code) = outcome.terminationStatus { code } else { -1 }
        return (status, outcome.standardOutput, outcome.standardError)
    }

    @Test func helpForEveryCommand() async throws {
        let state = NSTemporaryDirectory() + "bananas-serve-help-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: state) }
        let top = try await run(["--help"], state: state)
        for command in ["serve", "pair", "devices"] { #expect(top.out.contains("  " + command + " "), "\(command)") }
        let serve = try await run(["serve", "--help"], state: state)
        #expect(serve.status == 0)
        for option in ["--listen", "--port", "--tls-cert", "--tls-key", "--public-url", "--host", "--no-pair", "127.0.0.1", "QR code"] {
            #expect(serve.out.contains(option), "\(option)")
        }
        #expect(serve.out.contains("USAGE: bananas serve"))
        let devices = try await run(["devices", "--help"], state: state)
        #expect(devices.status == 0 && devices.out.contains("revoke"))
        let pair = try await run(["pair", "--help"], state: state)
        #expect(pair.status == 0 && pair.out.contains("5 minutes"))
        let bad = try await run(["serve", "--tls-cert", "x.pem"], state: state)
        #expect(bad.status == 64)
        #expect(bad.err.contains("--tls-cert and --tls-key go together"))
    }

    @Test func devicesAreListedAndRevokedByName() async throws {
        let state = NSTemporaryDirectory() + "bananas-serve-devices-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: state) }
        let none = try await run(["devices"], state: state)
        #expect(none.status == 0 && none.out.contains("No device is paired"))
        let pair = try await run(["pair"], state: state)
        #expect(pair.status == 0)
        let code = try #require(pair.out.firstMatch(of: /Pairing code: ([A-Z0-9]{4})-([A-Z0-9]{4})/))
        // The page's exchange, as the server makes it.
        let registry = BananasServe.DeviceRegistry(stateDirectory: state + "/bananas")
        guard case .paired = try registry.pair(code: String(code.1 + code.2), name: "kitchen tablet") else { Issue.record("refused"); return }
        let listed = try await run(["devices"], state: state)
        #expect(listed.out.hasPrefix("kitchen tablet  paired "))
        let missing = try await run(["devices", "revoke", "nobody"], state: state)
        #expect(missing.status == 2 && missing.err.contains("no paired device is named nobody"))
        let revoked = try await run(["devices", "revoke", "kitchen tablet"], state: state)
        #expect(revoked.status == 0 && revoked.out.contains("Revoked kitchen tablet"))
        #expect(try registry.devices().isEmpty)
    }
}
