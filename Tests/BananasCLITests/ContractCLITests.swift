import Foundation
import Testing
import BananasTestSupport

/// The merge contract (issue 19's eight failures) through the real binary. Each device is a
/// folder with its own HOME (its own state folder and base); a sync engine is simulated by
/// copying the file between folders, replacing it as a sync engine does (a temp file renamed
/// over it), or leaving a device's version beside the winner as a conflict copy.
@Suite("The merge contract between devices (real binary)")
struct ContractCLITests {
    /// A device: a folder holding the list, and a HOME of its own.
    typealias Device = CLI

    static let copyName = "BananaList.sync-conflict-20261125-101530-ABCDEF7.json"

    /// A sync engine delivers `bytes` as the device's file: a temp file renamed over it.
    func deliver(_ bytes: Data, to device: Device) {
        let temp = device.folder + "/.syncthing.BananaList.json.tmp"
        createTestFile(atPath: temp, contents: bytes)
        rename(temp, device.listPath)
    }

    /// A sync engine settles a conflict for the other side: `winner`'s bytes become the file,
    /// the device's own version is kept beside it as a conflict copy.
    func settle(_ device: Device, winner: Data) {
        rename(device.listPath, device.folder + "/" + Self.copyName)
        deliver(winner, to: device)
    }

    /// A second device that got the first's file (and has no state of its own yet).
    func pair(_ a: Device) -> Device {
        let b = Device()
        deliver(a.fileBytes!, to: b)
        return b
    }

    /// A command that writes (a no-op uncheck): only writers merge conflict copies into the
    /// file (read commands show them merged and leave them), as a running instance would.
    func write(_ device: Device, _ name: String) async {
        #expect(await device("uncheck", name).status == 0)
    }

    func names(_ device: Device) async throws -> Set<String> { Set(try await device.items().map { $0["name"] as! String }) }

    func item(_ device: Device, _ name: String) async throws -> [String: Any]? {
        try await device.items().first { $0["name"] as? String == name }
    }

