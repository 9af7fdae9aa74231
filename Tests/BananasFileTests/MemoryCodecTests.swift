import Foundation
import Testing
@testable import BananasCore
@testable import BananasFile

/// The memory's place in the file (`sync.memory`, docs/memory.md): it survives a round trip,
/// old readers skip it, and a list that remembers only what its rows say pays nothing for it.
@Suite struct MemoryCodecTests {
    static let start: Int64 = 1_800_000_000_000
    static let day: Int64 = 86_400_000

    /// A list whose deleted rows were collected, so its memory holds them, plus a forget.
    static func listWithStoredMemory() throws -> ShoppingList {
        var sightings: [UInt64: Int64] = [:]
        var list = ShoppingList(sections: ["Dairy"])
        for (index, name) in ["Milk", "Crème fraîche", "Eggs"].enumerated() {
            let stamp = Stamp(millis: start + Int64(index), counter: 0, replica: "abcd")
            try list.apply(.insert(Item(id: "i\(index)", name: name, amount: index == 2 ? "12" : "", section: "Dairy", checked: true, optional: index == 1)), stamp: stamp)
            try list.apply(.delete(id: "i\(index)"), stamp: stamp)
        }
        list.collectGarbage(now: start, sightings: &sightings)
        list.collectGarbage(now: start + 200 * day, sightings: &sightings)
        try list.apply(.forget("eggs"), stamp: Stamp(millis: start + 200 * day, counter: 0, replica: "abcd"))
        return list
    }

    @Test func theStoredMemoryRoundTrips() throws {
        let list = try Self.listWithStoredMemory()
        #expect(list.memory.entries.count == 2 && list.memory.forgotten["eggs"] != nil)
        let bytes = ListCodec.encode(list)
        let decoded = try ListCodec.decode(bytes)
        #expect(decoded.problems.isEmpty)
        #expect(decoded.list.memory == list.memory)
        #expect(decoded.list.remembered(named: "crème FRAÎCHE", now: Self.start)?.optional == true)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("\"remembered\": [\n"), "one remembered name per line, like rows")
        // Get Bananas reads version-1 keys only: the memory is invisible to it.
        let export = try JSONDecoder().decode(VersionOneExport.self, from: Data(bytes))
        #expect(export.items.isEmpty && export.sections == ["Dairy"])
    }

    @Test func aDamagedMemoryCostsSuggestionsNeverTheList() throws {
        let text = """
        {"schemaVersion": 3, "sections": ["Dairy"], "items": [{"id": "A", "name": "Milk", "amount": "", "section": "Dairy", "checked": false, "optional": false}],
         "sync": {"memory": {"remembered": [{"name": 3}, "junk", {"name": "Tea", "section": "Pantry", "v": "not a stamp"},
                                            {"name": "Jam", "section": "Pantry", "v": "0000000001000000abcd", "bought": [1, "x"]}],
                             "forgotten": {"tea": 5}, "cleared": []}}}
        """
        let decoded = try ListCodec.decode(Array(text.utf8))
        #expect(decoded.list.items.map(\.name) == ["Milk"])
        #expect(decoded.list.memory.entries.keys.sorted() == ["jam"])
    }

    /// The memory of a 100-item list's own items (on it, or bought and cleared since) is
    /// read from the rows the list keeps anyway: the file is no larger for it.
    @Test func rememberingTheListsOwnItemsCostsNoBytes() throws {
        var list = ShoppingList()
        var stamp = Stamp(millis: Self.start, counter: 0, replica: "abcd")
        for index in 0..<100 {
            stamp = Stamp(millis: stamp.millis + 1, counter: 0, replica: "abcd")
            try list.apply(.insert(Item(id: "i\(index)", name: "Item \(index)", section: "S\(index % 8)", sortOrder: Double(index))), stamp: stamp)
        }
        let remembered = list.rememberedItems(now: Self.start)
        #expect(remembered.count == 100)
        #expect(list.memory.isEmpty)
        #expect(!String(decoding: ListCodec.encode(list), as: UTF8.self).contains("\"memory\""))
    }
}

extension ShoppingList {
    /// `collectGarbage` on a device that first saw each delete at the `now` of the call that
    /// first met it (as its published history records), kept in `sightings`.
    mutating func collectGarbage(now: Int64, sightings: inout [UInt64: Int64]) {
        for id in tombstones.keys where sightings[id] == nil { sightings[id] = now }
        let seen = sightings
        collectGarbage(now: now, deleteFirstSeen: { id, _ in seen[id] })
    }
}
