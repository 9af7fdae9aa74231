import ArgumentParser
import BananasCore
import BananasFile
import BananasServe
import BananasSync
import Dispatch
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
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
    // No hard line breaks in help texts: ArgumentParser wraps them to the terminal's width.
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the list as a web page for your phone (pair it with the QR code shown).",
        discussion: """
            Listens on 127.0.0.1 (this computer only) unless --listen is given. Shows a QR code \
            of a pairing URL with a one-time code (5 minutes, 5 tries): scan it with the phone's \
            camera, and the page keeps a device token (see bananas devices). Every edit the page \
            makes is an ordinary edit of the list, saved and merged like the editor's; the page \
            keeps working with no connection and sends its edits when it is back.

            Over plain HTTP on a network the page cannot open without a connection: give \
            --tls-cert and --tls-key, or put it behind HTTPS (docs/serve.md: Tailscale, a \
            reverse proxy). Stop it with Ctrl-C.
            """)

    @Option(name: .long, help: ArgumentHelp("The list file (default: $BANANAS_FILE, else ~/.local/share/bananas/BananaList.json).", valueName: "path"))
    var file: String?

    @Option(name: .long, help: ArgumentHelp("The address to listen on, optionally with :PORT (127.0.0.1:8080, [::1]:8080): 0.0.0.0 or :: for every network of this computer, localhost for 127.0.0.1 and ::1 (default 127.0.0.1).", valueName: "address"))
    var listen: String = "127.0.0.1"

    @Option(name: .long, help: ArgumentHelp("The port (default 8080; 0 picks a free one).", valueName: "port"))
    var port: Int?

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
        if let port, !(0...65_535).contains(port) { throw ValidationError("--port must be from 0 to 65535") }
        guard let address = ListenAddress(listen) else {
            throw ValidationError("--listen takes an IP address or localhost, optionally with :PORT (127.0.0.1:8080, [::1]:8080, 0.0.0.0), not \(TextRules.escaped(listen))")
        }
        if let given = address.port, let port, given != port {
            throw ValidationError("--listen names port \(given) and --port \(port): give the port once")
        }
        if let publicURL, ServeURLs.origin(publicURL) == nil { throw ValidationError("--public-url must be an http:// or https:// URL, e.g. https://laptop.tailnet.ts.net") }
    }

    // Long because it sets up the store, the routes and every listener, and prints what a user
    // needs once they listen; split up, each part would need most of the others' values.
    func run() throws {
        let file = Locations.listFile(explicit: file)
        var logger = Logger(label: "bananas.serve")
        // Errors the server can do nothing about (a client closing mid-answer) are not news.
        logger.logLevel = .critical
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .critical
            return handler
        }
        let registry = DeviceRegistry(stateDirectory: Locations.stateDirectory())
        let tlsConfiguration = try tls()
        let settings = gateSettings(tls: tlsConfiguration != nil)
        let address = ListenAddress(listen)!
        let port = address.port ?? self.port ?? 8080
        let publicURL = self.publicURL, noPair = self.noPair
        unsetenv("BANANAS_FILE")
        MainActor.assumeIsolated {
            let store = ListStore(file: file, mode: .live)
            store.lockTimeoutMillis = 1_000
            let web = WebList(store: store, answersFile: WebList.answersPath(listPath: file.path, stateDirectory: Locations.stateDirectory()))
            let events = EventHub(web: web, registry: registry)
            let router = WebServer.router(web: web, events: events, gate: Gate(settings: settings, registry: registry))
            let scheme = tlsConfiguration == nil ? "http" : "https"
            let connections = ConnectionTable(total: WebServer.connectionBound())
            let http1 = HTTPServerBuilder.http1(configuration: WebServer.http1Configuration(connections))
            let server: HTTPServerBuilder
            if let tlsConfiguration {
                do {
                    server = try .tls(http1, tlsConfiguration: tlsConfiguration)
                } catch {
                    printError("cannot serve HTTPS with the certificate and key given: \(ServeErrors.words(error))")
                    terminate(ExitCodes.invalidInput)
                }
            } else {
                server = http1
            }
            let running: @MainActor @Sendable (Int, [String]) -> Void = { bound, hosts in
                let urls = ServeURLs.local(scheme: scheme, hosts: hosts, port: bound)
                ServeURLs.save(publicURL ?? urls[0], registry: registry)
                var lines = ["Serving \(TextRules.escaped(file.path))"]
                lines += urls.map { "  at \(TextRules.escaped($0))" }
                if let publicURL { lines.append("  at \(TextRules.escaped(publicURL)) (public URL)") }
                if address.isLoopback {
                    lines.append("Only this computer can reach it: give --listen 0.0.0.0 for phones on this network, or see docs/serve.md.")
                }
                say(lines)
                if !noPair { showPairing(registry: registry, base: publicURL ?? urls[0]) }
                say(["Stop with Ctrl-C."])
            }
            Signals.endServing(store, file: file)
            let failed: @MainActor @Sendable (String, any Error) -> Void = { host, error in
                printError("cannot listen on \(ServeURLs.shown(host)) port \(port): \(ServeErrors.words(error))")
                _ = store.close()
                terminate(ExitCodes.failure)
            }
            Listeners(hosts: address.hosts, server: server, router: router, logger: logger, running: running, failed: failed)
                .start(at: 0, port: port, bound: [])
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
            printError("cannot use the certificate \(TextRules.escaped(tlsCert)) with the key \(TextRules.escaped(tlsKey)): \(ServeErrors.words(error))")
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

/// `--listen`: an IP address (v4 or v6, bare or in brackets) or localhost, optionally with
/// `:PORT`; localhost is both loopback addresses.
struct ListenAddress {
    var hosts: [String]
    var port: Int?

    init?(_ text: String) {
        var host = text
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (0...65_535).contains(port) else { return nil }
                self.port = port
            }
            guard Self.isIPv6(host) else { return nil }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            host = String(text[..<colon])
            guard let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else { return nil }
            self.port = port
        }
        if host.lowercased() == "localhost" {
            hosts = ["127.0.0.1", "::1"]
        } else if Self.isIPv4(host) || Self.isIPv6(host) {
            hosts = [host]
        } else {
            return nil
        }
    }

    var isLoopback: Bool { hosts.allSatisfy { $0.hasPrefix("127.") || $0 == "::1" } }

    static func isIPv4(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    static func isIPv6(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }
}

