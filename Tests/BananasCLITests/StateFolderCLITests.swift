import Foundation
import Testing
import BananasTestSupport

/// Issue 21, "the state folder on a full disk", against the real binaries: a running instance
/// whose state folder fills up pauses with the reason, keeps the edit, does not bring back a
/// Get Bananas delete, and writes the edit once there is room; a command refuses to write a
/// list whose state it could not save.
@Suite("The state folder cannot take the base: the binaries")
struct StateFolderCLITests {
    @Test("a running instance on a full state folder: paused with the reason, the edit kept, a Get Bananas delete not brought back")
    func fullStateFolder() async throws {
        guard let disk = SmallDisk() else { return }  // mounting a small disk needs root
        let cli = CLI()
        defer { cli.cleanUp() }
        let state = ["XDG_STATE_HOME": disk.path]
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

        // The next write here (the edit, or the write-back of what was absorbed) lands, but its
        // base cannot be saved.
        try a.send("add", "Bread")
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

    @Test("a command whose state folder cannot be made writes nothing and says why (exit 8); it works again once it can")
    func commandRefuses() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli("add", "Milk").status == 0)
        let files = cli.home + "/.local/state/bananas/files"
        try FileManager.default.removeItem(atPath: files)
        createTestFile(atPath: files, contents: Data("not a folder".utf8))
        let before = cli.fileBytes
        let status = await cli("status")
        #expect(status.stdout.contains("state: paused") && status.stdout.contains("paused: state not saved: missing folder"), "\(status.stdout)")
        let result = await cli("add", "Eggs")
        #expect(result.status == 8)
        #expect(result.stderr.contains("sync state"), "\(result.stderr)")
        #expect(cli.fileBytes == before)
        try FileManager.default.removeItem(atPath: files)
        #expect(await cli("status").stdout.contains("state: synced"))
        #expect(await cli("add", "Eggs").status == 0)
        #expect(Set(try await cli.items().map { $0["name"] as! String }) == ["Milk", "Eggs"])
    }
}
