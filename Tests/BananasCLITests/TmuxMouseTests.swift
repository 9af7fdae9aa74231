import Foundation
import Testing
import BananasTestSupport

/// The mouse in the real editor: SGR reports written to the pane as a terminal sends them.
@Suite("Editor in tmux: the mouse", .serialized, .enabled(if: Tmux.isAvailable, "tmux is not installed"))
struct TmuxMouseTests {
    /// A press and release of the left button at a cell (1-based, as the report counts), or
    /// a turn of the wheel.
    func click(_ tmux: Tmux, column: Int, row: Int, pane: String? = nil) {
        tmux.type("\u{1B}[<0;\(column);\(row)M\u{1B}[<0;\(column);\(row)m", pane: pane)
    }

    func wheel(_ tmux: Tmux, down: Bool, pane: String? = nil) {
        tmux.type("\u{1B}[<\(down ? 65 : 64);10;5M", pane: pane)
    }

    @Test("click a box to check, a header to collapse, the wheel to move; at 100 and 49 columns")
    func clicks() async throws {
        for width in [100, 49] {
            let cli = await CLI.seeded()
            defer { cli.cleanUp() }
            let tmux = try Tmux(cli, width: width, height: 16)
            #expect(tmux.waitFor("Butter"))
            let lines = tmux.screen().split(separator: "\n", omittingEmptySubsequences: false)
            let bananas = try #require(lines.firstIndex { $0.contains("Bananas") }) + 1
            click(tmux, column: 4, row: bananas)
            #expect(tmux.waitFor("[x] Bananas"), "\(tmux.screen())")
            #expect(await waitUntil { await cli.item("Bananas")?["checked"] as? Bool == true })
            let dairy = try #require(lines.firstIndex { $0.contains("Dairy") }) + 1
            click(tmux, column: 4, row: dairy)
            #expect(tmux.waitForScreen { $0.contains("▸ Dairy") && !$0.contains("Butter") } != nil, "\(tmux.screen())")
            click(tmux, column: 4, row: dairy)
            #expect(tmux.waitFor("Butter"))
            // The wheel moves the cursor three rows (Produce, Bananas, Dairy, Oat milk); Space
            // then checks where it landed.
            tmux.keys("g")
            wheel(tmux, down: true)
            tmux.keys("Space")
            #expect(tmux.waitFor("[x] Oat milk"), "\(tmux.screen())")
            tmux.keys("q")
            #expect(tmux.waitForExit() == .status(0))
            // The terminal was told to stop reporting the mouse.
            #expect(tmux.info("#{mouse_any_flag}") == "0")
        }
    }

    @Test("a click on the key bar presses its key: \"a add\" opens the add prompt, \"? help\" the help")
    func keyBarClicks() async throws {
        let cli = await CLI.seeded()
        defer { cli.cleanUp() }
        let tmux = try Tmux(cli, width: 100, height: 16)
        #expect(tmux.waitFor("Butter"))
        let lines = tmux.screen().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let bar = try #require(lines.firstIndex { $0.hasPrefix("a add  Space check") })
        click(tmux, column: 3, row: bar + 1)  // on "add"
        #expect(tmux.waitFor("Add to Produce:"), "\(tmux.screen())")
        tmux.keys("Escape")
        #expect(tmux.waitForScreen { !$0.contains("Add to Produce:") } != nil)
        let help = try #require(lines[bar].range(of: "? help"))
        click(tmux, column: lines[bar].distance(from: lines[bar].startIndex, to: help.lowerBound) + 1, row: bar + 1)
        #expect(tmux.waitFor("Keys"), "\(tmux.screen())")
        tmux.keys("q")
    }

    @Test("--no-mouse leaves the mouse to the terminal")
    func noMouse() async throws {
        let cli = await CLI.seeded()
        defer { cli.cleanUp() }
        let tmux = try Tmux(cli, arguments: ["--no-mouse"])
        #expect(tmux.waitFor("Butter"))
        #expect(tmux.info("#{mouse_any_flag}") == "0")
        let with = try Tmux(cli)
        #expect(with.waitFor("Butter"))
        #expect(with.info("#{mouse_any_flag}") == "1")
    }
}
