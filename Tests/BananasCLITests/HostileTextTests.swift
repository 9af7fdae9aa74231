import Foundation
import Testing
import BananasTestSupport

/// Hostile text against the CLI and the editor in a real terminal: stored names with escape
/// sequences, C0/C1 controls, bidi overrides and 10,000 characters (written by another
/// program, so no limit applied), and the same typed as arguments. Output never carries a raw
/// control character, the terminal's title, bell and screen are never taken over, and every
/// limit holds.
@Suite("Hostile text: CLI and editor")
struct HostileTextTests {
    static let names = HostileText.names

    /// A file as another program would write it, with every hostile name, amount and section.
    static func hostileFile() -> String {
        func json(_ text: String) -> String {
            let data = try! JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])
            return String(decoding: data, as: UTF8.self).dropFirst().dropLast().description
        }
        let rows = names.enumerated().map { n, name in
            #"{"id": "0000000\#(n)-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "name": \#(json(name)), "amount": \#(json("2\u{1B}[5m")), "section": \#(json("Dairy\u{1B}[41m"))}"#
        }
        return #"{"sections": [\#(json("Dairy\u{1B}[41m"))], "items": [\#(rows.joined(separator: ",\n"))]}"#
    }

    /// True when `text` holds a scalar that must never leave bananas raw (`HostileText.isRaw`).
    static func rawUnsafe(_ text: String) -> Bool { HostileText.firstRaw(in: text) != nil }

    @Test("stored hostile text: list, status, sections, conflicts and errors print it escaped")
    func cliOutput() async {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli.writeFile(Self.hostileFile())
        var outputs: [([String], CLI.Result)] = []
        for arguments in [["list"], ["list", "--json"], ["status"], ["sections"], ["sections", "list"], ["conflicts"],
                          ["list", "--section", "Dairy\u{1B}[41m"], ["check", "Milk\u{1B}]0;x\u{07}"], ["check", "M"],
                          ["check", "\u{1B}]0;pwned\u{07}"], ["remove", "Mi\u{202E}"], ["edit", "L"]] {
            outputs.append((arguments, await cli.run(arguments)))
        }
        for (arguments, result) in outputs {
            #expect(!Self.rawUnsafe(result.stdout), "\(arguments) stdout: \(result.stdout.prefix(400).debugDescription)")
            #expect(!Self.rawUnsafe(result.stderr), "\(arguments) stderr: \(result.stderr.prefix(400).debugDescription)")
        }
        let list = outputs[0].1.stdout
        #expect(list.contains("Milk\\e]0;pwned\\u{7}") && list.contains("Jam\\u{202E}kliM") && list.contains("\\u{9B}31mBread"))
        #expect(list.contains(String(repeating: "L", count: 10_000)), "a long stored name is shown whole, not cut")
        #expect(outputs[0].1.status == 0)
    }

    @Test("10,000 characters or control characters in any argument: refused with the limit, nothing written")
    func cliLimits() async {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk", "--section", "Dairy")
        let before = cli.fileBytes
        let long = String(repeating: "x", count: 10_000)
        let cases: [[String]] = [
            ["add", long], ["add", "Eggs", "--amount", long], ["add", "Eggs", "--section", long],
            ["edit", "Milk", "--name", long], ["edit", "Milk", "--amount", long], ["edit", "Milk", "--section", long],
            ["sections", "add", long], ["sections", "rename", "Dairy", long],
            ["add", "Eggs\u{1B}]0;pwned\u{07}"], ["add", "Eggs", "--amount", "\u{9B}2"], ["add", "Eggs", "--section", "D\u{202E}"],
            ["edit", "Milk", "--name", "M\u{2066}"], ["sections", "add", "S\u{1}"], ["sections", "rename", "Dairy", "D\u{2028}x"],
        ]
        for arguments in cases {
            let result = await cli.run(arguments)
            #expect(result.status == 4, "\(arguments.map { $0.prefix(20) }): \(result.status) \(result.stderr.prefix(200))")
            #expect(result.stderr.count < 1_000, "the message does not echo 10,000 characters back")
            #expect(!Self.rawUnsafe(result.stderr), "\(result.stderr.debugDescription)")
        }
        #expect(cli.fileBytes == before)
    }

    @Test("the editor over hostile names: title, bell and screen are not taken over", .enabled(if: Tmux.isAvailable))
    func editorTerminal() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli.writeFile(Self.hostileFile())
        let tmux = try Tmux(cli, width: 100, height: 20)
        let titleBefore = tmux.info("#{pane_title}")
        #expect(tmux.waitFor("Milk\\e]0;pwned\\u{7}"), "\(tmux.screen())")
        // Scroll over every row, so each is painted at least once.
        for _ in 0..<Self.names.count { tmux.keys("j") }
        tmux.keys("G", "g")
        usleep(300_000)
        let screen = tmux.screen()
        #expect(tmux.info("#{pane_title}") == titleBefore && !tmux.info("#{pane_title}").contains("pwned"))
        #expect(tmux.info("#{window_bell_flag}") == "0", "no bell rang")
        #expect(screen.contains("Jam\\u{202E}kliM") && screen.contains("\\u{9B}31mBread"), "\(screen)")
        #expect(screen.contains("bananas"), "the header survived the clear-screen sequences")
        #expect(!tmux.styledScreen().contains("\u{1B}[5m"), "no blinking from an amount")
        // Typing 10,000 characters into the add prompt is refused with the limit, nothing written.
        let before = cli.fileBytes
        tmux.keys("a")
        tmux.type(String(repeating: "x", count: 10_000))
        tmux.keys("Enter")
        #expect(tmux.waitFor("limit is 500", timeout: 30), "\(tmux.screen())")
        tmux.keys("Escape")
        usleep(300_000)
        #expect(cli.fileBytes == before)
        tmux.keys("q")
        #expect(tmux.waitForExit() == .status(0))
    }
}
