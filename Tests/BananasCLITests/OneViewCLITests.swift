import Foundation
import Testing
import BananasTestSupport

/// Issue 38, failure 8 and DESIGN's "One view": `status`, `list`, `conflicts` and `deleted`
/// show the same merged list, a stampless save not yet written back and a waiting conflict
/// copy included, and `status` counts the pending edits of running instances (the real binary).
@Suite("One view: status, list, conflicts and deleted agree (real binary)")
struct OneViewCLITests {
    static let copyName = "BananaList.sync-conflict-20261127-101010-ABCDEFG.json"

    func json(_ cli: CLI, _ arguments: String...) async throws -> Any {
        let result = await cli.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    /// What each read command says, side by side.
    struct Views {
        var status: [String: Any]
        var listed: Int
        var conflicts: Int
        var deleted: Int
    }

    func views(_ cli: CLI) async throws -> Views {
        let status = try #require(try await json(cli, "status", "--json") as? [String: Any])
        let list = try #require(try await json(cli, "list", "--json") as? [String: Any])
        let conflicts = try #require(try await json(cli, "conflicts", "--json") as? [Any])
        let deleted = try #require(try await json(cli, "deleted", "--json") as? [Any])
        return Views(status: status, listed: (list["items"] as? [Any])?.count ?? -1, conflicts: conflicts.count, deleted: deleted.count)
    }

    func expectAgreement(_ seen: Views, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(seen.status["items"] as? Int == seen.listed, "status counts the items list shows", sourceLocation: sourceLocation)
        #expect(seen.status["conflicts"] as? Int == seen.conflicts, "status counts the conflicts listed", sourceLocation: sourceLocation)
        #expect(seen.status["deleted"] as? Int == seen.deleted, "status counts what deleted lists", sourceLocation: sourceLocation)
    }

    @Test("8: a phone's version-1 save over a bananas file, before any bananas write: all four agree, and the state is not synced")
    func phoneSaveBeforeAnyBananasWrite() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk", "--section", "Dairy")
        await cli("add", "Bread", "--section", "Bakery", "--amount", "1")
        await cli("add", "Butter", "--section", "Dairy")
        await cli("remove", "Butter")
        // The phone reads the list now: Milk, and Bread for 1.
        let read = try #require(try JSONSerialization.jsonObject(with: cli.fileBytes!) as? [String: Any])
        let rows = try #require(read["items"] as? [[String: Any]])
        // Then the laptop adds Eggs and changes Bread's amount.
        await cli("add", "Eggs", "--section", "Dairy")
        await cli("edit", "Bread", "--amount", "2")
        // The phone saves the whole list as it read it, with Bread for 3: version 1, no stamps.
        let phoneRows: [[String: Any]] = rows.map { row in
            var kept: [String: Any] = [:]
            for key in ["id", "name", "amount", "section", "optional", "checked"] { kept[key] = row[key] }
            if row["name"] as? String == "Bread" { kept["amount"] = "3" }
            return kept
        }
        let save = try JSONSerialization.data(withJSONObject: ["sections": ["Dairy", "Bakery"], "items": phoneRows])
        createTestFile(atPath: cli.listPath, contents: save)

        let seen = try await views(cli)
        expectAgreement(seen)
        #expect(seen.listed == 3, "Eggs, added after the phone's read, stays")
        #expect(seen.conflicts == 1, "Bread's amount: the laptop's and the phone's are concurrent")
        #expect(seen.deleted == 1)
        #expect(seen.status["schemaVersion"] as? Int == 1 && seen.status["stampless"] as? Bool == true, "the file's own version is said")
        #expect(seen.status["state"] as? String == "conflict")
        let detail = try #require(seen.status["pendingDetail"] as? [String: Any])
        #expect(detail["unwrittenSave"] as? Bool == true)
        #expect(cli.fileBytes == save, "status, list, conflicts and deleted wrote nothing")
        let text = await cli("status")
        #expect(text.stdout.contains("items: 3 ") && text.stdout.contains("state: conflict"), "\(text.stdout)")
        #expect(text.stdout.contains("pending: a save by a writer that keeps no stamps"), "\(text.stdout)")

        // The next bananas write writes the merged list: the same view, now in the file.
        await cli("uncheck", "Milk")
        let after = try await views(cli)
        expectAgreement(after)
        #expect(after.listed == 3 && after.conflicts == 1 && after.status["state"] as? String == "conflict")
        #expect((after.status["pendingDetail"] as? [String: Any])?["unwrittenSave"] as? Bool == false)
    }

