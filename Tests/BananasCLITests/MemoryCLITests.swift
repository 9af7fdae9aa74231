import Foundation
import Testing

/// Remembered items from the command line (issue 24), with the real binary.
@Suite struct MemoryCLITests {
    /// Shops as a user does: add to sections, check, clear the checked ones.
    func shop(_ cli: CLI, _ items: [(String, String, String)]) async {
        for (name, section, amount) in items {
            var arguments = ["add", name, "--section", section]
            if !amount.isEmpty { arguments += ["--amount", amount] }
            #expect(await cli.run(arguments).status == 0)
        }
        #expect(await cli.run(["check"] + items.map(\.0)).status == 0)
        #expect(await cli("clear-checked").status == 0)
    }

    func names(_ cli: CLI, section: String? = nil) async throws -> [String] {
        try await cli.items().filter { section == nil || $0["section"] as? String == section }.map { $0["name"] as! String }
    }

    @Test func whatWasBoughtIsUsualAndComesBackWhereItWas() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await shop(cli, [("Milk", "Dairy", "2 l"), ("Sourdough", "Bakery", "")])
        let usual = await cli("usual")
        #expect(usual.status == 0)
        #expect(usual.stdout.contains("Milk (2 l) · Dairy · bought once, last today"), "\(usual.stdout)")
        #expect(usual.stdout.contains("Sourdough · Bakery"))
        // Typed in lower case, with no section: filed as last time, and said so.
        let added = await cli("add", "milk")
        #expect(added.stdout == "Milk added to Dairy (as last time)\n")
        let milk = try #require(try await cli.items().first)
        #expect(milk["section"] as? String == "Dairy" && milk["amount"] as? String == "2 l")
        #expect(await !cli("usual").stdout.contains("Milk"), "on the list: not among the usual items to add")
        // A name never bought goes to the catalogue's section, or to Other, and says why.
        #expect(await cli("add", "Saffron").stdout == "Saffron added to Spices (usual for saffron)\n")
        #expect(await cli("add", "Zorblax").stdout == "Zorblax added to Other (not in the catalogue)\n")
        // --add asks first; without a terminal to answer on, nothing happens.
        let unasked = await cli("usual", "--add")
        #expect(unasked.status == 64 && unasked.stderr.contains("--yes"))
        #expect(try await names(cli).sorted() == ["Milk", "Saffron", "Zorblax"])
        let put = await cli("usual", "--add", "--yes")
        #expect(put.status == 0 && put.stdout == "Sourdough added to Bakery (as last time)\n")
        #expect(try await names(cli, section: "Bakery") == ["Sourdough"])
        // JSON for scripts.
        await cli("remove", "Sourdough")
        let json = try JSONSerialization.jsonObject(with: Data(await cli("usual", "--json").stdout.utf8)) as! [[String: Any]]
        #expect(json.map { $0["name"] as! String } == ["Sourdough"])
        #expect(json.first?["timesBought"] as? Int == 1 && json.first?["section"] as? String == "Bakery")
    }

    @Test func aDeviceThatReceivedTheListFilesRememberedItemsTheSameWay() async throws {
        let laptop = CLI(), phone = CLI()
        defer { laptop.cleanUp(); phone.cleanUp() }
        await shop(laptop, [("Greek yogurt", "Dairy", "500 g"), ("Lemons", "Produce", "3")])
        // A sync engine copies the file to the other device, whose bananas never saw it.
        try laptop.fileBytes!.write(to: URL(fileURLWithPath: phone.listPath))
        #expect(await phone("add", "greek yogurt", "lemons").stdout == "Greek yogurt added to Dairy (as last time)\nLemons added to Produce (as last time)\n")
        let usual = await phone("usual").stdout
        #expect(usual.contains("Nothing") || !usual.contains("Lemons"))
    }

    @Test func checkedItemsTheAppClearsCountAsBought() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Coffee", "--section", "Pantry")
        await cli("add", "Tea", "--section", "Pantry")
        // The Get Bananas app: first a whole-list save (it now holds every row), then the
        // shopper checks Coffee (a save), and clears the checked items (another).
        func appSave(_ edit: (inout [[String: Any]]) -> Void) throws {
            let file = try JSONSerialization.jsonObject(with: cli.fileBytes!) as! [String: Any]
            var items = (file["items"] as! [[String: Any]]).map { item in
                ["id", "name", "amount", "section", "optional", "checked"].reduce(into: [String: Any]()) { $0[$1] = item[$1] }
            }
            edit(&items)
            try JSONSerialization.data(withJSONObject: ["sections": file["sections"]!, "items": items]).write(to: URL(fileURLWithPath: cli.listPath))
        }
        try appSave { _ in }
        #expect(await cli("add", "Jam", "--section", "Pantry").status == 0)
        try appSave { items in items[items.firstIndex { $0["name"] as? String == "Coffee" }!]["checked"] = true }
        // A bananas that writes meanwhile (a running editor would) sees Coffee checked.
        #expect(await cli("add", "Rice", "--section", "Pantry").status == 0)
        try appSave { items in items.removeAll { $0["checked"] as? Bool == true } }
        #expect(try await names(cli) == ["Tea", "Jam", "Rice"])
        let usual = await cli("usual")
        #expect(usual.stdout.contains("Coffee · Pantry · bought once"), "\(usual.stdout)")
        #expect(await cli("add", "coffee").stdout == "Coffee added to Pantry (as last time)\n")
    }

    @Test func forgettingNamesAndEverything() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await shop(cli, [("Milk", "Dairy", ""), ("Cake", "Bakery", ""), ("Tea", "Pantry", "")])
        await cli("add", "Tea")
        let forgot = await cli("forget", "cake")
        #expect(forgot.status == 0 && forgot.stdout == "Forgot cake.\n")
        #expect(await !cli("usual").stdout.contains("Cake"))
        #expect(await cli("add", "cake").stdout == "cake added to Bakery (usual for cake)\n", "forgotten: no section from memory")
        let unknown = await cli("forget", "Caviar")
        #expect(unknown.status == 2 && unknown.stderr.contains("Caviar is not remembered"))
        let oneUnknown = await cli("forget", "milk", "Caviar")
        #expect(oneUnknown.status == 2 && oneUnknown.stderr.contains("Caviar is not remembered"))
        #expect(await cli("usual").stdout.contains("Milk"), "a forget naming an unknown item forgets nothing")
        #expect(await cli("forget").status == 64)
        #expect(await cli("forget", "--all").status == 0)
        #expect(await cli("usual").stdout.hasPrefix("No usual items"))
        #expect(try await names(cli).sorted() == ["Tea", "cake"], "the list itself is untouched")
        await cli("remove", "cake")
        #expect(await cli("add", "milk").stdout == "milk added to Dairy (usual for milk)\n")
    }

    @Test func shellCompletionOffersRememberedNames() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await shop(cli, [("Milk", "Dairy", ""), ("Mint", "Produce", ""), ("Bread", "Bakery", "")])
        await cli("add", "Mint")
        let offered = await cli.run(["---completion", "add", "--", "positional@0", "4", "1", "bananas", "add", "--file", cli.listPath, "m"])
        #expect(offered.stdout == "Milk\n", "names that start so, not on the list")
        let script = await cli("--generate-completion-script", "bash")
        #expect(script.stdout.contains("---completion add"))
    }

    @Test(.enabled(if: Tmux.isAvailable)) func usualAddAsksOnATerminal() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await shop(cli, [("Milk", "Dairy", ""), ("Eggs", "Dairy", "12")])
        let declined = try Tmux(cli, width: 80, height: 12, arguments: ["usual", "--add"])
        #expect(declined.waitFor("[y/N]"))
        declined.type("n")
        declined.keys("Enter")
        #expect(declined.waitForExit() == .status(0))
        #expect(try await names(cli).isEmpty, "answered no: nothing added")
        let accepted = try Tmux(cli, width: 80, height: 12, arguments: ["usual", "--add"])
        #expect(accepted.waitFor("Add these 2 items to the list? [y/N]"))
        #expect(accepted.screen().contains("Eggs (12) · Dairy · bought once"))
        accepted.type("y")
        accepted.keys("Enter")
        #expect(accepted.waitFor("added to Dairy (as last time)"))
        #expect(accepted.waitForExit() == .status(0))
        #expect(try await names(cli).sorted() == ["Eggs", "Milk"])
    }
}
