import Foundation
import Testing
import BananasTestSupport

/// A hostile list file, put in place in a test's folder.
struct HostileFile: CustomTestStringConvertible, Sendable {
    let name: String
    /// The committed bytes (nil for the ones made at test time).
    let bytes: [UInt8]?
    /// What `bananas status` and the editor say after `paused:`.
    let reason: String
    /// What the CLI's message says.
    let message: String
    let make: @Sendable (CLI) -> Void

    var testDescription: String { name }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/hostile")

    /// The files that decode (Tests/Fixtures/hostile/README.md).
    static let readable: Set<String> = ["duplicate-id.json", "wrong-typed-rows.json", "number-overflow.json", "newer-schema.json"]

    static func committed(_ name: String) -> [UInt8] {
        [UInt8](FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) ?? Data())
    }

    /// Every file no bananas can read: the committed ones and those made at test time.
    static let unreadable: [HostileFile] = {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0 != "README.md" && !readable.contains($0) }.sorted()
        var files = names.map { name in
            let bytes = committed(name)
            return HostileFile(name: name, bytes: bytes, reason: "unparseable file", message: "is not a list bananas can read") { cli in
                createTestFile(atPath: cli.listPath, contents: Data(bytes))
            }
        }
        files.append(HostileFile(name: "over the size limit (sparse)", bytes: nil, reason: "file too large", message: "-byte limit for a list") { cli in
            let fd = open(cli.listPath, O_WRONLY | O_CREAT, 0o600)
            ftruncate(fd, 128 * 1024 * 1024 + 1)
            close(fd)
        })
        files.append(HostileFile(name: "a named pipe", bytes: nil, reason: "not a file", message: "is a named pipe, not a list file") { cli in
            mkfifo(cli.listPath, 0o600)
        })
        files.append(HostileFile(name: "a folder", bytes: nil, reason: "not a file", message: "is a directory, not a list file") { cli in
            mkdir(cli.listPath, 0o700)
        })
        files.append(HostileFile(name: "a dangling symlink", bytes: nil, reason: "unexpected symlink", message: "refusing to follow it") { cli in
            symlink(cli.folder + "/nowhere.json", cli.listPath)
        })
        files.append(HostileFile(name: "a symlink loop", bytes: nil, reason: "unexpected symlink", message: "refusing to follow it") { cli in
            symlink(cli.listPath, cli.listPath)
        })
        return files
    }()

    /// The file as it is now, for "untouched" checks: its bytes, or its kind and size.
    static func fingerprint(_ cli: CLI) -> String {
        var st = stat()
        guard lstat(cli.listPath, &st) == 0 else { return "missing" }
        if (st.st_mode & S_IFMT) == S_IFREG && st.st_size < 1_000_000 {
            return "file " + (FileManager.default.contents(atPath: cli.listPath)?.base64EncodedString() ?? "?")
        }
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: cli.listPath)) ?? ""
        return "mode \(st.st_mode) size \(st.st_size) ino \(st.st_ino) \(target)"
    }
}

