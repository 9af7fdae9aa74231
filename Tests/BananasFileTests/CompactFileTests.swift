import Testing
import BananasCore
@testable import BananasFile

/// Issue 20: a fully stamped 10,000-item list is a file of at most 300 bytes an item, with the
/// version-1 keys and types kept (docs/file-format.md, "Size").
@Suite struct CompactFileTests {
    static let words = ["Ripe bananas", "Oat milk", "Sourdough bread", "Free-range eggs", "Ground coffee", "Basmati rice",
                        "Cherry tomatoes", "Cheddar", "Red apples", "Penne", "Greek yoghurt", "Salted butter", "Red onions",
                        "Carrots", "Olive oil", "Green tea", "Red lentils", "Baby spinach", "Rolled oats", "Honey"]

    /// A list as real use leaves it, made with the core's own edits: 100 sections and `count`
    /// items added on a laptop, one a second, then every item edited on a phone (half
    /// checked, half given a new amount), so each row holds two stamps of two replicas and one
    /// field a superseded history. `lastModified` is the edit's time, as bananas sets it.
    static func fullyStampedList(items count: Int) throws -> ShoppingList {
        var laptop = StampClock(replica: ReplicaID.random())
        var phone = StampClock(replica: ReplicaID.random())
        var now: Int64 = 1_795_600_000_000
        var list = ShoppingList()
        func apply(_ edit: ListEdit, with clock: inout StampClock) throws {
            now += 1_000
            try list.apply(edit, stamp: clock.next(now: now), modifiedAt: Timestamp.iso8601(millis: now))
        }

        let sections = (0..<100).map { "Aisle \($0 + 1)" }
        try apply(.setSections(sections), with: &laptop)
        var ids: [String] = []
        for n in 0..<count {
            let id = ItemID.random()
            ids.append(id)
            // What `nextSortOrder` gives after the previous add, without rescanning every row.
            let item = Item(id: id, name: "\(words[n % words.count]) \(n + 1)", amount: n % 3 == 0 ? "\(n % 7 + 1) kg" : "",
                            section: sections[n % sections.count], optional: n % 11 == 0, sortOrder: Double(n + 1) * 1024)
            try apply(.insert(item), with: &laptop)
        }

        // The phone reads the laptop's file, then edits every row.
        phone.observe(laptop.last, now: now)
        for (n, id) in ids.enumerated() {
            let change: [ItemField: FieldValue] = n % 2 == 0 ? [.checked: .flag(true)] : [.amount: .text("\(n % 4 + 2)")]
            try apply(.update(id: id, changes: change), with: &phone)
        }
        list.writeMark = phone.next(now: now)
        return list
    }

    @Test func aFullyStampedListOf10000ItemsIsAtMost300BytesAnItem() throws {
        let count = 10_000
        let list = try Self.fullyStampedList(items: count)
        let sample = try #require(list.items.first)
        #expect(Set(ItemField.allCases.map { sample.stamps[$0].replica }).count == 2, "the fixture's rows hold two replicas' stamps")
        #expect(ItemField.allCases.contains { !sample.stamps.seen($0).isEmpty }, "the fixture's rows hold a superseded history")

        let bytes = ListCodec.encode(list)
        let perItem = Double(bytes.count) / Double(count)
        print("CompactFileTests: \(bytes.count) bytes for \(count) fully stamped items, \(perItem) bytes an item")
        #expect(perItem <= 300)

        let decoded = try ListCodec.decode(bytes)
        #expect(decoded.schemaVersion == ListCodec.currentSchemaVersion)
        #expect(decoded.problems.isEmpty)
        #expect(decoded.list == list)

        let root = try #require(try JSONText.parse(bytes).objectValue)
        #expect(root["schemaVersion"] == .number(String(ListCodec.currentSchemaVersion)))
        let rows = try #require(root["items"]?.arrayValue)
        #expect(rows.count == count)
        let row = try #require(rows.first?.objectValue)
        let shown = try #require(decoded.list.item(row["id"]?.stringValue ?? ""))
        #expect(row["id"] == .string(shown.id))
        #expect(row["name"] == .string(shown.name))
        #expect(row["amount"] == .string(shown.amount))
        #expect(row["section"] == .string(shown.section))
        #expect(row["checked"] == .bool(shown.checked))
        #expect(row["optional"] == .bool(shown.optional))
        guard case .number(let order) = row["sortOrder"] else {
            Issue.record("sortOrder is not a number: \(String(describing: row["sortOrder"]))")
            return
        }
        #expect(Double(order) == shown.sortOrder)
    }
}
