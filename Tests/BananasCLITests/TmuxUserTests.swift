import Foundation
import Testing
import BananasTestSupport

/// The editor in tmux as a demanding user drives it (issue 23): bursts of keys, a pane too
/// small to show anything, emoji made of several code points.
@Suite("Editor in tmux: what a user trips on", .serialized, .enabled(if: Tmux.isAvailable, "tmux is not installed"))
struct TmuxUserTests {
    @Test("a key and Ctrl-C in one burst: the key is applied and written before quitting")
    func burstBeforeCtrlC() async throws {
        for run in 1...3 {
            let cli = await CLI.seeded()
            defer { cli.cleanUp() }
            let tmux = try Tmux(cli)
            #expect(tmux.waitFor("Butter"))
            tmux.keys("Space", "C-c")  // one write to the terminal (the cursor starts on Bananas)
            #expect(tmux.waitForExit() == .status(0), "run \(run)")
            #expect(await cli.item("Bananas")?["checked"] as? Bool == true, "run \(run)")
            #expect(tmux.info("#{alternate_on}") == "0")
        }
    }

    @Test("while \"Too small\" shows, Space, d and y act on nothing; a resize brings the same list back")
    func tooSmall() async throws {
        let cli = await CLI.seeded()
        defer { cli.cleanUp() }
        let tmux = try Tmux(cli, width: 60, height: 16)
        #expect(tmux.waitFor("Butter"))
        tmux.keys("Tab")  // the Dairy header
        tmux.resize(width: 10, height: 4)
        #expect(tmux.waitFor("Too small"), "\(tmux.screen())")
        tmux.keys("Space", "d", "y", "X", "y")
        tmux.resize(width: 60, height: 16)
        let screen = tmux.waitForScreen { $0.contains("Butter") && $0.contains("Oat milk") }
        #expect(screen != nil, "\(tmux.screen())")
        #expect(screen?.contains("Remove") == false)
        let butter = await cli.item("Butter"), oatMilk = await cli.item("Oat milk")
        #expect(butter != nil && oatMilk != nil)
        tmux.keys("q")
        #expect(tmux.waitForExit() == .status(0))
    }

    @Test("a flag, a skin tone and a joined family show whole, and the row after stays clean")
    func emojiClusters() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Tea 👍🏽 👩‍👧 🇯🇵", "--section", "Drinks")
        await cli("add", "Water", "--section", "Drinks")
        let tmux = try Tmux(cli)
        let screen = tmux.waitForScreen { $0.contains("Water") }
        #expect(screen != nil)
        let lines = (screen ?? "").split(separator: "\n").map(String.init)
        let tea = lines.first { $0.contains("Tea") } ?? ""
        // Drawn safely: the skin tone and the family as their first emoji, the flag as its
        // letters (terminals count their widths differently); nothing dangling.
        #expect(tea.contains("[ ] Tea 👍 👩 JP"), "\(tea)")
        #expect(lines.contains { $0.hasPrefix("  [ ] Water") }, "\(lines)")
        // In the prompt too: typed one code point at a time, edited as one character each.
        tmux.keys("G", "a")
        tmux.type("👍🏽👩‍👧")
        tmux.keys("BSpace", "Enter", "Enter", "Escape")
        #expect(tmux.waitFor("[ ] 👍"), "\(tmux.screen())")
        let deadline = Date().addingTimeInterval(5)
        while await cli.item("👍🏽") == nil && Date() < deadline { try? await Task.sleep(for: .seconds(0.05)) }
        #expect(await cli.item("👍🏽") != nil)
    }
}

@Suite("Editor in tmux: a split pane", .serialized, .enabled(if: Tmux.isAvailable, "tmux is not installed"))
struct TmuxNarrowTests {
    @Test("at 49 columns a paused status bar abbreviates, keeping the pid and the queue; M shows the messages")
    func narrowStatus() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Bananas", "--section", "Produce")
        let tmux = try Tmux(cli, width: 49, height: 14)
        #expect(tmux.waitFor("Bananas"))
        // A live process (this test) holds a fresh lock: the check waits in the queue.
        let lock = cli.listPath + ".lock"
        try String(getpid()).write(toFile: lock, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: lock) }
        tmux.keys("j", "Space")
        let paused = tmux.waitForScreen { $0.contains("paused: lock pid \(getpid()) · 1 queued") }
        #expect(paused != nil, "\(tmux.screen())")
        try FileManager.default.removeItem(atPath: lock)
        #expect(tmux.waitFor("synced"), "\(tmux.screen())")
        tmux.keys("M")
        #expect(tmux.waitFor("Checked Bananas"))
        #expect(tmux.waitFor("Messages"))
    }
}

