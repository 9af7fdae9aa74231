import Foundation
import Testing
@testable import BananasCore
@testable import BananasFile

/// The Get Bananas app's decoder, reduced to what it knows: version-1 keys only, every one
/// required with its exact type (stricter than the app, which takes defaults).
struct VersionOneExport: Decodable {
    var sections: [String]
    var items: [ItemData]

    struct ItemData: Decodable {
        var id: UUID
        var name: String
        var amount: String
        var section: String
        var optional: Bool
        var checked: Bool
    }
}

@Suite struct CodecTests {
    @Test func readsTheGetBananasFixture() throws {
        let decoded = try ListCodec.decode(fixture("legacy-BananaList.json"))
        #expect(decoded.schemaVersion == 1)
        #expect(decoded.problems.isEmpty)
        #expect(decoded.list.sections == ["Produce", "Dairy", "Bakery", "Pantry", "Frozen", "Household"])
        let bananas = try #require(decoded.list.item("6513270E-269E-4D37-B2A7-4DE452E6B438"))
        #expect(bananas.name == "Bananas" && bananas.amount == "6" && bananas.checked && !bananas.optional)
        #expect(decoded.list.items.first?.name == "Bananas", "file order is kept")
        let legacy = try JSONDecoder().decode(VersionOneExport.self, from: Data(fixture("legacy-BananaList.json")))
        #expect(decoded.list.items.map(\.name) == legacy.items.map(\.name))
    }

    @Test func whatWeWriteAVersionOneDecoderStillReads() throws {
        var list = try ListCodec.decode(fixture("legacy-BananaList.json")).list
        try list.apply(.update(id: "6513270E-269E-4D37-B2A7-4DE452E6B438", changes: [.amount: .text("12")]),
                       stamp: Stamp(millis: 10, counter: 0, replica: "r"), modifiedAt: "2026-11-21T10:00:00.000Z")
        try list.apply(.delete(id: "D23F0824-128B-4F33-8C5C-7FD0A6A3A450"), stamp: Stamp(millis: 11, counter: 0, replica: "r"))
        let bytes = ListCodec.encode(list)
        let legacy = try JSONDecoder().decode(VersionOneExport.self, from: Data(bytes))
        #expect(legacy.sections == list.sections)
        #expect(legacy.items.count == list.items.count)
        #expect(legacy.items.first { $0.name == "Bananas" }?.amount == "12")
        #expect(!legacy.items.contains { $0.name == "Avocados" }, "deleted rows never appear in items")
    }

    @Test func unknownKeysSurviveARewrite() throws {
        let text = """
            {"sections": ["A"], "futureTopLevel": {"x": [1.50, null]},
             "items": [{"id": "6513270E-269E-4D37-B2A7-4DE452E6B438", "name": "Milk", "amount": "", "section": "A",
                        "optional": false, "checked": false, "note": "oat, not cow", "priority": 3}],
             "sync": {"somethingNew": true}}
            """
        var list = try ListCodec.decode(Array(text.utf8)).list
        try list.apply(.update(id: "6513270E-269E-4D37-B2A7-4DE452E6B438", changes: [.checked: .flag(true)]),
                       stamp: Stamp(millis: 10, counter: 0, replica: "r"))
        let root = try JSONText.parse(ListCodec.encode(list)).objectValue!
        #expect(root["futureTopLevel"] == .object(["x": .array([.number("1.50"), .null])]))
        let item = root["items"]!.arrayValue![0].objectValue!
        #expect(item["note"] == .string("oat, not cow"))
        #expect(item["priority"] == .number("3"))
        #expect(item["checked"] == .bool(true))
        #expect(root["sync"]!.objectValue!["somethingNew"] == .bool(true))
    }

    @Test func theSameListGivesTheSameBytes() throws {
        let list = try ListCodec.decode(fixture("legacy-BananaList.json")).list
        let first = ListCodec.encode(list)
        let reread = try ListCodec.decode(first).list
        #expect(reread == list)
        #expect(ListCodec.encode(reread) == first)
    }

    /// A section name that begins with U+0000 (a damaged or hostile file) read as the mark a
    /// reader gives a section key named outright: each write dropped one, "\0\0" → "\0" →
    /// "" (found by the merge fuzzer: `FuzzTests`, round trip). It is kept as it was, in both
    /// readers (a row in the written shape, and any other).
    @Test func aSectionNameBeginningWithNULReadsBackTheSame() throws {
        for extra in ["", ", \"note\": 1"] {
            let text = """
                {"sections": [], "items": [{"id": "1C80BC99-DC78-5B33-B68D-103B119F69F7", "name": "A", "amount": "", \
                "section": "\\u0000\\u0000", "checked": false, "optional": false, "sortOrder": 1\(extra)}]}
                """
            let list = try ListCodec.decode(Array(text.utf8)).list
            #expect(list.items.map(\.section) == ["\u{0}\u{0}"])
            let written = ListCodec.encode(list)
            let reread = try ListCodec.decode(written).list
            #expect(reread.items.map(\.section) == ["\u{0}\u{0}"])
            #expect(ListCodec.encode(reread) == written)
        }
    }

