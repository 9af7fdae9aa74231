import Foundation
import Testing
import BananasTestSupport

@Suite struct CLIWorkflowTests {
    @Test func theReadmeWalkthrough() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli("add", "Oat milk", "--amount", "2 L", "--section", "Dairy").status == 0)
        #expect(await cli("add", "Bananas", "--section", "Produce", "--optional").status == 0)
        let listed = await cli("list")
        #expect(listed.status == 0)
        #expect(listed.stdout == "Dairy (0/1 checked)\n  [ ] Oat milk · 2 L\n\nProduce (0/1 checked)\n  [ ] Bananas · optional\n")

        #expect(await cli("check", "oat").stdout == "Checked Oat milk\n")
        #expect(await cli("list").stdout.contains("[x] Oat milk · 2 L"))
        #expect(await cli("edit", "Bananas", "--amount", "6", "--section", "Fruit").status == 0)
        let bananas = try #require(try await cli.items().first { $0["name"] as? String == "Bananas" })
        #expect(bananas["amount"] as? String == "6")
        #expect(bananas["section"] as? String == "Fruit")
        #expect(bananas["optional"] as? Bool == true)

        #expect(await cli("remove", "Oat milk").status == 0)
        #expect(try await cli.items().map { $0["name"] as! String } == ["Bananas"])
        #expect(await cli("check", "bananas").status == 0)
        #expect(await cli("clear-checked").stdout == "Removed 1 checked item.\n")
        #expect(try await cli.items().isEmpty)
        #expect(cli.entries == ["BananaList.json"], "no temp or lock file is left behind")
    }

    @Test("edit --name onto another item's name is refused with exit 4, as add refuses a second one; --duplicate insists")
    func renameOntoAnotherName() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk", "Eggs", "--section", "Dairy")
        let refused = await cli("edit", "Eggs", "--name", "milk")
        #expect(refused.status == 4)
        #expect(refused.stderr.contains("another item is named Milk already"))
        #expect(try await cli.items().map { $0["name"] as! String }.sorted() == ["Eggs", "Milk"])
        #expect(await cli("edit", "Eggs", "--name", "milk", "--duplicate").status == 0)
        #expect(try await cli.items().map { $0["name"] as! String }.sorted() == ["Milk", "milk"])
    }

    @Test func jsonListHasVisibleItemsOnlyAndFilters() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk", "Eggs", "--section", "Dairy")
        await cli("add", "Apples", "--section", "Produce")
        await cli("remove", "Eggs")
        await cli("check", "Apples")
        #expect(try await cli.items().map { $0["name"] as! String }.sorted() == ["Apples", "Milk"])
        let unchecked = await cli("list", "--json", "--unchecked")
        #expect(unchecked.stdout.contains("Milk") && !unchecked.stdout.contains("Apples"))
        let dairy = await cli("list", "--section", "dairy")
        #expect(dairy.stdout.contains("Milk") && !dairy.stdout.contains("Apples"))
        let json = try JSONSerialization.jsonObject(with: Data(await cli("list", "--json").stdout.utf8)) as! [String: Any]
        #expect(json["sections"] as? [String] == ["Dairy", "Produce"])
        let first = (json["items"] as! [[String: Any]])[0]
        #expect(Set(first.keys) == ["id", "name", "amount", "section", "checked", "optional"])
    }

    @Test func addingANameAlreadyOnTheList() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        let again = await cli("add", "milk")
        #expect(again.status == 0)
        #expect(again.stdout.contains("already on the list"))
        #expect(try await cli.items().count == 1)
        await cli("check", "Milk")
        #expect(await cli("add", "Milk").stdout.contains("unchecked"))
        #expect(try await cli.items().map { $0["checked"] as! Bool } == [false])
        await cli("add", "Milk", "--duplicate")
        #expect(try await cli.items().count == 2)
        #expect(try await cli.items().first?["section"] as? String == "Dairy")
    }

    @Test func sectionsCommands() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("sections", "add", "Produce")
        await cli("sections", "add", "Dairy")
        await cli("sections", "add", "Bakery", "--after", "Produce")
        #expect(await cli("sections").stdout == "Produce (0/0 checked)\nBakery (0/0 checked)\nDairy (0/0 checked)\n")
        await cli("add", "Milk", "--section", "Dairy")
        #expect(await cli("sections", "rename", "Dairy", "Fridge").status == 0)
        #expect(try await cli.items().first?["section"] as? String == "Fridge")
        await cli("sections", "move", "Fridge", "--to", "1")
        #expect(await cli("sections").stdout.hasPrefix("Fridge (0/1 checked)\n"))
        let refused = await cli("sections", "remove", "Fridge")
        #expect(refused.status == 4)
        #expect(refused.stderr.contains("--move-items-to"))
        #expect(await cli("sections", "remove", "Fridge", "--move-items-to", "Produce").status == 0)
        #expect(try await cli.items().first?["section"] as? String == "Produce")
        #expect(await cli("sections", "remove", "Nope").status == 2)
    }

    @Test func statusReportsFileVersionCountsAndLock() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli("status").stdout.contains("not created yet"))
        await cli("add", "Milk", "Eggs")
        await cli("check", "Milk")
        let json = try JSONSerialization.jsonObject(with: Data(await cli("status", "--json").stdout.utf8)) as! [String: Any]
        #expect(json["schemaVersion"] as? Int == 4)
        #expect(json["items"] as? Int == 2 && json["checked"] as? Int == 1)
        #expect(json["file"] as? String == cli.listPath)
        createTestFile(atPath: cli.listPath + ".lock", contents: Data(String(getpid()).utf8))
        #expect(await cli("status").stdout.contains("locked by pid \(getpid())"))
    }

    @Test func helpDocumentsExitCodes() async {
        let cli = CLI()
        defer { cli.cleanUp() }
        let help = await cli("--help")
        #expect(help.stdout.contains("EXIT CODES"))
        #expect(help.stdout.contains("3  the name matches several items"))
    }
}

