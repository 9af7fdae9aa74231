import Foundation
import Testing
import BananasTestSupport
import BananasFile

/// Issue 21, "the state folder on a full disk", against the real binaries: a running instance
/// whose state folder (and its spare) fills up pauses with the reason, keeps the edit, does not
/// bring back a Get Bananas delete, and writes the edit once there is room; a command refuses to
/// write a list whose state it could not save. With a spare that can take the state, the list
/// is written all the same: SpareStateTests.
@Suite("The state folder cannot take the base: the binaries")
struct StateFolderCLITests {
    /// No spare state folder can be made (`Locations.spareStateDirectory`): nothing is made in /proc.
    static let noSpare = ["XDG_RUNTIME_DIR": "/proc/bananas-no-spare"]

    @Test("a running instance on a full state folder: paused with the reason, the edit kept, a Get Bananas delete not brought back")
    func fullStateFolder() async throws {
        guard let disk = SmallDisk() else { return }  // mounting a small disk needs root
        let cli = CLI()
        defer { cli.cleanUp() }
        // The spare on the same small disk: it fills up with the state folder.
        let state = ["XDG_STATE_HOME": disk.path, "XDG_RUNTIME_DIR": disk.path + "/run"]
        #expect(await cli.run(["add", "Milk"], environment: state).status == 0)
        let a = try SessionProcess(cli, environment: state)
        defer { a.stop() }
        disk.fill()
        // Get Bananas adds Yogurt: a whole-list save that holds the row from now on.
        let milk = try #require(try await cli.items().first { $0["name"] as? String == "Milk" }?["id"] as? String)
        func getBananasSaves(_ rows: [(String, String)]) {
            let items = rows.map { #"{"id": "\#($0.0)", "name": "\#($0.1)", "amount": "", "section": "Other", "checked": false, "optional": false}"# }
            cli.writeFile(#"{"sections": ["Other"], "items": ["# + items.joined(separator: ", ") + "]}")
        }
        getBananasSaves([(milk, "Milk"), ("7E57AAAA-0000-4000-8000-000000000001", "Yogurt")])
        var deadline = Date().addingTimeInterval(10)
        while try !a.names().contains("Yogurt"), Date() < deadline { usleep(20_000) }

        // The next write here (the edit, or the write-back of what was absorbed) is not made:
        // its base cannot be written first.
        let ack = try a.send("add", "Bread")
        // Neither the file nor the journal (the same full folder) holds it: the ack says so.
        #expect(ack["durable"] as? Bool == false && (ack["reason"] as? String)?.contains("disk is full") == true, "\(ack)")
        try a.waitForState("paused", reason: "state not saved: disk full")
        #expect((try a.status()["summary"] as? String)?.hasPrefix("paused: state not saved: disk full") == true)
        let written = cli.fileBytes
        let status = await cli.run(["status"], environment: state)
        #expect(status.stdout.contains("state: paused") && status.stdout.contains("paused: state not saved: disk full"), "\(status.stdout)")
        try a.send("add", "Jam")
        usleep(300_000)
        #expect(cli.fileBytes == written, "nothing more is written meanwhile")
        #expect(try a.names() == ["Milk", "Yogurt", "Bread", "Jam"], "the edits are kept")

        // Get Bananas removes Yogurt: a whole-list save of what it read, without the row.
        getBananasSaves(try await cli.items().compactMap { row in
            guard let name = row["name"] as? String, name != "Yogurt" else { return nil }
            return (row["id"] as! String, name)
        })
        deadline = Date().addingTimeInterval(10)
        while try a.names().contains("Yogurt"), Date() < deadline { usleep(20_000) }
        #expect(try a.names() == ["Milk", "Bread", "Jam"], "the remove is taken")

        disk.free()
        try a.waitForState("synced")
        let final = try await cli.items().map { $0["name"] as! String }
        #expect(Set(final) == ["Milk", "Bread", "Jam"] && final.count == 3, "the edit reached the file; Yogurt stayed deleted: \(final)")
    }

    @Test("a command on a full or read-only state folder writes nothing (exit 8), so no base older than the file is left for the next one")
    func commandOnAFullStateFolder() async throws {
        guard let disk = SmallDisk() else { return }  // mounting a small disk needs root
        let cli = CLI()
        defer { cli.cleanUp() }
        let state = ["XDG_STATE_HOME": disk.path, "XDG_RUNTIME_DIR": disk.path + "/run"]
        #expect(await cli.run(["add", "Milk"], environment: state).status == 0)
        let before = cli.fileBytes
        disk.fill()
        var result = await cli.run(["add", "Eggs"], environment: state)
        #expect(result.status == 8, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("disk full") || result.stderr.contains("space"), "\(result.stderr)")
        #expect(cli.fileBytes == before, "the edit is not in the list")
        #expect(cli.tempFilesBesideTheList.isEmpty, "the list's write, begun before the base's, was given up")
        disk.free()
        #expect(disk.setReadOnly(true))
        result = await cli.run(["add", "Eggs"], environment: state)
        #expect(result.status == 8, "\(result.stdout)\(result.stderr)")
        #expect(cli.fileBytes == before)
        #expect(disk.setReadOnly(false))
        #expect(await cli.run(["add", "Eggs"], environment: state).status == 0)
        #expect(try await cli.items().map { $0["name"] as! String } == ["Milk", "Eggs"])
    }

    @Test("a state folder its user may not write (its files still may be): the command writes nothing (exit 8), not its edit over an older base")
    func commandOnAReadOnlyStateFolder() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), getuid() == 0 else { return }
        let cli = CLI()
        defer { cli.cleanUp() }
        try FileManager.default.createDirectory(atPath: cli.folder, withIntermediateDirectories: true)
        chmod(cli.home, 0o777)
        chmod(cli.folder, 0o777)
        let state = cli.folder + ".nobody-state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: state) }
        chmod(state, 0o777)
        let asNobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        #expect(await cli.run(["add", "Milk"], prefix: asNobody, environment: ["XDG_STATE_HOME": state].merging(Self.noSpare) { $1 }).status == 0)
        let files = state + "/bananas/files"
        let folder = files + "/" + (try FileManager.default.contentsOfDirectory(atPath: files).first ?? "")
        let base = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(base.contains("base.json") && base.contains("incoming-hash"), "\(base)")
        // The folder read-only for its user: its files can be rewritten in place (the
        // announce), but no new file made (the base's temp file).
        chmod(folder, 0o555)
        let before = cli.fileBytes
        let result = await cli.run(["add", "Eggs"], prefix: asNobody, environment: ["XDG_STATE_HOME": state].merging(Self.noSpare) { $1 })
        #expect(result.status == 8 && result.stderr.contains("permission denied"), "\(result.status) \(result.stderr)")
        #expect(cli.fileBytes == before, "the list was not written")
        #expect(cli.tempFilesBesideTheList.isEmpty, "the list's write, begun before the base's, was given up")
        chmod(folder, 0o755)
        #expect(await cli.run(["add", "Eggs"], prefix: asNobody, environment: ["XDG_STATE_HOME": state].merging(Self.noSpare) { $1 }).status == 0)
        #expect(try await cli.items().map { $0["name"] as! String } == ["Milk", "Eggs"])
    }

