import Foundation
import Synchronization
import Testing

/// `bananas mcp` spoken to over stdio, JSON-RPC line by line, as an MCP client does. Every
/// line it writes to stdout is kept (the protocol owns stdout); stderr (the log) is kept too.
final class MCPProcess: @unchecked Sendable {
    let process = Process()
    private let input = Pipe(), output = Pipe(), errors = Pipe()
    private struct Received {
        var buffer = Data()
        var lines: [Data] = []
        var messages = JSONObjects()
        var errorText = Data()
        var nextID = 1
    }
    private let state = Mutex(Received())
    private var outputReader: PipeReader?
    private var errorReader: PipeReader?

    init(_ cli: CLI, environment extra: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["mcp"]
        process.environment = cli.environment(extra)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        outputReader = PipeReader(output.fileHandleForReading) { [weak self] data in
            self?.state.withLock { state in
                state.buffer.append(data)
                while let newline = state.buffer.firstIndex(of: 0x0A) {
                    let line = Data(state.buffer[state.buffer.startIndex..<newline])
                    state.buffer.removeSubrange(state.buffer.startIndex...newline)
                    state.lines.append(line)
                    if let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] { state.messages.all.append(object) }
                }
            }
        }
        errorReader = PipeReader(errors.fileHandleForReading) { [weak self] data in
            self?.state.withLock { $0.errorText.append(data) }
        }
        try process.run()
        _ = try request("initialize", ["protocolVersion": "2025-06-18", "capabilities": [:], "clientInfo": ["name": "bananas-tests", "version": "1"]])
        notify("notifications/initialized")
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Every line written to stdout so far (a partial last line is not one).
    var stdoutLines: [Data] { state.withLock { $0.lines } }

    var stderr: String { state.withLock { String(decoding: $0.errorText, as: UTF8.self) } }

    /// Every message received so far (responses and notifications).
    var received: [[String: Any]] { state.withLock { $0.messages }.all }

    private func send(_ object: [String: Any]) {
        var data = try! JSONSerialization.data(withJSONObject: object)
        data.append(0x0A)
        try? input.fileHandleForWriting.write(contentsOf: data)  // a dead server: a timeout, not a crash
    }

    func notify(_ method: String) { send(["jsonrpc": "2.0", "method": method]) }

    /// Writes one message written by hand, as one line.
    func sendLine(_ line: String) { try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8)) }

    /// Sends a request and waits (bounded) for its response's `result`.
    func request(_ method: String, _ params: [String: Any] = [:], timeout: Double = 10) throws -> [String: Any] {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        send(["jsonrpc": "2.0", "id": id, "method": method, "params": params])
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let found = received.first { ($0["id"] as? Int) == id }
            if let found {
                guard let result = found["result"] as? [String: Any] else { throw CLIError(found.description) }
                return result
            }
            usleep(2_000)
        }
        throw CLIError("no answer to \(method)")
    }

    func call(_ tool: String, _ arguments: [String: Any] = [:]) throws -> [String: Any] {
        try request("tools/call", ["name": tool, "arguments": arguments])
    }

    /// Closes stdin (the client goes away) and waits for the server to exit; its status.
    func finish(timeout: Double = 10) -> Int32? {
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        guard !process.isRunning else { return nil }
        usleep(50_000)  // the last of stderr
        return process.terminationStatus
    }

    struct CLIError: Error, CustomStringConvertible {
        let description: String
        init(_ text: String) { description = text }
    }
}

extension Dictionary where Key == String, Value == Any {
    var structured: [String: Any] { self["structuredContent"] as? [String: Any] ?? [:] }
    var statuses: [String] { (structured["results"] as? [[String: Any]] ?? []).map { $0["status"] as? String ?? "?" } }
    var text: String { ((self["content"] as? [[String: Any]])?.first?["text"] as? String) ?? "" }
    var isError: Bool { self["isError"] as? Bool == true }
}

@Suite("MCP server: the real binary over stdio")
struct MCPTests {
    @Test("an agent reads the list with get_shopping_list, filters it, and sees CLI edits live")
    func getShoppingList() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        _ = await cli("add", "Oat milk", "--section", "Dairy", "--amount", "2 L")
        _ = await cli("add", "Bananas", "--section", "Produce")
        _ = await cli("check", "Bananas")
        let server = try MCPProcess(cli)