    func statusJSON(_ device: Device, clockOffset: Int64 = 0) async throws -> [String: Any] {
        let result = await device.run(["status", "--json"], clockOffset: clockOffset)
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    // MARK: 1. A stale copy deletes nothing

    @Test("1: a stale save delivered again, over the file or as a conflict copy, deletes no item added since")
    func staleCopyDeletesNothing() async throws {
        let a = Device()
        defer { a.cleanUp() }
        #expect(await a("add", "Milk").status == 0)
        let c = pair(a)
        defer { c.cleanUp() }
        #expect(await c("add", "Eggs").status == 0)
        let stale = c.fileBytes!
        deliver(stale, to: a)
        #expect(await a("add", "Tea", "Bread").status == 0)

        // The sync engine delivers C's old save again.
        deliver(stale, to: a)
        #expect(try await names(a) == ["Milk", "Eggs", "Tea", "Bread"])
        #expect(await a("add", "Jam").status == 0)
        #expect(try await names(a) == ["Milk", "Eggs", "Tea", "Bread", "Jam"])
        #expect(await a("deleted").stdout.contains("Tea") == false, "nothing was deleted")

        // And again, as a conflict copy beside the file.
        createTestFile(atPath: a.folder + "/" + Self.copyName, contents: stale)
        #expect(try await names(a) == ["Milk", "Eggs", "Tea", "Bread", "Jam"])
        await write(a, "Milk")
        #expect(try await names(a) == ["Milk", "Eggs", "Tea", "Bread", "Jam"])
        #expect(a.entries == ["BananaList.json"], "the copy is merged away")
        let deleted = await a("deleted")
        #expect(!deleted.stdout.contains("Tea") && !deleted.stdout.contains("Jam"), "\(deleted.stdout)")
    }

    // MARK: 2. Clocks never freeze a field

    @Test("2: a field stamped by a clock 2 hours or 100 years ahead is changed by the CLI here; status names the skew",
          arguments: [Int64(2 * 3_600_000), Int64(100) * 365 * 86_400_000])
    func aFastClockFreezesNothing(ahead: Int64) async throws {
        let a = Device()
        defer { a.cleanUp() }
        #expect(await a("add", "Milk", "--amount", "1").status == 0)
        let b = pair(a)
        defer { b.cleanUp() }
        #expect(await b.run(["edit", "Milk", "--amount", "2"], clockOffset: ahead).status == 0)
        deliver(b.fileBytes!, to: a)
        #expect(try await item(a, "Milk")?["amount"] as? String == "2")

        let changed = await a("edit", "Milk", "--amount", "3")
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(try await item(a, "Milk")?["amount"] as? String == "3", "the edit took effect")
        #expect(await a("check", "Milk").status == 0)
        #expect(try await item(a, "Milk")?["checked"] as? Bool == true)
        let text = await a("status").stdout
        #expect(text.contains("clock skew: a stamp in the list is"), "\(text)")
        let skew = try #require(try await statusJSON(a)["clockSkew"] as? [String: Any])
        let seconds = try #require(skew["aheadSeconds"] as? Double)
        #expect(abs(seconds - Double(ahead / 1000)) < 120, "\(seconds)")
        #expect(skew["replica"] as? String != nil)

        // Back on the fast device, the later edit stands too.
        deliver(a.fileBytes!, to: b)
        #expect(try await item(b, "Milk")?["amount"] as? String == "3")
    }

    @Test("2: a device whose clock is 2 hours behind changes what a device with the right time wrote, and says so in status")
    func aSlowClockFreezesNothing() async throws {
        let behind: Int64 = -2 * 3_600_000
        let a = Device()
        defer { a.cleanUp() }
        #expect(await a("add", "Milk", "--amount", "1").status == 0)
        let b = pair(a)
        defer { b.cleanUp() }
        let changed = await b.run(["edit", "Milk", "--amount", "2"], clockOffset: behind)
        #expect(changed.status == 0, "\(changed.stderr)")
        let listed = await b.run(["list", "--json"], clockOffset: behind)
        let list = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as! [String: Any]
        #expect((list["items"] as! [[String: Any]]).first?["amount"] as? String == "2", "the edit took effect")
        let skew = try #require(try await statusJSON(b, clockOffset: -2 * 3_600_000)["clockSkew"] as? [String: Any],
                                "the slow device sees stamps ahead of its clock")
        #expect((skew["aheadSeconds"] as? Double ?? 0) > 3_600, "two hours behind, less the time the test took")

        deliver(b.fileBytes!, to: a)
        #expect(try await item(a, "Milk")?["amount"] as? String == "2", "the slow device's edit reaches the others")
        #expect(await a("edit", "Milk", "--amount", "3").status == 0)
        deliver(a.fileBytes!, to: b)
        #expect(await b.run(["edit", "Milk", "--amount", "4"], clockOffset: behind).status == 0)
        deliver(b.fileBytes!, to: a)
        #expect(try await item(a, "Milk")?["amount"] as? String == "4")
    }

    // MARK: 3. Edit vs delete is causal

    @Test("3: an offline edit the deleter never saw keeps the row, though the delete came later by the clock")
    func offlineEditBeatsALaterDelete() async throws {
        let a = Device()
        defer { a.cleanUp() }
        #expect(await a("add", "Milk", "Eggs").status == 0)
        let b = pair(a)
        defer { b.cleanUp() }
        #expect(await b("edit", "Milk", "--amount", "2 L").status == 0)  // offline
        usleep(20_000)
        #expect(await a("remove", "Milk").status == 0)  // later by the wall clock

        // A's save wins the sync conflict on B; B's version is kept as a copy.
        settle(b, winner: a.fileBytes!)
        #expect(try await item(b, "Milk")?["amount"] as? String == "2 L")
        await write(b, "Eggs")
        #expect(try await names(b) == ["Milk", "Eggs"])
        deliver(b.fileBytes!, to: a)
        #expect(try await item(a, "Milk")?["amount"] as? String == "2 L")
        #expect(await !a("deleted").stdout.contains("Milk"))

        // A delete that saw the edit deletes.
        #expect(await a("remove", "Milk").status == 0)
        deliver(a.fileBytes!, to: b)
        #expect(try await names(b) == ["Eggs"])
    }

    // MARK: 4. Sections merge per section

