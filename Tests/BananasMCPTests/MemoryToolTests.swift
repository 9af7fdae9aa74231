import Foundation
import MCP
import Testing
@testable import BananasCore
@testable import BananasMCP
import BananasTestSupport

/// Remembered items through MCP (issue 24): "add what I usually buy" in two calls.
@MainActor
@Suite("MCP: suggest_items and add_items with the memory")
struct MemoryToolTests {
    /// Puts names on the list in sections, checks them and clears them: bought once.
    func shop(_ h: Harness, _ items: [(String, String, String)]) async throws {
        try await h.call("add_items", ["items": .array(items.map { .object(["name": .string($0.0), "section": .string($0.1), "amount": .string($0.2)]) })])
        try await h.call("update_items", ["items": .array(items.map { .object(["item": .string($0.0), "checked": true]) })])
        try await h.call("clear_checked")
    }

    @Test("add what I usually buy: suggest_items, then add_items with the names alone")
    func usualInTwoCalls() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await shop(h, [("Milk", "Dairy", "2 L"), ("Bread", "Bakery", ""), ("Apples", "Produce", "6")])
        try await shop(h, [("Milk", "Dairy", "2 L")])
        try await h.call("add_items", ["items": [["name": "Bread"]]])

        let suggested = try await h.call("suggest_items")
        let names = suggested.structured["suggestions"]?.arrayValue?.compactMap { $0.objectValue?["name"]?.stringValue }
        #expect(names == ["Milk", "Apples"], "bought twice first; Bread is on the list")
        let milk = try #require(suggested.structured["suggestions"]?.arrayValue?.first?.objectValue)
        #expect(milk["section"] == "Dairy" && milk["amount"] == "2 L" && milk["times_bought"] == 2)
        #expect(suggested.content.description.contains("Milk (2 L) · Dairy · bought 2x"))

        let added = try await h.call("add_items", ["items": .array((names ?? []).map { .object(["name": .string($0)]) })])
        #expect(added.statuses == ["added", "added"])
        #expect(added.results[0]["note"]?.stringValue == "under Dairy (as last time), amount 2 L")
        #expect(h.store.list.named("Milk")?.section == "Dairy" && h.store.list.named("Apples")?.amount == "6")
        #expect(try await h.call("suggest_items").structured["suggestions"]?.arrayValue?.isEmpty == true)
    }

    @Test("suggest_items with text: typos allowed, names never bought too; bad arguments refused")
    func matchingText() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await shop(h, [("Milk", "Dairy", ""), ("Mint", "Produce", "")])
        let typo = try await h.call("suggest_items", ["text": "mlik"])
        #expect(typo.structured["suggestions"]?.arrayValue?.first?.objectValue?["name"] == "Milk")
        let none = try await h.call("suggest_items", ["text": "caviar"])
        #expect(none.structured["suggestions"]?.arrayValue?.isEmpty == true && none.isError != true)
        let bad = try await h.client.callTool(name: "suggest_items", arguments: ["limit": 0])
        #expect(bad.isError == true)
        let given = try await h.call("add_items", ["items": [["name": "milk", "section": "Fridge"]]])
        #expect(given.results[0]["note"] == "under Fridge" && h.store.list.named("milk")?.section == "Fridge", "a section given wins")
    }

    @Test("an agent on a second device that only received the list files remembered items as last time")
    func secondDevice() async throws {
        let laptop = try await Harness()
        try await shop(laptop, [("Greek yogurt", "Dairy", "500 g"), ("Basil", "Produce", "")])
        await laptop.close()
        // A sync engine copies the file to another device whose bananas never saw the list.
        let phone = Sandbox()
        try FileManager.default.createDirectory(atPath: (phone.listPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: laptop.box.listPath, toPath: phone.listPath)
        let h = try await Harness(phone)
        defer { Task { await h.close() } }
        let suggested = try await h.call("suggest_items")
        #expect(suggested.structured["suggestions"]?.arrayValue?.count == 2)
        let added = try await h.call("add_items", ["items": [["name": "greek yogurt"], ["name": "Basil"]]])
        #expect(added.statuses == ["added", "added"])
        #expect(h.store.list.named("Greek yogurt")?.section == "Dairy" && h.store.list.named("Greek yogurt")?.amount == "500 g")
        #expect(h.store.list.named("Basil")?.section == "Produce")
    }
}