@Suite struct CLIAddressingTests {
    @Test func ambiguousNamesListTheCandidates() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk", "--section", "Dairy", "--amount", "1 L")
        await cli("add", "Milk", "--section", "Baking", "--duplicate")
        let before = cli.fileBytes
        let result = await cli("check", "milk")
        #expect(result.status == 3)
        #expect(result.stderr.contains("matches 2 items"))
        #expect(result.stderr.contains("Milk (1 L) in Dairy, id "))
        #expect(result.stderr.contains("Milk in Baking, id "))
        #expect(cli.fileBytes == before)
        let id = try await cli.items().first { $0["section"] as? String == "Baking" }!["id"] as! String
        #expect(await cli("check", String(id.prefix(6))).status == 0)
    }

    @Test func unknownItemsSayWhatIsClose() async {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Bananas")
        let result = await cli("check", "banan")
        #expect(result.status == 0, "a unique start of a name is enough")
        let missing = await cli("remove", "Bananna")
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no item matches \"Bananna\"; close matches: \"Bananas\""))
    }

    @Test func severalItemsAreAllOrNothing() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk", "Eggs")
        #expect(await cli("check", "Milk", "Nope").status == 2)
        #expect(try await cli.items().allSatisfy { $0["checked"] as? Bool == false })
    }
}

@Suite struct CLIEdgeCaseTests {
    @Test func fileCanBeGivenBeforeTheCommand() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let other = cli.folder + "/Other.json"
        #expect(await cli.run(["--file", other, "add", "Milk"]).status == 0)
        #expect(await cli.run(["--file=" + other, "list"]).stdout.contains("Milk"))
        #expect(cli.fileBytes == nil, "the default file was not touched")
    }

    @Test func aNameGivenTwiceIsAddedOnce() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk", "milk")
        #expect(try await cli.items().count == 1)
    }

    @Test func noSectionIsCreatedWhenNothingIsAdded() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        await cli("add", "Milk", "--section", "Nowhere")
        #expect(await !cli("sections").stdout.contains("Nowhere"))
    }

    @Test func aCommandThatChangesNothingCreatesNoFile() async {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli("clear-checked").status == 0)
        #expect(cli.fileBytes == nil)
    }

    @Test func oddFieldValuesFromOtherWriters() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli.writeFile(#"{"sections": ["A"], "items": [{"id": "1", "name": "First", "section": "A"}, {"id": "2", "name": "Second", "section": "A", "sortOrder": null}]}"#)
        #expect(try await cli.items().map { $0["name"] as! String } == ["First", "Second"], "a null sortOrder keeps file order")
        cli.writeFile(#"{"schemaVersion": 0, "items": []}"#)
        #expect(await cli("add", "Milk").status == 5)
    }
}