        let tools = try server.request("tools/list")["tools"] as! [[String: Any]]
        let read = try #require(tools.first { $0["name"] as? String == "get_shopping_list" })
        let annotations = read["annotations"] as! [String: Any]
        #expect(annotations["readOnlyHint"] as? Bool == true && annotations["openWorldHint"] as? Bool == false)
        #expect(read["outputSchema"] != nil && read["inputSchema"] != nil)

        let all = try server.call("get_shopping_list")
        #expect(all["isError"] as? Bool == false)
        let structured = all["structuredContent"] as! [String: Any]
        #expect(structured["sections"] as? [String] == ["Dairy", "Produce"])
        let items = structured["items"] as! [[String: Any]]
        #expect(items.map { $0["name"] as! String } == ["Oat milk", "Bananas"])
        #expect(items[0]["amount"] as? String == "2 L" && items[1]["checked"] as? Bool == true)

        let unchecked = try server.call("get_shopping_list", ["unchecked_only": true])
        #expect(((unchecked["structuredContent"] as! [String: Any])["items"] as! [[String: Any]]).count == 1)

        _ = await cli("add", "Bread")
        let deadline = Date().addingTimeInterval(5)
        var names: [String] = []
        while Date() < deadline {
            let now = try server.call("get_shopping_list")
            names = ((now["structuredContent"] as! [String: Any])["items"] as! [[String: Any]]).map { $0["name"] as! String }
            if names.contains("Bread") { break }
            usleep(20_000)
        }
        #expect(names.contains("Bread"), "an edit from the CLI reaches the running server")

