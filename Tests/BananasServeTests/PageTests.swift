import BananasCore
@testable import BananasServe
import Foundation
import Testing

/// What docs/serve.md claims of the page that a test can read off its files.
@Suite struct PageTests {
    /// `--name: #rrggbb` pairs of the style sheet's light block and its dark block.
    static func colours(_ block: Substring) -> [String: (Double, Double, Double)] {
        var found: [String: (Double, Double, Double)] = [:]
        for match in block.matches(of: /--([a-z-]+): #([0-9a-f]{6})/) {
            let hex = Array(match.2)
            func channel(_ i: Int) -> Double { Double(Int(String(hex[i...i + 1]), radix: 16)!) / 255 }
            found[String(match.1)] = (channel(0), channel(2), channel(4))
        }
        return found
    }

    static func luminance(_ c: (Double, Double, Double)) -> Double {
        func linear(_ v: Double) -> Double { v <= 0.03928 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        return 0.2126 * linear(c.0) + 0.7152 * linear(c.1) + 0.0722 * linear(c.2)
    }

    static func contrast(_ a: (Double, Double, Double), _ b: (Double, Double, Double)) -> Double {
        let (x, y) = (luminance(a), luminance(b))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    @Test func textContrastIsAtLeastWCAGAAInLightAndDark() throws {
        let css = Page.styleCSS
        let dark = try #require(css.range(of: "@media (prefers-color-scheme: dark)"))
        for block in [css[..<dark.lowerBound], css[dark.upperBound...].prefix { $0 != "}" }] {
            let c = Self.colours(block)
            // Text colours on the page's background and on panels; button text on buttons.
            for text in ["fg", "muted", "accent", "checked", "danger"] {
                for background in ["bg", "panel"] {
                    let ratio = Self.contrast(try #require(c[text]), try #require(c[background]))
                    #expect(ratio >= 4.5, "\(text) on \(background): \(ratio)")
                }
            }
            #expect(Self.contrast(try #require(c["button-fg"]), try #require(c["button"])) >= 4.5)
        }
    }

    @Test func everyControlIsAtLeast44PixelsHigh() {
        #expect(Page.styleCSS.contains("button { font: inherit; min-height: 44px; min-width: 44px;"))
        #expect(Page.styleCSS.contains("min-height: 44px; padding: 0 0.6rem; }"))  // inputs and menus
    }
}


/// The item's sheet on the page saves one `edit` (docs/serve.md, "The API"): the fields it
/// changed, with the stamps of the values it showed, as every other edit of the page.
@MainActor @Suite struct SheetEditTests {
    func send(_ harness: Harness, _ fields: [String: JSONValue]) -> WebList.Answer {
        var fields = fields
        fields["key"] = .string("sheet-" + String(UInt64.random(in: 0...UInt64.max), radix: 16))
        return harness.web.edit(.object(fields))
    }

    @Test func aSheetRenamesSetsTheAmountMovesToANewSectionAndMarksOptionalInOneEdit() throws {
        let harness = Harness()
        defer { harness.close() }
        let apples = try harness.add("Apples", section: "Fruit")
        let answer = send(harness, ["op": "edit", "id": .string(apples.id), "name": " Green apples ", "amount": "1 kg",
                                    "section": "Fruit & veg", "optional": true, "seen": WebList.stampsValue(apples.stamps)])
        #expect(answer.status == 200, "\(answer.body)")
        let item = try #require(harness.store.list.item(apples.id))
        #expect(item.name == "Green apples" && item.amount == "1 kg" && item.section == "Fruit & veg" && item.optional)
        #expect(harness.store.list.sections.contains("Fruit & veg"))
        #expect(harness.store.list.conflictList().isEmpty)
        // Only what is sent changes; an empty amount clears it.
        #expect(send(harness, ["op": "edit", "id": .string(apples.id), "amount": ""]).status == 200)
        let cleared = try #require(harness.store.list.item(apples.id))
        #expect(cleared.amount == "" && cleared.name == "Green apples" && cleared.optional)
    }

    @Test func aValueChangedSinceTheSheetOpenedGoesToReview() throws {
        let harness = Harness()
        defer { harness.close() }
        let milk = try harness.add("Milk")
        let shown = WebList.stampsValue(milk.stamps)
        _ = try harness.store.perform(.update(id: milk.id, changes: [.amount: .text("2 L")]), label: "edit")
        #expect(send(harness, ["op": "edit", "id": .string(milk.id), "amount": "1 L", "seen": shown]).status == 200)
        #expect(harness.store.list.item(milk.id)?.amount == "1 L")
        #expect(harness.store.list.conflictList().map(\.lost) == [.text("2 L")])
    }

    @Test func aSheetEditThatCannotSucceedIsRefusedForGoodWithAReason() throws {
        let harness = Harness()
        defer { harness.close() }
        let tea = try harness.add("Tea")
        _ = try harness.add("Coffee")
        let taken = send(harness, ["op": "edit", "id": .string(tea.id), "name": "coffee"])
        #expect(taken.status == 409)
        #expect(taken.body.objectValue?["error"] == .string("name_taken"))
        #expect(harness.store.list.item(tea.id)?.name == "Tea")
        // Its own name in another case is a rename, not a clash.
        #expect(send(harness, ["op": "edit", "id": .string(tea.id), "name": "TEA"]).status == 200)
        for (fields, status) in [
            (["op": "edit", "id": .string(tea.id)], 400),                       // nothing to change
            (["op": "edit", "id": .string(tea.id), "optional": "yes"], 400),    // not a flag
            (["op": "edit", "id": .string(tea.id), "name": "  "], 400),         // an empty name
            (["op": "edit", "id": .string(tea.id), "section": .string(String(repeating: "s", count: 101))], 400),
            (["op": "edit", "id": "0F0E0D0C-0B0A-4908-8706-050403020100", "amount": "1"], 404),
        ] as [([String: JSONValue], Int)] {
            let answer = send(harness, fields)
            #expect(answer.status == status, "\(fields): \(answer.body)")
            #expect(answer.body.objectValue?["message"]?.stringValue?.isEmpty == false)
        }
        #expect(harness.store.list.item(tea.id)?.name == "TEA")
    }
}

/// What the page's files promise a phone: an icon it can install, in both themes.
@Suite struct PageFilesTests {
    @Test func theManifestNamesIconsThatAreServedAndThePNGIsOne() throws {
        let manifest = try JSONText.parse(Array(Page.manifest.utf8))
        let icons = manifest.objectValue?["icons"]?.arrayValue?.compactMap { $0.objectValue?["src"]?.stringValue } ?? []
        #expect(icons.count == 3)
        for icon in icons { #expect(Page.assets[icon] != nil, "\(icon)") }
        let png = try #require(Page.assets["/icon.png"]).bytes
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(Page.indexHTML.contains("<link rel=\"apple-touch-icon\" href=\"/icon.png\">"))
        #expect(Page.indexHTML.contains("media=\"(prefers-color-scheme: dark)\""))
    }
}
