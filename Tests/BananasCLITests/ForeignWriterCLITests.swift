import Foundation
import Testing

/// Other programs write the same file without stamps; the next bananas command must honour
/// their edits, inserts and deletes, and keep its own history.
@Suite struct ForeignWriterCLITests {
    func json(_ cli: CLI) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: cli.fileBytes!) as! [String: Any]
    }

    func write(_ object: [String: Any], _ cli: CLI) throws {
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: cli.listPath))
    }

    @Test func theGetBananasAppRewritesTheFileInVersionOneShape() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk", "Eggs", "Bread", "--section", "Shop")
        await cli("remove", "Bread")
        // The app: decodes only version-1 keys and writes back; bananas takes that in (the app
        // now holds every row). Then it checks Milk, deletes Eggs, adds Tea, writes back.
        let first = try json(cli)
        let held = (first["items"] as! [[String: Any]]).map { item in
            ["id", "name", "amount", "section", "optional", "checked"].reduce(into: [String: Any]()) { $0[$1] = item[$1] }
        }
        try write(["sections": first["sections"]!, "items": held], cli)
        #expect(await cli("add", "Jam", "--section", "Shop").status == 0)
        let file = try json(cli)
        var items = (file["items"] as! [[String: Any]]).map { item in
            ["id", "name", "amount", "section", "optional", "checked"].reduce(into: [String: Any]()) { $0[$1] = item[$1] }
        }
        items[items.firstIndex { $0["name"] as? String == "Milk" }!]["checked"] = true
        items.removeAll { $0["name"] as? String == "Eggs" }
        items.append(["id": UUID().uuidString, "name": "Tea", "amount": "", "section": "Shop", "optional": false, "checked": false])
        try write(["sections": file["sections"]!, "items": items], cli)

        #expect(await cli("add", "Butter", "--section", "Shop").status == 0)
        let after = try await cli.items()
        #expect(Set(after.map { $0["name"] as! String }) == ["Milk", "Tea", "Jam", "Butter"], "Eggs stays deleted, Bread too")
        #expect(after.first { $0["name"] as? String == "Milk" }?["checked"] as? Bool == true)
        let sync = try json(cli)["sync"] as! [String: Any]
        // Deletes are written one entry per delete edit, with the keys of the rows it deleted.
        let deletedRows = (sync["deleted"] as! [[String: Any]]).flatMap { ($0["rows"] as! String).split(separator: " ") }
        #expect(deletedRows.count == 2, "both deletes are tombstones again")
    }

    @Test func aRowTheAppNeverSavedIsNotDeletedByItsAbsence() async throws {
        // Added here after the phone's last save: the phone's next save lacks it because it
        // never had it (a sync conflict it won, say), not because someone deleted it.
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk", "--section", "Shop")
        let old = try json(cli)
        let phone = (old["items"] as! [[String: Any]]).map { item in
            ["id", "name", "amount", "section", "optional", "checked"].reduce(into: [String: Any]()) { $0[$1] = item[$1] }
        }
        await cli("add", "Eggs", "--section", "Shop")
        try write(["sections": old["sections"]!, "items": phone], cli)
        #expect(await cli("add", "Tea", "--section", "Shop").status == 0)
        #expect(Set(try await cli.items().map { $0["name"] as! String }) == ["Milk", "Eggs", "Tea"])
    }

    @Test func theNodeServerFiltersRowsOutAndEditsInPlace() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk", "Eggs")
        // The Node server: JSON.parse, change, JSON.stringify: every key kept, no stamps touched.
        var file = try json(cli)
        var items = file["items"] as! [[String: Any]]
        items.removeAll { $0["name"] as? String == "Eggs" }
        items[0]["amount"] = "2 L"
        file["items"] = items
        try write(file, cli)

        await cli("add", "Jam")
        let after = try await cli.items()
        #expect(after.map { $0["name"] as! String }.sorted() == ["Jam", "Milk"])
        #expect(after.first { $0["name"] as? String == "Milk" }?["amount"] as? String == "2 L")
    }
}
