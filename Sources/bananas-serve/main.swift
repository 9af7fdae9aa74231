import ArgumentParser
import BananasCore
import BananasFile
import BananasServe
import BananasSync
import Dispatch
// FoundationEssentials only: full Foundation would link its ICU data (docs/decisions.md, "The lean install").
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import HummingbirdTLS
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `bananas-serve`: the web page's server and its device pairing (docs/serve.md). `bananas
/// serve`, `bananas pair` and `bananas devices` exec this binary (installed next to
/// `bananas`), so `bananas` itself links no HTTP server and starts fast.
struct ServeTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        // Run as `bananas serve|pair|devices`: its help names the commands so.
        commandName: "bananas",
        abstract: "The list on your phone: a web page served from this computer.",
        version: "0.1.0",
        subcommands: [Serve.self, Pair.self, Devices.self],
        defaultSubcommand: Serve.self)
}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the list as a web page for your phone (pair it with the QR code shown).",
        discussion: """
            Listens on 127.0.0.1 (this computer only) unless --listen is given. Shows a QR code
            of a pairing URL with a one-time code (5 minutes, 5 tries): scan it with the phone's
            camera, and the page keeps a device token (see bananas devices). Every edit the page
            makes is an ordinary edit of the list, saved and merged like the editor's; the page
            keeps working with no connection and sends its edits when it is back.
            Over plain HTTP on a network the page cannot open without a connection: give
            --tls-cert and --tls-key, or put it behind HTTPS (docs/serve.md: Tailscale, a
            reverse proxy). Stop it with Ctrl-C.
            """)

    @Option(name: .long, help: ArgumentHelp("The list file (default: $BANANAS_FILE, else ~/.local/share/bananas/BananaList.json).", valueName: "path"))
    var file: String?

    @Option(name: .long, help: ArgumentHelp("The address to listen on: 0.0.0.0 for every network of this computer (default 127.0.0.1).", valueName: "address"))
    var listen: String = "127.0.0.1"

    @Option(name: .long, help: ArgumentHelp("The port (default 8080; 0 picks a free one).", valueName: "port"))
    var port: Int = 8080

    @Option(name: .long, help: ArgumentHelp("A PEM certificate (chain) to serve HTTPS with (with --tls-key).", valueName: "path"))
    var tlsCert: String?

    @Option(name: .long, help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "path"))
    var tlsKey: String?

    @Option(name: .long, help: ArgumentHelp("The URL phones use when it is not this server's own (a reverse proxy, tailscale serve): pairing codes point there, and its host and origin are accepted.", valueName: "url"))
    var publicURL: String?

    @Option(name: .long, help: ArgumentHelp("A host name to accept besides IP addresses and localhost (repeatable), e.g. this computer's name on the network.", valueName: "name"))
    var host: [String] = []

    @Flag(name: .long, help: "Do not show a pairing code at start (use bananas pair later).")
    var noPair = false

    @Option(name: .long, help: .hidden)
    var lockTimeout: Int64 = 7_000

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if !(0...65_535).contains(port) { throw ValidationError("--port must be from 0 to 65535") }
        if let publicURL, ServeURLs.origin(publicURL) == nil { throw ValidationError("--public-url must be an http:// or https:// URL, e.g. https://laptop.tailnet.ts.net") }
    }

    func run() throws {
        let file = Locations.listFile(explicit: file)
        var logger = Logger(label: "bananas.serve")
        logger.logLevel = .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let registry = DeviceRegistry(stateDirectory: Locations.stateDirectory())
        let tlsConfiguration = try tls()
        let settings = gateSettings(tls: tlsConfiguration != nil)
        let listen = self.listen, port = self.port, publicURL = self.publicURL, noPair = self.noPair
        unsetenv("BANANAS_FILE")
        MainActor.assumeIsolated {
            let store = ListStore(file: file, mode: .live)
            store.lockTimeoutMillis = 1_000
            let web = WebList(store: store, answersFile: WebList.answersPath(listPath: file.path, stateDirectory: Locations.stateDirectory()))
            let events = EventHub(web: web, registry: registry)
            let router = WebServer.router(web: web, events: events, gate: Gate(settings: settings, registry: registry))
            let scheme = tlsConfiguration == nil ? "http" : "https"
            let running = { @Sendable (bound: Int) in
                let urls = ServeURLs.local(scheme: scheme, listen: listen, port: bound)
                ServeURLs.save(publicURL ?? urls[0], registry: registry)
                var lines = ["Serving \(file.path)"]
                lines += urls.map { "  at \($0)" }
                if let publicURL { lines.append("  at \(publicURL) (public URL)") }
                if listen == "127.0.0.1" || listen == "localhost" || listen == "::1" {
                    lines.append("Only this computer can reach it: give --listen 0.0.0.0 for phones on this network, or see docs/serve.md.")
                }
                say(lines)
                if !noPair { showPairing(registry: registry, base: publicURL ?? urls[0]) }
                say(["Stop with Ctrl-C."])
            }
            let configuration = ApplicationConfiguration(address: .hostname(listen, port: port), serverName: nil)
            let app: Application<RouterResponder<ServeContext>>
            if let tlsConfiguration {
                do {
                    app = Application(router: router, server: try .tls(.http1(), tlsConfiguration: tlsConfiguration), configuration: configuration,
                                      onServerRunning: { running($0.localAddress?.port ?? port) }, logger: logger)
                } catch {
                    printError("cannot serve HTTPS: \(error)")
                    terminate(ExitCodes.invalidInput)
                }
            } else {
                app = Application(router: router, server: .http1(), configuration: configuration, onServerRunning: { running($0.localAddress?.port ?? port) }, logger: logger)
            }
            Signals.endServing(store, file: file)
            Task {
                do {
                    try await app.runService(gracefulShutdownSignals: [])
                } catch {
                    printError("cannot serve on \(listen) port \(port): \(error)")
                    await MainActor.run { _ = store.close() }
                    terminate(ExitCodes.failure)
                }
            }
        }
        dispatchMain()
    }

    /// The certificate and key given, for HTTPS (nil: plain HTTP).
    func tls() throws -> TLSConfiguration? {
        guard let tlsCert, let tlsKey else { return nil }
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(tlsCert)
            let key = try NIOSSLPrivateKey(file: tlsKey, format: .pem)
            return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        } catch {
            printError("cannot use the certificate \(tlsCert) with the key \(tlsKey): \(error)")
            throw ExitCode(ExitCodes.invalidInput)
        }
    }

    /// The hosts and origins the gate accepts besides IP addresses and localhost: `--host`
    /// names and the public URL's.
    func gateSettings(tls: Bool) -> Gate.Settings {
        var hosts = Set(host.map { $0.lowercased() })
        var origins: Set<String> = []
        if let publicURL, let origin = ServeURLs.origin(publicURL) {
            origins.insert(origin)
            hosts.insert(Gate.hostPart(String(origin.drop { $0 != "/" }.dropFirst(2))))
        }
        return Gate.Settings(tls: tls, hosts: hosts, origins: origins)
    }
}

