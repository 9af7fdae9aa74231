import Foundation
import Testing
import BananasTestSupport
import BananasFile

/// `bananas doctor` against each broken set-up it claims to detect: the real binary, on a
/// sandboxed list, HOME and state folder. Each test breaks one thing and expects that check (and
/// only the exit status's verdict) to say so, with a fix.
@Suite("bananas doctor")
struct DoctorTests {
    static let asNobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    /// A UTF-8 locale and no terminal: what the checks other than the broken one need to pass.
    static let calm = ["LANG": "C.UTF-8", "LC_ALL": "", "LC_CTYPE": ""]

    struct Outcome {
        let status: Int32
        let healthy: Bool
        let checks: [[String: Any]]
        let text: String

        /// The checks with this id (the state folder may report more than one thing).
        func named(_ id: String) -> [[String: Any]] { checks.filter { $0["check"] as? String == id } }
        func status(of id: String) -> [String] { named(id).compactMap { $0["status"] as? String } }
        func summary(of id: String) -> String { named(id).compactMap { $0["summary"] as? String }.joined(separator: " | ") }
        /// Every check but these is ok or a note.
        func othersWell(except ids: Set<String>) -> Bool {
            checks.allSatisfy { ids.contains($0["check"] as? String ?? "") || ["ok", "note"].contains($0["status"] as? String ?? "") }
        }
        var broken: [String] { checks.filter { !["ok", "note"].contains($0["status"] as? String ?? "") }.map { "\($0)" } }
    }

