import Foundation
import Testing
import BananasTestSupport

/// Issue 21 against the real binary: every output path of the CLI with hostile ids, paths and
/// invisible characters, and the smaller items (notes summarised, read-only file, EIO, not a
/// list, schemaVersion 2.0), with a corpus of our own.
@Suite("Hardening: the CLI")
struct HardeningCLITests {
    /// Raw bytes a terminal must never get: C0 but newline, DEL, C1, bidi controls, line
    /// separators, and invisible characters (tags, zero-width spaces, BOM, Hangul fillers,
    /// blank Braille).
    static func raw(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            switch scalar.value {
            case 0x0A: false
            case 0x00...0x1F, 0x7F...0x9F, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2069, 0x2028, 0x2029: true
            case 0xFEFF, 0x3164, 0x115F, 0x1160, 0xFFA0, 0x2800, 0x061C, 0xE0000...0xE007F: true
            default: false
            }
        }
    }

    static let hostileIDs = [
        "AB\u{1B}[2J\u{1B}[H", "\u{1B}]0;pwned\u{07}CD", "EF\u{200B}\u{E0041}\u{E0042}", "\u{9B}31mGH", "IJ\u{202E}KL",
    ]

    /// Rows whose ids (any string is kept as an id) and names hide things; two are both "Milk".
    static func fileWithHostileIDs() -> String {
        func json(_ text: String) -> String {
            let data = try! JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])
            return String(decoding: data, as: UTF8.self).dropFirst().dropLast().description
        }
        let names = ["Milk", "Milk", "Te\u{200B}a", "\u{3164}", "Jam\u{E0041}"]
        let rows = zip(hostileIDs, names).map { id, name in
            #"{"id": \#(json(id)), "name": \#(json(name)), "amount": "", "section": "A"}"#
        }
        return #"{"sections": ["A"], "items": [\#(rows.joined(separator: ","))]}"#
    }

    @Test("hostile ids and invisible names: every command that prints them prints them escaped")
    func hostileIDsEverywhere() async {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli.writeFile(Self.fileWithHostileIDs())
        var results: [([String], CLI.Result)] = []
        for arguments in [["list"], ["list", "--ids"], ["list", "--json"], ["status"], ["status", "--json"],
                          ["check", "Milk"], ["check", "milk"], ["remove", "Milk"], ["edit", "Milk", "--amount", "2"],
                          ["check", "AB\u{1B}"], ["check", "Nope\u{200B}"], ["sections"]] {
            results.append((arguments, await cli.run(arguments)))
        }
        for (arguments, result) in results {
            #expect(!Self.raw(result.stdout), "\(arguments) stdout: \(result.stdout.debugDescription)")
            #expect(!Self.raw(result.stderr), "\(arguments) stderr: \(result.stderr.debugDescription)")
        }
        let ids = results[1].1.stdout
        #expect(ids.contains("AB\\e[2J"), "\(ids)")
        #expect(ids.contains("\\u{3164}"), "a blank-looking name is shown escaped")
        let ambiguous = results[5].1
        #expect(ambiguous.status == 3 && ambiguous.stderr.contains("matches 2 items") && ambiguous.stderr.contains("\\e"),
                "\(ambiguous.stderr)")
    }

    @Test("a hostile folder name: errors and status print the path escaped")
    func hostilePath() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let folder = cli.folder + "/\u{1B}]0;pwned\u{07}\u{200B}\u{202E}"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let list = folder + "/BananaList.json"
        createTestFile(atPath: list, contents: Data(#"{"theme": "dark"}"#.utf8))  // not a list: an error naming the path
        var results: [CLI.Result] = []
        for arguments in [["list"], ["status"], ["add", "Milk"], ["list", "--json"]] {
            results.append(await cli.run(["--file", list] + arguments))
        }
        results.append(await cli.run(["--file", folder + "/missing/BananaList.json", "list"]))
        results.append(await cli.run(["list"], environment: ["BANANAS_FILE": folder + "/missing/BananaList.json"]))
        for result in results {
            #expect(!Self.raw(result.stdout) && !Self.raw(result.stderr), "\(result.stdout.debugDescription) \(result.stderr.debugDescription)")
        }
        #expect(results[0].status == 5 && results[0].stderr.contains("\\e]0;pwned\\u{7}\\u{200B}\\u{202E}"), "\(results[0].stderr)")
        #expect(results[1].stdout.contains("paused: not a list"), "\(results[1].stdout)")
        #expect(results[2].status == 5)
        #expect(FileManager.default.contents(atPath: list) == Data(#"{"theme": "dark"}"#.utf8), "never written")
        #expect(results[4].status == 8)
    }

    @Test("hostile ids and a hostile folder name reach an agent escaped: bananas mcp's answers, the ambiguous-match error and the paused reason")
    func hostileTextThroughMCP() throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli.writeFile(Self.fileWithHostileIDs())
        let server = try MCPProcess(cli)
        var answers = [try server.call("get_shopping_list"), try server.call("get_shopping_list", ["full": true])]
        answers.append(try server.call("update_items", ["items": [["item": "Milk", "checked": true]]]))
        answers.append(try server.call("update_items", ["items": [["item": "AB\u{1B}", "checked": true]]]))
        #expect(server.finish() == 0)

        let folder = cli.folder + "/\u{1B}]0;pwned\u{07}\u{200B}\u{202E}"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let list = folder + "/BananaList.json"
        createTestFile(atPath: list, contents: Data(#"{"theme": "dark"}"#.utf8))  // not a list: paused, naming the path
        let hostile = try MCPProcess(cli, environment: ["BANANAS_FILE": list])
        answers.append(try hostile.call("get_shopping_list"))
        answers.append(try hostile.call("add_items", ["items": [["name": "Bread"]]]))
        _ = hostile.finish()
        for answer in answers {
            #expect(!Self.raw(answer.text), "\(answer.text.debugDescription)")
            let structured = String(decoding: try JSONSerialization.data(withJSONObject: answer.structured), as: UTF8.self)
            #expect(!structured.contains("\u{1B}]0;"), "no raw escape reaches the structured answer's strings either")
        }
        #expect(answers[2].text.contains("2"), "the ambiguous match is answered: \(answers[2].text)")
        #expect(FileManager.default.contents(atPath: list) == Data(#"{"theme": "dark"}"#.utf8), "never written")
    }

    @Test("invisible characters in any text argument are refused (exit 4); real emoji are kept")
    func invisibleArguments() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk", "--section", "Dairy")
        let before = cli.fileBytes
        for arguments in [["add", "Eggs\u{200B}"], ["add", "\u{3164}"], ["add", "\u{2800}"], ["add", "Tea\u{E0041}\u{E0042}"],
                          ["add", "Eggs", "--amount", "\u{FEFF}2"], ["add", "Eggs", "--section", "D\u{061C}"],
                          ["edit", "Milk", "--name", "Mi\u{2060}lk"], ["sections", "add", "\u{200D}"],
                          ["sections", "rename", "Dairy", "Da\u{00AD}iry"]] {
            let result = await cli.run(arguments)
            #expect(result.status == 4, "\(arguments.map(\.debugDescription)): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("invisible character"), "\(result.stderr)")
            #expect(!Self.raw(result.stderr))
        }
        #expect(cli.fileBytes == before, "nothing written")
        #expect(await cli("add", "👩‍💻 cable", "🏴󠁧󠁢󠁳󠁣󠁴󠁿 shortbread").status == 0)
        #expect(try await cli.items().compactMap { $0["name"] as? String }.contains("🏴󠁧󠁢󠁳󠁣󠁴󠁿 shortbread"))
    }

    @Test("rows bananas cannot read survive `bananas add` and `check` byte for byte, in place, duplicates included")
    func unreadableRowsKeptInPlace() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli.writeFile(UnreadableCorpus.file)
        let before = UnreadableCorpus.rows(of: UnreadableCorpus.file)
        let listed = await cli("list")
        #expect(listed.status == 0 && listed.stderr.contains("kept in the file but not shown"), "\(listed.stderr)")
        #expect(await cli("add", "Yogurt").status == 0)
        #expect(UnreadableCorpus.rows(of: [UInt8](cli.fileBytes!)) == before + ["R:Yogurt"],
                "\(String(decoding: cli.fileBytes!, as: UTF8.self))")
        #expect(await cli("remove", "Eggs").status == 0)
        #expect(await cli("check", "Bread").status == 0)
        #expect(UnreadableCorpus.rows(of: [UInt8](cli.fileBytes!)) == before.filter { $0 != "R:Eggs" } + ["R:Yogurt"])
    }

    @Test("a repeated items key: bananas reads the last, keeps the other under shadowedKeys and says so")
    func shadowedItemsKept() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli.writeFile(#"{"items": [{"id": "a", "name": "Old"}], "items": [{"id": "b", "name": "New"}]}"#)
        let listed = await cli("list")
        #expect(listed.stdout.contains("New") && !listed.stdout.contains("Old"))
        #expect(listed.stderr.contains("\"items\" twice"), "\(listed.stderr)")
        #expect(await cli("add", "Tea").status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: cli.fileBytes!) as? [String: Any])
        let kept = try #require(object["shadowedKeys"] as? [[String: Any]])
        #expect(((kept.first?["value"] as? [[String: Any]])?.first?["name"] as? String) == "Old")
        #expect(await cli("status").stdout.contains("\"items\" twice"))
    }

    @Test("100,000 unreadable rows: a few notes and a count, not 100,000 lines")
    func notesAreSummarised() async {
        let cli = CLI()
        defer { cli.cleanUp() }
        let rows = Array(repeating: #"{"name": 5}"#, count: 100_000).joined(separator: ",")
        cli.writeFile(#"{"sections": [], "items": [{"name": "Milk"}, \#(rows)]}"#)
        for arguments in [["list"], ["status"]] {
            let result = await cli.run(arguments)
            let output = arguments == ["list"] ? result.stderr : result.stdout
            let notes = output.split(separator: "\n").filter { $0.hasPrefix("note:") }
            #expect(notes.count == 11, "\(arguments): \(notes.count) note lines")
            #expect(notes.last?.contains("99990 more") == true, "\(notes.last ?? "")")
        }
    }

    @Test("a read-only list file (0444): refused with exit 8 and its reason, never replaced")
    func readOnlyFile() async {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        chmod(cli.listPath, 0o444)
        let before = cli.fileBytes
        let add = await cli("add", "Eggs")
        #expect(add.status == 8 && add.stderr.contains("read-only"), "\(add.stderr)")
        #expect(cli.fileBytes == before)
        let status = await cli("status").stdout, list = await cli("list").stdout
        #expect(status.contains("Milk") || list.contains("Milk"))
    }

    @Test("an I/O error reading the list exits 5, as the help says")
    func readErrorExitsFive() async {
        let cli = CLI()
        defer { cli.cleanUp() }
        let result = await cli.run(["--file", "/proc/self/mem", "list"])  // reading it at offset 0 fails with EIO
        #expect(result.status == 5, "\(result.status) \(result.stderr)")
        #expect(result.stderr.contains("Input/output error"), "\(result.stderr)")
    }

    @Test("schemaVersion 2.0 is read as 2 and edited")
    func schemaVersionTwoPointZero() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli.writeFile(#"{"schemaVersion": 2.0, "sections": [], "items": [{"id": "A", "name": "Milk"}]}"#)
        #expect(await cli("list").stdout.contains("Milk"))
        #expect(await cli("add", "Eggs").status == 0)
        #expect(try await cli.items().count == 2)
    }

    @Test("bananas session validates through the same rules: no NaN or infinite order, no blank or invisible name")
    func sessionValidates() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let session = try SessionProcess(cli)
        defer { session.stop() }
        _ = try session.send("add", "Milk")
        for (field, value) in [("sortOrder", "nan"), ("sortOrder", "inf"), ("sortOrder", "-infinity"), ("sortOrder", "x"),
                               ("name", "   "), ("name", "\u{3164}"), ("name", "Mi\u{200B}lk"), ("amount", "\u{1B}[2J"),
                               ("checked", "maybe")] {
            let answer = try session.send("set", "Milk", field, value)
            #expect(answer["error"] != nil, "\(field) \(value.debugDescription): \(answer)")
        }
        _ = try session.send("wait")
        #expect(try session.names() == ["Milk"])
        #expect(try await cli.items().first?["name"] as? String == "Milk", "the file stays readable")
    }

    @Test("user theme files with hostile names and descriptions: bananas themes prints them escaped")
    func hostileThemes() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let themes = cli.home + "/config/bananas/themes"
        try FileManager.default.createDirectory(atPath: themes, withIntermediateDirectories: true)
        try "name: evil\ninherits: default\ndescription: \"\\e]0;pwned\\a\\e[2J\\u200B\"\n"
            .write(toFile: themes + "/evil.yaml", atomically: true, encoding: .utf8)
        try "name: \"x\\e[31m\"\nroles:\n  amount: { fg: nosuchcolour }\n"
            .write(toFile: themes + "/x\u{1B}[31m.yaml", atomically: true, encoding: .utf8)
        let result = await cli.run(["themes", "--plain"], environment: ["XDG_CONFIG_HOME": cli.home + "/config"])
        #expect(result.stdout.contains("evil"), "\(result.stdout)")
        #expect(!Self.raw(result.stdout) && !Self.raw(result.stderr), "\(result.stdout.debugDescription)")
    }
}