    @Test("8: a sync engine's conflict copy waiting beside the file: a concurrent value makes the state conflict, a new item pending; never synced")
    func waitingConflictCopy() async throws {
        let laptop = CLI(), other = CLI()
        defer { laptop.cleanUp(); other.cleanUp() }
        await laptop("add", "Milk", "--section", "Dairy")
        createTestFile(atPath: other.listPath, contents: laptop.fileBytes)
        await other("edit", "Milk", "--amount", "5")
        await laptop("edit", "Milk", "--amount", "2")
        // Syncthing kept the laptop's file and put the other device's beside it.
        createTestFile(atPath: laptop.folder + "/" + Self.copyName, contents: other.fileBytes)
        let seen = try await views(laptop)
        expectAgreement(seen)
        #expect(seen.conflicts == 1, "the copy's concurrent amount, shown merged")
        #expect(seen.status["state"] as? String == "conflict", "not synced while a conflicting copy waits")
        #expect(seen.status["waitingCopies"] as? [String] == [Self.copyName])
        #expect(FileManager.default.fileExists(atPath: laptop.folder + "/" + Self.copyName), "read commands leave the copy")

        // A copy that only adds an item: shown, counted, and pending until a write merges it.
        await laptop("conflicts", "dismiss", "--all")
        #expect(!FileManager.default.fileExists(atPath: laptop.folder + "/" + Self.copyName), "a writer merged it")
        createTestFile(atPath: other.listPath, contents: laptop.fileBytes)
        await other("add", "Honey")
        createTestFile(atPath: laptop.folder + "/" + Self.copyName, contents: other.fileBytes)
        let adding = try await views(laptop)
        expectAgreement(adding)
        #expect(adding.listed == 2 && adding.conflicts == 0)
        #expect(adding.status["state"] as? String == "pending" && adding.status["pending"] as? Int == 1, "\(adding.status)")
        await laptop("uncheck", "Milk")
        let merged = try await views(laptop)
        expectAgreement(merged)
        #expect(merged.listed == 2 && merged.status["state"] as? String == "synced")
    }

    @Test("one view: a running instance's edit held back by a busy lock is counted by status as pending, then lands")
    func runningInstancesPendingEdits() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        let session = try SessionProcess(cli)
        defer { session.stop() }
        let lock = try LockHolder(cli)
        try session.send("add", "Jam")
        try session.send("add", "Tea")
        let held = try #require(try await json(cli, "status", "--json") as? [String: Any])
        #expect(held["pending"] as? Int == 2, "\(held)")
        // Pending, or paused once the holder has kept the lock past a running instance's wait.
        #expect(["pending", "paused"].contains(held["state"] as? String ?? ""), "\(held)")
        #expect((held["pendingDetail"] as? [String: Any])?["runningInstances"] as? Int == 2)
        let text = await cli("status")
        #expect(text.stdout.contains("pending: 2 edits of a running bananas not yet in the file"), "\(text.stdout)")
        // Once the running instance pauses for the holder, status says so too (it waits for the
        // lock as long as the instance did), and still counts. The lock is kept fresh, as a live
        // holder keeps it: the status calls above waited a second each.
        try session.waitForState("paused")
        utimes(lock.lockPath, nil)
        let paused = try #require(try await json(cli, "status", "--json") as? [String: Any])
        #expect(paused["state"] as? String == "paused" && paused["pending"] as? Int == 2, "\(paused)")
        #expect((paused["paused"] as? String)?.contains("\(getpid())") == true, "the holder is named: \(paused)")
        lock.release()
        try session.waitForState("synced")
        let landed = try #require(try await json(cli, "status", "--json") as? [String: Any])
        #expect(landed["pending"] as? Int == 0 && landed["state"] as? String == "synced" && landed["items"] as? Int == 3, "\(landed)")
        try session.quit()
    }
}
