import Foundation
import Testing
import BananasTestSupport

@Suite struct CLIWorkflowTests {
    @Test func theReadmeWalkthrough() throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(cli("add", "Oat milk", "--amount", "2 L", "--section", "Dairy").status == 0)
        #expect(cli("add", "Bananas", "--section", "Produce", "--optional").status == 0)
        let listed = cli("list")
        #expect(listed.status == 0)
        #expect(listed.stdout == "Dairy (0/1 checked)\n  [ ] Oat milk · 2 L\n\nProduce (0/1 checked)\n  [ ] Bananas · optional\n")

        #expect(cli("check", "oat").stdout == "Checked Oat milk\n")
        #expect(cli("list").stdout.contains("[x] Oat milk · 2 L"))
        #expect(cli("edit", "Bananas", "--amount", "6", "--section", "Fruit").status == 0)
        let bananas = try #require(try cli.items().first { $0["name"] as? String == "Bananas" })
        #expect(bananas["amount"] as? String == "6")
        #expect(bananas["section"] as? String == "Fruit")
        #expect(bananas["optional"] as? Bool == true)

        #expect(cli("remove", "Oat milk").status == 0)
        #expect(try cli.items().map { $0["name"] as! String } == ["Bananas"])
        #expect(cli("check", "bananas").status == 0)
        #expect(cli("clear-checked").stdout == "Removed 1 checked item.\n")
        #expect(try cli.items().isEmpty)
        #expect(cli.entries == ["BananaList.json"], "no temp or lock file is left behind")
    }

    @Test func jsonListHasVisibleItemsOnlyAndFilters() throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli("add", "Milk", "Eggs", "--section", "Dairy")
        cli("add", "Apples", "--section", "Produce")
        cli("remove", "Eggs")
        cli("check", "Apples")
        #expect(try cli.items().map { $0["name"] as! String }.sorted() == ["Apples", "Milk"])
        let unchecked = cli("list", "--json", "--unchecked")
        #expect(unchecked.stdout.contains("Milk") && !unchecked.stdout.contains("Apples"))
        let dairy = cli("list", "--section", "dairy")
        #expect(dairy.stdout.contains("Milk") && !dairy.stdout.contains("Apples"))
        let json = try JSONSerialization.jsonObject(with: Data(cli("list", "--json").stdout.utf8)) as! [String: Any]
        #expect(json["sections"] as? [String] == ["Dairy", "Produce"])
        let first = (json["items"] as! [[String: Any]])[0]
        #expect(Set(first.keys) == ["id", "name", "amount", "section", "checked", "optional"])
    }

    @Test func addingANameAlreadyOnTheList() throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli("add", "Milk")
        let again = cli("add", "milk")
        #expect(again.status == 0)
        #expect(again.stdout.contains("already on the list"))
        #expect(try cli.items().count == 1)
        cli("check", "Milk")
        #expect(cli("add", "Milk").stdout.contains("unchecked"))
        #expect(try cli.items().map { $0["checked"] as! Bool } == [false])
        cli("add", "Milk", "--duplicate")
        #expect(try cli.items().count == 2)
        #expect(try cli.items().first?["section"] as? String == "Other")
    }

    @Test func sectionsCommands() throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli("sections", "add", "Produce")
        cli("sections", "add", "Dairy")
        cli("sections", "add", "Bakery", "--after", "Produce")
        #expect(cli("sections").stdout == "Produce (0/0 checked)\nBakery (0/0 checked)\nDairy (0/0 checked)\n")
        cli("add", "Milk", "--section", "Dairy")
        #expect(cli("sections", "rename", "Dairy", "Fridge").status == 0)
        #expect(try cli.items().first?["section"] as? String == "Fridge")
        cli("sections", "move", "Fridge", "--to", "1")
        #expect(cli("sections").stdout.hasPrefix("Fridge (0/1 checked)\n"))
        let refused = cli("sections", "remove", "Fridge")
        #expect(refused.status == 4)
        #expect(refused.stderr.contains("--move-items-to"))
        #expect(cli("sections", "remove", "Fridge", "--move-items-to", "Produce").status == 0)
        #expect(try cli.items().first?["section"] as? String == "Produce")
        #expect(cli("sections", "remove", "Nope").status == 2)
    }

    @Test func statusReportsFileVersionCountsAndLock() throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(cli("status").stdout.contains("not created yet"))
        cli("add", "Milk", "Eggs")
        cli("check", "Milk")
        let json = try JSONSerialization.jsonObject(with: Data(cli("status", "--json").stdout.utf8)) as! [String: Any]
        #expect(json["schemaVersion"] as? Int == 3)
        #expect(json["items"] as? Int == 2 && json["checked"] as? Int == 1)
        #expect(json["file"] as? String == cli.listPath)
        createTestFile(atPath: cli.listPath + ".lock", contents: Data(String(getpid()).utf8))
        #expect(cli("status").stdout.contains("locked by pid \(getpid())"))
    }

    @Test func helpDocumentsExitCodes() {
        let cli = CLI()
        defer { cli.cleanUp() }
        let help = cli("--help")
        #expect(help.stdout.contains("EXIT CODES"))
        #expect(help.stdout.contains("3  the name matches several items"))
    }
}