@Suite("Editor in tmux: fewer keystrokes", .serialized, .enabled(if: Tmux.isAvailable, "tmux is not installed"))
struct TmuxKeystrokeTests {
    @Test("key bar, ? for optional, = for the amount, a count, n between matches; at 100 and 49 columns")
    func keystrokes() async throws {
        for width in [100, 49] {
            let cli = CLI()
            defer { cli.cleanUp() }
            await cli("add", "Bananas", "--section", "Produce", "--amount", "6")
            await cli("add", "Apples", "--section", "Produce")
            await cli("add", "Oat milk", "--section", "Dairy")
            let tmux = try Tmux(cli, width: width, height: 16)
            #expect(tmux.waitFor("a add  Space check"), "\(tmux.screen())")
            // Add an optional item: the trailing ? marks it.
            tmux.keys("a")
            tmux.type("Avocados?")
            tmux.keys("Enter")
            tmux.type("3")
            tmux.keys("Enter", "Escape")
            #expect(await cli.fileHas("Avocados") { $0?["optional"] as? Bool == true && $0?["amount"] as? String == "3" })
            // = opens on the amount; typing replaces it.
            tmux.keys("g", "j", "=")
            #expect(tmux.waitFor("Amount for Bananas: 6"), "\(tmux.screen())")
            tmux.type("12")
            tmux.keys("Enter")
            #expect(await cli.fileHas("Bananas") { $0?["amount"] as? String == "12" })
            // 3j then Space: three rows down.
            tmux.keys("g", "3", "j", "Space")
            let checked = tmux.waitForScreen { $0.contains("[x]") }
            #expect(checked != nil)
            // n goes to the next match of a filter.
            tmux.keys("/")
            tmux.type("a")
            tmux.keys("Enter", "g", "n", "n", "Space")
            #expect(tmux.waitForScreen { $0.split(separator: "\n").filter { $0.contains("[x]") }.count >= 1 } != nil)
            tmux.keys("b")
            #expect(tmux.waitForScreen { !$0.contains("a add  Space check") } != nil)
            tmux.keys("q")
            #expect(tmux.waitForExit() == .status(0))
        }
    }
}

@Suite("Editor in tmux: a light terminal", .serialized, .enabled(if: Tmux.isAvailable, "tmux is not installed"))
struct TmuxLightTerminalTests {
    @Test("COLORFGBG saying the background is light: amounts are not yellow, the optional mark not cyan")
    func lightBackground() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Bananas", "--section", "Produce", "--amount", "6", "--optional")
        let light = try Tmux(cli, width: 60, environment: ["TERM": "screen", "COLORFGBG": "0;15"])
        #expect(light.waitFor("Bananas"))
        let styled = light.styledScreen()
        #expect(styled.contains("35m  6"), "\(styled)")
        #expect(!styled.contains("33m  6"), "\(styled)")
        #expect(!styled.contains("36m"), "\(styled)")
        let dark = try Tmux(cli, width: 60, environment: ["TERM": "screen", "COLORFGBG": "15;0"])
        #expect(dark.waitFor("Bananas"))
        #expect(dark.styledScreen().contains("33m  6"), "\(dark.styledScreen())")
    }

    @Test("no COLORFGBG, but the terminal answers OSC 11 with a light background: the light theme, also for colorblind")
    func askedTheTerminal() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Bananas", "--section", "Produce", "--amount", "6", "--optional")
        for (theme, amount) in [(nil, "35m  6"), ("colorblind", "38;5;130m  6")] as [(String?, String)] {
            // bananas starts once the pane's background is set (tmux answers OSC 11 with it).
            let ready = cli.folder + "/.ready-" + UUID().uuidString
            let tmux = try Tmux(cli, width: 60, program: ["/bin/sh", "-c", "until [ -e \"$0\" ]; do sleep 0.01; done; exec \"$@\"", ready, CLI.binary],
                                arguments: theme.map { ["--theme", $0] } ?? [], environment: ["TERM": "screen-256color"])
            tmux.run(["set-option", "-g", "window-style", "bg=white,fg=black"])
            FileManager.default.createFile(atPath: ready, contents: nil)
            #expect(tmux.waitFor("Bananas"))
            let styled = tmux.styledScreen()
            #expect(styled.contains(amount), "\(theme ?? "default"): \(styled)")
            #expect(!styled.contains("33m  6"), "\(styled)")
        }
    }
}

