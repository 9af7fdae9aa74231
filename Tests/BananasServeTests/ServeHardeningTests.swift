import BananasServe
import Foundation
import Testing

/// `bananas serve` held to what a user relies on when things go wrong (issues 58, 59, 53):
/// the real server in a process of its own, the real list file, requests over sockets.
@Suite("bananas serve when the disk, the clients or the state folder misbehave", .serialized)
struct ServeHardeningTests {
    /// Puts files where the state folder's `files/` and the spare go: neither can take a journal
    /// or the state, for any user (root included).
    static func blockStateAndSpare(_ home: ServeHome) throws {
        try? FileManager.default.removeItem(atPath: home.state + "/files")
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: home.state + "/files"))
        try? FileManager.default.removeItem(atPath: home.runtime + "/bananas")
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: home.runtime + "/bananas"))
    }

    static func freeStateAndSpare(_ home: ServeHome) throws {
        try FileManager.default.removeItem(atPath: home.state + "/files")
        try FileManager.default.removeItem(atPath: home.runtime + "/bananas")
    }

    /// 59.1: an edit neither a journal nor the file took is answered 503 with Retry-After, never
    /// ok; SIGTERM says it is in no journal; once the folder is back, the same key succeeds
    /// and the edit lands, once.
    @Test func anEditTheServerCannotMakeDurableIsAnsweredNotSaved() throws {
        let home = ServeHome()
        defer { home.cleanUp() }
        #expect(try home.run(["add", "Bread"]).status == 0)
        let token = try home.pair("phone")
        try Self.blockStateAndSpare(home)

        // The first server cannot save anything, and says so at SIGTERM.
        var server = try ServeProcess(home)
        let lost = try HTTPExchange.edit(["key": "lost-edit-0001", "op": "add", "name": "Milk"], port: server.port, token: token)
        #expect(lost.status == 503, "\(lost.body)")
        #expect(lost.json["ok"] as? Bool == false && lost.json["error"] as? String == "not_saved", "\(lost.body)")
        #expect(Int(lost.headers["retry-after"] ?? "") ?? 0 > 0)
        #expect((lost.json["message"] as? String)?.contains("Not saved") == true)
        #expect(server.stop(SIGTERM) != 0)
        #expect(!server.stderr.contains("stay in the journal"), "\(server.stderr)")
        #expect(server.stderr.contains("no journal holds them"), "\(server.stderr)")
        #expect(try home.names() == ["Bread"])

        // The next one, still blocked: not saved; freed: the same key is answered ok and lands.
        server = try ServeProcess(home)
        defer { server.stop() }
        let waiting = try HTTPExchange.edit(["key": "eggs-edit-0001", "op": "add", "name": "Eggs"], port: server.port, token: token)
        #expect(waiting.status == 503 && waiting.headers["retry-after"] != nil, "\(waiting.body)")
        try Self.freeStateAndSpare(home)
        var answer = HTTPExchange()
        for _ in 0..<40 {
            answer = try HTTPExchange.edit(["key": "eggs-edit-0001", "op": "add", "name": "Eggs"], port: server.port, token: token)
            if answer.status != 503 { break }
            usleep(250_000)
        }
        #expect(answer.status == 200 && answer.json["ok"] as? Bool == true, "\(answer.body)")
        // The page sends what it was not told was saved again, with its key.
        let resent = try HTTPExchange.edit(["key": "lost-edit-0001", "op": "add", "name": "Milk"], port: server.port, token: token)
        #expect(resent.status == 200, "\(resent.body)")
        #expect(server.stop(SIGTERM) == 0, "\(server.stderr)")
        #expect(try home.names().sorted() == ["Bread", "Eggs", "Milk"])
    }

    /// 58.2: a key is the device's and the edit's. Another device's request with the same key
    /// is refused in words and its add is not swallowed; the same key for another edit too.
    @Test func idempotencyKeysAreScopedByDeviceAndEdit() throws {
        let home = ServeHome()
        defer { home.cleanUp() }
        #expect(try home.run(["add", "Bread"]).status == 0)
        let phoneA = try home.pair("phone A"), phoneB = try home.pair("phone B")
        let server = try ServeProcess(home)
        defer { server.stop() }
        let key = "shared-key-0001"
        let first = try HTTPExchange.edit(["key": key, "op": "add", "name": "FromA"], port: server.port, token: phoneA)
        #expect(first.status == 200, "\(first.body)")

        let other = try HTTPExchange.edit(["key": key, "op": "add", "name": "FromB"], port: server.port, token: phoneB)
        #expect(other.status == 409 && other.json["error"] as? String == "key_taken", "\(other.body)")
        #expect((other.json["message"] as? String)?.contains("was not made") == true)
        #expect(other.json["replayed"] == nil && !other.body.contains("FromA"))
        let sameOther = try HTTPExchange.edit(["key": key, "op": "add", "name": "FromA"], port: server.port, token: phoneB)
        #expect(sameOther.status == 409, "another device's copy of the very same edit: \(sameOther.body)")

        let reused = try HTTPExchange.edit(["key": key, "op": "add", "name": "Other"], port: server.port, token: phoneA)
        #expect(reused.status == 422 && reused.json["error"] as? String == "key_reused", "\(reused.body)")

        let retry = try HTTPExchange.edit(["key": key, "op": "add", "name": "FromA"], port: server.port, token: phoneA)
        #expect(retry.status == 200 && retry.json["replayed"] as? Bool == true, "\(retry.body)")

        let own = try HTTPExchange.edit(["key": "phone-b-key-0001", "op": "add", "name": "FromB"], port: server.port, token: phoneB)
        #expect(own.status == 200, "\(own.body)")
        #expect(server.stop(SIGTERM) == 0)
        #expect(try home.names().sorted() == ["Bread", "FromA", "FromB"])

        // After a restart (the answers from disk), the same.
        let again = try ServeProcess(home)
        defer { again.stop() }
        let afterRestart = try HTTPExchange.edit(["key": key, "op": "add", "name": "FromB2"], port: again.port, token: phoneB)
        #expect(afterRestart.status == 409, "\(afterRestart.body)")
    }

    /// 59.3: 1,100 connections that send nothing, under an open-files limit of 256, and the
    /// paired phone is still answered within a second.
    @Test func idleConnectionsDoNotStarveThePairedPhone() throws {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        getrlimit(resource, &limit)
        if limit.rlim_cur < 4_096 {
            limit.rlim_cur = min(limit.rlim_max, 4_096)
            setrlimit(resource, &limit)
        }
        try #require(limit.rlim_cur >= 1_200, "the test needs 1,200 open files of its own")
        let home = ServeHome()
        defer { home.cleanUp() }
        #expect(try home.run(["add", "Bread"]).status == 0)
        let token = try home.pair("phone")
        let server = try ServeProcess(home, openFiles: 256)
        defer { server.stop() }
        var idle: [Int32] = []
        defer { for fd in idle { close(fd) } }
        for _ in 0..<1_100 { idle.append(try Socket.connect(host: "127.0.0.1", port: server.port)) }

        let start = Date()
        let list = try HTTPExchange.send("GET", "/api/list", port: server.port, token: token, seconds: 5)
        let took = Date().timeIntervalSince(start)
        #expect(list.status == 200 && list.body.contains("Bread"))
        #expect(took < 1, "the phone waited \(took) s")
        let edit = try HTTPExchange.edit(["key": "under-load-0001", "op": "add", "name": "Milk"], port: server.port, token: token)
        #expect(edit.status == 200, "\(edit.body)")
    }

    /// 59.4: the server's own folder is hostile input: a FIFO at devices.json does not hang
    /// `bananas devices`, a FIFO at the answers file does not stop the server, and a symlinked
    /// `serve/` gets nothing written through it.
    @Test func theServeFolderIsHardenedLikeTheStateFolder() throws {
        let home = ServeHome()
        defer { home.cleanUp() }
        #expect(try home.run(["add", "Bread"]).status == 0)
        let serve = home.state + "/serve"

        // A normal run: every file 0600.
        var server = try ServeProcess(home)
        server.stop()
        for name in ["url", "devices.json", "devices.lock"] {
            var st = stat()
            if lstat(serve + "/" + name, &st) == 0 { #expect(st.st_mode & 0o777 == 0o600, "\(name)") }
        }
        var st = stat()
        #expect(lstat(serve + "/url", &st) == 0 && st.st_mode & 0o777 == 0o600)

        // A FIFO where the device list goes.
        try? FileManager.default.removeItem(atPath: serve + "/devices.json")
        #expect(mkfifo(serve + "/devices.json", 0o600) == 0)
        let devices = try home.run(["devices"], seconds: 10)
        #expect(devices.status != -9, "bananas devices hung on a FIFO")
        #expect(devices.status != 0 && devices.err.contains("not a regular file"), "\(devices.err)")
        unlink(serve + "/devices.json")

        // A FIFO where the answers go.
        let answers = WebList.answersPath(listPath: home.listPath, stateDirectory: home.state)
        try FileManager.default.createDirectory(atPath: (answers as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: answers)
        #expect(mkfifo(answers, 0o600) == 0)
        let token = try home.pair("phone")
        server = try ServeProcess(home)
        let edit = try HTTPExchange.edit(["key": "fifo-answers-0001", "op": "add", "name": "Milk"], port: server.port, token: token)
        #expect(edit.status == 200, "\(edit.body)")
        #expect(server.stop() == 0)

        // `serve/` a symlink to a folder elsewhere: nothing is written there.
        let outside = home.folder + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.removeItem(atPath: serve)
        try FileManager.default.createSymbolicLink(atPath: serve, withDestinationPath: outside)
        server = try ServeProcess(home)
        let pair = try home.run(["pair"])
        #expect(pair.status != 0)
        _ = try? HTTPExchange.send("GET", "/api/list", port: server.port, token: token)
        server.stop()
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
        #expect(server.stderr.contains("symlink"), "\(server.stderr)")
    }

    /// 59.5: what `serve` and `pair` print is escaped like the rest of the CLI; a body over the
    /// limit gets 413.
    @Test func printedURLsAreEscapedAndLargeBodiesGet413() throws {
        let home = ServeHome()
        defer { home.cleanUp() }
        #expect(try home.run(["add", "Bread"]).status == 0)
        let token = try home.pair("phone")
        let hostile = "https://list.example/\u{1B}]0;owned\u{07}\u{1B}[2J"
        let server = try ServeProcess(home, ["--public-url", hostile])
        #expect(!server.stdout.contains("\u{1B}") && !server.stdout.contains("\u{07}"), "\(server.stdout)")
        #expect(server.stdout.contains("https://list.example/\\e]0;owned"), "\(server.stdout)")
        let pair = try home.run(["pair"])
        #expect(pair.status == 0 && !pair.out.contains("\u{1B}") && pair.out.contains("https://list.example/\\e]0;owned"), "\(pair.out)")

        let large = try HTTPExchange.send("POST", "/api/edits", port: server.port, token: token, body: [UInt8](repeating: 0x20, count: 5 << 20))
        #expect(large.status == 413 && large.json["error"] as? String == "too_large", "\(large.status) \(large.body)")
        #expect(server.stop() == 0)
    }

    /// 59.5 and 53: `--listen HOST:PORT`, IPv6 loopback, localhost on both families; a bad
    /// address refused in one sentence, a port taken said in words.
    @Test func listenTakesHostAndPortAndIPv6() throws {
        let home = ServeHome()
        defer { home.cleanUp() }
        #expect(try home.run(["add", "Bread"]).status == 0)
        let token = try home.pair("phone")

        let v4 = try ServeProcess(home, ["--listen", "127.0.0.1:0"])
        #expect(try HTTPExchange.send("GET", "/api/list", port: v4.port, token: token).status == 200)
        let taken = try home.run(["serve", "--no-pair", "--listen", "127.0.0.1:\(v4.port)"])
        #expect(taken.status != 0 && taken.err.contains("cannot listen on 127.0.0.1 port \(v4.port): "), "\(taken.err)")
        #expect(!taken.err.contains("IOError") && !taken.err.contains("errno"), "\(taken.err)")
        v4.stop()

        let bad = try home.run(["serve", "--listen", "300.1.2.3:80"])
        #expect(bad.status == 64 && bad.err.contains("--listen takes an IP address or localhost"), "\(bad.err)")
        #expect(!bad.err.contains("SocketAddressError") && bad.err.split(separator: "\n").count <= 3, "\(bad.err)")
        let twice = try home.run(["serve", "--listen", "127.0.0.1:8081", "--port", "8082"])
        #expect(twice.status == 64 && twice.err.contains("give the port once"), "\(twice.err)")

        guard Self.hasIPv6Loopback() else { return }
        let v6 = try ServeProcess(home, ["--listen", "[::1]:0"])
        #expect(v6.stdout.contains("http://[::1]:\(v6.port)"), "\(v6.stdout)")
        let overV6 = try HTTPExchange.send("GET", "/api/list", port: v6.port, host: "::1", token: token)
        #expect(overV6.status == 200 && overV6.body.contains("Bread"), "\(overV6.body)")
        v6.stop()
        let bare = try ServeProcess(home, ["--listen", "::1"] + ["--port", "0"])
        #expect(try HTTPExchange.send("GET", "/api/list", port: bare.port, host: "::1", token: token).status == 200)
        bare.stop()

        let both = try ServeProcess(home, ["--listen", "localhost", "--port", "0"])
        defer { both.stop() }
        #expect(both.stdout.contains("http://127.0.0.1:\(both.port)") && both.stdout.contains("http://[::1]:\(both.port)"), "\(both.stdout)")
        #expect(try HTTPExchange.send("GET", "/api/list", port: both.port, host: "127.0.0.1", token: token).status == 200)
        #expect(try HTTPExchange.send("GET", "/api/list", port: both.port, host: "::1", token: token).status == 200)
    }

    /// 53: the help of serve, pair and devices has no line broken mid-sentence: at 200
    /// columns a sentence is on one line.
    @Test func helpTextsHaveNoHardLineBreaks() throws {
        let home = ServeHome()
        defer { home.cleanUp() }
        let serve = try home.run(["serve", "--help"])
        #expect(serve.out.contains("Shows a QR code of a pairing URL with a one-time code"), "\(serve.out)")
        #expect(serve.out.contains("give --tls-cert and --tls-key, or put it behind HTTPS"), "\(serve.out)")
        let pair = try home.run(["pair", "--help"])
        #expect(pair.out.contains("The code works once, for 5 minutes and 5 tries."), "\(pair.out)")
        let devices = try home.run(["devices", "--help"])
        #expect(devices.status == 0 && devices.out.contains("List the devices paired with bananas serve"), "\(devices.out)")
    }

    static func hasIPv6Loopback() -> Bool {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 }
        }
    }
}
