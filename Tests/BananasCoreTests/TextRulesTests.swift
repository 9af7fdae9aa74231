import Testing
@testable import BananasCore

@Suite struct TextRulesTests {
    @Test func namesAreTrimmedAndMustNotBeEmpty() throws {
        #expect(try TextRules.validated("  Milk ", as: .name) == "Milk")
        #expect(throws: TextRules.Violation.empty(.name)) { try TextRules.validated("   ", as: .name) }
        #expect(try TextRules.validated("", as: .amount) == "")
    }

    @Test func limitsAreEnforced() {
        #expect(throws: TextRules.Violation.tooLong(.name, length: 501, limit: 500)) {
            try TextRules.validated(String(repeating: "a", count: 501), as: .name)
        }
        #expect(throws: TextRules.Violation.tooLong(.amount, length: 101, limit: 100)) {
            try TextRules.validated(String(repeating: "1", count: 101), as: .amount)
        }
        #expect((try? TextRules.validated(String(repeating: "é", count: 500), as: .name)) != nil)
    }

    @Test func controlCharactersAndBidiOverridesAreRefused() {
        for bad in ["Milk\u{1B}[31m", "a\nb", "x\u{7F}", "abc\u{202E}def", "\u{9B}31m"] {
            #expect(throws: TextRules.Violation.self) { try TextRules.validated(bad, as: .name) }
        }
        #expect((try? TextRules.validated("日本 🍌 café", as: .name)) == "日本 🍌 café")
    }

    @Test func storedTextIsEscapedForTheTerminal() {
        #expect(TextRules.escaped("Milk\u{1B}[2J") == "Milk\\e[2J")
        #expect(TextRules.escaped("a\nb\tc") == "a\\nb\\tc")
        #expect(TextRules.escaped("evil\u{202E}txt") == "evil\\u{202E}txt")
        #expect(TextRules.escaped("日本 🍌") == "日本 🍌")
        #expect(!TextRules.escaped("\u{9B}\u{07}\u{00}").unicodeScalars.contains(where: TextRules.isUnsafe))
    }

    @Test("a field's new value: blank names and sections, NaN and infinite sort orders, and values of the wrong kind are refused")
    func fieldValues() throws {
        #expect(try TextRules.validated(.text(" Milk "), for: .name) == .text("Milk"))
        #expect(try TextRules.validated(.text(""), for: .amount) == .text(""))
        #expect(try TextRules.validated(.order(-2.5), for: .sortOrder) == .order(-2.5))
        #expect(try TextRules.validated(.flag(true), for: .checked) == .flag(true))
        #expect(throws: TextRules.Violation.empty(.name)) { try TextRules.validated(.text(" \t "), for: .name) }
        #expect(throws: TextRules.Violation.empty(.section)) { try TextRules.validated(.text("  "), for: .section) }
        #expect(throws: TextRules.Violation.self) { try TextRules.validated(.text("a\u{1B}b"), for: .amount) }
        for bad in [Double.nan, .infinity, -.infinity] {
            #expect(throws: TextRules.Violation.notFinite(.sortOrder)) { try TextRules.validated(.order(bad), for: .sortOrder) }
        }
        #expect(throws: TextRules.Violation.wrongKind(.checked)) { try TextRules.validated(.text("yes"), for: .checked) }
        #expect(throws: TextRules.Violation.wrongKind(.name)) { try TextRules.validated(.order(1), for: .name) }
    }
}
