import Foundation
import Testing
import BananasTestSupport

/// Sync-engine conflict copies through the real binary: any command merges them; `status`
/// names the ones it cannot.
@Suite("Conflict copies on the command line")
struct ConflictCopyCLITests {
    @Test("any command merges a conflict copy beside the list, then removes it")
    func listMergesCopy() throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(cli("add", "Milk").status == 0)
        // Another device (its own state folder) edits a copy of the file.
        let other = CLI()
        defer { other.cleanUp() }
        other.writeFile(String(decoding: cli.fileBytes!, as: UTF8.self))
        #expect(other("edit", "Milk", "--amount", "2 L").status == 0)
        #expect(other("add", "Eggs").status == 0)
        #expect(cli("check", "Milk").status == 0)
        let copy = "BananaList.sync-conflict-20261121-101530-ABCDEF7.json"
        createTestFile(atPath: cli.folder + "/" + copy, contents: other.fileBytes)

        let items = try cli.items()
        let milk = try #require(items.first { $0["name"] as? String == "Milk" })
        #expect(milk["amount"] as? String == "2 L" && milk["checked"] as? Bool == true)
        #expect(Set(items.map { $0["name"] as! String }) == ["Milk", "Eggs"])
        #expect(cli.entries == ["BananaList.json"])
        #expect(cli("status").stdout.contains("state: synced"))
    }

    @Test("status names a copy it cannot merge, in text and JSON, and leaves it")
    func statusNamesBrokenCopy() throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(cli("add", "Milk").status == 0)
        let copy = "BananaList (Ann's conflicted copy 2026-11-21).json"
        createTestFile(atPath: cli.folder + "/" + copy, contents: Data(#"{"items": ["#.utf8))

        let text = cli("status")
        #expect(text.status == 0)
        #expect(text.stdout.contains("state: conflict"))
        #expect(text.stdout.contains("conflict copy not merged: \(copy) ("))
        let json = cli("status", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["state"] as? String == "conflict")
        let copies = try #require(object["unmergedCopies"] as? [[String: Any]])
        #expect(copies.count == 1 && copies[0]["name"] as? String == copy && copies[0]["reason"] as? String == "unparseable file")
        #expect(cli("add", "Eggs").status == 0, "other commands still work")
        #expect(cli.entries.contains(copy))
    }
}