/// The hostile corpus through every surface: the CLI, a long-running instance, the MCP server
/// and the editor. Each says why it cannot use the file, shows `paused` with the reason where
/// it keeps running, queues edits instead of writing, and leaves the file as it was.
@Suite("Hostile files: every surface")
struct HostileSurfaceTests {
    @Test("the CLI: list, add and status say why, exit non-zero, and write nothing", arguments: HostileFile.unreadable)
    func cli(_ file: HostileFile) async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        file.make(cli)
        let before = HostileFile.fingerprint(cli)
        let entries = cli.entries
        let start = Date()
        for arguments in [["list"], ["add", "Eggs"], ["check", "Milk"], ["list", "--json"]] {
            let result = await cli.run(arguments)
            #expect(result.status == 5 || result.status == 8, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.hasPrefix("bananas: ") && result.stderr.contains(file.message), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments)")
        }
        let status = await cli("status")
        #expect(status.status != 0 && status.stdout.contains("state: paused") && status.stdout.contains("paused: \(file.reason)"), "\(status.stdout)")
        #expect(Date().timeIntervalSince(start) < 90, "no command waited on the file (a wait is endless; a slow machine is not)")
        #expect(HostileFile.fingerprint(cli) == before)
        #expect(cli.entries == entries, "no temp file or lock is left")
    }

    @Test("a running instance: paused with the reason, edits queue, the file is untouched; it resumes once the file is fixed", arguments: HostileFile.unreadable)
    func session(_ file: HostileFile) async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        file.make(cli)
        let before = HostileFile.fingerprint(cli)
        let session = try SessionProcess(cli)
        try session.waitForState("paused", reason: file.reason)
        #expect((try session.send("add", "Eggs"))["ack"] != nil, "the edit is journaled")
        usleep(300_000)
        #expect(HostileFile.fingerprint(cli) == before)
        try session.waitForState("paused", reason: file.reason)
        // The file is repaired (under the lock, as Get Bananas writes: without it, the
        // instance could write its edit between the removal and the new file, and the new
        // file, written blind, would then drop it): the queued edit lands.
        let lock = cli.listPath + ".lock"
        let deadline = Date().addingTimeInterval(10)
        var fd: Int32 = -1
        repeat {
            fd = open(lock, O_WRONLY | O_CREAT | O_EXCL, 0o644)
            if fd < 0 { usleep(10_000) }
        } while fd < 0 && Date() < deadline
        _ = String(getpid()).withCString { write(fd, $0, strlen($0)) }
        close(fd)
        _ = unlink(cli.listPath)
        _ = rmdir(cli.listPath)
        cli.writeFile(#"{"sections": [], "items": [{"id": "1", "name": "Milk"}]}"#)
        _ = unlink(lock)
        try session.waitForState("synced")
        let names = Set(try await cli.items().map { $0["name"] as! String })
        #expect(names == ["Milk", "Eggs"], "\(names); \(session.received.suffix(8))")
        try session.quit()
    }

    @Test("the MCP server: tools answer isError with the reason; reads say paused; nothing is written", arguments: HostileFile.unreadable)
    func mcp(_ file: HostileFile) async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        file.make(cli)
        let before = HostileFile.fingerprint(cli)
        let server = try MCPProcess(cli)
        let read = try server.call("get_shopping_list")
        let sync = read.structured["sync"] as? [String: Any]
        #expect(sync?["state"] as? String == "paused" && sync?["paused"] as? String == file.reason, "\(read.text)")
        for (tool, arguments) in [("add_items", ["items": [["name": "Eggs"]]]), ("add_sections", ["sections": [["name": "B"]]]),
                                  ("clear_checked", [:] as [String: Any])] {
            let answer = try server.call(tool, arguments)
            #expect(answer.isError && answer.text.contains("paused (\(file.reason))"), "\(tool): \(answer.text)")
        }
        #expect(HostileFile.fingerprint(cli) == before)
        #expect(server.finish() == 0)
    }

    @Test("the editor: the status bar says paused and why; an edit is kept but not written", .enabled(if: Tmux.isAvailable), arguments: HostileFile.unreadable)
    func editor(_ file: HostileFile) async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        file.make(cli)
        let before = HostileFile.fingerprint(cli)
        let tmux = try Tmux(cli, width: 80, height: 12)
        #expect(tmux.waitFor("paused: \(file.reason)"), "\(tmux.screen())")
        tmux.keys("a")
        tmux.type("Eggs")
        tmux.keys("Enter", "Enter", "Enter")
        #expect(tmux.waitFor("Eggs"), "\(tmux.screen())")
        usleep(300_000)
        #expect(tmux.screen().contains("paused: \(file.reason)"))
        #expect(HostileFile.fingerprint(cli) == before)
        tmux.keys("q")
        _ = tmux.waitForExit()
        #expect(HostileFile.fingerprint(cli) == before, "quitting writes nothing either")
    }

    @Test("readable oddities (duplicate ids, wrong-typed rows, overflowing numbers): shown, reported, every row kept")
    func readableOddities() async throws {
        for name in ["duplicate-id.json", "wrong-typed-rows.json", "number-overflow.json"] {
            let cli = CLI()
            defer { cli.cleanUp() }
            let bytes = HostileFile.committed(name)
            createTestFile(atPath: cli.listPath, contents: Data(bytes))
            let shown = Set(try await cli.items().map { $0["name"] as! String })
            #expect(!shown.isEmpty, "\(name)")
            #expect(await cli("status").stdout.contains("note: "), "\(name): the problems are reported")
            #expect(await cli("add", "Jam").status == 0, "\(name)")
            #expect(Set(try await cli.items().map { $0["name"] as! String }) == shown.union(["Jam"]), "\(name)")
            let after = String(decoding: cli.fileBytes ?? Data(), as: UTF8.self)
            if name == "wrong-typed-rows.json" {
                #expect(after.contains("just a string") && after.contains("\"yes\"") && after.contains("42"), "rows not understood are kept")
            }
            if name == "duplicate-id.json" { #expect(shown == ["Milk", "Oat milk"]) }
        }
    }

    @Test("a newer schema: every surface shows it and none writes it")
    func newerSchema() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let bytes = HostileFile.committed("newer-schema.json")
        createTestFile(atPath: cli.listPath, contents: Data(bytes))
        #expect(await cli("list").stdout.contains("Milk"))
        #expect(await cli("add", "Eggs").status == 6)
        let session = try SessionProcess(cli)
        try session.waitForState("paused", reason: "newer schema (99)")
        try session.send("add", "Eggs")
        let server = try MCPProcess(cli)
        let answer = try server.call("add_items", ["items": [["name": "Bread"]]])
        #expect(answer.isError && answer.text.contains("newer schema (99)"))
        usleep(300_000)
        #expect(cli.fileBytes == Data(bytes))
        try session.quit()
        #expect(server.finish() == 0)
        #expect(cli.fileBytes == Data(bytes))
    }
}