@Suite("Editor in tmux: a broken file", .serialized, .enabled(if: Tmux.isAvailable, "tmux is not installed"))
struct TmuxBrokenFileTests {
    @Test("an unparseable file: the editor says what is wrong as the CLI does, not that the list is empty")
    func unparseable() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli.writeFile("{ not json")
        let listed = await cli("list")
        #expect(listed.stderr.contains("invalid JSON") || listed.stderr.contains("is not a list bananas can read"), "\(listed.stderr)")
        let tmux = try Tmux(cli, width: 80, height: 16)
        let screen = tmux.waitForScreen { $0.contains("invalid JSON at line 1") }
        #expect(screen != nil, "\(tmux.screen())")
        #expect(screen?.contains("restore it from") == true)
        #expect(screen?.contains("The list is empty") == false)
        #expect(screen?.contains("paused: unparseable file") == true)
        tmux.keys("q")
        #expect(tmux.waitForExit() != nil)
        #expect(cli.fileBytes == Data("{ not json".utf8))
    }
}

@Suite("Editor in tmux: a file from a newer bananas", .serialized, .enabled(if: Tmux.isAvailable, "tmux is not installed"))
struct TmuxNewerSchemaTests {
    @Test("an edit is refused in words, the file stays as it was, and quitting promises nothing")
    func refusedNotPromised() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let newer = #"{"schemaVersion": 99, "sections": ["A"], "items": [{"id": "1", "name": "Green apples", "section": "A"}]}"#
        cli.writeFile(newer)
        let tmux = try Tmux(cli, width: 120, height: 12)
        #expect(tmux.waitFor("Green apples"), "\(tmux.screen())")
        tmux.keys("j", "Space")
        #expect(tmux.waitFor("this bananas cannot write a schema 99 file"), "\(tmux.screen())")
        #expect(tmux.screen().contains("Checked Green apples") == false)
        #expect(tmux.screen().contains("[ ] Green apples"))
        tmux.keys("q")
        #expect(tmux.waitForExit() == .status(0), "no edit is left waiting")
        #expect(tmux.screen().contains("next time bananas runs") == false, "\(tmux.screen())")
        #expect(cli.fileBytes == Data(newer.utf8))
    }
}