/// Keeps the signal sources alive.
@MainActor enum Signals {
    static var sources: [any DispatchSourceSignal] = []

    /// Signals end the server at once (an open event stream would hold a graceful shutdown
    /// forever), after a last attempt to write pending edits.
    static func endServing(_ store: ListStore, file: ListFile) {
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            Glibc.signal(signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .main)
            source.setEventHandler {
                MainActor.assumeIsolated {
                    let left = store.close()
                    if left > 0 { printError("\(left) edits could not be written to \(file.path); they stay in the journal and the next instance writes them") }
                    terminate(left == 0 ? 0 : ExitCodes.cannotWrite)
                }
            }
            source.resume()
            sources.append(source)
        }
    }
}

struct Pair: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Show a new pairing code (a QR code) for the running bananas serve.",
        discussion: "The code works once, for 5 minutes and 5 tries. bananas serve shows one at start; this makes another, e.g. for a second phone.")

    func run() throws {
        let registry = DeviceRegistry(stateDirectory: Locations.stateDirectory())
        let base = ServeURLs.saved(registry: registry)
        if base == nil { say(["No bananas serve has run yet: start it (bananas serve), then open the URL it shows on the phone with this code."]) }
        showPairing(registry: registry, base: base)
    }
}

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the devices paired with bananas serve (revoke one with: devices revoke NAME).",
        subcommands: [ListDevices.self, Revoke.self],
        defaultSubcommand: ListDevices.self)
}