        // An unknown tool is a JSON-RPC error, as the spec has it.
        #expect(throws: MCPProcess.CLIError.self) { try server.call("remove_everything") }
    }

    func structured(_ result: [String: Any]) -> [String: Any] { result["structuredContent"] as! [String: Any] }
    func statuses(_ result: [String: Any]) -> [String] {
        (structured(result)["results"] as! [[String: Any]]).map { $0["status"] as! String }
    }

    @Test("an agent adds, changes and removes items in batches; each entry answered on its own")
    func editingTools() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        _ = await cli("add", "Milk", "--section", "Dairy")
        let server = try MCPProcess(cli)

        let added = try server.call("add_items", ["items": [
            ["name": "Bananas", "section": "Produce", "amount": "6"],
            ["name": "milk"],
            ["name": "Bread", "optional": true],
            ["name": "  "],
        ]])
        #expect(statuses(added) == ["added", "already_on_list", "added", "error"])
        #expect(added["isError"] as? Bool == false, "a batch that partly worked is no error")
        let items = try await cli.items()
        #expect(Set(items.map { $0["name"] as! String }) == ["Milk", "Bananas", "Bread"])
        #expect(items.first { $0["name"] as? String == "Bananas" }?["section"] as? String == "Produce")

        let updated = try server.call("update_items", ["items": [
            ["item": "milk", "checked": true, "amount": "2 L"],
            ["item": "Mlk", "checked": true],
        ]])
        #expect(statuses(updated) == ["updated", "error"])
        let unknown = (structured(updated)["results"] as! [[String: Any]])[1]["error"] as! String
        #expect(unknown.contains("Milk"), "close matches are offered: \(unknown)")
        #expect(try await cli.items().first { $0["name"] as? String == "Milk" }?["amount"] as? String == "2 L")

        // A stale revision: nothing happens, the agent is told to re-read.
        let read = structured(try server.call("get_shopping_list"))
        _ = await cli("add", "Eggs")
        usleep(300_000)
        let stale = try server.call("remove_items", ["items": [["item": "Bread"]], "expected_revision": read["revision"] as! String])
        #expect(stale["isError"] as? Bool == true)
        #expect(try await cli.items().contains { $0["name"] as? String == "Bread" })
        let fresh = structured(try server.call("get_shopping_list"))["revision"] as! String
        #expect(statuses(try server.call("remove_items", ["items": [["item": "Bread"]], "expected_revision": fresh])) == ["removed"])

        let cleared = try server.call("clear_checked")
        #expect(statuses(cleared) == ["removed"])
        #expect(Set(try await cli.items().map { $0["name"] as! String }) == ["Bananas", "Eggs"])

        let allFailed = try server.call("remove_items", ["items": [["item": "Caviar"]]])
        #expect(allFailed["isError"] as? Bool == true)

        // Arguments are checked against the advertised schema; nothing changes on a bad call.
        func refusal(_ tool: String, _ arguments: [String: Any]) throws -> String {
            let result = try server.call(tool, arguments)
            #expect(result["isError"] as? Bool == true)
            return ((result["content"] as! [[String: Any]]).first?["text"] as? String) ?? ""
        }
        #expect(try refusal("add_items", ["items": [["name": "Jam", "colour": "red"]]]).contains("items[0]: unknown key colour"))
        #expect(try refusal("update_items", ["items": [["item": "Eggs", "checked": "yes"]]]).contains("items[0].checked: must be true or false"))
        #expect(try refusal("add_items", ["items": [["name": String(repeating: "x", count: 501)]]]).contains("at most 500 characters"))
        #expect(try refusal("add_items", ["items": []]).contains("needs at least 1"))
        #expect(try refusal("remove_items", [:]).contains("items is required"))
        #expect(Set(try await cli.items().map { $0["name"] as! String }) == ["Bananas", "Eggs"])
    }

    @Test("stdout carries JSON-RPC only; the log goes to stderr at BANANAS_LOG_LEVEL; closing stdin ends the server cleanly")
    func stdioDiscipline() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let server = try MCPProcess(cli, environment: ["BANANAS_LOG_LEVEL": "debug"])
        _ = try server.request("tools/list")
        _ = try server.request("resources/list")
        _ = try server.request("resources/subscribe", ["uri": "bananas://list"])
        #expect(try server.call("add_items", ["items": [["name": "Milk"], ["name": "milk"], ["name": ""]]]).statuses == ["added", "already_on_list", "error"])
        #expect(try server.call("update_items", ["items": [["item": "Mlk", "checked": true]]]).isError)
        #expect(try server.call("add_items", ["items": "Milk"]).isError)
        _ = try server.request("resources/read", ["uri": "bananas://list"])
        _ = await cli("add", "Bread")  // a notification goes out too
        usleep(300_000)
        #expect(server.finish() == 0, "the server exits 0 when the client closes stdin")

        let lines = server.stdoutLines
        #expect(lines.count >= 8)
        for line in lines {
            let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any]
            #expect(object?["jsonrpc"] as? String == "2.0", "not a JSON-RPC message on stdout: \(String(decoding: line, as: UTF8.self))")
        }
        #expect(server.received.contains { $0["method"] as? String == "notifications/resources/updated" })

        let log = server.stderr
        #expect(log.contains("info bananas.mcp: tools=10 [BananasMCP] serving \(cli.listPath) over stdio"), "\(log)")
        #expect(log.contains("[BananasMCP] tool add_items: 1 added, 1 already_on_list, 1 error"), "\(log)")
        #expect(log.contains("notice bananas.mcp: ms="), "refusals are notices: \(log)")
        #expect(log.contains("[BananasMCP] tool add_items called"), "debug lines at debug: \(log)")
        #expect(log.contains("[BananasMCP] client subscribed to bananas://list"))
        #expect(log.contains("[BananasMCP] the client closed the connection") && log.contains("exiting"))

        // The default level is info: no debug lines; a bad level is named.
        let quiet = try MCPProcess(cli, environment: ["BANANAS_LOG_LEVEL": "chatty"])
        _ = try quiet.call("get_shopping_list")
        #expect(quiet.finish() == 0)
        let quietLog = quiet.stderr
        #expect(quietLog.contains("warning bananas.mcp: [bananas_mcp] BANANAS_LOG_LEVEL=chatty is not a level"), "\(quietLog)")
        #expect(quietLog.contains("tool get_shopping_list: 2 items") && !quietLog.contains(" debug "), "\(quietLog)")
        #expect(quiet.stdoutLines.allSatisfy { (try? JSONSerialization.jsonObject(with: $0)) != nil })
    }

    @Test("a client that sends its calls and closes stdin at once still gets every answer, and the edits are written")
    func answersAfterEndOfInput() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let messages = [
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}"#,
            #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            #"{"jsonrpc":"2.0","id":"add","method":"tools/call","params":{"name":"add_items","arguments":{"items":[{"name":"Piped tea","amount":"2"}]}}}"#,
            // Calls run side by side (as the SDK runs requests): this one does not need the add.
            #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add_sections","arguments":{"sections":[{"name":"Piped","position":1.0}]}}}"#,
        ]
        let run = try await runProgram([CLI.binary, "mcp"], environment: cli.environment(), input: messages.joined(separator: "\n") + "\n")
        #expect(run.status == 0)
        let answers = run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let added = answers.first { $0["id"] as? String == "add" }?["result"] as? [String: Any]
        let results = (added?["structuredContent"] as? [String: Any])?["results"] as? [[String: Any]]
        #expect(results?.first?["status"] as? String == "added", "\(answers)")
        // A whole number written as 2.0 is taken as the SDK takes it: an integer.
        let moved = answers.first { $0["id"] as? Int == 3 }?["result"] as? [String: Any]
        #expect(moved?["isError"] as? Bool == false, "\(answers)")
        #expect(try await cli.items().map { $0["name"] as? String } == ["Piped tea"])
        #expect(await cli("sections").stdout.contains("Piped"))
    }

    @Test("`bananas mcp` execs `bananas-mcp` from its own folder: same process, arguments passed through")
    func execsTheSibling() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        _ = await cli("add", "Milk")
        let server = try MCPProcess(cli)
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(server.process.processIdentifier)/exe")
        #expect(exe == URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().appendingPathComponent("bananas-mcp").path,
                "the process `bananas mcp` started is now bananas-mcp (execv, no child): \(exe)")
        #expect(try server.call("get_shopping_list").structured["items"].map { ($0 as! [[String: Any]]).count } == 1)
        #expect(server.finish() == 0)

        // A leading --file (through BANANAS_FILE) and the server's own arguments reach it.
        let other = cli.folder + "/Other.json"
        let help = await cli.run(["mcp", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: bananas mcp [--file <path>]"), "\(help)")
        let bad = await cli.run(["mcp", "--no-such-option"])
        #expect(bad.status == 64 && bad.stderr.contains("--no-such-option"), "\(bad)")
        let served = await cli.run(["--file", other, "mcp"], environment: ["BANANAS_LOG_LEVEL": "info"])
        #expect(served.status == 0 && served.stderr.contains("serving \(other) over stdio"), "\(served.stderr)")
    }

    @Test("without `bananas-mcp` beside it, `bananas mcp` says so and exits 1; other commands work")
    func missingSibling() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let alone = cli.folder + "/alone"
        try FileManager.default.createDirectory(atPath: alone, withIntermediateDirectories: true)
        let copy = alone + "/bananas"
        if link(CLI.binary, copy) != 0 { try FileManager.default.copyItem(atPath: CLI.binary, toPath: copy) }
        let refused = try await runProgram([copy, "mcp"], environment: cli.environment())
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr == "bananas: the MCP server binary bananas-mcp is missing: it must be installed next to bananas (\(alone)/bananas-mcp); see the README, \"Install for daily use\"\n")
        #expect(try await runProgram([copy, "add", "Milk", "--file", cli.listPath], environment: cli.environment()).status == 0)
    }

    @Test("the official Python MCP client runs an agent's session (it checks structuredContent against outputSchema)")
    func pythonClient() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("MCPClient/agent_session.py").path
        let run = try await runProgram(["/usr/bin/env", "python3", script], environment: cli.environment(["BANANAS_BIN": CLI.binary]))
        #expect(run.status == 0 && run.stdout.hasSuffix("OK\n") && run.stdout.contains("update notified"),
                "needs the Python mcp package (scripts/test installs it): \(run.stderr.suffix(800)) \(run.stdout.suffix(800))")
        #expect(try await cli.items().map { $0["name"] as! String } == ["Bananas", "Bread"])
    }
}