@Suite("Editor in tmux: conventions", .serialized, .enabled(if: Tmux.isAvailable, "tmux is not installed"))
struct TmuxConventionTests {
    @Test("25 items: the key bar stays, the cursor starts on an item, Space moves on, Ctrl-F pages, Ctrl-C asks before dropping text")
    func conventions() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let names = (1...25).map { String(format: "Item %02d", $0) }
        await cli.run(["add"] + names + ["--section", "Produce"])
        let tmux = try Tmux(cli, width: 60, height: 16)
        #expect(tmux.waitFor("Item 01"))
        #expect(tmux.waitFor("a add  Space check"), "the key bar stays at 25 items:\n\(tmux.screen())")
        // e on the first item edits it: the cursor did not start on the section's header.
        tmux.keys("e")
        #expect(tmux.waitFor("Name: Item 01"), "\(tmux.screen())")
        tmux.keys("Escape")
        // Esc and a key at once would read as Alt and the key.
        #expect(tmux.waitForScreen { !$0.contains("Name:") } != nil)
        // Three neighbours, three keys.
        tmux.keys("Space", "Space", "Space")
        #expect(tmux.waitForScreen { $0.contains("[x] Item 03") && $0.contains("[ ] Item 04") } != nil, "\(tmux.screen())")
        let checked = { (try? await cli.items())?.filter { $0["checked"] as? Bool == true }.compactMap { $0["name"] as? String } ?? [] }
        let deadline = Date().addingTimeInterval(5)
        while await checked() != ["Item 01", "Item 02", "Item 03"], Date() < deadline { try? await Task.sleep(for: .seconds(0.05)) }
        #expect(await checked() == ["Item 01", "Item 02", "Item 03"])
        // A page down shows the rows below.
        tmux.keys("C-f")
        #expect(tmux.waitForScreen { $0.contains("Item 16") && !$0.contains("Item 02") } != nil, "\(tmux.screen())")
        // Typed text is not dropped by Ctrl-C without asking.
        tmux.keys("a")
        tmux.type("Kiwi")
        tmux.keys("C-c")
        #expect(tmux.waitFor("Quit and drop \"Kiwi\"? (y/n)"), "\(tmux.screen())")
        tmux.keys("n")
        #expect(tmux.waitFor("Add to Produce: Kiwi"), "\(tmux.screen())")
        tmux.keys("C-c", "y")
        #expect(tmux.waitForExit() == .status(0))
    }
}

@Suite("Editor in tmux: glyphs never smear", .serialized, .enabled(if: Tmux.isAvailable, "tmux is not installed"))
struct TmuxGlyphTests {
    static let names = ["Tea 👍🏽", "Crew 👩🏽‍🚀", "Family 👨‍👩‍👧‍👦", "Keycap 1️⃣", "Heart ❤️", "Rainbow 🏳️‍🌈", "日本茶 tea", "Water"]

    /// The rows as tmux holds them: each row's text, with the cells it takes.
    func lines(_ tmux: Tmux) -> [String] { tmux.screen().split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    @Test("skin tones, joined emoji, keycaps, VS16 and CJK: in the list, after G, in a prompt and under help, nothing spills")
    func noSmear() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli.run(["add"] + Self.names + ["--section", "Drinks"])
        let tmux = try Tmux(cli, width: 60, height: 16)
        #expect(tmux.waitFor("Water"))
        // Each row is whole: the next item's box starts its row, the right margin holds nothing.
        var screen = lines(tmux)
        for (k, name) in Self.names.dropLast().enumerated() {
            let word = String(name.split(separator: " ")[0])
            let row = screen.firstIndex { $0.contains(word) }
            #expect(row != nil, "\(name):\n\(screen.joined(separator: "\n"))")
            if let row { #expect(screen[row + 1].hasPrefix("  [ ] " + Self.names[k + 1].prefix(2)), "after \(name):\n\(screen.joined(separator: "\n"))") }
        }
        // Moving the cursor bar over every row leaves the key bar whole.
        tmux.keys("G")
        #expect(tmux.waitForScreen { $0.contains("a add  Space check") } != nil, "\(tmux.screen())")
        for _ in Self.names { tmux.keys("k") }
        tmux.keys("G")
        screen = lines(tmux)
        #expect(screen.contains { $0.hasPrefix("a add  Space check") }, "\(screen.joined(separator: "\n"))")
        // Help over the rows: none of their letters show through the box.
        tmux.keys("?")
        #expect(tmux.waitFor("Keys"))
        screen = lines(tmux)
        for line in screen where line.contains("│") {
            for name in Self.names { #expect(!line.contains(String(name.split(separator: " ")[0])), "\(line)") }
        }
        tmux.keys("Escape")
        // A prompt: Backspace after a joined emoji leaves the text as it was before it.
        #expect(tmux.waitForScreen { !$0.contains("Keys") } != nil)
        tmux.keys("a")
        #expect(tmux.waitFor("Add to Drinks:"))
        tmux.type("x👩🏽‍🚀")
        tmux.keys("BSpace")
        let prompt = tmux.waitForScreen { screen in
            screen.split(separator: "\n").contains { $0.hasPrefix("Add to Drinks: x") && $0.trimmingCharacters(in: .whitespaces) == "Add to Drinks: x" }
        }
        #expect(prompt != nil, "\(tmux.screen())")
    }
}