struct ListDevices: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List paired devices.")

    func run() throws {
        let registry = DeviceRegistry(stateDirectory: Locations.stateDirectory())
        do {
            let devices = try registry.devices()
            if devices.isEmpty {
                say(["No device is paired. Pair one: bananas serve (or bananas pair while it runs)."])
                return
            }
            for device in devices {
                say(["\(TextRules.escaped(device.name))  paired \(day(device.pairedMillis)), last used \(day(device.lastSeenMillis))"])
            }
        } catch {
            printError(error.description)
            throw ExitCode(ExitCodes.failure)
        }
    }

    func day(_ millis: Int64) -> String { String(Timestamp.iso8601(millis: millis).prefix(10)) }
}

struct Revoke: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke", abstract: "End a device's access at once.")

    @Argument(help: "The device's name, as bananas devices shows it.") var name: String

    func run() throws {
        let registry = DeviceRegistry(stateDirectory: Locations.stateDirectory())
        do {
            try registry.revoke(name: name)
            say(["Revoked \(TextRules.escaped(name)): it can no longer reach the list."])
        } catch DeviceRegistry.Failure.noSuchDevice(let name) {
            printError(DeviceRegistry.Failure.noSuchDevice(name).description)
            throw ExitCode(ExitCodes.notFound)
        } catch {
            printError(error.description)
            throw ExitCode(ExitCodes.failure)
        }
    }
}

/// A new code, as a URL, a QR code and the code alone (to type).
func showPairing(registry: DeviceRegistry, base: String?) {
    do {
        let code = try registry.newCode()
        let spaced = code.code.prefix(4) + "-" + code.code.dropFirst(4)
        guard let base else {
            say(["Pairing code: \(spaced) (valid 5 minutes, 5 tries)"])
            return
        }
        let url = base + "/pair#" + code.code
        var lines = ["Pair a phone: scan this code, or open \(url)"]
        if let qr = QRCode(url) {
            let color = isatty(1) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            lines += qr.lines(color: color)
        }
        lines.append("Code \(spaced): one phone, within 5 minutes, 5 tries. Another code: bananas pair")
        say(lines)
    } catch {
        printError("cannot make a pairing code: \(error.description)")
    }
}

enum ServeURLs {
    /// `https://host[:port]` of a URL, lowercased, or nil.
    static func origin(_ url: String) -> String? {
        let lower = url.lowercased()
        guard let schemeEnd = lower.firstRange(of: "://") else { return nil }
        let scheme = lower[..<schemeEnd.lowerBound]
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = lower[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        return String(scheme) + "://" + authority
    }

    /// The URLs phones can use: the address listened on, or every IPv4 address of this
    /// computer when listening on all of them.
    static func local(scheme: String, listen: String, port: Int) -> [String] {
        let hosts: [String]
        if listen == "0.0.0.0" || listen == "::" {
            let found = addresses()
            hosts = found.isEmpty ? ["127.0.0.1"] : found
        } else {
            hosts = [listen]
        }
        return hosts.map { host in scheme + "://" + (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }
    }

    static func addresses() -> [String] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return [] }
        defer { freeifaddrs(first) }
        var found: [String] = []
        var cursor = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                  entry.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0 else { continue }
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(address, socklen_t(MemoryLayout<sockaddr_in>.size), &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                found.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        return found
    }

    /// Where the running server was last reached, for `bananas pair`.
    static func save(_ url: String, registry: DeviceRegistry) {
        try? registry.makeFolder()
        try? (url + "\n").write(toFile: registry.folder + "/url", atomically: true, encoding: .utf8)
    }

    static func saved(registry: DeviceRegistry) -> String? {
        guard let text = try? String(contentsOfFile: registry.folder + "/url", encoding: .utf8) else { return nil }
        let url = text.trimmingWhitespace()
        return origin(url) == nil ? nil : url
    }
}

func say(_ lines: [String]) {
    writeWhole(1, lines.joined(separator: "\n") + "\n")
}

func printError(_ text: String) {
    writeWhole(2, "bananas serve: " + text + "\n")
}

/// Writes `text` to the file descriptor unbuffered, as a message must reach a terminal or pipe
/// before the server goes on serving.
func writeWhole(_ descriptor: Int32, _ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}

/// The C library's `exit` (inside a command, `exit` names ArgumentParser's).
func terminate(_ status: Int32) -> Never { exit(status) }

ServeTool.main()
