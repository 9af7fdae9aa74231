import Foundation
import Testing
import BananasFile
import BananasTestSupport

/// Issue 39, item 1: a state folder that cannot take this machine's sync state (full,
/// read-only, left root's, a file or a symlink where a folder goes) never blocks the list from
/// being written and never costs an acknowledged edit. The state goes to the spare
/// (`$XDG_RUNTIME_DIR/bananas`, here the test's `home/run`), which every process reads too, and
/// back to the state folder at the first write it can take.
@Suite("The state folder cannot take the state: the spare holds it (issue 39)")
struct SpareStateTests {
    typealias Laptop = PhoneAtTheStoreTests.Laptop
    typealias Phone = PhoneAtTheStoreTests.Phone

    /// Puts a file where the state folder's `files/` goes: nothing can be made there, for any user.
    static func breakStateFolder(_ laptop: Laptop) throws {
        let files = laptop.state + "/files"
        try? FileManager.default.removeItem(atPath: files)
        createTestFile(atPath: files, contents: Data("not a folder".utf8))
    }

    static func spareHashes(_ laptop: Laptop) -> String {
        StateFolder(listPath: laptop.listPath, stateDirectory: laptop.state,
                    spareDirectory: laptop.cli.home + "/run/bananas").spare!.path + "/written-hashes"
    }

    @Test("a command on a full state folder writes the list with its state in the spare, says so, and a phone save from before the write keeps the row it added")
    func commandUsesTheSpare() async throws {
        guard let disk = SmallDisk() else { return }  // mounting a small disk needs root
        let laptop = Laptop(state: disk.path)
        defer { laptop.cleanUp() }
        await laptop("add", "Milk")
        await laptop("add", "Bread")
        // The phone holds Jam, first published after Bread: its save provably comes from a
        // state with Bread in it (rule 5's evidence).
        await laptop("add", "Jam")
        var phone = Phone()
        try phone.read(laptop.listPath)

        disk.fill()
        let added = await laptop("add", "Eggs")
        #expect(added.stderr.contains("sync state is kept in") && added.stderr.contains("/run/bananas/"), "\(added.stderr)")
        #expect(try await laptop.names() == ["Milk", "Bread", "Jam", "Eggs"], "the list is written")
        #expect(FileManager.default.fileExists(atPath: Self.spareHashes(laptop)))
        let status = await laptop("status")
        #expect(status.stdout.contains("state: synced") && status.stdout.contains("sync state is kept in"), "\(status.stdout)")
        let json = try #require(try await laptop.json("status", "--json") as? [String: Any])
        #expect((json["stateKeptIn"] as? [String: Any])?["folder"] as? String != nil, "\(json)")

        // The phone, holding the list from before Eggs, removes Bread and saves the whole list.
        try phone.remove("Bread")
        try phone.save(to: laptop.listPath)
        let view = try await laptop.view()
        #expect(view.names == ["Milk", "Jam", "Eggs"], "Eggs, which the phone never saw, is kept; Bread is removed: \(view.text)")
        #expect(view.deleted == ["Bread"] && view.conflicts.isEmpty, "\(view.text)")

        // The folder can take the state again: the next write puts it back and empties the spare.
        disk.free()
        let tea = await laptop("add", "Tea")
        #expect(!tea.stderr.contains("kept in"), "\(tea.stderr)")
        #expect(!FileManager.default.fileExists(atPath: Self.spareHashes(laptop)), "the spare is emptied")
        #expect(!(await laptop("status")).stdout.contains("kept in"))
        try phone.read(laptop.listPath)
        try phone.remove("Milk")
        try phone.save(to: laptop.listPath)
        let after = try await laptop.view()
        #expect(after.names == ["Jam", "Eggs", "Tea"] && after.deleted == ["Bread", "Milk"], "\(after.text)")
    }

