import Foundation
import Testing
import BananasTestSupport

/// Sync-engine conflict copies through the real binary: read commands show them merged and
/// leave them; a command that writes merges them; `status` names the ones it cannot merge.
@Suite("Conflict copies on the command line")
struct ConflictCopyCLITests {
    @Test("a read command shows a conflict copy merged and leaves it; a command that writes merges it and removes it")
    func listMergesCopy() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli("add", "Milk").status == 0)
        // Another device (its own state folder) edits a copy of the file.
        let other = CLI()
        defer { other.cleanUp() }
        other.writeFile(String(decoding: cli.fileBytes!, as: UTF8.self))
        #expect(await other("edit", "Milk", "--amount", "2 L").status == 0)
        #expect(await other("add", "Eggs").status == 0)
        #expect(await cli("check", "Milk").status == 0)
        let copy = "BananaList.sync-conflict-20261121-101530-ABCDEF7.json"
        createTestFile(atPath: cli.folder + "/" + copy, contents: other.fileBytes)

        // A read command shows the merge and writes nothing: the copy waits for a writer.
        let before = cli.fileBytes
        let items = try await cli.items()
        let milk = try #require(items.first { $0["name"] as? String == "Milk" })
        #expect(milk["amount"] as? String == "2 L" && milk["checked"] as? Bool == true)
        #expect(Set(items.map { $0["name"] as! String }) == ["Milk", "Eggs"])
        #expect(cli.fileBytes == before && cli.entries.contains(copy))
        let status = await cli("status")
        #expect(status.stdout.contains("conflict copy is shown merged") && status.stdout.contains(copy), "\(status.stdout)")
        #expect(cli.fileBytes == before && cli.entries.contains(copy))
        // Any command that writes merges it into the file and removes it.
        #expect(await cli("add", "Bread").status == 0)
        #expect(cli.entries == ["BananaList.json"])
        #expect(Set(try await cli.items().map { $0["name"] as! String }) == ["Milk", "Eggs", "Bread"])
        #expect(await cli("status").stdout.contains("state: synced"))
    }

    @Test("a read command never applies a conflict copy's deletes: list and status leave the file and the copy; a writer merges")
    func readCommandsLeaveDeletes() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli("add", "Milk", "Tea").status == 0)
        let other = CLI()
        defer { other.cleanUp() }
        other.writeFile(String(decoding: cli.fileBytes!, as: UTF8.self))
        #expect(await other("remove", "Tea").status == 0)
        let copy = "BananaList.sync-conflict-20261121-101530-ABCDEF7.json"
        createTestFile(atPath: cli.folder + "/" + copy, contents: other.fileBytes)
        let before = cli.fileBytes
        for arguments in [["list"], ["list", "--json"], ["status"], ["status", "--json"], ["sections"], ["conflicts"], ["deleted"]] {
            let result = await cli.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(cli.fileBytes == before, "\(arguments) wrote the list")
            #expect(cli.entries.contains(copy), "\(arguments) removed the copy")
        }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(await cli("status", "--json").stdout.utf8)) as? [String: Any])
        #expect(json["waitingCopies"] as? [String] == [copy])
        #expect(try JSONSerialization.jsonObject(with: before!) is [String: Any])
        #expect(String(decoding: cli.fileBytes!, as: UTF8.self).contains("\"Tea\""), "Tea is still in the file")
        // The copy's delete takes effect when a writer merges it.
        #expect(await cli("check", "Milk").status == 0)
        #expect(!cli.entries.contains(copy))
        #expect(try await cli.items().map { $0["name"] as! String } == ["Milk"])
    }

    @Test("status names a copy it cannot merge, in text and JSON, and leaves it")
    func statusNamesBrokenCopy() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli("add", "Milk").status == 0)
        let copy = "BananaList (Ann's conflicted copy 2026-11-21).json"
        createTestFile(atPath: cli.folder + "/" + copy, contents: Data(#"{"items": ["#.utf8))

        let text = await cli("status")
        #expect(text.status == 0)
        #expect(text.stdout.contains("state: conflict"))
        #expect(text.stdout.contains("conflict copy not merged: \(copy) ("))
        let json = await cli("status", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["state"] as? String == "conflict")
        let copies = try #require(object["unmergedCopies"] as? [[String: Any]])
        #expect(copies.count == 1 && copies[0]["name"] as? String == copy && copies[0]["reason"] as? String == "unparseable file")
        #expect(await cli("add", "Eggs").status == 0, "other commands still work")
        #expect(cli.entries.contains(copy))
    }
}
