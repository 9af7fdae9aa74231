import BananasCore
import BananasFile
@testable import BananasMCP
import BananasSync
import Foundation
import MCP
import BananasTestSupport
import Testing

@MainActor
@Suite("MCP in process: tools over the SDK's in-memory transport, on a real store")
struct ItemToolTests {
    @Test("tools/list: every tool with title, description, schemas and honest annotations")
    func toolsAdvertised() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        let tools = try await h.client.listTools().tools
        #expect(tools.map(\.name) == ["get_shopping_list", "suggest_items", "add_items", "update_items", "remove_items", "clear_checked",
                                      "add_sections", "update_sections", "remove_sections", "undo",
                                      "add_item", "remove_item", "update_item", "update_shopping_list"])
        #expect(tools.map(\.name) == BananasMCPServer.toolNames)
        for tool in tools {
            #expect(tool.title?.isEmpty == false && tool.description?.isEmpty == false, "\(tool.name)")
            #expect(tool.outputSchema != nil, "\(tool.name)")
            #expect(tool.inputSchema.objectValue?["additionalProperties"]?.boolValue == false, "\(tool.name)")
            #expect(tool.annotations.openWorldHint == false, "\(tool.name)")
            #expect(tool.annotations.readOnlyHint == ["get_shopping_list", "suggest_items"].contains(tool.name), "\(tool.name)")
            // A rename overwrites a value: the update tools are destructive too.
            // Undo overwrites values too (its own), and a second undo undoes one more edit.
            #expect(tool.annotations.destructiveHint == ["update_items", "remove_items", "clear_checked", "update_sections", "remove_sections", "undo",
                                                         "remove_item", "update_item", "update_shopping_list"].contains(tool.name), "\(tool.name)")
            #expect(tool.annotations.idempotentHint == !["add_items", "undo", "add_item"].contains(tool.name), "\(tool.name)")
        }
    }

    @Test("get_shopping_list: sections and items in order, filters, revision, sync state")
    func getShoppingList() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        let empty = try await h.call("get_shopping_list")
        #expect(empty.isError == false && empty.text.contains("no matching items"))
        #expect(empty.structured["sync"]?.objectValue?["state"]?.stringValue == "synced")

        try await h.call("add_items", ["items": [
            ["name": "Oat milk", "section": "Dairy", "amount": "2 L"],
            ["name": "Bananas", "section": "Produce", "optional": true],
            ["name": "Bread"],
        ]])
        try await h.call("update_items", ["items": [["item": "Bananas", "checked": true]]])
        let all = try await h.list()
        #expect(all["sections"] == .array(["Dairy", "Produce", "Bakery"]))
        let items = all["items"]!.arrayValue!.compactMap(\.objectValue)
        #expect(items.map { $0["name"]!.stringValue! } == ["Oat milk", "Bananas", "Bread"])
        #expect(items[name: "Oat milk"]?["amount"] == .string("2 L"))
        #expect(items[name: "Bananas"]?["checked"] == .bool(true) && items[name: "Bananas"]?["optional"] == .bool(true))
        #expect(items.allSatisfy { $0["id"]?.stringValue?.count == 36 })

        func names(_ arguments: [String: Value]) async throws -> [String] {
            try await h.list(arguments)["items"]!.arrayValue!.map { $0.objectValue!["name"]!.stringValue! }
        }
        #expect(try await names(["section": "dairy"]) == ["Oat milk"], "a section is matched in any case")
        #expect(try await names(["unchecked_only": true]) == ["Oat milk", "Bread"])
        #expect(try await names(["text": "2 l"]) == ["Oat milk"], "text matches the amount too, in any case")
        #expect(try await names(["text": "BREAD", "unchecked_only": true]) == ["Bread"])
        let unknown = try await h.call("get_shopping_list", ["section": "Frozen"])
        #expect(unknown.isError == true && unknown.text.contains("No section is named \"Frozen\""), "an unknown section is refused, not an empty list")

        // The revision is a hash of the content: the same list gives the same token.
        let before = all["revision"]!
        #expect(try await h.list()["revision"] == before)
        try await h.call("update_items", ["items": [["item": "Bread", "amount": "1"]]])
        #expect(try await h.list()["revision"] != before)
    }

    @Test("add_items: a batch answered per entry; duplicates, checked names, sections in any case, bad text")
    func addItems() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [["name": "Milk", "section": "Dairy"], ["name": "Eggs"]]])
        try await h.call("update_items", ["items": [["item": "Eggs", "checked": true]]])
        let milkID = try #require(h.store.list.named("Milk")?.id)

        let added = try await h.call("add_items", ["items": [
            ["name": "Butter", "section": "dairy", "amount": "250 g"],
            ["name": "milk"],
            ["name": "EGGS", "amount": "12"],
            ["name": "  "],
            ["name": "Jam\u{7}"],
            ["name": "Crisps", "section": "Snacks", "optional": true],
            ["name": "Butter"],
        ]])
        #expect(added.isError == false, "a batch that partly worked is no error")
        #expect(added.statuses == ["added", "already_on_list", "unchecked", "error", "error", "added", "already_on_list"])
        let results = added.results
        #expect(results[1]["id"] == .string(milkID), "the existing item's id comes back")
        #expect(results[3]["error"]?.stringValue == "the name is empty")
        #expect(results[4]["error"]?.stringValue?.contains("control character") == true)
        #expect(results[6]["id"] == results[0]["id"], "later entries see earlier ones")
        #expect(results.map { $0["entry"]?.intValue } == Array(0..<7))
        #expect(added.structured["written"] == .bool(true) && added.text.contains("Written to the list file"))

        let list = h.store.list
        #expect(list.named("Butter")?.section == "Dairy", "an existing section is matched in any case")
        #expect(list.named("Butter")?.amount == "250 g")
        #expect(list.named("Eggs")?.checked == false && list.named("Eggs")?.amount == "12")
        #expect(list.named("Crisps")?.optional == true && list.displaySections.contains("Snacks"))
        #expect(list.items.filter { $0.name == "Milk" }.count == 1)

        let insisted = try await h.call("add_items", ["items": [["name": "Milk"]], "allow_duplicates": true])
        #expect(insisted.statuses == ["added"])
        #expect(h.store.list.items.filter { $0.name == "Milk" }.count == 2)

        let allFailed = try await h.call("add_items", ["items": [["name": "\u{202E}evil"], ["name": ""]]])
        #expect(allFailed.isError == true && allFailed.statuses == ["error", "error"])

        // The file holds what the answers said.
        let onDisk = try h.box.decoded()
        #expect(Set(onDisk.items.map(\.name)) == ["Milk", "Eggs", "Butter", "Crisps"])
        #expect(onDisk.items.count == 5)
    }

    @Test("update_items: every field, position, unknown items with close matches, ambiguous names with ids")
    func updateItems() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [
            ["name": "Milk", "section": "Dairy", "amount": "1 L"], ["name": "Yogurt", "section": "Dairy"],
            ["name": "Cheese", "section": "Dairy"], ["name": "Apples", "section": "Produce"],
        ]])
        let milk = try #require(h.store.list.named("Milk"))

        let updated = try await h.call("update_items", ["items": [
            ["item": "milk", "name": "Oat milk", "amount": "2 L", "optional": true],
            ["item": .string(String(milk.id.prefix(6)).lowercased()), "checked": true],
            ["item": "Cheese", "position": 1],
            ["item": "Apples", "section": "dairy", "position": 2],
            ["item": "Yogurt", "amount": ""],
        ]])
        #expect(updated.statuses == ["updated", "updated", "updated", "updated", "updated"])
        #expect(updated.results.map { $0["id"]?.stringValue } .first == milk.id)
        let now = h.store.list
        #expect(now.item(milk.id)?.name == "Oat milk" && now.item(milk.id)?.amount == "2 L")
        #expect(now.item(milk.id)?.optional == true && now.item(milk.id)?.checked == true, "an id prefix addresses the item")
        #expect(now.items.filter { $0.section == "Dairy" }.map(\.name) == ["Cheese", "Apples", "Oat milk", "Yogurt"])
        #expect(!now.displaySections.contains("dairy"))

        // Unknown: close matches, with ids.
        let unknown = try await h.call("update_items", ["items": [["item": "Yoghurt", "checked": true]]])
        #expect(unknown.isError == true)
        let miss = try #require(unknown.results.first)
        #expect(miss["status"] == .string("error"))
        let close = try #require(miss["close_matches"]?.arrayValue?.first?.objectValue)
        #expect(close["name"] == .string("Yogurt") && close["id"] == .string(h.store.list.named("Yogurt")!.id))
        #expect(miss["error"]?.stringValue?.contains("close matches: \"Yogurt\"") == true)

        // Ambiguous: every candidate with its full id; retrying with an id works.
        try await h.call("add_items", ["items": [["name": "Tea", "section": "Pantry"], ["name": "Tea", "section": "Other", "amount": "green"]], "allow_duplicates": true])
        let teas = h.store.list.items.filter { $0.name == "Tea" }
        #expect(teas.count == 2)
        let ambiguous = try await h.call("update_items", ["items": [["item": "tea", "checked": true], ["item": "Cheese", "checked": true]]])
        #expect(ambiguous.statuses == ["error", "updated"] && ambiguous.isError == false)
        let entry = ambiguous.results[0]
        let candidates = try #require(entry["candidates"]?.arrayValue).compactMap(\.objectValue)
        #expect(Set(candidates.compactMap { $0["id"]?.stringValue }) == Set(teas.map(\.id)))
        #expect(Set(candidates.compactMap { $0["section"]?.stringValue }) == ["Pantry", "Other"])
        let message = try #require(entry["error"]?.stringValue)
        #expect(message.contains("matches 2 items") && teas.allSatisfy { message.contains($0.id) }, "\(message)")
        #expect(ambiguous.text.contains(teas[0].id) && ambiguous.text.contains(teas[1].id))
        let retried = try await h.call("update_items", ["items": [["item": .string(teas[1].id), "checked": true]]])
        #expect(retried.statuses == ["updated"] && h.store.list.item(teas[1].id)?.checked == true)
        #expect(h.store.list.item(teas[0].id)?.checked == false)

        // Bad entries fail alone.
        let bad = try await h.call("update_items", ["items": [
            ["item": "Cheese"], ["item": "Cheese", "name": ""], ["item": "Cheese", "section": " "], ["item": "Cheese", "amount": "x\u{1B}[31m"],
        ]])
        #expect(bad.statuses == ["error", "error", "error", "error"] && bad.isError == true)
        #expect(bad.results[0]["error"]?.stringValue?.hasPrefix("nothing to change") == true)
        #expect(bad.results[2]["error"]?.stringValue == "the section is empty")
        #expect(bad.results[3]["error"]?.stringValue?.contains("control character") == true)
    }

    @Test("remove_items and clear_checked: by id, prefix or name; what was removed comes back")
    func removeAndClear() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [["name": "A1"], ["name": "B2"], ["name": "C3"], ["name": "D4"], ["name": "E5"]]])
        let list = h.store.list
        let b = list.named("B2")!.id, c = list.named("C3")!.id
        let removed = try await h.call("remove_items", ["items": [["item": .string(b)], ["item": .string(String(c.prefix(5)))], ["item": "a1"], ["item": "a1"], ["item": "Zebra"]]])
        #expect(removed.statuses == ["removed", "removed", "removed", "error", "error"])
        #expect(removed.results[3]["error"]?.stringValue?.hasPrefix("no item matches") == true, "a batch sees its own earlier removals")
        #expect(try await h.names() == ["D4", "E5"])

        let nothing = try await h.call("clear_checked")
        #expect(nothing.isError == false && nothing.results.isEmpty && nothing.text.contains("no item is checked"))
        try await h.call("update_items", ["items": [["item": "D4", "checked": true], ["item": "E5", "checked": true]]])
        let cleared = try await h.call("clear_checked")
        #expect(cleared.statuses == ["removed", "removed"])
        #expect(Set(cleared.results.compactMap { $0["item"]?.stringValue }) == ["D4", "E5"])
        #expect(try await h.names().isEmpty)
        #expect(try h.box.decoded().items.isEmpty)
    }

    @Test("arguments that break the advertised schema are refused with the path; nothing changes")
    func schemaViolations() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [["name": "Milk"]]])
        let revision = try await h.revision()
        let long = String(repeating: "x", count: 501)
        let cases: [(String, [String: Value], String)] = [
            ("add_items", ["items": [["name": "Jam", "colour": "red"]]], "items[0]: unknown key colour"),
            ("add_items", ["items": [["name": .int(3)]]], "items[0].name: must be a string"),
            ("add_items", ["items": [["name": .string(long)]]], "items[0].name: at most 500 characters (got 501)"),
            ("add_items", ["items": [["name": "Jam", "amount": .string(String(repeating: "1", count: 101))]]], "items[0].amount: at most 100 characters"),
            ("add_items", ["items": []], "items: needs at least 1 entries"),
            ("add_items", ["items": .array(Array(repeating: Value.object(["name": "x"]), count: 501))], "items: at most 500 entries per call"),
            ("add_items", ["items": [["amount": "1"]]], "items[0]: name is required"),
            ("add_items", ["items": "Milk"], "items: must be an array"),
            ("add_items", ["items": [["name": "Jam"]], "force": true], "unknown key force"),
            ("update_items", ["items": [["item": "Milk", "checked": "yes"]]], "items[0].checked: must be true or false"),
            ("update_items", ["items": [["item": "Milk", "position": 0]]], "items[0].position: must be at least 1"),
            ("update_items", ["items": [["item": "Milk", "position": 1.5]]], "items[0].position: must be a whole number"),
            ("remove_items", [:], "items is required"),
            ("clear_checked", ["expected_revision": .int(1)], "expected_revision: must be a string"),
            ("get_shopping_list", ["unchecked_only": "true"], "unchecked_only: must be true or false"),
            ("add_sections", ["sections": [["name": .string(String(repeating: "s", count: 101))]]], "sections[0].name: at most 100 characters"),
            ("remove_sections", ["sections": [["section": "A", "delete_items": 1]]], "sections[0].delete_items: must be true or false"),
        ]
        for (tool, arguments, expected) in cases {
            let result = try await h.call(tool, arguments)
            #expect(result.isError == true, "\(tool) \(expected)")
            #expect(result.text.contains(expected) && result.text.contains("Nothing was changed"), "\(tool): \(result.text)")
        }
        // An unknown tool is a JSON-RPC error (invalid params), as the spec has it, not a result.
        do {
            let answered = try await h.call("remove_everything")
            Issue.record("answered as a result: \(answered.text)")
        } catch let error as MCPError {
            #expect(error.code == -32602, "\(error)")
            #expect("\(error.errorDescription ?? "")".contains("There is no tool named remove_everything"), "\(error)")
        }
        #expect(try await h.revision() == revision)
        #expect(try await h.names() == ["Milk"])
    }

    @Test("expected_revision: an edit made on a stale read is refused; a fresh one goes through")
    func expectedRevision() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [["name": "Milk"], ["name": "Bread"]]])
        let read = try await h.revision()
        // Someone else (another store on the same file: the editor, say) changes the list.
        let editor = ListStore(file: h.box.file(), mode: .live)
        defer { editor.close() }
        #expect(await eventually { editor.list.named("Milk") != nil })
        try editor.perform(.update(id: editor.list.named("Milk")!.id, changes: [.amount: .text("2 L")]), label: "amount")
        #expect(await eventually { h.store.list.named("Milk")?.amount == "2 L" })

        for (tool, arguments) in [
            ("remove_items", ["items": [["item": "Bread"]]] as [String: Value]),
            ("update_items", ["items": [["item": "Bread", "checked": true]]]),
            ("add_items", ["items": [["name": "Eggs"]]]),
            ("clear_checked", [:]),
            ("add_sections", ["sections": [["name": "Bakery"]]]),
        ] {
            var arguments = arguments
            arguments["expected_revision"] = .string(read)
            let stale = try await h.call(tool, arguments)
            #expect(stale.isError == true && stale.text.contains("changed since revision \(read)"), "\(tool)")
            #expect(stale.text.contains("get_shopping_list again"))
        }
        #expect(try await h.names() == ["Milk", "Bread"])
        let fresh = try await h.revision()
        let removed = try await h.call("remove_items", ["items": [["item": "Bread"]], "expected_revision": .string(fresh)])
        #expect(removed.statuses == ["removed"])
        #expect(removed.structured["revision"] == .string(try await h.revision()), "the answer carries the new revision")
    }

    @Test("concurrent calls (the SDK runs handlers at once): each one lands, one undo step each")
    func concurrentCalls() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        let client = h.client
        let statuses = try await withThrowingTaskGroup(of: [String].self) { group in
            for n in 0..<40 {
                group.addTask {
                    let result = try await client.send(CallTool.request(.init(name: "add_items", arguments: ["items": [["name": .string("Item \(n)")]]]))).value
                    return result.structuredContent?.objectValue?["results"]?.arrayValue?.compactMap { $0.objectValue?["status"]?.stringValue } ?? []
                }
            }
            var all: [String] = []
            for try await s in group { all += s }
            return all
        }
        #expect(statuses == Array(repeating: "added", count: 40))
        #expect(Set(try await h.names()) == Set((0..<40).map { "Item \($0)" }))
        #expect(await eventually { (try? h.box.decoded().items.count) == 40 })
    }
}
