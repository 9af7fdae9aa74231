import PropertyBased
import Testing
@testable import BananasCore

/// `addEdit` asks every row its three questions in one walk; each answer must be the one the
/// rule gives on its own: `firstItem(named:)` (the duplicate rule), `section(named:)` (the
/// section a person means) and `nextSortOrder` (placement).
@Suite struct AddEditTests {
    static let names = ["Milk", "milk", "MILK", "Bread", "bread", "Eggs", "Tea", "K\u{212A}iwi", "kkiwi", "Crème", "CRÈME"]
    static let sections = ["Dairy", "dairy", "DAIRY", "Bakery", "Other", "Fruit", "fruit", "Pantry"]

    /// A list built from draws: rows with names and sections in several cases (some only in
    /// rows, not in the list's sections), checked or not, deleted or not, sections renamed.
    static func list(_ draws: [Int]) -> ShoppingList {
        var choices = draws.makeIterator()
        func pick(_ count: Int) -> Int { (choices.next() ?? 0) % count }
        var rows: [Item] = []
        for n in 0..<(4 + pick(20)) {
            rows.append(Item(id: "ID-\(n)", name: names[pick(names.count)], section: sections[pick(sections.count)],
                             checked: pick(3) == 0, sortOrder: Double(pick(50) * 512)))
        }
        var list = ShoppingList(sections: Array(sections.prefix(1 + pick(4))), rows: rows)
        let stamp = Stamp(millis: 1_800_000_000_000, counter: 0, replica: "0123456789ab")
        for row in rows where pick(5) == 0 { _ = try? list.apply(.delete(id: row.id), stamp: stamp) }
        if pick(2) == 0, let first = list.sections.first {
            _ = try? list.apply(list.renameSectionEdit(first, to: sections[pick(sections.count)] + " \(pick(3))"), stamp: stamp)
        }
        return list
    }

    @Test("one walk gives each rule's own answer: the item named so, the section meant, the order after every row")
    func oneWalkAnswersAsEachRule() async {
        await propertyCheck(count: 1_500, input: Gen.int(in: 0...1_000).array(of: 40...120)) { draws in
            let list = AddEditTests.list(draws)
            let names = [AddEditTests.names[draws[0] % AddEditTests.names.count], AddEditTests.names[draws[1] % AddEditTests.names.count]]
            let section = draws[2] % 3 == 0 ? nil : AddEditTests.sections[draws[3] % AddEditTests.sections.count]
            var next = 0
            let (_, outcomes) = list.addEdit(names, section: section, remembering: false, makeID: { next += 1; return "NEW-\(next)" })
            var order = list.nextSortOrder
            // The rules themselves, against their definitions over the list in order.
            for name in names {
                #expect(list.firstItem(named: name) == list.items.first { $0.name.lowercased() == name.lowercased() }, "\(name)")
            }
            if let section {
                let shown = list.displaySections
                let meant = shown.contains(section) ? section : shown.first { $0.lowercased() == section.lowercased() }
                #expect(list.section(named: section) == meant, "\(section) in \(shown)")
            }
            for (name, outcome) in zip(names, outcomes) {
                let existing = list.firstItem(named: name)
                switch outcome {
                case .added(let item, _):
                    #expect(existing == nil, "\(name) added though \(existing!) is on the list")
                    #expect(item.section == section.map { list.section(named: $0) ?? $0 } ?? list.placement(of: name, remembering: false).section,
                            "\(name) filed under \(item.section)")
                    #expect(item.sortOrder == order)
                    order += 1024
                case .unchecked(let item), .alreadyOnList(let item):
                    #expect(item == existing, "\(name): \(item) against \(String(describing: existing))")
                }
            }
        }
    }

    @Test("a batch of adds asking one set of lookups gives, entry by entry, what each add asking the whole list gives")
    func sharedLookupsAnswerAsAFreshWalk() async throws {
        await propertyCheck(count: 1_000, input: Gen.int(in: 0...1_000).array(of: 60...160)) { draws in
            let list = AddEditTests.list(draws)
            var rest = draws.dropFirst(40).makeIterator()
            func pick(_ count: Int) -> Int { (rest.next() ?? 0) % count }
            let entries = (0..<(1 + pick(8))).map { _ in
                (name: AddEditTests.names[pick(AddEditTests.names.count)],
                 section: pick(3) == 0 ? nil : AddEditTests.sections[pick(AddEditTests.sections.count)],
                 duplicate: pick(6) == 0)
            }
            let stamp = Stamp(millis: 1_900_000_000_000, counter: 0, replica: "0123456789ab")
            var fresh = list, shared = list
            var lookups = AddLookups()
            lookups.lookUp(names: entries.map(\.name), sections: [], in: shared)
            var nextFresh = 0, nextShared = 0
            for entry in entries {
                let a = fresh.addEdit([entry.name], section: entry.section, duplicate: entry.duplicate, remembering: false,
                                      makeID: { nextFresh += 1; return "NEW-\(nextFresh)" })
                let b = shared.addEdit([entry.name], section: entry.section, duplicate: entry.duplicate, remembering: false,
                                       makeID: { nextShared += 1; return "NEW-\(nextShared)" }, lookups: &lookups)
                #expect(a.edit == b.edit && a.outcomes == b.outcomes, "\(entry) after \(entries)")
                _ = try? fresh.apply(a.edit, stamp: stamp)
                _ = try? shared.apply(b.edit, stamp: stamp)
                lookups.took(b.edit, in: shared)
            }
        }
    }
}