    @Test("a spare that is not this user's alone (a symlink, or open to others) is never used: the command writes nothing (exit 8)",
          arguments: ["symlink", "open to others"])
    func untrustedSpare(how: String) async throws {
        let laptop = Laptop()
        defer { laptop.cleanUp() }
        await laptop("add", "Milk")
        let run = laptop.cli.home + "/run"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        let elsewhere = laptop.cli.home + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        if how == "symlink" {
            #expect(symlink(elsewhere, run + "/bananas") == 0)
        } else {
            try FileManager.default.createDirectory(atPath: run + "/bananas", withIntermediateDirectories: true)
            #expect(chmod(run + "/bananas", 0o777) == 0)
        }
        try Self.breakStateFolder(laptop)
        let before = laptop.cli.fileBytes
        let result = await laptop.cli.run(["add", "Eggs"], environment: laptop.environment)
        #expect(result.status == 8 && result.stderr.contains("sync state"), "\(result.status) \(result.stderr)")
        #expect(laptop.cli.fileBytes == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty, "nothing written through the symlink")
    }

    @Test("a running instance whose state folder cannot take anything: edits journaled in the spare (acknowledged durable), written, and kept through kill -9")
    func sessionUsesTheSpare() async throws {
        let laptop = Laptop()
        defer { laptop.cleanUp() }
        await laptop("add", "Milk")
        let a = try laptop.session()
        #expect(try a.names() == ["Milk"])
        try Self.breakStateFolder(laptop)
        let ack = try a.send("add", "Eggs")
        #expect(ack["durable"] as? Bool != false, "\(ack)")
        try a.waitForState("synced")
        #expect(try await laptop.names() == ["Milk", "Eggs"], "written with its state in the spare")

        // An edit the file does not hold yet, journaled in the spare, then the instance dies.
        let lock = try LockHolder(laptop.cli)
        let jam = try a.send("add", "Jam")
        #expect(jam["durable"] as? Bool != false, "\(jam)")
        a.kill()
        lock.release()
        let journals = laptop.cli.home + "/run/bananas/files"
        #expect(FileManager.default.enumerator(atPath: journals)?.contains { ($0 as? String)?.hasSuffix(".journal") == true } == true,
                "the edit is in a journal in the spare")
        // `status` counts it (a read command: it removes nothing).
        let status = try #require(try await laptop.json("status", "--json") as? [String: Any])
        #expect((status["pendingDetail"] as? [String: Any])?["stoppedInstances"] as? Int == 1, "\(status)")
        #expect(FileManager.default.enumerator(atPath: journals)?.contains { ($0 as? String)?.hasSuffix(".journal") == true } == true,
                "status left the journal")
        let b = try laptop.session()
        defer { b.stop() }
        try b.waitForState("synced", timeout: 20)
        #expect(try await laptop.names() == ["Milk", "Eggs", "Jam"], "the next instance found the journal in the spare")
    }

    @Test("root running bananas with a user's HOME (one `sudo bananas`) leaves the state folder theirs: their next run keeps it there")
    func sudoLeavesTheStateFolderTheirs() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), getuid() == 0 else { return }
        let cli = CLI()
        defer { cli.cleanUp() }
        try FileManager.default.createDirectory(atPath: cli.folder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        #expect(chown(cli.home, 65534, 65534) == 0 && chown(cli.folder, 65534, 65534) == 0)
        let asNobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        #expect(await cli.run(["add", "Milk"]).status == 0, "root's run, HOME the user's")
        var owners: [String] = []
        let state = cli.home + "/.local/state"
        for path in [state] + (FileManager.default.subpaths(atPath: state) ?? []).map({ state + "/" + $0 }) {
            var st = stat()
            if lstat(path, &st) == 0, st.st_uid != 65534 { owners.append("\(path): \(st.st_uid)") }
        }
        #expect(owners.isEmpty, "made by root, given to the folder's owner: \(owners)")
        let eggs = await cli.run(["add", "Eggs"], prefix: asNobody)
        #expect(eggs.status == 0 && !eggs.stderr.contains("kept in"), "\(eggs.status) \(eggs.stderr)")
        #expect(try await cli.items().map { $0["name"] as! String } == ["Milk", "Eggs"])
    }
}