@Suite struct CLIAddressingTests {
    @Test func ambiguousNamesListTheCandidates() throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli("add", "Milk", "--section", "Dairy", "--amount", "1 L")
        cli("add", "Milk", "--section", "Baking", "--duplicate")
        let before = cli.fileBytes
        let result = cli("check", "milk")
        #expect(result.status == 3)
        #expect(result.stderr.contains("matches 2 items"))
        #expect(result.stderr.contains("Milk (1 L) in Dairy, id "))
        #expect(result.stderr.contains("Milk in Baking, id "))
        #expect(cli.fileBytes == before)
        let id = try cli.items().first { $0["section"] as? String == "Baking" }!["id"] as! String
        #expect(cli("check", String(id.prefix(6))).status == 0)
    }

    @Test func unknownItemsSayWhatIsClose() {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli("add", "Bananas")
        let result = cli("check", "banan")
        #expect(result.status == 0, "a unique start of a name is enough")
        let missing = cli("remove", "Bananna")
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no item matches \"Bananna\"; close matches: \"Bananas\""))
    }

    @Test func severalItemsAreAllOrNothing() throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli("add", "Milk", "Eggs")
        #expect(cli("check", "Milk", "Nope").status == 2)
        #expect(try cli.items().allSatisfy { $0["checked"] as? Bool == false })
    }
}

@Suite struct CLIEdgeCaseTests {
    @Test func fileCanBeGivenBeforeTheCommand() throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let other = cli.folder + "/Other.json"
        #expect(cli.run(["--file", other, "add", "Milk"]).status == 0)
        #expect(cli.run(["--file=" + other, "list"]).stdout.contains("Milk"))
        #expect(cli.fileBytes == nil, "the default file was not touched")
    }

    @Test func aNameGivenTwiceIsAddedOnce() throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli("add", "Milk", "milk")
        #expect(try cli.items().count == 1)
    }

    @Test func noSectionIsCreatedWhenNothingIsAdded() throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli("add", "Milk")
        cli("add", "Milk", "--section", "Nowhere")
        #expect(!cli("sections").stdout.contains("Nowhere"))
    }

    @Test func aCommandThatChangesNothingCreatesNoFile() {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(cli("clear-checked").status == 0)
        #expect(cli.fileBytes == nil)
    }

    @Test func oddFieldValuesFromOtherWriters() throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli.writeFile(#"{"sections": ["A"], "items": [{"id": "1", "name": "First", "section": "A"}, {"id": "2", "name": "Second", "section": "A", "sortOrder": null}]}"#)
        #expect(try cli.items().map { $0["name"] as! String } == ["First", "Second"], "a null sortOrder keeps file order")
        cli.writeFile(#"{"schemaVersion": 0, "items": []}"#)
        #expect(cli("add", "Milk").status == 5)
    }
}
