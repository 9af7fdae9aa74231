import ArgumentParser
@testable import BananasCLI
import PropertyBased
import Testing

/// `list`, `add`, `check` and `uncheck` in their plain forms skip swift-argument-parser
/// (FastPath.swift). Whatever the fast path takes, the parser must read the same way: the
/// same command type with the same values, property by property.
@Suite("Fast path: the everyday commands parsed as swift-argument-parser parses them")
struct FastPathTests {
    static func same(_ arguments: [String]) -> Comment? {
        guard var fast = FastPath.parse(arguments), (try? fast.validate()) != nil else { return nil }
        let parsed: ParsableCommand
        do {
            parsed = try BananasCommand.parseAsRoot(arguments)
        } catch {
            return "the fast path took \(arguments), the parser refused it: \(error)"
        }
        let (a, b) = (String(describing: fast), String(describing: parsed))
        return a == b ? nil : "\(arguments): fast path \(a), parser \(b)"
    }

    @Test("the plain forms take the fast path and mean what the parser reads", arguments: [
        ["list"], ["list", "--json"], ["list", "--file", "/tmp/x.json", "--section", "Dairy", "--unchecked", "--ids"],
        ["list", "--ids", "--file", "relative.json"],
        ["add", "Oat milk"], ["add", "Oat milk", "--amount", "2 L", "--section", "Dairy"], ["add", "a", "b", "c", "--optional", "--duplicate", "--json"],
        ["add", "--section", "Produce", "Bananas", "--file", "/tmp/x.json"], ["add", ""], ["add", "help"], ["add", "list"],
        ["check", "oat"], ["check", "B0000000-0000-4000-8000-000000000001"], ["check", "a", "b", "--file", "x"],
        ["uncheck", "oat", "milk"], ["uncheck", "--file", "/x", "oat"],
    ])
    func plainForms(arguments: [String]) {
        #expect(FastPath.parse(arguments) != nil, "\(arguments) should take the fast path")
        if let problem = Self.same(arguments) { Issue.record(problem) }
    }

    @Test("everything else is left to the parser", arguments: [
        ["list", "--help"], ["list", "-h"], ["list", "extra"], ["list", "--json", "--json"], ["list", "--file"], ["list", "--file", "--json"],
        ["list", "--file=/x"], ["list", "--lock-timeout", "50"], ["list", "--version"], ["list", "--section", "-x"],
        ["add"], ["add", "--", "-milk"], ["add", "-milk"], ["add", "milk", "--amount"], ["add", "milk", "--amount", "1", "--amount", "2"],
        ["add", "milk", "--unchecked"], ["check"], ["check", "--json", "x"], ["uncheck", "-"], ["remove", "x"], ["help", "add"], [],
        ["--version"], ["--help"], ["open"], ["status"], ["mcp"],
    ])
    func leftToTheParser(arguments: [String]) {
        #expect(FastPath.parse(arguments) == nil, "\(arguments)")
    }

    @Test("random argument lists: whatever the fast path takes, the parser reads the same")
    func randomArguments() async {
        let commands = ["list", "add", "check", "uncheck", "remove", "help", "sections"]
        let tokens = ["--file", "/tmp/x.json", "--section", "Dairy", "--amount", "2 L", "--json", "--ids", "--unchecked",
                      "--optional", "--duplicate", "milk", "Oat milk", "", "-", "--", "-h", "--help", "--version",
                      "--lock-timeout", "500", "--file=/x", "help", "-5", "--bogus", "--JSON", "list", "é"]
        var taken = 0
        // A failure is shrunk to the fewest tokens that still show it.
        await propertyCheck(count: 4_000, input: Gen.element(of: commands), Gen.element(of: tokens).array(of: 0...6)) { command, rest in
            let arguments = [command!] + rest.map { $0! }
            if FastPath.parse(arguments) != nil { taken += 1 }
            if let problem = Self.same(arguments) { Issue.record(problem) }
        }
        #expect(taken > 100, "the random lists should exercise the fast path (\(taken) did)")
    }
}