    @Test func forgivingButNeverLossy() throws {
        let text = """
            {"items": [
              {"name": "No id", "checked": true},
              {"id": "6513270E-269E-4D37-B2A7-4DE452E6B438", "name": "   "},
              {"id": "6513270E-269E-4D37-B2A7-4DE452E6B438", "name": "First"},
              {"id": "6513270E-269E-4D37-B2A7-4DE452E6B438", "name": "Same id again"},
              {"name": "Bad amount", "amount": 3},
              "not an object"
            ]}
            """
        let decoded = try ListCodec.decode(Array(text.utf8))
        #expect(decoded.list.items.map(\.name) == ["No id", "First", "Same id again"])
        #expect(Set(decoded.list.items.map(\.id)).count == 3)
        #expect(decoded.problems.count == 4)
        #expect(decoded.problems.contains { $0.contains("items[1] has no name") })
        #expect(decoded.problems.contains { $0.contains("items[4] has amount as a number") })
        // A second read derives the same ids.
        #expect(try ListCodec.decode(Array(text.utf8)).list.items.map(\.id) == decoded.list.items.map(\.id))
        // Rows it could not read are written back verbatim.
        let rewritten = try JSONText.parse(ListCodec.encode(decoded.list)).objectValue!["items"]!.arrayValue!
        #expect(rewritten.contains(.string("not an object")))
        #expect(rewritten.contains(.object(["name": .string("Bad amount"), "amount": .number("3")])))
    }

    @Test func structuralDamageIsUnparseable() {
        for text in ["[]", "{\"items\": {}}", "{\"sections\": [1]}", "{\"schemaVersion\": \"2\"}", "{\"sync\": []}", "{\"items\": [", ""] {
            #expect(throws: ListCodec.DecodeError.self, "\(text)") { try ListCodec.decode(Array(text.utf8)) }
        }
    }

    @Test func newerSchemaIsReadAndReported() throws {
        let decoded = try ListCodec.decode(Array(#"{"schemaVersion": 3, "sections": [], "items": [{"name": "Milk"}]}"#.utf8))
        #expect(decoded.schemaVersion == 3)
        #expect(decoded.list.items.map(\.name) == ["Milk"])
    }

    @Test func stampsAndTombstonesRoundTrip() throws {
        var list = ShoppingList(sections: ["A"])
        try list.apply(.insert(Item(id: "6513270E-269E-4D37-B2A7-4DE452E6B438", name: "Milk", section: "A", sortOrder: 1)),
                       stamp: Stamp(millis: 5, counter: 1, replica: "ab"))
        try list.apply(.insert(Item(id: "D23F0824-128B-4F33-8C5C-7FD0A6A3A450", name: "Eggs", section: "A", sortOrder: 2.5)),
                       stamp: Stamp(millis: 6, counter: 0, replica: "ab"))
        try list.apply(.delete(id: "D23F0824-128B-4F33-8C5C-7FD0A6A3A450"), stamp: Stamp(millis: 7, counter: 0, replica: "cd"))
        try list.apply(.setSections(["A", "B"]), stamp: Stamp(millis: 8, counter: 0, replica: "cd"))
        let reread = try ListCodec.decode(ListCodec.encode(list)).list
        #expect(reread == list)
    }
}

@Suite struct SectionLabelTests {
    /// A section renamed to the name another section keys (an unlisted one a stampless save
    /// filed an item under): the item's key is written, so it reads back into its own section.
    @Test func anItemUnderAKeyAnotherSectionIsNowNamedReadsBackThere() throws {
        let stamp = Stamp(millis: 1_763_000_000_000, counter: 0, replica: "a")
        let entries = [
            "Dairy": SectionEntry(key: "Dairy", name: "Fruit", position: 0, removed: false, stamps: .init(all: stamp)),
            "Fruit": SectionEntry(key: "Fruit", name: "Fruit", position: 1, removed: true, stamps: .init(all: stamp)),
        ]
        let list = ShoppingList(sectionEntries: entries, rows: [
            Item(id: "A", name: "Figs", section: "Fruit", sortOrder: 1, stamps: .init(all: stamp)),
            Item(id: "B", name: "Milk", section: "Dairy", sortOrder: 2, stamps: .init(all: stamp)),
        ])
        let read = try ListCodec.decode(ListCodec.encode(list)).list
        #expect(read.rows["A"]?.section == "Fruit")
        #expect(read.rows["B"]?.section == "Dairy")
        #expect(read == list)
    }
}
