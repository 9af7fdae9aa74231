import Foundation
import Testing

/// `bananas mcp` at the protocol's edges, line by line as a client writes them: requests
/// before the handshake, lines that do not parse, a last line without its newline, SIGTERM,
/// and the stateless revision (2026-07-28) beside the handshake ones.
@Suite("MCP protocol: handshake, stateless revision, parse errors, end of input, SIGTERM")
struct MCPProtocolTests {
    static let initialize = #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}"#
    static let modernMeta = #""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"pipe","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}"#

    /// Runs `bananas mcp`, writes `input` as is, closes stdin, and returns the messages it
    /// answered and its exit status.
    static func exchange(_ cli: CLI, _ input: String) async throws -> (messages: [[String: Any]], status: Int32) {
        let result = try await runProgram([CLI.binary, "mcp"], environment: cli.environment(), input: input)
        let messages = result.stdout.split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) ?? ["unparsed": String($0)]
        }
        return (messages, result.status)
    }

    static func answer(_ messages: [[String: Any]], id: AnyHashable) -> [String: Any]? {
        messages.first { ($0["id"] as? AnyHashable) == id }
    }

    @Test("a tools/call before initialize is refused and changes nothing; after it, it works")
    func callBeforeInitialize() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let early = #"{"jsonrpc":"2.0","id":"early","method":"tools/call","params":{"name":"add_items","arguments":{"items":[{"name":"Sneaky"}]}}}"#
        let late = #"{"jsonrpc":"2.0","id":"late","method":"tools/call","params":{"name":"add_items","arguments":{"items":[{"name":"Proper"}]}}}"#
        let (messages, status) = try await Self.exchange(cli, [early, Self.initialize, #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, late].joined(separator: "\n") + "\n")
        #expect(status == 0)
        let refused = try #require(Self.answer(messages, id: "early")?["error"] as? [String: Any], "\(messages)")
        #expect(refused["code"] as? Int == -32600 && (refused["message"] as? String)?.contains("send initialize first") == true)
        #expect(Self.answer(messages, id: "late")?["result"] != nil, "\(messages)")
        #expect(try await cli.items().map { $0["name"] as? String } == ["Proper"])
    }

    @Test("a line that does not parse is answered with id null; the server goes on")
    func parseError() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let (messages, status) = try await Self.exchange(cli, Self.initialize + "\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\n" + #"{"jsonrpc":"2.0","id":8,"method":"tools/list"}"# + "\n")
        #expect(status == 0)
        let parse = try #require(messages.first { $0["error"] != nil }, "\(messages)")
        #expect(parse["id"] is NSNull, "\(parse)")
        #expect((parse["error"] as? [String: Any])?["code"] as? Int == -32700)
        #expect(Self.answer(messages, id: 8)?["result"] != nil, "the next request is answered: \(messages)")
    }

    @Test("the last line is answered even without a trailing newline")
    func lastLineWithoutNewline() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let call = #"{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"add_items","arguments":{"items":[{"name":"Unterminated"}]}}}"#
        let (messages, status) = try await Self.exchange(cli, Self.initialize + "\n" + call)
        #expect(status == 0)
        #expect(Self.answer(messages, id: "last")?["result"] != nil, "\(messages)")
        #expect(try await cli.items().map { $0["name"] as? String } == ["Unterminated"])
    }

    @Test("SIGTERM, SIGINT and SIGHUP are the end of input: the call running is answered, the list written, exit 0",
          arguments: [SIGTERM, SIGINT, SIGHUP])
    func endingSignals(_ number: Int32) async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let server = try MCPProcess(cli)
        _ = try server.call("add_items", ["items": [["name": "Before the signal"]]])
        kill(server.process.processIdentifier, number)
        let deadline = Date().addingTimeInterval(10)
        while server.process.isRunning && Date() < deadline { usleep(5_000) }
        #expect(!server.process.isRunning)
        #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 0, "signal \(number): \(server.stderr)")
        #expect(server.stderr.contains("signal \(number): finishing"), "the clean path, not a default death: \(server.stderr)")
        #expect(try await cli.items().map { $0["name"] as? String } == ["Before the signal"])
    }

    @Test("a batch of members that are no JSON-RPC messages ([1,2,3]) is answered with one -32600 error each, id null; the valid members are answered too")
    func invalidBatch() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let input = [
            Self.initialize, #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, "[1,2,3]",
            #"[7,{"jsonrpc":"2.0","id":"listed","method":"tools/list"}]"#, #"{"jsonrpc":"2.0","id":"after","method":"ping"}"#,
        ].joined(separator: "\n") + "\n"
        let result = try await runProgram([CLI.binary, "mcp"], environment: cli.environment(), input: input)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) }
        let batches = lines.compactMap { $0 as? [[String: Any]] }
        let errors = batches.flatMap { $0 }.filter { $0["error"] != nil }
        #expect(errors.count == 4, "three for [1,2,3], one for 7: \(result.stdout)")
        for error in errors {
            #expect(error["id"] is NSNull && (error["error"] as? [String: Any])?["code"] as? Int == -32600, "\(error)")
        }
        let answered = lines.compactMap { $0 as? [String: Any] } + batches.flatMap { $0 }
        #expect(answered.contains { $0["id"] as? String == "listed" && $0["result"] != nil }, "\(result.stdout)")
        #expect(answered.contains { $0["id"] as? String == "after" }, "the server goes on: \(result.stdout)")
    }

    @Test("invalid messages: -32600 with the id when it can be read, else null; bad tools/call params and unknown tools are -32602 with words to act on")
    func invalidMessages() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        let before = cli.fileBytes
        let lines = [
            Self.initialize, #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            #"42"#,
            #"{"jsonrpc":"2.0","params":{}}"#,
            #"{"jsonrpc":"2.0","id":"no-method"}"#,
            #"{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}"#,
            #"{"id":"no-version","method":"tools/list"}"#,
            #"{"jsonrpc":"2.0","id":"array-args","method":"tools/call","params":{"name":"remove_items","arguments":[]}}"#,
            #"{"jsonrpc":"2.0","id":"no-name","method":"tools/call","params":{"arguments":{}}}"#,
            #"{"jsonrpc":"2.0","id":"unknown-tool","method":"tools/call","params":{"name":"remove_everything","arguments":{}}}"#,
            #"{"jsonrpc":"2.0","id":"bad-revision","method":"tools/call","params":{"name":"remove_items","arguments":{"items":[{"item":"Milk"}],"expected_revision":"latest"}}}"#,
            #"{"jsonrpc":"2.0","id":"after","method":"tools/list"}"#,
        ]
        let (messages, status) = try await Self.exchange(cli, lines.joined(separator: "\n") + "\n")
        #expect(status == 0)
        func error(_ id: AnyHashable) -> [String: Any]? { Self.answer(messages, id: id)?["error"] as? [String: Any] }
        // The two invalid messages without a readable id, in the order sent.
        let anonymous = messages.filter { $0["id"] is NSNull }
        #expect(anonymous.count == 3, "42, the message with no method and the object id: \(messages)")
        for answer in anonymous {
            #expect((answer["error"] as? [String: Any])?["code"] as? Int == -32600, "\(answer)")
        }
        #expect(messages.allSatisfy { ($0["id"] as? String)?.count != 36 }, "no id of the server's making: \(messages)")
        #expect(error("no-method")?["code"] as? Int == -32600, "not a parse error: \(messages)")
        #expect((error("no-method")?["message"] as? String)?.contains("method") == true)
        #expect(error("no-version")?["code"] as? Int == -32600, "\(messages)")
        let arrayArguments = try #require(error("array-args"), "\(messages)")
        #expect(arrayArguments["code"] as? Int == -32602)
        let said = arrayArguments["message"] as? String ?? ""
        #expect(said.contains("\"arguments\" must be an object") && !said.contains("couldn") && !said.contains("DecodingError"), "\(said)")
        #expect(error("no-name")?["code"] as? Int == -32602 && (error("no-name")?["message"] as? String)?.contains("name") == true)
        let unknown = try #require(error("unknown-tool"), "an error, not an isError result: \(messages)")
        #expect(unknown["code"] as? Int == -32602 && (unknown["message"] as? String)?.contains("The tools are: get_shopping_list") == true)
        // A revision that is no revision is refused as such, not echoed as one the list had.
        let badRevision = try #require(Self.answer(messages, id: "bad-revision")?["result"] as? [String: Any], "\(messages)")
        let refusal = ((badRevision["content"] as? [[String: Any]])?.first?["text"] as? String) ?? ""
        #expect(badRevision["isError"] as? Bool == true && refusal.contains("is not a revision") && !refusal.contains("changed since"), "\(refusal)")
        #expect((badRevision["structuredContent"] as? [String: Any])?["stale"] == nil)
        #expect(Self.answer(messages, id: "after")?["result"] != nil, "the server goes on")
        #expect(cli.fileBytes == before, "nothing changed")
    }

    @Test("2026-07-28 without a handshake: server/discover, resultType, the version in _meta, an unknown version refused")
    func statelessRevision() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let lines = [
            #"{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"#.appending(Self.modernMeta).appending("}}"),
            #"{"jsonrpc":"2.0","id":"t","method":"tools/list","params":{"#.appending(Self.modernMeta).appending("}}"),
            #"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"add_items","arguments":{"items":[{"name":"Stateless"}]},"#.appending(Self.modernMeta).appending("}}"),
            #"{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":"bananas://list","#.appending(Self.modernMeta).appending("}}"),
            #"{"jsonrpc":"2.0","id":"v","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}"#,
        ]
        let (messages, status) = try await Self.exchange(cli, lines.joined(separator: "\n") + "\n")
        #expect(status == 0)
        let discover = try #require(Self.answer(messages, id: "d")?["result"] as? [String: Any], "\(messages)")
        #expect((discover["supportedVersions"] as? [String])?.first == "2026-07-28")
        #expect((discover["supportedVersions"] as? [String])?.contains("2025-11-25") == true)
        #expect(discover["resultType"] as? String == "complete" && discover["ttlMs"] as? Int == 0)
        #expect((discover["instructions"] as? String)?.contains("expected_revision") == true)
        #expect(discover["capabilities"] as? [String: Any] != nil)
        for id in ["t", "c", "r"] {
            let result = Self.answer(messages, id: id)?["result"] as? [String: Any]
            #expect(result?["resultType"] as? String == "complete", "\(id): \(messages)")
        }
        #expect((Self.answer(messages, id: "t")?["result"] as? [String: Any])?["ttlMs"] as? Int == 0)
        #expect(try await cli.items().map { $0["name"] as? String } == ["Stateless"], "a stateless tools/call needs no initialize")
        let unsupported = try #require(Self.answer(messages, id: "v")?["error"] as? [String: Any], "\(messages)")
        #expect(unsupported["code"] as? Int == -32022)
        // Every version the server speaks, as server/discover lists them.
        let supported = (unsupported["data"] as? [String: Any])?["supported"] as? [String]
        #expect(supported == discover["supportedVersions"] as? [String], "\(unsupported)")
        #expect(supported?.contains("2025-11-25") == true && supported?.first == "2026-07-28")
    }

    @Test("subscriptions/listen: acknowledged, then every change by another writer, with the stream's id")
    func listen() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let server = try MCPProcess(cli)  // (a handshake first does not stop a listen)
        server.sendLine(#"{"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["bananas://list"],"toolsListChanged":true},"#.appending(Self.modernMeta).appending("}}"))
        func notice(_ method: String) -> [String: Any]? {
            server.received.first { $0["method"] as? String == method }?["params"] as? [String: Any]
        }
        let deadline = Date().addingTimeInterval(10)
        while notice("notifications/subscriptions/acknowledged") == nil && Date() < deadline { usleep(5_000) }
        let ack = try #require(notice("notifications/subscriptions/acknowledged"))
        #expect((ack["notifications"] as? [String: Any])?["resourceSubscriptions"] as? [String] == ["bananas://list"])
        #expect((ack["notifications"] as? [String: Any])?["toolsListChanged"] == nil, "only what is honored")
        #expect((ack["_meta"] as? [String: Any])?["io.modelcontextprotocol/subscriptionId"] as? String == "listen-1")
        _ = await cli("add", "Bread")
        while notice("notifications/resources/updated") == nil && Date() < deadline { usleep(5_000) }
        let updated = try #require(notice("notifications/resources/updated"))
        #expect(updated["uri"] as? String == "bananas://list")
        #expect((updated["_meta"] as? [String: Any])?["io.modelcontextprotocol/subscriptionId"] as? String == "listen-1")
        #expect(server.finish() == 0)
        let closed = server.received.first { $0["id"] as? String == "listen-1" }?["result"] as? [String: Any]
        #expect(closed?["resultType"] as? String == "complete", "the stream is ended gracefully at the end")
    }

    @Test("the official Python client pinned to 2025-11-25 and to 2026-07-28 pages 10,000 items within its context, is refused on every stale revision, cannot store invisible text", arguments: ["2025-11-25", "2026-07-28"])
    func pythonClientAtEachRevision(_ revision: String) async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("MCPClient/agent_revisions.py").path
        let result = try await runProgram(["/usr/bin/env", "python3", script, revision], environment: cli.environment(["BANANAS_BIN": CLI.binary]))
        #expect(result.status == 0 && result.stdout.hasSuffix("OK\n"),
                "needs the Python mcp package (scripts/test installs it): \(result.stderr.suffix(1000)) \(result.stdout.suffix(1000))")
    }
}
