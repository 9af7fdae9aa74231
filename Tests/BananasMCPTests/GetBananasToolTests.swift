import BananasCore
import BananasFile
@testable import BananasMCP
import BananasSync
import BananasTestSupport
import Foundation
import MCP
import Testing

/// Get Bananas's five tools (issue 57), as its agents and saved prompts call them, on the same
/// store and pipeline as every other edit; the whole-list replace taken in as a stampless save.
@MainActor
@Suite("MCP: Get Bananas's tools")
struct GetBananasToolTests {
    /// An answer's size as the client gets it (text and structured content).
    static func size(_ result: CallTool.Result) throws -> Int {
        try JSONEncoder().encode(result).count
    }

    @Test("Get Bananas's documented calls: add_item, get_shopping_list, update_item, remove_item; each answer says where an item went and why")
    func documentedCalls() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        let bananas = try await h.call("add_item", ["name": "Bananas", "amount": "6"])
        #expect(bananas.isError != true && bananas.statuses == ["added"], "\(bananas.text)")
        let item = try #require(bananas.structured["item"]?.objectValue)
        #expect(item["name"] == "Bananas" && item["amount"] == "6" && item["section"] == "Produce" && item["checked"] == false)
        #expect(bananas.text.contains("under Produce (usual for bananas)"), "\(bananas.text)")
        let milk = try await h.call("add_item", ["name": "Milk", "section": "Fridge", "optional": true])
        #expect(milk.structured["item"]?.objectValue?["section"] == "Fridge" && milk.structured["item"]?.objectValue?["optional"] == true)

        let read = try await h.list()
        #expect(read["items"]?.arrayValue?.map { $0.objectValue?["name"] } == ["Bananas", "Milk"])
        #expect(read["sections"] == ["Produce", "Fridge"])

        let checked = try await h.call("update_item", ["name": "milk", "checked": true])
        #expect(checked.statuses == ["updated"] && checked.structured["item"]?.objectValue?["checked"] == true)
        let id = try #require(item["id"]?.stringValue)
        let renamed = try await h.call("update_item", ["id": .string(id), "name": "Plantains", "amount": "7"])
        #expect(renamed.structured["item"]?.objectValue?["name"] == "Plantains" && renamed.structured["item"]?.objectValue?["amount"] == "7")
        let moved = try await h.call("update_item", ["name": "Plantains", "new_name": "Green plantains", "section": "Fruit"])
        #expect(moved.structured["item"]?.objectValue?["name"] == "Green plantains" && moved.structured["item"]?.objectValue?["section"] == "Fruit")

        let removed = try await h.call("remove_item", ["name": "Milk"])
        #expect(removed.statuses == ["removed"] && removed.structured["item"]?.objectValue?["name"] == "Milk")
        #expect(try await h.names() == ["Green plantains"])
        #expect(try h.box.decoded().items.map(\.name) == ["Green plantains"], "written to the file like every edit")