    @Test("4: sections changed on two devices apart: a new section, a move and a rename all survive; the rename brings back no deleted item")
    func sectionsMergePerSection() async throws {
        let a = Device()
        defer { a.cleanUp() }
        #expect(await a("add", "Apples", "--section", "Produce").status == 0)
        #expect(await a("add", "Milk", "Cheese", "--section", "Dairy").status == 0)
        #expect(await a("add", "Bread", "--section", "Bakery").status == 0)
        let b = pair(a)
        defer { b.cleanUp() }
        #expect(await a("sections", "add", "Frozen").status == 0)
        #expect(await a("sections", "move", "Bakery", "--to", "1").status == 0)
        #expect(await a("remove", "Cheese").status == 0)
        #expect(await b("sections", "rename", "Dairy", "Dairy & eggs").status == 0)

        func sections(_ device: Device) async throws -> [String] {
            let listed = await device("sections", "--json")
            let object = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as! [String: Any]
            return (object["sections"] as! [[String: Any]]).map { $0["name"] as! String }
        }
        func check(_ device: Device) async throws {
            #expect(try await sections(device) == ["Bakery", "Produce", "Dairy & eggs", "Frozen"])
            #expect(try await names(device) == ["Apples", "Milk", "Bread"], "Cheese stays deleted")
            #expect(try await item(device, "Milk")?["section"] as? String == "Dairy & eggs")
            #expect(await device("conflicts").stdout.contains("No conflicts await review."))
        }
        // B's save wins the sync conflict on A; A's version is kept as a copy.
        settle(a, winner: b.fileBytes!)
        try await check(a)
        await write(a, "Apples")
        deliver(a.fileBytes!, to: b)
        try await check(b)
    }

    // MARK: 5. Every lost value is reviewable on every device

    @Test("5: the device whose value lost sees it in bananas conflicts, though the other device merged it")
    func theLosingDeviceSeesTheConflict() async throws {
        let a = Device()
        defer { a.cleanUp() }
        #expect(await a("add", "Oat milk").status == 0)
        let b = pair(a)
        defer { b.cleanUp() }
        #expect(await a("edit", "Oat milk", "--amount", "1 L").status == 0)
        usleep(20_000)
        #expect(await b("edit", "Oat milk", "--amount", "2 L").status == 0)

        // B merges A's version (it arrives as a conflict copy); then B's file reaches A.
        createTestFile(atPath: b.folder + "/" + Self.copyName, contents: a.fileBytes!)
        #expect(try await item(b, "Oat milk")?["amount"] as? String == "2 L")
        await write(b, "Oat milk")
        settle(a, winner: b.fileBytes!)
        #expect(try await item(a, "Oat milk")?["amount"] as? String == "2 L")
        let listed = await a("conflicts")
        #expect(listed.stdout.contains(#"Oat milk · amount: kept "2 L", lost "1 L""#), "\(listed.stdout)")
        #expect(await a("status").stdout.contains("state: conflict"))
        #expect(await b("conflicts").stdout.contains(#"lost "1 L""#))

        // Restored on A, it is settled on B too.
        #expect(await a("conflicts", "restore", String(listed.stdout.prefix(8))).status == 0)
        deliver(a.fileBytes!, to: b)
        #expect(try await item(b, "Oat milk")?["amount"] as? String == "1 L")
        #expect(await b("conflicts").stdout.contains("No conflicts await review."))
    }

    // MARK: 6. Get Bananas and bananas

    /// The Get Bananas app's whole-list save: version-1 keys only, no stamps.
    func phoneSave(of bytes: Data, _ change: (inout [[String: Any]]) -> Void) throws -> Data {
        let object = try JSONSerialization.jsonObject(with: bytes) as! [String: Any]
        var items = (object["items"] as! [[String: Any]]).map { item in
            ["id", "name", "amount", "section", "optional", "checked"].reduce(into: [String: Any]()) { $0[$1] = item[$1] }
        }
        change(&items)
        return try JSONSerialization.data(withJSONObject: ["sections": object["sections"]!, "items": items])
    }

