import BananasTestSupport
import Testing
import PropertyBased
@testable import BananasCore

@Suite struct TextRulesTests {
    @Test("lowercasedEquals answers as lowercased() == folded, on ASCII, other scripts and canonical twins")
    func lowercasedEqualsIsLowercasedThenEqual() async {
        // Letters of both cases, a Kelvin sign and a Greek question mark (canonically K and
        // `;`), a sharp s, a dotted capital I, a combining accent.
        let pieces = ["a", "B", "z", "Z", "0", " ", ";", "K", "k", "\u{212A}", "\u{37E}", "ß", "İ", "é", "e\u{301}", "Milk", "MILK"]
        let text = Gen.int(in: 0...(pieces.count - 1)).array(of: 0...3).map { $0.map { pieces[$0] }.joined() }
        await propertyCheck(count: 2_000, input: text, text) { text, other in
            for folded in [other, other.lowercased(), text.lowercased()] {
                #expect(text.lowercasedEquals(folded) == (text.lowercased() == folded), "\(text.unicodeScalars.map(\.value)) vs \(folded.unicodeScalars.map(\.value))")
            }
        }
    }

    /// Swift's `<` is no strict order on text that is not in NFC: "e\u{301}" and "\u{E9}A" are
    /// each not below the other, so sorting them gave two orders, by where they started (a
    /// rewrite reordered `sync.sections`: the codec fuzzer). The text order is strict, total
    /// and the same as `<` on text in NFC.
    @Test("the text order is a strict total order, whatever the normal form, and agrees with < on NFC text")
    func textOrderIsStrictAndTotal() async {
        let pieces = ["a", "A", "e", "é", "e\u{301}", "\u{E9}A", "\u{301}", "ß", "K", "\u{212A}", "🍌", "日本", "\u{0}", " "]
        let text = Gen.int(in: 0...(pieces.count - 1)).array(of: 0...3).map { $0.map { pieces[$0] }.joined() }
        await propertyCheck(count: 2_000, input: text, text, text) { a, b, c in
            #expect(!a.precedesInTextOrder(a))
            let bytesDiffer = Array(a.utf8) != Array(b.utf8)
            #expect(a.precedesInTextOrder(b) != b.precedesInTextOrder(a) || !bytesDiffer, "total and asymmetric")
            if a.precedesInTextOrder(b), b.precedesInTextOrder(c) { #expect(a.precedesInTextOrder(c)) }
            let nfc = [a, b].allSatisfy { $0.unicodeScalars.allSatisfy { $0.value != 0x301 && $0 != "\u{212A}" } }
            if nfc, bytesDiffer { #expect(a.precedesInTextOrder(b) == (a < b)) }
        }
        let (decomposed, composed) = ("e\u{301}", "\u{E9}A")
        #expect([decomposed, composed].sorted { $0.precedesInTextOrder($1) } == [composed, decomposed].sorted { $0.precedesInTextOrder($1) })
    }

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
        #expect(try TextRules.validatedSection(" Produce ") == "Produce")
        #expect(throws: TextRules.Violation.empty(.section)) { try TextRules.validatedSection(" \t ") }
        #expect(throws: TextRules.Violation.self) { try TextRules.validated(.text("a\u{1B}b"), for: .amount) }
        for bad in [Double.nan, .infinity, -.infinity] {
            #expect(throws: TextRules.Violation.notFinite(.sortOrder)) { try TextRules.validated(.order(bad), for: .sortOrder) }
        }
        #expect(throws: TextRules.Violation.wrongKind(.checked)) { try TextRules.validated(.text("yes"), for: .checked) }
        #expect(throws: TextRules.Violation.wrongKind(.name)) { try TextRules.validated(.order(1), for: .name) }
    }
}

/// Invisible characters: refused in typed text, escaped in stored text, except where real
/// text needs them (joiners inside emoji and scripts, variation selectors, flag tags).
@Suite struct InvisibleTextTests {
    /// Each hides in or blanks a name: tags, zero-width spaces and joiners out of place, the
    /// BOM, bidi marks, word joiners, soft hyphens, Hangul fillers, the blank Braille pattern,
    /// Mongolian's vowel separator, a stray variation selector, the combining grapheme joiner.
    static let hiding = [
        "Milk\u{E0041}\u{E0042}", "\u{E0001}Milk", "Mi\u{200B}lk", "\u{FEFF}Milk", "Milk\u{200D}",
        "\u{200C}Milk", "Mi\u{2060}lk", "Milk\u{061C}", "Mi\u{00AD}lk", "\u{3164}", "\u{3164}\u{3164}",
        "\u{115F}", "\u{FFA0}x", "\u{2800}", "a\u{180E}b", "\u{FE0F}", " \u{FE0F}", "a\u{034F}",
        "x\u{2064}", "\u{1D173}y", "Milk \u{200D} Eggs",
    ]

    @Test("invisible characters are refused on input, for every kind of text", arguments: hiding)
    func refused(text: String) {
        for kind in [TextRules.Kind.name, .amount, .section] {
            #expect(throws: TextRules.Violation.self) { try TextRules.validated(text, as: kind) }
        }
        #expect(TextRules.firstHidden(in: text) != nil)
    }

    @Test("and escaped on output: nothing invisible is left, the rest is kept", arguments: hiding)
    func escaped(text: String) {
        let shown = TextRules.escaped(text)
        #expect(TextRules.firstHidden(in: shown) == nil)
        #expect(shown.unicodeScalars.allSatisfy { !TextRules.isInvisible($0) })
        #expect(shown.contains("\\u{"))
    }

    /// What real text needs: emoji ZWJ sequences, skin tones, keycaps, VS16, subdivision flags,
    /// Indic and Persian joiners, ideographic variation selectors.
    static let real = [
        "👩‍💻 laptop", "👨‍👩‍👧‍👦", "👍🏽", "1️⃣", "❤️ cake", "👁️‍🗨️", "🏴󠁧󠁢󠁳󠁣󠁴󠁿 shortbread", "🏳️‍🌈 sprinkles",
        "क्‍ष", "می‌خواهم", "葛\u{E0100}", "Crème brûlée", "日本 🍌 café",
    ]

    @Test("what real text needs is accepted and shown as it is", arguments: real)
    func kept(text: String) throws {
        #expect(try TextRules.validated(text, as: .name) == text)
        #expect(TextRules.escaped(text) == text)
    }

    @Test func aNameOfOnlyBlankLookingCharactersIsRefused() {
        for blank in ["\u{2000}\u{2003}", "\u{3000}", "\u{3164}", "\u{2800}\u{2800}", "\u{200B}"] {
            #expect(throws: TextRules.Violation.self) { try TextRules.validated(blank, as: .name) }
        }
    }

    @Test func newlinesCanBeKeptForWholeMessages() {
        #expect(TextRules.escaped("a\n\u{1B}]0;x\u{07}b", keepingNewlines: true) == "a\n\\e]0;x\\u{7}b")
        #expect(TextRules.escaped("plain\ntext", keepingNewlines: true) == "plain\ntext")
    }

    @Test func escapingIsIdempotent() {
        for text in Self.hiding + Self.real + ["\u{1B}[2J", "\u{9B}"] {
            let once = TextRules.escaped(text)
            #expect(TextRules.escaped(once) == once)
        }
    }
}