        // The errors an agent can act on, as for the batch tools.
        let unknown = try await h.call("remove_item", ["name": "Caviar"])
        #expect(unknown.isError == true && unknown.text.contains("no item matches"))
        let nothing = try await h.call("remove_item", [:])
        #expect(nothing.isError == true && nothing.text.contains("give the item's id or its name"))
        let stale = try await h.call("add_item", ["name": "Tea", "expected_revision": "abc123"])
        #expect(stale.isError == true && stale.structured["stale"] == .bool(true))
        // An add undone and made again is no "last time": only a purchase is.
        try await h.call("add_item", ["name": "Tortillas"])
        try await h.call("undo")
        let again = try await h.call("add_item", ["name": "Tortillas"])
        #expect(again.results.first?["note"] == "under Bakery (usual for tortillas)", "\(again.text)")
        #expect(!again.text.contains("as last time"))
    }

    @Test("update_shopping_list is taken in as a Get Bananas save: what the agent read and left out goes, another writer's add stays, no blind overwrite")
    func wholeListSave() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [["name": "Limes"], ["name": "Bananas", "amount": "6"], ["name": "Milk"]]])
        let read = try #require(try await h.list()["items"]?.arrayValue?.compactMap(\.objectValue))
        // Another writer adds Eggs after the agent's read.
        let other = ListStore(file: h.box.file(), mode: .live)
        defer { other.close() }
        #expect(await eventually { other.list.named("Milk") != nil })
        _ = try other.perform(other.list.addEdit(["Eggs"]).edit, label: "add")
        #expect(await other.waitUntilFlushed())

        // The agent's whole list: Limes left out, Bananas' amount changed, Milk by name alone
        // (no id: the list's Milk), Salsa new.
        var items: [Value] = read.filter { $0["name"] != "Limes" && $0["name"] != "Milk" }.map { item in
            var fields = item
            if item["name"] == "Bananas" { fields["amount"] = "7" }
            return .object(fields)
        }
        items.append(["name": "Milk"])
        items.append(["name": "Salsa"])
        let saved = try await h.call("update_shopping_list", ["items": .array(items)])
        #expect(saved.isError != true && saved.structured["written"] == .bool(true), "\(saved.text)")
        #expect(saved.text.contains("judged like any Get Bananas save"), "\(saved.text)")
        let now = try h.box.decoded()
        #expect(Set(now.items.map(\.name)) == ["Bananas", "Milk", "Eggs", "Salsa"], "\(now.items.map(\.name))")
        #expect(now.named("Bananas")?.amount == "7")
        #expect(now.named("Salsa")?.section == "Condiments", "placed like any add")
        #expect(now.items.filter { $0.name == "Milk" }.count == 1, "a name alone is the list's item of that name")
        #expect(now.recentlyDeleted.contains { $0.item.name == "Limes" }, "the delete is restorable, as any")
        let changed = try #require(saved.structured["changed"]?.objectValue)
        #expect(changed["removed_count"] == .int(1) && changed["added_count"] == .int(1))

        // The same list again changes nothing; a list given by names alone adds no duplicates.
        let names: [Value] = now.items.map { .object(["name": .string($0.name)]) }
        let same = try await h.call("update_shopping_list", ["items": .array(names)])
        #expect(same.text.contains("Nothing changed"), "\(same.text)")
        #expect(try h.box.decoded().items.count == 4)
        // Bad input is refused whole, naming the entry; nothing changes.
        let bad = try await h.call("update_shopping_list", ["items": [["name": "Tea\u{7}"]]])
        #expect(bad.isError == true && bad.text.contains("items[0]") && bad.text.contains("Nothing was changed"))
        #expect(try h.box.decoded().items.count == 4)
    }

    @Test("an agent using only Get Bananas's tool names does the six everyday tasks in 1 to 3 calls each, every answer under 6 KB")
    func sixEverydayTasks() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        var calls = 0
        func call(_ tool: String, _ arguments: [String: Value] = [:]) async throws -> CallTool.Result {
            #expect(["get_shopping_list", "add_item", "remove_item", "update_item", "update_shopping_list"].contains(tool))
            calls += 1
            let result = try await h.call(tool, arguments)
            let size = try Self.size(result)
            #expect(size < 6_000, "\(tool): \(size) bytes")
            #expect(result.isError != true, "\(tool): \(result.text)")
            return result
        }
        func task(_ work: () async throws -> Void) async throws {
            calls = 0
            try await work()
            #expect((1...3).contains(calls), "\(calls) calls")
        }
        // 1. "Add bananas, milk and bread."
        try await task {
            for name in ["bananas", "milk", "bread"] { try await call("add_item", ["name": .string(name)]) }
        }
        // 2. "What's on my list?"
        try await task {
            let read = try await call("get_shopping_list")
            #expect(read.text.contains("bananas") && read.text.contains("(Produce)") && read.text.contains("(Bakery)"))
        }
        // 3. "I got the milk."
        try await task { try await call("update_item", ["name": "milk", "checked": true]) }
        // 4. "Make it 12 bananas."
        try await task { try await call("update_item", ["name": "bananas", "amount": "12"]) }
        // 5. "I don't need bread after all."
        try await task { try await call("remove_item", ["name": "bread"]) }
        // 6. "Clear what I bought." (A whole-list save without the checked items would not
        // do: it cannot prove it saw the check, which came after every row it holds, so the
        // item stays, by rule 5.)
        try await task {
            let read = (try await call("get_shopping_list").structured["items"]?.arrayValue ?? []).compactMap { $0.objectValue }
            for item in read where item["checked"] == true { try await call("remove_item", ["id": item["id"]!]) }
        }
        let items = try h.box.decoded().items
        #expect(items.map(\.name) == ["bananas"] && items.first?.amount == "12" && items.first?.section == "Produce",
                "\(items.map { ($0.name, $0.amount, $0.section, $0.checked) })")
    }

    @Test("compact pages keep the amount: \"Bananas · 6\"")
    func compactKeepsAmounts() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [["name": "Bananas", "amount": "6"], ["name": "Salt"]]])
        let page = try await h.call("get_shopping_list", ["mode": "compact"])
        #expect(page.text.contains("[ ] Bananas · 6 (Produce)") && page.text.contains("[ ] Salt (Spices)"), "\(page.text)")
        let items = (page.structured["items"]?.arrayValue ?? []).compactMap { $0.objectValue }
        #expect(items.first?["amount"] == "6" && items.last?["amount"] == nil)
    }
}
