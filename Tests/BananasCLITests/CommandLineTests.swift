import Foundation
import Testing
import BananasTestSupport

/// What people reach for on a command line, through the real binary: did-you-mean, several
/// items and whole sections per command, undo and redo, and completion of what the list holds.
@Suite("the command line people expect")
struct CommandLineTests {
    static func names(_ cli: CLI, checked: Bool? = nil) async throws -> Set<String> {
        Set(try await cli.items().filter { checked == nil || $0["checked"] as? Bool == checked }.compactMap { $0["name"] as? String })
    }

    @Test("a mistyped command: unknown command chek; did you mean check? (exit 2)")
    func didYouMeanCommand() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        let typo = await cli("chek", "milk")
        #expect(typo.status == 2 && typo.stderr == "bananas: unknown command chek; did you mean check?\n", "\(typo.stderr)")
        #expect(try await Self.names(cli, checked: true).isEmpty, "nothing was checked")
        #expect(await cli("lsit").stderr.contains("did you mean list?"))
        #expect(await cli("stauts").stderr.contains("did you mean status?"))
        let unknown = await cli("frobnicate")
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown command frobnicate") && unknown.stderr.contains("bananas --help"))
        // Real commands and the editor's own options are untouched.
        #expect(await cli("list").status == 0)
        #expect(await cli("help", "check").status == 0)
    }

    @Test("a mistyped option: the closest option is named (exit 64)")
    func didYouMeanOption() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let typo = await cli("add", "Milk", "--sectoin", "Dairy")
        #expect(typo.status == 64 && typo.stderr.contains("--sectoin") && typo.stderr.contains("Did you mean '--section'?"), "\(typo.stderr)")
        let check = await cli("check", "--sektion", "Dairy")
        #expect(check.status == 64 && check.stderr.contains("Did you mean '--section'?"), "\(check.stderr)")
    }

    @Test("several items per command, and --section for check, uncheck and remove")
    func bulk() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli("add", "Milk", "Eggs", "Yogurt", "--section", "Dairy").status == 0)
        #expect(await cli("add", "Apples", "Bread").status == 0)
        let some = await cli("check", "milk", "eggs", "bread")
        #expect(some.status == 0 && some.stdout == "Checked Milk\nChecked Eggs\nChecked Bread\n", "\(some.stdout)")
        let section = await cli("check", "--section", "dairy")
        #expect(section.status == 0 && section.stdout == "Checked Yogurt\n", "only what it changes: \(section.stdout)")
        #expect(try await Self.names(cli, checked: true) == ["Milk", "Eggs", "Yogurt", "Bread"])
        #expect(await cli("check", "--section", "Dairy").stdout == "Nothing to check in Dairy.\n")
        #expect(await cli("uncheck", "--section", "Dairy", "bread").stdout == "Unchecked Bread\nUnchecked Milk\nUnchecked Eggs\nUnchecked Yogurt\n")
        let removed = await cli("remove", "--section", "Dairy")
        #expect(removed.status == 0 && removed.stdout == "Removed Milk\nRemoved Eggs\nRemoved Yogurt\n", "\(removed.stdout)")
        #expect(try await Self.names(cli) == ["Apples", "Bread"])
        #expect(await cli("check", "--section", "Frozen").status == 2, "an unknown section")
        #expect(await cli("check").status == 64, "neither items nor a section")
        let atomic = await cli("check", "apples", "nosuch")
        let checkedAfter = try await Self.names(cli, checked: true)
        #expect(atomic.status == 2 && checkedAfter.isEmpty, "all or nothing")
    }

    @Test("undo and redo the last command-line edits; each step as it was")
    func undoRedo() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli("undo").stdout.hasPrefix("Nothing to undo"))
        await cli("add", "Milk", "Eggs")
        await cli("check", "milk", "eggs")
        await cli("edit", "milk", "--amount", "2 L")
        await cli("remove", "eggs")
        #expect(try await Self.names(cli) == ["Milk"])

        let undone = await cli("undo")
        #expect(undone.status == 0 && undone.stdout == "Undid: remove eggs\n", "\(undone.stdout)\(undone.stderr)")
        #expect(await cli.item("Eggs")?["checked"] as? Bool == true, "back as it was deleted")
        #expect(await cli("undo").stdout == "Undid: edit milk --amount \"2 L\"\n")
        #expect(await cli.item("Milk")?["amount"] as? String == "")
        #expect(await cli("undo").stdout == "Undid: check milk eggs\n")
        #expect(try await Self.names(cli, checked: true).isEmpty)
        #expect(await cli("redo").stdout == "Redid: check milk eggs\n")
        #expect(try await Self.names(cli, checked: true) == ["Milk", "Eggs"])
        #expect(await cli("undo").status == 0)
        #expect(await cli("undo").stdout == "Undid: add Milk Eggs\n")
        #expect(try await Self.names(cli).isEmpty)
        #expect(await cli("redo").status == 0)
        #expect(try await Self.names(cli) == ["Milk", "Eggs"])
        // A new edit ends what could be redone.
        await cli("add", "Tea")
        #expect(await cli("redo").stdout.hasPrefix("Nothing to redo"))
    }

    @Test("undo refuses, in words, a value another writer changed since (by stamp), and changes nothing")
    func undoRefusesAnotherWritersValue() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        await cli("check", "milk")
        let session = try SessionProcess(cli)
        defer { session.stop() }
        _ = try session.send("uncheck", "Milk")
        _ = try session.send("check", "Milk")
        try session.waitForState("synced")
        let refused = await cli("undo")
        #expect(refused.status == 9, "\(refused.stderr)")
        #expect(refused.stderr == "bananas: cannot undo check milk: it was checked or unchecked since by another edit, which undo does not overwrite; nothing was changed\n",
                "the same value, written by another writer, is not this command's: \(refused.stderr)")
        #expect(await cli.item("Milk")?["checked"] as? Bool == true)
        // The refused step is dropped; the add before it is refused too (Milk changed since).
        let add = await cli("undo")
        #expect(add.status == 9 && add.stderr.contains("cannot undo add Milk"), "\(add.stderr)")
        #expect(await cli("undo").stdout.hasPrefix("Nothing to undo"))
        #expect(await cli.item("Milk") != nil)
        try session.quit()
    }

    /// `bananas ---completion SUBCOMMAND -- ARGUMENT INDEX CURSOR WORDS…`, as the scripts
    /// swift-argument-parser generates call it.
    static func complete(_ cli: CLI, _ path: [String], _ argument: String, words: [String]) async -> [String] {
        let typed = words.last ?? ""
        let result = await cli.run(["---completion"] + path + ["--", argument, String(words.count - 1), String(typed.count)] + words)
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test("completion of item names, section names and theme names, in time at 1,000 items")
    func completion() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk", "Mints", "--section", "Dairy")
        await cli("add", "Apples", "--section", "Produce")
        #expect(await Self.complete(cli, ["check"], "positional@0", words: ["bananas", "check", "Mi"]) == ["Milk", "Mints"])
        #expect(await Self.complete(cli, ["remove"], "positional@0", words: ["bananas", "remove", ""]) == ["Milk", "Mints", "Apples"])
        #expect(await Self.complete(cli, ["add"], "--section", words: ["bananas", "add", "x", "--section", "d"]) == ["Dairy"])
        #expect(await Self.complete(cli, ["check"], "--section", words: ["bananas", "check", "--section", ""]) == ["Dairy", "Produce"])
        let themes = await Self.complete(cli, ["open"], "--theme", words: ["bananas", "--theme", ""])
        #expect(themes.contains("default") && themes.count > 1, "\(themes)")

        // 1,000 items: the completion call of the real binary, timed (a generous bound; the
        // measured figure is in docs/performance.md).
        let names = (0..<1_000).map { "Item \($0)" }
        for chunk in stride(from: 0, to: names.count, by: 250) { await cli.run(["add"] + Array(names[chunk..<chunk + 250])) }
        let clock = ContinuousClock()
        var best = Duration.seconds(100)
        for _ in 0..<3 {
            let start = clock.now
            let found = await Self.complete(cli, ["check"], "positional@0", words: ["bananas", "check", "Item 99"])
            best = min(best, clock.now - start)
            #expect(found.count == 11)
        }
        #expect(best < .milliseconds(500), "\(best)")
    }
}
