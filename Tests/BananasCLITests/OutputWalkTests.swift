import Foundation
import Testing
import BananasTestSupport

/// Issue 39, item 6: one escaping rule for every string that leaves bananas. Every command that
/// prints list data (as text and as JSON), their notes and their errors, walked with the whole
/// hostile corpus (`HostileText`) stored as names, amounts, sections, deleted rows, conflict
/// records and remembered items. The editor's screen is walked in HostileTextTests (tmux), the
/// MCP server's answers and logs in BananasMCPTests' OutputWalkTests.
@Suite("Every output path of the CLI, walked with the hostile corpus")
struct CLIOutputWalkTests {
    static func id(_ n: Int) -> String { String(format: "%08d-aaaa-4aaa-8aaa-aaaaaaaaaaaa", n) }

    /// The corpus everywhere a file holds text: rows, the section, a conflict record per row
    /// (lost values from the corpus), and, after the commands below, deleted and remembered rows.
    static func hostileFile() -> String {
        func json(_ text: String) -> String {
            let data = try! JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])
            return String(decoding: data, as: UTF8.self).dropFirst().dropLast().description
        }
        let section = json("Dairy\u{1B}[41m\u{E0041}")
        let names = HostileText.names
        let rows = names.indices.map { n in
            #"{"id": "\#(id(n))", "name": \#(json(names[n])), "amount": \#(json(names[(n + 1) % names.count].prefix(40).description)), "section": \#(section), "checked": false, "optional": false}"#
        }
        let records = names.indices.map { n in
            #"{"field": "amount", "item": "\#(id(n))", "lost": \#(json(names[(n + 2) % names.count])), "lostStamp": "\#(String(format: "%016d", 1_795_800_000_000 + n))-000000-aaaaaaaaaaaa"}"#
        }
        return #"{"schemaVersion": 3, "sections": [\#(section)], "items": [\#(rows.joined(separator: ",\n"))], "sync": {"conflicts": [\#(records.joined(separator: ",\n"))]}}"#
    }

    @Test("every command's output, text and JSON, notes and errors: never a raw control, bidi or tag character")
    func everyCommand() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli.writeFile(Self.hostileFile())
        let count = HostileText.names.count
        var runs: [[String]] = [
            ["list"], ["list", "--json"], ["list", "--section", "Dairy\u{1B}[41m\u{E0041}"], ["status"], ["status", "--json"],
            ["sections"], ["sections", "list", "--json"], ["conflicts"], ["conflicts", "--json"], ["conflicts", "--all"],
            ["check", Self.id(0)], ["uncheck", Self.id(0)], ["check", Self.id(1), Self.id(2)], ["edit", Self.id(3), "--amount", "3"],
            ["remove", Self.id(4)], ["remove", Self.id(5)], ["deleted"], ["deleted", "--json"], ["restore", Self.id(5)],
            ["clear-checked"], ["usual"], ["usual", "--json"], ["add", "milk"], ["forget", "soap"],
            // Errors that name what was asked for or found.
            ["check", "\u{1B}]0;pwned\u{07}"], ["check", "L"], ["edit", Self.id(count - 1), "--name", "X\u{9B}"],
            ["sections", "rename", "Nope\u{202E}", "X"], ["restore", "Nope\u{2066}"],
        ]
        runs += HostileText.names.prefix(6).map { ["check", String($0.prefix(3))] }
        var outputs: [([String], CLI.Result)] = []
        for arguments in runs { outputs.append((arguments, await cli.run(arguments))) }
        for (arguments, result) in outputs {
            let shown = arguments.map { String($0.prefix(12)).debugDescription }.joined(separator: " ")
            #expect(HostileText.firstRaw(in: result.stdout) == nil, "\(shown) stdout: \(HostileText.firstRaw(in: result.stdout) ?? "")")
            #expect(HostileText.firstRaw(in: result.stderr) == nil, "\(shown) stderr: \(HostileText.firstRaw(in: result.stderr) ?? "")")
        }
        // The paths carried the corpus (escaped), not nothing.
        func output(_ arguments: String...) -> String { outputs.first { $0.0 == arguments }.map { $0.1.stdout + $0.1.stderr } ?? "" }
        #expect(output("list").contains("Milk\\e]0;pwned\\u{7}") && output("list").contains("Soap\\u{E0041}\\u{E0042}"))
        #expect(output("conflicts").contains("\\u{9B}31mBread") || output("conflicts").contains("\\u{202E}"), "\(output("conflicts").prefix(600))")
        #expect(output("deleted").contains("Mi\\u{2066}so\\u{2069}"), "\(output("deleted").prefix(600))")
        #expect(output("sections").contains("Dairy\\e[41m\\u{E0041}"), "\(output("sections"))")
    }
}
