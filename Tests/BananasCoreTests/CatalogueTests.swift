import Foundation
import Testing
@testable import BananasCore

/// The built-in catalogue (issue 57): a first-time item lands in a sensible section, on every
/// surface through the core's one placement rule; what the list remembers wins.
@Suite struct CatalogueTests {
    static let catalogue = Catalogue.builtIn

    /// A list with `sections` and one stamped edit at a time.
    struct Shop {
        var list = ShoppingList()
        var clock = StampClock(replica: "shop")
        var now: Int64 = 1_800_000_000_000
        var ids = 0

        init(sections: [String] = []) {
            if !sections.isEmpty { try! apply(.setSections(sections)) }
        }

        mutating func apply(_ edit: ListEdit) throws {
            now += 1_000
            clock.observe(list.newestStamp, now: now)
            try list.apply(edit, stamp: clock.next(now: now))
        }

        /// Adds `name` with no section, as every surface does.
        mutating func add(_ name: String) throws -> (item: Item, placement: Placement) {
            ids += 1
            let id = "item\(ids)"
            let plan = list.addEdit([name], makeID: { id })
            try apply(plan.edit)
            guard case .added(let item, let placement) = plan.outcomes[0] else { throw CancellationError() }
            return (item, placement)
        }
    }

    @Test("the catalogue file and the embedded text agree (scripts/generate-catalogue)")
    func embeddedTextIsTheFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = try String(contentsOf: root.appendingPathComponent("Catalogue/catalogue.txt"), encoding: .utf8)
        #expect(CatalogueText.text == file.trimmingCharacters(in: .newlines), "run scripts/generate-catalogue")
    }

    @Test("at least 1,000 names; every entry's section is one of the catalogue's sections; no name in two entries; every line read")
    func entriesAreWellFormed() {
        let catalogue = Self.catalogue
        #expect(catalogue.problems.isEmpty, "\(catalogue.problems)")
        #expect(catalogue.nameCount >= 1_000, "\(catalogue.nameCount) names")
        let sections = Set(catalogue.sections.map(\.name))
        #expect(sections.count == catalogue.sections.count, "a section is declared twice")
        for entry in catalogue.entries {
            #expect(sections.contains(entry.section), "\(entry.names[0]) is in \(entry.section), not a catalogue section")
        }
        var seen: [String: String] = [:]
        for entry in catalogue.entries {
            for name in entry.names {
                let folded = ItemMemory.fold(name)
                #expect(seen[folded] == nil, "\(name) is in \(seen[folded] ?? "") and \(entry.section)")
                seen[folded] = entry.section
                #expect(TextRules.firstHidden(in: name) == nil && name.count <= TextRules.maxName)
            }
        }
        #expect(!sections.contains(ShoppingList.defaultSection), "Other is where unknown names go, not a catalogue section")
    }

    @Test("taco night on a fresh list: every item in a sensible section, and each answer says why")
    func tacoNight() throws {
        var shop = Shop()
        let expected: [(String, String)] = [
            ("tortillas", "Bakery"), ("salsa", "Condiments"), ("cheddar", "Dairy"), ("avocados", "Produce"), ("limes", "Produce"),
            ("ground beef", "Meat"), ("sour cream", "Dairy"), ("lettuce", "Produce"), ("taco seasoning", "Spices"),
        ]
        for (name, section) in expected {
            let (item, placement) = try shop.add(name)
            #expect(item.section == section, "\(name) went to \(item.section)")
            #expect(placement.phrase() == "under \(section) (usual for \(name))", "\(placement.phrase())")
        }
        #expect(!shop.list.items.contains { $0.section == ShoppingList.defaultSection })
    }

    @Test("lookup forgives typos, plurals and words in front, as the add prompt does; unknown names are unknown")
    func lookup() {
        let catalogue = Self.catalogue
        #expect(catalogue.lookUp("Tortila")?.section == "Bakery", "a letter missing")
        #expect(catalogue.lookUp("chedar")?.section == "Dairy")
        #expect(catalogue.lookUp("bananna")?.section == "Produce", "a letter too many")
        #expect(catalogue.lookUp("lettcue")?.section == "Produce", "two letters swapped")
        #expect(catalogue.lookUp("Sharp Cheddar")?.name == "sharp cheddar")
        #expect(catalogue.lookUp("organic free range eggs")?.section == "Dairy", "the last words")
        #expect(catalogue.lookUp("TOMATOES")?.section == "Produce", "any case")
        #expect(catalogue.lookUp("tortilla chips")?.section == "Snacks", "the whole name first: not tortillas")
        #expect(catalogue.lookUp("peanut butter")?.section == "Condiments", "not butter")
        #expect(catalogue.lookUp("Zorblax") == nil)
        #expect(catalogue.lookUp("ap") == nil, "two letters: no typo, and not the start of apples")
        #expect(catalogue.lookUp("app") == nil, "a typo of the whole name, not the start of a longer one")
    }

    @Test("a section the list already has by that name, another of its names, or a typo of them, is used")
    func theListsOwnSections() throws {
        var shop = Shop(sections: ["Fruit & Veg", "dairy", "Bakry", "Household"])
        #expect(try shop.add("avocados").item.section == "Fruit & Veg")
        #expect(try shop.add("sour cream").item.section == "dairy")
        #expect(try shop.add("tortillas").item.section == "Bakry")
        #expect(try shop.add("ground beef").item.section == "Meat", "no section of the list means Meat: the catalogue's")
        #expect(shop.list.sections == ["Fruit & Veg", "dairy", "Bakry", "Household", "Meat"])
        #expect(try shop.add("Zorblax").placement.phrase() == "under Other (not in the catalogue)")
    }

    @Test("remembered choices win; \"as last time\" only for what was bought, never for an add undone and made again")
    func rememberedWins() throws {
        var shop = Shop()
        // Tortillas kept in the Pantry here, and bought from there.
        do {
            let plan = shop.list.addEdit(["Tortillas"], section: "Pantry", makeID: { "t1" })
            try shop.apply(plan.edit)
            try shop.apply(.update(id: "t1", changes: [.checked: .flag(true)]))
            try shop.apply(.delete(id: "t1"))
        }
        let again = try shop.add("tortillas")
        #expect(again.item.section == "Pantry" && again.placement.phrase() == "under Pantry (as last time)")

        // Salsa added, the add undone (its row deleted, never bought), then added again:
        // placed as the first time, not "as last time".
        let first = try shop.add("salsa")
        try shop.apply(.delete(id: first.item.id))
        let readded = try shop.add("salsa")
        #expect(readded.item.section == "Condiments" && readded.placement.phrase() == "under Condiments (usual for salsa)")

        // Moved by hand, then removed without being bought: it goes back where it was put.
        let limes = try shop.add("limes")
        try shop.apply(.update(id: limes.item.id, changes: [.section: .text("Bar")]))
        try shop.apply(.delete(id: limes.item.id))
        let back = try shop.add("Limes")
        #expect(back.item.section == "Bar" && back.placement.phrase() == "under Bar (where limes went before)")
    }

    @Test("the editor's add prompt section is used only for names the catalogue does not know")
    func addingSection() {
        let list = ShoppingList()
        #expect(list.placement(of: "tortillas", fallbackSection: "Hardware").section == "Bakery")
        let unknown = list.placement(of: "Zorblax", fallbackSection: "Hardware")
        #expect(unknown.section == "Hardware" && unknown.phrase() == "under Hardware (the section you are adding to)")
        #expect(list.placement(of: "tortillas", section: "Pantry").phrase() == "under Pantry")
    }
}