/// The servers of one `bananas serve`, one per address listened on (localhost: 127.0.0.1 and
/// ::1), started one after the other so that every one has the first's port. An address
/// after the first that this computer lacks (no IPv6) is left out; the first must listen.
struct Listeners: Sendable {
    let hosts: [String]
    let server: HTTPServerBuilder
    let responder: RouterResponder<ServeContext>
    let logger: Logger
    let running: @MainActor @Sendable (Int, [String]) -> Void
    let failed: @MainActor @Sendable (String, any Error) -> Void

    init(hosts: [String], server: HTTPServerBuilder, router: Router<ServeContext>, logger: Logger,
         running: @escaping @MainActor @Sendable (Int, [String]) -> Void, failed: @escaping @MainActor @Sendable (String, any Error) -> Void) {
        self.hosts = hosts
        self.server = server
        responder = router.buildResponder()
        self.logger = logger
        self.running = running
        self.failed = failed
    }

    @MainActor
    func start(at index: Int, port: Int, bound: [String]) {
        guard index < hosts.count else {
            running(port, bound)
            return
        }
        let host = hosts[index]
        let app = Application(responder: responder, server: server,
                              configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
                              onServerRunning: { channel in
                                  let actual = channel.localAddress?.port ?? port
                                  await start(at: index + 1, port: actual, bound: bound + [host])
                              }, logger: logger)
        Task {
            do {
                try await app.runService(gracefulShutdownSignals: [])
            } catch {
                if index == 0 { await failed(host, error) } else { await start(at: index + 1, port: port, bound: bound) }
            }
        }
    }
}

