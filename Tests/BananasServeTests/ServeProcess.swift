import BananasServe
import Foundation
import Synchronization
import Testing

/// A home for one test: the list file, the state folder and the spare's place, all its own.
struct ServeHome {
    let folder = NSTemporaryDirectory() + "bananas-serve-process-" + UUID().uuidString
    var stateHome: String { folder + "/state" }
    /// `$XDG_STATE_HOME/bananas`.
    var state: String { stateHome + "/bananas" }
    var runtime: String { folder + "/run" }
    var listPath: String { folder + "/list/BananaList.json" }
    var registry: DeviceRegistry { DeviceRegistry(stateDirectory: state) }

    init() {
        try? FileManager.default.createDirectory(atPath: folder + "/list", withIntermediateDirectories: true)
        try? FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
    }

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = folder
        environment["XDG_STATE_HOME"] = stateHome
        environment["XDG_RUNTIME_DIR"] = runtime
        environment["BANANAS_FILE"] = listPath
        environment["NO_COLOR"] = "1"
        environment["COLUMNS"] = "200"
        return environment
    }

    /// Pairs a device as the page does, through the registry the server reads; its token.
    func pair(_ name: String) throws -> String {
        let code = try registry.newCode()
        guard case .paired(let device) = try registry.pair(code: code.code, name: name) else { throw ServeProcess.Failure(text: "pairing refused") }
        return device.token
    }

    /// `bananas ARGS` to its end (at most `seconds`: then killed, status -9).
    func run(_ arguments: [String], seconds: Double = 20) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandTests.bananas)
        process.arguments = arguments
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return (-9, "", "")
        }
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let error = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, output, error)
    }

    /// The names in the list file (as a user reads it: `bananas list --json`).
    func names() throws -> [String] {
        let result = try run(["list", "--json"])
        guard let object = try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any],
              let items = object["items"] as? [[String: Any]] else { throw ServeProcess.Failure(text: "list --json: \(result.err)") }
        return items.compactMap { $0["name"] as? String }
    }

    func cleanUp() {
        try? FileManager.default.removeItem(atPath: folder)
    }
}

/// The real `bananas serve` in a process of its own, as a user starts it.
final class ServeProcess: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible { let text: String; var description: String { text } }

    let process = Process()
    /// What it printed so far (the pipes' handlers add to it).
    final class Printed: Sendable {
        let text = Mutex<(out: String, err: String)>(("", ""))
    }
    private let output = Printed()
    /// The port it listens on.
    private(set) var port = 0

    /// Starts `bananas serve --port 0 --no-pair ARGS` (through `sh -c 'ulimit -n N; exec …'`
    /// when `openFiles` is given) and waits until it says where it listens.
    init(_ home: ServeHome, _ arguments: [String] = [], openFiles: Int? = nil, waitForURL: Bool = true) throws {
        let command = [CommandTests.bananas, "serve", "--no-pair"] + (arguments.contains { $0.hasPrefix("--listen") || $0 == "--port" } ? [] : ["--port", "0"]) + arguments
        if let openFiles {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(openFiles) && exec \"$0\" \"$@\""] + command
        } else {
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
        }
        process.environment = home.environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        out.fileHandleForReading.readabilityHandler = { [output] handle in
            let data = handle.availableData
            output.text.withLock { $0.out += String(decoding: data, as: UTF8.self) }
        }
        err.fileHandleForReading.readabilityHandler = { [output] handle in
            let data = handle.availableData
            output.text.withLock { $0.err += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        guard waitForURL else { return }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let match = stdout.firstMatch(of: /\ \ at https?:\/\/[^\s]*:(\d+)/), let port = Int(match.1) {
                self.port = port
                return
            }
            if !process.isRunning { break }
            usleep(20_000)
        }
        stop()
        throw Failure(text: "bananas serve did not start: \(stdout) \(stderr)")
    }

    var stdout: String { output.text.withLock { $0.out } }
    var stderr: String { output.text.withLock { $0.err } }

    /// Sends `signal` and waits for the end; the exit status.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        let deadline = Date().addingTimeInterval(15)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        usleep(50_000)  // the last of its output
        return process.terminationStatus
    }

    /// Waits until it has ended by itself; its status, nil when it still runs after `seconds`.
    func ended(within seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { return nil }
        process.waitUntilExit()
        usleep(50_000)
        return process.terminationStatus
    }
}

/// An HTTP/1.1 exchange over a socket of its own (`Connection: close`): what a phone sends.
struct HTTPExchange {
    var status = 0
    var headers: [String: String] = [:]
    var body = ""

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:] }

    /// `method path` to `host` (an IPv4 or IPv6 address) and `port`, with `token` as the
    /// device's bearer token; throws when it cannot connect or no answer comes in `seconds`.
    static func send(_ method: String, _ path: String, port: Int, host: String = "127.0.0.1", token: String? = nil,
                     body: [UInt8] = [], seconds: Int = 10) throws -> HTTPExchange {
        let fd = try Socket.connect(host: host, port: port)
        defer { close(fd) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(authority)\r\nConnection: close\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        head += "\r\n"
        let request = Array(head.utf8) + body
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { break }  // the server may answer (413) before taking the whole body
            sent += count
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += chunk[..<count]
        }
        guard let split = received.firstRange(of: Array("\r\n\r\n".utf8)) else {
            throw ServeProcess.Failure(text: "no answer to \(method) \(path) (\(received.count) bytes)")
        }
        var exchange = HTTPExchange()
        let lines = String(decoding: received[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        exchange.status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            exchange.headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var rest = Array(received[split.upperBound...])
        if exchange.headers["transfer-encoding"] == "chunked" { rest = Self.unchunked(rest) }
        exchange.body = String(decoding: rest, as: UTF8.self)
        return exchange
    }

    static func unchunked(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while let end = bytes[index...].firstRange(of: [0x0D, 0x0A]) {
            let size = Int(String(decoding: bytes[index..<end.lowerBound], as: UTF8.self), radix: 16) ?? 0
            if size == 0 { break }
            result += bytes[end.upperBound..<min(bytes.count, end.upperBound + size)]
            index = end.upperBound + size + 2
            if index >= bytes.count { break }
        }
        return result
    }

    /// An edit as the page sends it.
    static func edit(_ fields: [String: Any], port: Int, token: String) throws -> HTTPExchange {
        try send("POST", "/api/edits", port: port, token: token, body: Array(try JSONSerialization.data(withJSONObject: fields)))
    }
}

enum Socket {
    /// A connected TCP socket to `host` (an IP address) and `port`.
    static func connect(host: String, port: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let info = found else { throw ServeProcess.Failure(text: "not an address: \(host)") }
        defer { freeaddrinfo(found) }
        let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard fd >= 0 else { throw ServeProcess.Failure(text: "socket: \(String(cString: strerror(errno)))") }
        guard Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ServeProcess.Failure(text: "connect to \(host) port \(port): \(reason)")
        }
        return fd
    }
}