    @Test("a command whose state folder cannot be made writes nothing and says why (exit 8); it works again once it can")
    func commandRefuses() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli("add", "Milk").status == 0)
        let files = cli.home + "/.local/state/bananas/files"
        try FileManager.default.removeItem(atPath: files)
        createTestFile(atPath: files, contents: Data("not a folder".utf8))
        let before = cli.fileBytes
        let status = await cli.run(["status"], environment: Self.noSpare)
        #expect(status.stdout.contains("state: paused") && status.stdout.contains("paused: state not saved: missing folder"), "\(status.stdout)")
        let result = await cli.run(["add", "Eggs"], environment: Self.noSpare)
        #expect(result.status == 8)
        #expect(result.stderr.contains("sync state"), "\(result.stderr)")
        #expect(cli.fileBytes == before)
        try FileManager.default.removeItem(atPath: files)
        #expect(await cli("status").stdout.contains("state: synced"))
        #expect(await cli("add", "Eggs").status == 0)
        #expect(Set(try await cli.items().map { $0["name"] as! String }) == ["Milk", "Eggs"])
    }
}

extension CLI {
    /// Temp files of a write (ours or the Get Bananas server's) beside the list.
    var tempFilesBesideTheList: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.contains(".tmp.") }
    }
}

/// Issue 39, item 3: the state folder is hostile input. A folder in it that is a symlink is
/// never followed: nothing in the folder it points to is read, written, linked or removed, and
/// the command says why it writes nothing.
@Suite("The state folder as hostile input: symlinked folders")
struct StateFolderSymlinkCLITests {
    /// What a victim folder holds, by name and bytes.
    static func contents(_ folder: String) -> [String: Data] {
        var found: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            found[name] = FileManager.default.contents(atPath: folder + "/" + name) ?? Data()
        }
        return found
    }

    @Test("a folder of the state folder symlinked elsewhere: two adds and a session touch nothing there, and say why nothing is written",
          arguments: ["files", "list", "journals", "merged-copies"])
    func symlinkedFolder(which: String) async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let stateHome = cli.home + "/state"
        let environment = ["XDG_STATE_HOME": stateHome]
        #expect(await cli.run(["add", "Milk"], environment: environment).status == 0)
        let state = StateFolder(listPath: cli.listPath, stateDirectory: stateHome + "/bananas")
        let folder = switch which {
        case "files": state.root + "/files"
        case "list": state.path
        case "journals": state.journalsPath
        default: state.mergedCopiesPath
        }
        // Someone else's folder, with files named like the state folder's.
        let victim = cli.home + "/victim"
        try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: true)
        for name in ["notes.txt", "base.json", "written-hashes", "1-x.journal", "published.json.tmp.1"] {
            createTestFile(atPath: victim + "/" + name, contents: Data("mine \(name)\n".utf8))
        }
        let before = Self.contents(victim)
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: (folder as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        #expect(symlink(victim, folder) == 0)
        let listBefore = cli.fileBytes

        for name in ["Eggs", "Tea"] {
            let added = await cli.run(["add", name], environment: environment.merging(StateFolderCLITests.noSpare) { $1 })
            #expect(added.status == 8, "\(added.stdout) \(added.stderr)")
            #expect(added.stderr.contains("is a symbolic link that bananas did not expect"), "\(added.stderr)")
        }
        #expect(await cli.run(["list"], environment: environment).status == 0, "a read command still reads the list")
        _ = await cli.run(["status"], environment: environment)
        #expect(cli.fileBytes == listBefore, "nothing was written without its state")
        // With a spare, the list is written, its state kept there; still nothing behind the symlink.
        let spared = await cli.run(["add", "Bread"], environment: environment)
        #expect(spared.status == 0 && spared.stderr.contains("symbolic link") && spared.stderr.contains("kept in"), "\(spared.stderr)")
        let session = try SessionProcess(cli, environment: environment)
        #expect((try? session.send("add", "Jam")["durable"] as? Bool) != false)
        try session.waitForState("synced")
        session.stop()
        #expect(Self.contents(victim) == before, "nothing in the folder the symlink points to changed")
        #expect(Set(try await cli.items().map { $0["name"] as! String }) == ["Milk", "Bread", "Jam"])
    }
}

extension StateFolderSymlinkCLITests {
    @Test("the list's folder swapped for a symlink while an instance runs: nothing is written through it, paused with the path (issue 39, item 3)")
    func listFolderSwappedForASymlink() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli("add", "Milk").status == 0)
        let session = try SessionProcess(cli)
        defer { session.stop() }
        #expect(try session.names() == ["Milk"])
        // Someone moves the folder away and puts a symlink to their own folder in its place.
        let victim = cli.home + "/victim"
        try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: true)
        createTestFile(atPath: victim + "/notes.txt", contents: Data("mine\n".utf8))
        let before = Self.contents(victim)
        #expect(rename(cli.folder, cli.folder + ".moved") == 0)
        #expect(symlink(victim, cli.folder) == 0)
        defer { unlink(cli.folder); rename(cli.folder + ".moved", cli.folder) }
        try session.send("add", "Eggs")
        try session.waitForState("paused", reason: "unexpected symlink")
        usleep(300_000)
        #expect(Self.contents(victim) == before, "nothing written through the symlink: \(Self.contents(victim).keys.sorted())")
    }
}
