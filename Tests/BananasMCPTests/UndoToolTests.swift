import BananasCore
import BananasFile
@testable import BananasMCP
import BananasSync
import Foundation
import MCP
import BananasTestSupport
import Testing

/// Undo for agents: every edit answer carries what it replaced, and `undo` sets back the
/// agent's own last edits by the contract's rule 7 (never over a value another writer changed
/// since).
@Suite("MCP undo for agents") @MainActor
struct UndoToolTests {
    @Test("answers carry what they replaced; undo takes back a remove, an update and an add, newest first")
    func undoesOwnEdits() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        let added = try await h.call("add_items", ["items": [["name": "Milk", "amount": "1 L", "section": "Dairy"], ["name": "Bread"]]])
        let milk = try #require(added.results.first?["id"]?.stringValue)
        let updated = try await h.call("update_items", ["items": [["item": "Milk", "amount": "2 L", "checked": true]]])
        #expect(updated.results.first?["previous"] == .object(["amount": "1 L", "checked": false]))
        let removed = try await h.call("remove_items", ["items": [["item": .string(milk)]]])
        #expect(removed.results.first?["previous"] == .object(["name": "Milk", "amount": "2 L", "section": "Dairy", "checked": true, "optional": false]))

        let back = try await h.call("undo")
        #expect(back.isError == false && back.structured["undone"] == .array(["remove"]), "\(back.text)")
        let restored = try #require(h.store.list.item(milk), "the same item, by id")
        #expect(restored.amount == "2 L" && restored.checked && restored.section == "Dairy")
        let two = try await h.call("undo", ["steps": 2])
        #expect(two.structured["undone"] == .array(["update", "add"]), "\(two.text)")
        #expect(try await h.names().isEmpty, "the add is undone too")
        #expect(try h.box.decoded().items.isEmpty, "written to the file")
        let nothing = try await h.call("undo")
        #expect(nothing.structured["undone"] == .array([]) && nothing.text.contains("Nothing to undo"))
    }

    @Test("undo never overwrites a value another writer changed since, even one this server has not heard of: it says so and changes nothing")
    func refusedOverAnotherWriter() async throws {
        var deaf = FolderWatcher.Options()
        deaf.forcePolling = true
        deaf.remotePollMillis = 600_000
        deaf.remoteRescanMillis = 600_000
        let h = try await Harness(watch: deaf)
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [["name": "Milk", "amount": "1 L"]]])
        try await h.call("update_items", ["items": [["item": "Milk", "amount": "2 L"]]])
        let other = ListStore(file: h.box.file(), mode: .live)
        defer { other.close() }
        let id = try #require(other.list.named("Milk")?.id)
        try other.perform(.update(id: id, changes: [.amount: .text("3 L")]), label: "amount")
        #expect(await other.waitUntilFlushed())

        let refused = try await h.call("undo")
        #expect(refused.isError == true && refused.structured["undone"] == .array([]), "\(refused.text)")
        #expect(refused.text.contains("Not undone: update") && refused.text.contains("changed since by another edit"), "\(refused.text)")
        #expect(try h.box.decoded().named("Milk")?.amount == "3 L", "the other writer's value stays")
    }

    @Test("the tools say how to restore a removed item")
    func descriptionsSayHowToRestore() {
        let remove = ToolCatalog.removeItems.description ?? ""
        #expect(remove.contains("undo") && remove.contains("add_items"))
        #expect((ToolCatalog.clearChecked.description ?? "").contains("undo restores"))
        #expect(ToolCatalog.names.contains("undo"))
    }
}