    @Test("6a: a phone's save that wins a sync conflict loses no item added here offline and reverts no edit to a row it never touched")
    func aPhoneSaveWinningASyncConflict() async throws {
        let a = Device()
        defer { a.cleanUp() }
        #expect(await a("add", "Milk", "Eggs", "--section", "Shop").status == 0)
        // The phone saves what it read (it now holds both rows), bananas takes it in.
        deliver(try phoneSave(of: a.fileBytes!) { _ in }, to: a)
        #expect(await a("add", "Bread", "--section", "Shop").status == 0)
        let phoneRead = a.fileBytes!
        // Offline here: a new item and an edit of a row the phone will not touch.
        #expect(await a("add", "Tea", "--section", "Shop").status == 0)
        #expect(await a("edit", "Eggs", "--amount", "12").status == 0)
        // The phone checks Milk and its save wins the sync conflict (this device's save is gone).
        let phone = try phoneSave(of: phoneRead) { items in
            items[items.firstIndex { $0["name"] as? String == "Milk" }!]["checked"] = true
        }
        deliver(phone, to: a)

        #expect(try await names(a) == ["Milk", "Eggs", "Bread", "Tea"], "the item added offline stays")
        #expect(try await item(a, "Milk")?["checked"] as? Bool == true, "the phone's edit is taken")
        #expect(try await item(a, "Eggs")?["amount"] as? String == "12", "the phone never touched Eggs")
    }

    @Test("6c: a sync engine replacing the file by delete-then-rename under a running instance brings back nothing the phone deleted")
    func deleteThenRenameUnderARunningInstance() async throws {
        let a = Device()
        defer { a.cleanUp() }
        #expect(await a("add", "Milk", "Eggs", "--section", "Shop").status == 0)
        deliver(try phoneSave(of: a.fileBytes!) { _ in }, to: a)  // the phone holds both rows
        #expect(await a("add", "Bread", "--section", "Shop").status == 0)
        let session = try SessionProcess(a)
        defer { session.stop() }
        #expect(try session.names() == ["Milk", "Eggs", "Bread"])

        // The phone deletes Eggs; the sync engine removes the file, then renames the new one in.
        let phone = try phoneSave(of: a.fileBytes!) { $0.removeAll { $0["name"] as? String == "Eggs" } }
        let temp = a.folder + "/.syncthing.BananaList.json.tmp"
        createTestFile(atPath: temp, contents: phone)
        unlink(a.listPath)
        usleep(100_000)
        rename(temp, a.listPath)

        _ = try session.wait(for: "the phone's delete") { _ in (try? session.names()) == ["Milk", "Bread"] }
        try session.send("add", "Tea")
        try session.waitForState("synced")
        #expect(try await names(a) == ["Milk", "Bread", "Tea"], "Eggs stays deleted")
        usleep(300_000)
        #expect(try session.names() == ["Milk", "Bread", "Tea"])
        try session.quit()
    }
}

/// Failure 7: two editors side by side (split view) on one list.
@Suite("The merge contract in split view (editor in tmux)", .serialized, .enabled(if: Tmux.isAvailable, "tmux is not installed"))
struct ContractSplitViewTests {
    func name(_ cli: CLI) async -> String? { (try? await cli.items())?.first?["name"] as? String }

    /// Waits (up to 5 s) for the file's only item to be named `expected`.
    func fileNames(_ cli: CLI, _ expected: String) async -> Bool {
        let deadline = Date().addingTimeInterval(5)
        repeat {
            if await name(cli) == expected { return true }
            try? await Task.sleep(for: .seconds(0.05))
        } while Date() < deadline
        return false
    }

    /// Renames the item under the cursor through the edit prompt (name, then amount).
    func rename(_ tmux: Tmux, pane: String, to name: String) {
        tmux.keys("g", "j", "e", "C-u", pane: pane)
        tmux.type(name, pane: pane)
        tmux.keys("Enter", "Enter", pane: pane)
    }

    @Test("7: rename on the left, rename on the right, undo on the left: refused with a message, the right's name kept")
    func undoNeverOverwritesTheOtherPane() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Garlic", "--section", "Produce")
        let tmux = try Tmux(cli, width: 120, height: 20)
        let left = tmux.firstPane
        let right = tmux.splitRight()
        #expect(tmux.waitFor("Garlic", pane: left) && tmux.waitFor("Garlic", pane: right))

        rename(tmux, pane: left, to: "Garlic bulb")
        #expect(await fileNames(cli, "Garlic bulb"))
        #expect(tmux.waitFor("Garlic bulb", pane: right))
        rename(tmux, pane: right, to: "Red garlic")
        #expect(await fileNames(cli, "Red garlic"))
        #expect(tmux.waitFor("Red garlic", pane: left))