    static func doctor(_ cli: CLI, prefix: [String] = [], environment: [String: String] = [:], binary: String? = nil) async throws -> Outcome {
        let env = cli.environment(calm.merging(environment) { $1 })
        let command = prefix + [binary ?? CLI.binary, "doctor", "--json"]
        let result = try await runProgram(command, environment: env)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)\(result.stderr)")
        let checks = try #require(object["checks"] as? [[String: Any]])
        for check in checks where !["ok", "note"].contains(check["status"] as? String ?? "") {
            #expect(check["fix"] as? String != nil, "every warning and problem comes with a fix: \(check)")
        }
        return Outcome(status: result.status, healthy: object["healthy"] as? Bool ?? false, checks: checks, text: result.stdout)
    }

    static var isRoot: Bool { geteuid() == 0 }

    @Test("a sound set-up: all is well, exit 0; the text names every check")
    func allWell() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli.run(["add", "Milk"]).status == 0)
        let outcome = try await Self.doctor(cli)
        #expect(outcome.status == 0 && outcome.healthy, "\(outcome.broken)")
        #expect(outcome.summary(of: "list") == cli.listPath)
        #expect(outcome.named("list").first?["details"] as? [String] == ["chosen by $BANANAS_FILE"])
        #expect(outcome.summary(of: "schema") == "version \(ListCodec.currentSchemaVersion)")
        for id in ["list access", "lock", "state folder", "instances", "conflict copies", "sync", "terminal", "locale", "bananas-mcp", "MCP clients"] {
            #expect(!outcome.named(id).isEmpty, "\(id) is checked")
        }
        let text = await cli.run(["doctor"], environment: Self.calm)
        #expect(text.status == 0 && text.stdout.hasSuffix("all is well\n"), "\(text.stdout)")
        #expect(text.stdout.contains("ok      state folder: yours, private, with room"))
    }

    @Test("the list chosen by --file and by default is named with the reason")
    func whyThisList() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let byFlag = try await runProgram([CLI.binary, "doctor", "--json", "--file", cli.folder + "/other.json"], environment: cli.environment(Self.calm))
        #expect(byFlag.stdout.contains("chosen by --file"))
        let byDefault = try await runProgram([CLI.binary, "doctor"], environment: cli.environment(Self.calm.merging(["BANANAS_FILE": ""]) { $1 }))
        #expect(byDefault.stdout.contains(cli.home + "/.local/share/bananas/BananaList.json") && byDefault.stdout.contains("the default, ~/.local/share/bananas"), "\(byDefault.stdout)")
        #expect(byDefault.stdout.contains("not created yet: the first edit creates it and its folder"))
    }

    @Test("an unwritable list: a problem, with the fix")
    func unwritableList() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli.run(["add", "Milk"]).status == 0)
        let outcome: Outcome
        if Self.isRoot {
            // Root writes anything: the list is root's, and doctor runs as nobody (state in a folder of nobody's).
            let nobodyHome = NSTemporaryDirectory() + "bananas-doctor-nobody-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: nobodyHome, withIntermediateDirectories: true)
            chown(nobodyHome, 65534, 65534)
            defer { try? FileManager.default.removeItem(atPath: nobodyHome) }
            chmod(cli.folder, 0o755)
            chmod(cli.listPath, 0o644)
            outcome = try await Self.doctor(cli, prefix: Self.asNobody, environment: ["HOME": nobodyHome, "XDG_RUNTIME_DIR": nobodyHome + "/run"])
        } else {
            chmod(cli.listPath, 0o444)
            chmod(cli.folder, 0o555)
            defer { chmod(cli.folder, 0o755) }
            outcome = try await Self.doctor(cli)
        }
        #expect(outcome.status == 1 && !outcome.healthy)
        #expect(outcome.status(of: "list access") == ["problem"] && outcome.summary(of: "list access").hasPrefix("read-only"), "\(outcome.checks)")
        #expect(outcome.status(of: "write") == ["problem"] && outcome.summary(of: "write").contains("exit 8"), "\(outcome.checks)")
        #expect(outcome.othersWell(except: ["list access", "write"]), "\(outcome.broken)")
    }

    @Test("a list from a newer bananas: the schema is a problem; upgrade")
    func newerSchema() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli.writeFile(#"{"schemaVersion": 99, "sections": ["Other"], "items": []}"#)
        let outcome = try await Self.doctor(cli)
        #expect(outcome.status == 1)
        #expect(outcome.status(of: "schema") == ["problem"] && outcome.summary(of: "schema").contains("version 99, from a newer bananas"))
        #expect((outcome.named("schema").first?["fix"] as? String)?.contains("upgrade bananas") == true)
        #expect(outcome.othersWell(except: ["schema", "write"]), "\(outcome.broken)")
    }

    @Test("an unreadable list: a problem, with what is wrong")
    func unreadableList() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli.writeFile("{ not json")
        let outcome = try await Self.doctor(cli)
        #expect(outcome.status == 1 && outcome.status(of: "list access") == ["problem"] && outcome.summary(of: "list access") == "unparseable file", "\(outcome.checks)")
    }

    @Test("a lock not refreshed for a minute is stale (a write breaks it, whoever has its pid): a note; so is one left by a process that ended")
    func staleLocks() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli.run(["add", "Milk"]).status == 0)
        let lock = cli.listPath + ".lock"
        createTestFile(atPath: lock, contents: Data(String(getpid()).utf8))
        var old = [timeval(tv_sec: time(nil) - 60, tv_usec: 0), timeval(tv_sec: time(nil) - 60, tv_usec: 0)]
        utimes(lock, &old)
        let stale = try await Self.doctor(cli)
        #expect(stale.status == 0 && stale.status(of: "lock") == ["note"], "\(stale.checks)")
        #expect(stale.summary(of: "lock").hasPrefix("a stale lock of pid \(getpid())"), "\(stale.summary(of: "lock"))")
        #expect(stale.status(of: "write") == ["ok"])

        createTestFile(atPath: lock, contents: Data("4194303".utf8))  // past any pid Linux hands out by default
        let ended = try await Self.doctor(cli)
        #expect(ended.status == 0 && ended.status(of: "lock") == ["note"] && ended.summary(of: "lock").contains("which is not running"), "\(ended.checks)")
        #expect(ended.status(of: "write") == ["ok"], "a write waits until it is stale, then breaks it")
        unlink(lock)
        #expect(try await Self.doctor(cli).status == 0)
    }

    @Test("a state folder left root's: a problem, with the chown that fixes it")
    func rootOwnedStateFolder() async throws {
        guard Self.isRoot else { return }  // making a folder someone else's needs root
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli.run(["add", "Milk"]).status == 0)
        // Root runs doctor; the state folder is nobody's: the same as a user's folder left root's.
        let state = cli.home + "/.local/state/bananas"
        for folder in try FileManager.default.subpathsOfDirectory(atPath: state).map({ state + "/" + $0 }) + [state] { chown(folder, 65534, 65534) }
        let outcome = try await Self.doctor(cli)
        #expect(outcome.status == 1)
        let summary = outcome.summary(of: "state folder")
        #expect(outcome.status(of: "state folder").contains("problem") && summary.contains("belongs to nobody, not to you (root)"), "\(outcome.checks)")
        #expect(outcome.named("state folder").contains { ($0["fix"] as? String)?.hasPrefix("sudo chown -R root ") == true })
    }

    @Test("a state folder others may enter: a warning, chmod 700")
    func openStateFolder() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli.run(["add", "Milk"]).status == 0)
        let folder = StateFolder(listPath: cli.listPath, stateDirectory: cli.home + "/.local/state/bananas").path
        chmod(folder, 0o755)
        let outcome = try await Self.doctor(cli)
        #expect(outcome.status == 1 && outcome.status(of: "state folder") == ["warning"] && outcome.summary(of: "state folder").contains("mode 755"), "\(outcome.checks)")
        #expect(outcome.named("state folder").first?["fix"] as? String == "chmod 700 " + folder)
    }

    @Test("a state folder that is a symlink: refused, a problem")
    func symlinkedStateFolder() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli.run(["add", "Milk"]).status == 0)
        let folder = StateFolder(listPath: cli.listPath, stateDirectory: cli.home + "/.local/state/bananas").path
        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: cli.home + "/elsewhere", withIntermediateDirectories: true)
        symlink(cli.home + "/elsewhere", folder)
        let outcome = try await Self.doctor(cli)
        #expect(outcome.status == 1 && outcome.status(of: "state folder").contains("problem") && outcome.summary(of: "state folder").contains("unexpected symlink"), "\(outcome.checks)")
        #expect(outcome.named("state folder").contains { ($0["fix"] as? String)?.contains("rm " + folder) == true }, "\(outcome.checks)")
    }

    @Test("a full state folder: a problem; free space or move $XDG_STATE_HOME")
    func fullStateFolder() async throws {
        guard let disk = SmallDisk() else { return }  // mounting a small disk needs root
        let cli = CLI()
        defer { cli.cleanUp() }
        let state = ["XDG_STATE_HOME": disk.path, "XDG_RUNTIME_DIR": disk.path + "/run"]
        #expect(await cli.run(["add", "Milk"], environment: state).status == 0)
        disk.fill()
        let outcome = try await Self.doctor(cli, environment: state)
        #expect(outcome.status == 1 && outcome.status(of: "state folder").contains("problem") && outcome.summary(of: "state folder").contains("disk is full"), "\(outcome.checks)")
    }

    @Test("conflict copies waiting: a warning; a copy that cannot be merged: a problem")
    func conflictCopies() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli.run(["add", "Milk"]).status == 0)
        let copy = cli.folder + "/BananaList.sync-conflict-20261121-101530-ABCDEF7.json"
        createTestFile(atPath: copy, contents: cli.fileBytes)
        let waiting = try await Self.doctor(cli)
        #expect(waiting.status == 1 && waiting.status(of: "conflict copies") == ["warning"] && waiting.summary(of: "conflict copies") == "1 waiting beside the list", "\(waiting.checks)")
        createTestFile(atPath: copy, contents: Data("{ damaged".utf8))
        let damaged = try await Self.doctor(cli)
        #expect(damaged.status(of: "conflict copies") == ["problem"] && damaged.summary(of: "conflict copies") == "1 cannot be merged", "\(damaged.checks)")
    }

    @Test("a Syncthing folder is named; a state folder inside it is a problem")
    func syncthingFolder() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli.run(["add", "Milk"]).status == 0)
        try FileManager.default.createDirectory(atPath: cli.folder + "/.stfolder", withIntermediateDirectories: true)
        let synced = try await Self.doctor(cli)
        #expect(synced.status == 0 && synced.status(of: "sync") == ["note"] && synced.summary(of: "sync") == "Syncthing syncs the list's folder", "\(synced.checks)")
        let inside = try await Self.doctor(cli, environment: ["XDG_STATE_HOME": cli.folder + "/state"])
        #expect(inside.status == 1 && inside.status(of: "sync") == ["problem"], "\(inside.checks)")
        // Dropbox and Nextcloud are found by their own marks.
        try FileManager.default.removeItem(atPath: cli.folder + "/.stfolder")
        createTestFile(atPath: cli.folder + "/.dropbox", contents: Data("{}".utf8))
        #expect(try await Self.doctor(cli).summary(of: "sync") == "Dropbox syncs the list's folder")
        unlink(cli.folder + "/.dropbox")
        createTestFile(atPath: cli.folder + "/.sync_4a5b6c7d8e9f.db", contents: Data())
        #expect(try await Self.doctor(cli).summary(of: "sync") == "Nextcloud syncs the list's folder")
    }

    @Test("a running instance is counted")
    func runningInstance() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli.run(["add", "Milk"]).status == 0)
        let session = try SessionProcess(cli)
        defer { session.stop() }
        _ = try session.send("add", "Bread")
        let outcome = try await Self.doctor(cli)
        #expect(outcome.status == 0 && outcome.summary(of: "instances").hasPrefix("1 running with edits of their own"), "\(outcome.checks)")
    }

    @Test("bananas without bananas-mcp beside it: a warning")
    func missingMCPBinary() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let alone = cli.home + "/bin"
        try FileManager.default.createDirectory(atPath: alone, withIntermediateDirectories: true)
        // Copied by cp: a copy written in this process could be held open by a concurrent test's
        // fork, and running it would fail with "Text file busy".
        #expect(try await runProgram(["/bin/cp", CLI.binary, alone + "/bananas"]).status == 0)
        let outcome = try await Self.doctor(cli, binary: alone + "/bananas")
        #expect(outcome.status == 1 && outcome.status(of: "bananas-mcp") == ["warning"] && outcome.summary(of: "bananas-mcp") == "missing: \(alone)/bananas-mcp", "\(outcome.checks)")
        #expect(outcome.othersWell(except: ["bananas-mcp"]), "\(outcome.broken)")
    }

    @Test("MCP client configurations that mention bananas are listed; one naming a missing binary is a problem")
    func mcpClients() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        try FileManager.default.createDirectory(atPath: cli.home + "/.cursor", withIntermediateDirectories: true)
        createTestFile(atPath: cli.home + "/.cursor/mcp.json", contents: Data(#"{"mcpServers": {"bananas": {"command": "\#(CLI.binary)", "args": ["mcp"]}}}"#.utf8))
        let fine = try await Self.doctor(cli)
        #expect(fine.status == 0 && fine.summary(of: "MCP clients") == "1 configuration mention bananas", "\(fine.checks)")
        #expect((fine.named("MCP clients").first?["details"] as? [String]) == ["Cursor: \(cli.home)/.cursor/mcp.json"])
        try FileManager.default.createDirectory(atPath: cli.home + "/.config/Claude", withIntermediateDirectories: true)
        createTestFile(atPath: cli.home + "/.config/Claude/claude_desktop_config.json",
                       contents: Data(#"{"mcpServers": {"bananas": {"command": "/opt/gone/bin/bananas", "args": ["mcp"]}}}"#.utf8))
        let broken = try await Self.doctor(cli)
        #expect(broken.status == 1 && broken.status(of: "MCP clients") == ["problem"]
                && broken.summary(of: "MCP clients") == "Claude Desktop runs /opt/gone/bin/bananas, which is not there", "\(broken.checks)")
    }

    @Test("a locale that is not UTF-8: a note (bananas uses C.UTF-8 itself)")
    func locale() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let outcome = try await Self.doctor(cli, environment: ["LANG": "C"])
        #expect(outcome.status == 0 && outcome.status(of: "locale") == ["note"] && outcome.summary(of: "locale").hasPrefix("C ("), "\(outcome.checks)")
        #expect((outcome.named("locale").first?["details"] as? [String])?.first?.hasPrefix("bananas reads and shows text as C.UTF-8 itself") == true)
    }

    @Test("on a terminal: its size, colour depth (TERM's terminfo, COLORTERM) and background; too small a window is a warning")
    func terminal() async throws {
        guard Tmux.isAvailable else { return }
        let cli = CLI()
        defer { cli.cleanUp() }
        let environment = ["TERM": "xterm-256color", "COLORTERM": "truecolor", "COLORFGBG": "0;15", "LANG": "C.UTF-8"]
        // doctor is done in milliseconds: each pane waits for a gate until tmux keeps panes
        // that ended (remain-on-exit), so their output can be read.
        func doctor(width: Int, height: Int, _ environment: [String: String]) throws -> Tmux {
            let gate = cli.folder + "/gate-" + UUID().uuidString
            let tmux = try Tmux(cli, width: width, height: height, program: ["/bin/sh", "-c", #"while [ ! -e "$1" ]; do sleep 0.01; done; exec "$0" doctor"#, CLI.binary, gate],
                                environment: environment)
            createTestFile(atPath: gate, contents: Data())
            return tmux
        }
        let wide = try doctor(width: 120, height: 50, environment)
        #expect(wide.waitForExit() == .status(0), "\(wide.screen())")
        let screen = wide.run(["capture-pane", "-p", "-J", "-S", "-200", "-t", wide.firstPane])
        #expect(screen.contains("ok      terminal size: 120×50"), "\(screen)")
        #expect(screen.contains("ok      colour depth: truecolor") && screen.contains("TERM=xterm-256color has 256 colours"), "\(screen)")
        #expect(screen.contains("ok      background: "), "\(screen)")
        let eight = try doctor(width: 120, height: 50, ["TERM": "xterm", "LANG": "C.UTF-8"])
        #expect(eight.waitForExit() == .status(0))
        #expect(eight.run(["capture-pane", "-p", "-J", "-S", "-200", "-t", eight.firstPane]).contains("ok      colour depth: 8 colours"))
        let small = try doctor(width: 19, height: 5, environment)
        #expect(small.waitForExit() == .status(1))
        let text = small.run(["capture-pane", "-p", "-J", "-S", "-400", "-t", small.firstPane])
        #expect(text.contains("terminal size: 19×5: too small"), "\(text)")
        let unknown = try doctor(width: 120, height: 50, ["TERM": "no-such-terminal", "LANG": "C.UTF-8"])
        #expect(unknown.waitForExit() == .status(1))
        #expect(unknown.run(["capture-pane", "-p", "-J", "-S", "-200", "-t", unknown.firstPane]).contains("no terminfo entry for TERM=no-such-terminal"))
    }
}