/// Errors as words for the terminal: what the system said, never a type's dump.
enum ServeErrors {
    static func words(_ error: any Error) -> String {
        if let io = error as? IOError {
            let reason = String(cString: strerror(io.errnoCode))
            switch io.errnoCode {
            case EADDRINUSE: return reason + " (another program listens there: give another --port, or 0 for a free one)"
            case EADDRNOTAVAIL: return reason + " (no network of this computer has that address)"
            case EACCES: return reason + " (ports below 1024 need privileges: give --port 8080)"
            default: return reason
            }
        }
        if error is SocketAddressError { return "that is not an address of this computer" }
        if error is NIOSSLError { return "they are not a PEM certificate and its private key" }
        if let failure = error as? DeviceRegistry.Failure { return failure.description }
        return "an unexpected error"
    }
}

/// Keeps the signal sources alive.
@MainActor enum Signals {
    static var sources: [any DispatchSourceSignal] = []

    /// Signals end the server at once (an open event stream would hold a graceful shutdown
    /// forever), after a last attempt to write pending edits. What it says of the edits it
    /// could not write is what holds: in the journal (the next instance writes them), or in
    /// no journal (lost here; the page sends again every edit it was not answered ok).
    static func endServing(_ store: ListStore, file: ListFile) {
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            Glibc.signal(signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .main)
            source.setEventHandler {
                MainActor.assumeIsolated {
                    let left = store.close()
                    let unjournaled = store.unsaved
                    let path = TextRules.escaped(file.path)
                    if left > unjournaled {
                        printError("\(left - unjournaled) edits could not be written to \(path); they stay in the journal and the next bananas on this list writes them")
                    }
                    if unjournaled > 0 {
                        printError("\(unjournaled) edits could not be written to \(path), and no journal holds them: they are lost here. The page was not told they were saved and sends them again.")
                    }
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
        guard showPairing(registry: registry, base: base) else { throw ExitCode(ExitCodes.failure) }
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

/// A new code, as a URL, a QR code and the code alone (to type); false when none could be made.
@discardableResult
func showPairing(registry: DeviceRegistry, base: String?) -> Bool {
    do {
        let code = try registry.newCode()
        let spaced = code.code.prefix(4) + "-" + code.code.dropFirst(4)
        guard let base else {
            say(["Pairing code: \(spaced) (valid 5 minutes, 5 tries)"])
            return true
        }
        let url = base + "/pair#" + code.code
        var lines = ["Pair a phone: scan this code, or open \(TextRules.escaped(url))"]
        if let qr = QRCode(url) {
            let color = isatty(1) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            lines += qr.lines(color: color)
        }
        lines.append("Code \(spaced): one phone, within 5 minutes, 5 tries. Another code: bananas pair")
        say(lines)
        return true
    } catch {
        printError("cannot make a pairing code: \(error.description)")
        return false
    }
}

enum ServeURLs {
    /// `https://host[:port]` of a URL, lowercased, or nil.
    static func origin(_ url: String) -> String? {
        let lower = url.lowercased()
        guard let schemeEnd = lower.range(of: "://") else { return nil }
        let scheme = lower[..<schemeEnd.lowerBound]
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = lower[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        return String(scheme) + "://" + authority
    }

    /// The URLs phones can use: the addresses listened on, or every IPv4 address of this
    /// computer when listening on all of them.
    static func local(scheme: String, hosts listened: [String], port: Int) -> [String] {
        var hosts: [String] = []
        for host in listened {
            if host == "0.0.0.0" || host == "::" {
                let found = addresses()
                hosts += found.isEmpty ? ["127.0.0.1"] : found
            } else {
                hosts.append(host)
            }
        }
        return hosts.map { host in scheme + "://" + shown(host) + ":\(port)" }
    }

    /// A host as it goes in a URL: an IPv6 address in brackets.
    static func shown(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

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

    /// Where the running server was last reached, for `bananas pair` (`serve/url`, 0600).
    static func save(_ url: String, registry: DeviceRegistry) {
        do { try registry.save("url", Array((url + "\n").utf8)) } catch { printError("cannot keep the URL for bananas pair: \(error.description)") }
    }

    static func saved(registry: DeviceRegistry) -> String? {
        guard let bytes = registry.saved("url", limit: 4_096) else { return nil }
        let url = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return origin(url) == nil ? nil : url
    }
}

func say(_ lines: [String]) {
    FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data(("bananas serve: " + text + "\n").utf8))
}

/// The C library's `exit` (inside a command, `exit` names ArgumentParser's).
func terminate(_ status: Int32) -> Never { exit(status) }

ServeTool.main()