        tmux.keys("u", pane: left)
        // Named as it is now, never by its id.
        #expect(tmux.waitFor("Cannot undo edit Red garlic", pane: left), "\(tmux.screen(left))")
        try? await Task.sleep(for: .seconds(0.5))
        #expect(await name(cli) == "Red garlic", "nothing lost")
        #expect(tmux.screen(left).contains("Red garlic") && tmux.screen(right).contains("Red garlic"))
        #expect(await cli("conflicts").stdout.contains("No conflicts await review."), "the right saw the left's name: no conflict")
    }

    /// Issue 38, failure 9: undo compares stamps, not text.
    @Test("9: the right renames to the very name the left gave; undo on the left is refused, the right's edit kept")
    func undoRefusesTheSameTextFromTheOtherPane() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Garlic", "--section", "Produce")
        let tmux = try Tmux(cli, width: 120, height: 20)
        let left = tmux.firstPane
        let right = tmux.splitRight()
        #expect(tmux.waitFor("Garlic", pane: left) && tmux.waitFor("Garlic", pane: right))

        rename(tmux, pane: left, to: "Garlic bulb")
        #expect(await fileNames(cli, "Garlic bulb"))
        #expect(tmux.waitFor("Garlic bulb", pane: right))
        rename(tmux, pane: right, to: "Red garlic")
        #expect(await fileNames(cli, "Red garlic"))
        #expect(tmux.waitFor("Red garlic", pane: left))
        rename(tmux, pane: right, to: "Garlic bulb")
        #expect(await fileNames(cli, "Garlic bulb"))
        #expect(tmux.waitFor("Garlic bulb", pane: left), "the left holds the right's rename: the same text it wrote")

        tmux.keys("u", pane: left)
        #expect(tmux.waitFor("Cannot undo", pane: left), "\(tmux.screen(left))")
        try? await Task.sleep(for: .seconds(0.5))
        #expect(await name(cli) == "Garlic bulb", "the right's rename stays")
    }

    @Test("9: left renames, right renames, left renames again; two undos on the left: the second is refused, the right's name kept")
    func undoingFurtherBackNeverOverwritesTheOtherPane() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Garlic", "--section", "Produce")
        let tmux = try Tmux(cli, width: 120, height: 20)
        let left = tmux.firstPane
        let right = tmux.splitRight()
        #expect(tmux.waitFor("Garlic", pane: left) && tmux.waitFor("Garlic", pane: right))

        rename(tmux, pane: left, to: "Garlic bulb")
        #expect(await fileNames(cli, "Garlic bulb"))
        #expect(tmux.waitFor("Garlic bulb", pane: right))
        rename(tmux, pane: right, to: "Red garlic")
        #expect(await fileNames(cli, "Red garlic"))
        #expect(tmux.waitFor("Red garlic", pane: left))
        rename(tmux, pane: left, to: "Big garlic")
        #expect(await fileNames(cli, "Big garlic"))

        tmux.keys("u", pane: left)
        #expect(await fileNames(cli, "Red garlic"), "the first undo sets the right's name back")
        tmux.keys("u", pane: left)
        #expect(tmux.waitFor("Cannot undo", pane: left), "\(tmux.screen(left))")
        try? await Task.sleep(for: .seconds(0.5))
        #expect(await name(cli) == "Red garlic", "the second would overwrite the right's name: refused")
    }

    @Test("7: a rename prompt opened on the left, a rename on the right, the prompt saved: the right's name is a conflict to review")
    func aPromptSavedOverAnotherPanesRename() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Garlic", "--section", "Produce")
        let tmux = try Tmux(cli, width: 120, height: 20)
        let left = tmux.firstPane
        let right = tmux.splitRight()
        #expect(tmux.waitFor("Garlic", pane: left) && tmux.waitFor("Garlic", pane: right))

        tmux.keys("g", "j", "e", "C-u", pane: left)  // the prompt is open on "Garlic"
        #expect(tmux.waitFor("Name:", pane: left))
        rename(tmux, pane: right, to: "Garlic clove")
        #expect(await fileNames(cli, "Garlic clove"))
        tmux.type("Big garlic", pane: left)
        tmux.keys("Enter", "Enter", pane: left)
        #expect(await fileNames(cli, "Big garlic"))
        let conflicts = await cli("conflicts")
        #expect(conflicts.stdout.contains(#"Big garlic · name: kept "Big garlic", lost "Garlic clove""#), "\(conflicts.stdout)")
    }
}
