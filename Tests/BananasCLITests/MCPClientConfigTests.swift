import Foundation
import Testing

/// Every client configuration docs/mcp.md shows, and the desktop extension, run as their
/// clients run them: the command (an absolute path), its arguments and environment, spoken to
/// over stdio.
@Suite("MCP client configurations: the documented ones and the .mcpb, run as a client runs them")
struct MCPClientConfigTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The JSON blocks of docs/mcp.md that configure a client: `mcpServers` or `servers`.
    static func documentedConfigs() throws -> [(text: String, server: [String: Any])] {
        let doc = try String(contentsOf: root.appendingPathComponent("docs/mcp.md"), encoding: .utf8)
        var found: [(String, [String: Any])] = []
        for block in doc.components(separatedBy: "```json\n").dropFirst() {
            let text = block.components(separatedBy: "```")[0]
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                  let servers = (object["mcpServers"] ?? object["servers"]) as? [String: Any] else { continue }
            for case let server as [String: Any] in servers.values { found.append((text, server)) }
        }
        return found
    }

    /// Starts `command args` with `environment` as a client does (in `folder`, when given),
    /// initializes, and returns the tools listed, the list file the server says it serves and
    /// the text of its first page of the list.
    static func run(_ command: String, _ args: [String], environment: [String: String], in folder: String? = nil) async throws -> (tools: [String], log: String, page: String) {
        let lines = [
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"config","version":"1"}}}"#,
            #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_shopping_list","arguments":{}}}"#,
        ]
        let result = try await runProgram([command] + args, environment: environment, input: lines.joined(separator: "\n") + "\n", workingDirectory: folder)
        let log = result.stderr
        let messages = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let listed = messages.first { $0["id"] as? Int == 2 }?["result"] as? [String: Any]
        let tools = (listed?["tools"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
        let read = messages.first { $0["id"] as? Int == 3 }?["result"] as? [String: Any]
        let page = ((read?["content"] as? [[String: Any]])?.first?["text"] as? String) ?? ""
        return (tools, log, page)
    }

    @Test("each documented config names bananas by an absolute path with `mcp`, and runs the server")
    func documentedConfigsRun() async throws {
        let configs = try Self.documentedConfigs()
        #expect(configs.count == 4, "Claude Desktop, Claude Code, Cursor, VS Code")
        for (text, server) in configs {
            let command = try #require(server["command"] as? String, "\(text)")
            #expect(command.hasPrefix("/") && command.hasSuffix("/bananas"), "an absolute path, not found through PATH: \(text)")
            #expect(server["args"] as? [String] == ["mcp"], "\(text)")
            if let type = server["type"] as? String { #expect(type == "stdio", "\(text)") }
            let cli = CLI()
            defer { cli.cleanUp() }
            // The documented path stands for wherever bananas is installed: here, the build.
            var environment = cli.environment(["BANANAS_LOG_LEVEL": "info"])
            for (key, value) in server["env"] as? [String: String] ?? [:] { environment[key] = value }
            environment["PATH"] = "/usr/bin:/bin"  // as a GUI app starts it: no ~/.local/bin
            let (tools, log, _) = try await Self.run(CLI.binary, server["args"] as? [String] ?? [], environment: environment)
            #expect(tools.count == 14 && tools.first == "get_shopping_list", "\(text) \(log)")
            #expect(log.contains("serving \(cli.listPath) over stdio"), "\(log)")
        }
    }

    @Test("the .mcpb packed for this platform: one platform, both binaries, icon, file picker; its mcp_config runs")
    func bundleRuns() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let bundle = cli.folder + "/bananas.mcpb"
        let binaries = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().path
        let pack = try await runProgram(["/usr/bin/env", "python3", Self.root.appendingPathComponent("scripts/mcpb").path, "--binaries", binaries,
                                         "--out", bundle, "--repository", "https://builder:secret-token@example.invalid/bananas.git"])
        #expect(pack.status == 0, "\(pack.stderr)")
        let unpacked = cli.folder + "/unpacked"
        let unzip = try await runProgram(["/usr/bin/env", "python3", "-c", "import sys, zipfile, os\nz = zipfile.ZipFile(sys.argv[1])\nfor i in z.infolist():\n    p = z.extract(i, sys.argv[2])\n    os.chmod(p, (i.external_attr >> 16) & 0o777 or 0o644)", bundle, unpacked])
        #expect(unzip.status == 0, "\(unzip.stderr)")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: unpacked + "/manifest.json"))) as? [String: Any])
        #expect((manifest["compatibility"] as? [String: Any])?["platforms"] as? [String] == ["linux"], "one platform per bundle")
        // The project's public URL: credentials in a remote never reach the bundle.
        #expect((manifest["repository"] as? [String: Any])?["url"] as? String == "https://example.invalid/bananas.git")
        #expect(manifest["license"] is String && manifest["icon"] as? String == "icon.png")
        #expect(FileManager.default.fileExists(atPath: unpacked + "/icon.png"))
        let picker = try #require((manifest["user_config"] as? [String: Any])?["list_file"] as? [String: Any])
        #expect(picker["type"] as? String == "file")
        for name in ["bananas", "bananas-mcp"] {
            #expect(FileManager.default.isExecutableFile(atPath: unpacked + "/server/" + name), "\(name)")
        }

        // As the host runs it: ${__dirname} is the unpacked bundle, the picker's file in env.
        let server = try #require(manifest["server"] as? [String: Any])
        let config = try #require(server["mcp_config"] as? [String: Any])
        let chosen = cli.folder + "/Chosen list.json"
        func substitute(_ text: String) -> String {
            text.replacingOccurrences(of: "${__dirname}", with: unpacked).replacingOccurrences(of: "${user_config.list_file}", with: chosen)
        }
        var environment = cli.environment()
        environment["BANANAS_FILE"] = nil
        for (key, value) in config["env"] as? [String: String] ?? [:] { environment[key] = substitute(value) }
        let command = substitute(try #require(config["command"] as? String))
        let (tools, log, page) = try await Self.run(command, (config["args"] as? [String] ?? []).map(substitute), environment: environment, in: cli.folder)
        #expect(tools.count == 14, "\(log)")
        #expect(log.contains("serving \(chosen) over stdio"), "the list chosen in the picker: \(log)")
        #expect(page.contains("no matching items"), "a new list: \(page)")

        // No file chosen: the host passes its placeholder unexpanded, and the user's own list
        // (the default one) is served, with its items.
        let defaultList = cli.home + "/.local/share/bananas/BananaList.json"
        var plain = cli.environment()
        plain["BANANAS_FILE"] = nil
        #expect(try await runProgram([CLI.binary, "add", "Milk from the editor"], environment: plain).status == 0)
        var unset = cli.environment()
        unset["BANANAS_FILE"] = nil
        for (key, value) in config["env"] as? [String: String] ?? [:] {
            unset[key] = value.replacingOccurrences(of: "${__dirname}", with: unpacked)
        }
        #expect(unset["BANANAS_FILE"] == "${user_config.list_file}")
        let (_, defaultLog, defaultPage) = try await Self.run(command, (config["args"] as? [String] ?? []).map(substitute), environment: unset, in: cli.folder)
        #expect(defaultLog.contains("serving \(defaultList) over stdio"), "\(defaultLog)")
        #expect(defaultPage.contains("Milk from the editor"), "the user's list: \(defaultPage)")
        #expect(!FileManager.default.fileExists(atPath: cli.folder + "/${user_config.list_file}"), "no list named after the placeholder")
    }

    @Test("`bananas mcp` given the unexpanded ${user_config.list_file}, as --file or BANANAS_FILE, serves the default list and creates no file of that name")
    func placeholderIsUnset() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let defaultList = cli.home + "/.local/share/bananas/BananaList.json"
        var plain = cli.environment()
        plain["BANANAS_FILE"] = nil
        #expect(try await runProgram([CLI.binary, "add", "Oat milk"], environment: plain).status == 0)
        let placeholder = "${user_config.list_file}"
        var fromEnvironment = plain
        fromEnvironment["BANANAS_FILE"] = placeholder
        for (args, environment) in [(["mcp", "--file", placeholder], plain), (["mcp"], fromEnvironment)] {
            let (tools, log, page) = try await Self.run(CLI.binary, args, environment: environment, in: cli.folder)
            #expect(tools.count == 14, "\(args) \(log)")
            #expect(log.contains("serving \(defaultList) over stdio"), "\(args): \(log)")
            #expect(log.contains("taken as unset"), "the log says why: \(log)")
            #expect(page.contains("Oat milk"), "\(args): \(page)")
            let created = (try? FileManager.default.contentsOfDirectory(atPath: cli.folder)) ?? []
            #expect(!created.contains { $0.contains("${") }, "\(args): \(created)")
        }
    }
}
