import Foundation
import Testing
import BananasTestSupport

/// Remembered items in the real editor (issue 24): what was bought last week comes back from
/// the add prompt's suggestions and from the usual items view, each in its section.
@Suite("Remembered items in tmux", .serialized, .enabled(if: Tmux.isAvailable, "tmux is not installed"))
struct TmuxRememberedTests {
    @Test("a typo in the add prompt suggests last week's item; Tab, Enter files it as last time; U adds two more")
    func suggestAndUsual() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        // Last week's shop: added, checked, cleared (deleted rows the file keeps).
        await cli("add", "Bananas", "--section", "Produce")
        await cli("add", "Milk", "--section", "Dairy", "--amount", "1 l")
        await cli("add", "Eggs", "--section", "Dairy", "--amount", "12")
        await cli("add", "Coffee", "--section", "Pantry")
        await cli("check", "Milk", "Eggs", "Coffee")
        #expect(await cli("clear-checked").status == 0)
        #expect(try await cli.items().map { $0["name"] as? String } == ["Bananas"])

        let tmux = try Tmux(cli)
        #expect(tmux.waitFor("Bananas"))
        tmux.keys("a")
        #expect(tmux.waitFor("Add to Produce:"))
        tmux.type("mlik")
        let suggested = tmux.waitForScreen { screen in
            screen.split(separator: "\n").contains { $0.contains("Milk") && $0.contains("Dairy") && $0.contains("1×") }
        }
        #expect(suggested != nil, "\(tmux.screen())")
        tmux.keys("Tab", "Enter")
        #expect(tmux.waitFor("as last time"), "\(tmux.screen())")
        #expect(tmux.screen().contains("1 l"), "the usual amount, filled in")
        tmux.keys("Enter")
        #expect(tmux.waitFor("Milk added to Dairy (as last time)"), "\(tmux.screen())")
        #expect(await cli.fileHas("Milk") { $0?["section"] as? String == "Dairy" && $0?["amount"] as? String == "1 l" })
        tmux.keys("Enter")  // an empty name ends adding

        tmux.keys("U")
        #expect(tmux.waitFor("Usual items"), "\(tmux.screen())")
        #expect(tmux.waitForScreen { $0.contains("Eggs") && $0.contains("Coffee") } != nil)
        tmux.keys("Space", "Space")
        #expect(tmux.waitFor("2 marked"))
        tmux.keys("Enter")
        #expect(tmux.waitFor("Added 2 usual items"), "\(tmux.screen())")
        #expect(await cli.fileHas("Eggs") { $0?["section"] as? String == "Dairy" && $0?["amount"] as? String == "12" })
        #expect(await cli.fileHas("Coffee") { $0?["section"] as? String == "Pantry" })

        tmux.keys("q")
        #expect(tmux.waitForExit() == .status(0))
    }
}
