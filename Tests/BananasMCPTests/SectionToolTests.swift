import BananasCore
import BananasFile
@testable import BananasMCP
import BananasSync
import Foundation
import MCP
import Testing

/// What the editor does to sections, done by an agent: add, rename, reorder, remove; and
/// moving items between sections (update_items).
@MainActor
@Suite("MCP in process: section tools")
struct SectionToolTests {
    func sections(_ h: Harness) async throws -> [String] {
        // Every section in order, empty ones too: the summary (a page names only its items' sections).
        try await h.list(["mode": "summary"])["sections"]!.arrayValue!.map { $0.stringValue! }
    }

    @Test("add_sections: at the end or at a position; an existing one (any case) is already_exists")
    func addSections() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [["name": "Milk", "section": "Dairy"]]])
        let added = try await h.call("add_sections", ["sections": [
            ["name": "Produce", "position": 1], ["name": "Frozen"], ["name": "DAIRY"], ["name": "  "],
            ["name": "Bakery", "position": 99], ["name": "Deli", "position": 2], ["name": "frozen"],
        ]])
        #expect(added.statuses == ["added", "added", "already_exists", "error", "added", "added", "already_exists"])
        #expect(added.results[2]["section"] == .string("Dairy"), "answers with the section as spelled")
        #expect(added.results[3]["error"] == .string("the section is empty"))
        #expect(added.isError == false)
        #expect(try await sections(h) == ["Produce", "Deli", "Dairy", "Frozen", "Bakery"])
        #expect(try h.box.decoded().sections == ["Produce", "Deli", "Dairy", "Frozen", "Bakery"], "the file holds them")
        let again = try await h.call("add_sections", ["sections": [["name": "Produce"]]])
        #expect(again.statuses == ["already_exists"] && again.isError == false)
    }

    @Test("update_sections: rename (items follow), reorder, both; clashes and unknown sections fail alone")
    func updateSections() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [
            ["name": "Milk", "section": "Dairy"], ["name": "Apples", "section": "Veg"], ["name": "Bread", "section": "Bakery"],
        ]])
        #expect(try await sections(h) == ["Dairy", "Veg", "Bakery"])
        let updated = try await h.call("update_sections", ["sections": [
            ["section": "veg", "name": "Produce", "position": 1],
            ["section": "Bakery", "position": 2],
            ["section": "Dairy", "name": "produce"],
            ["section": "Frozen", "name": "Ice"],
            ["section": "Dairy"],
            ["section": "Dairy", "name": "Dairy & eggs"],
        ]])
        #expect(updated.statuses == ["updated", "updated", "error", "error", "error", "updated"])
        #expect(updated.results[0]["section"] == .string("Produce"))
        #expect(updated.results[2]["error"]?.stringValue == "there is already a section named \"Produce\"")
        #expect(updated.results[3]["error"]?.stringValue?.hasPrefix("no section named \"Frozen\"") == true)
        #expect(updated.results[3]["suggestions"] != nil, "an unknown section comes with the sections there are")
        #expect(updated.results[4]["error"]?.stringValue?.hasPrefix("nothing to change") == true)
        #expect(try await sections(h) == ["Produce", "Bakery", "Dairy & eggs"])
        let list = h.store.list
        #expect(list.named("Apples")?.section == "Produce" && list.named("Milk")?.section == "Dairy & eggs")
        let onDisk = try h.box.decoded()
        #expect(onDisk.sections == ["Produce", "Bakery", "Dairy & eggs"] && onDisk.named("Apples")?.section == "Produce")

        // A case-only rename is allowed.
        let cased = try await h.call("update_sections", ["sections": [["section": "bakery", "name": "BAKERY"]]])
        #expect(cased.statuses == ["updated"])
        #expect(try await sections(h) == ["Produce", "BAKERY", "Dairy & eggs"])
    }

    @Test("remove_sections: empty ones go; ones with items need move_items_to or delete_items")
    func removeSections() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [
            ["name": "Milk", "section": "Dairy"], ["name": "Cheese", "section": "Dairy"],
            ["name": "Apples", "section": "Produce"], ["name": "Bread", "section": "Bakery"],
        ]])
        try await h.call("add_sections", ["sections": [["name": "Frozen"]]])
        let removed = try await h.call("remove_sections", ["sections": [
            ["section": "frozen"],
            ["section": "Dairy"],
            ["section": "Dairy", "move_items_to": "produce"],
            ["section": "Bakery", "delete_items": true],
            ["section": "Produce", "move_items_to": "Deli", "delete_items": true],
            ["section": "Produce", "move_items_to": "Produce"],
            ["section": "Nowhere"],
        ]])
        #expect(removed.statuses == ["removed", "error", "removed", "removed", "error", "error", "error"])
        #expect(removed.results[1]["error"]?.stringValue == "section \"Dairy\" still holds 2 items; give move_items_to (a section) or delete_items: true")
        #expect(removed.results[4]["error"]?.stringValue == "give move_items_to or delete_items, not both")
        #expect(removed.results[5]["error"]?.stringValue == "move_items_to names the section being removed")
        #expect(removed.isError == false)
        #expect(try await sections(h) == ["Produce"])
        #expect(Set(h.store.list.items.map(\.name)) == ["Milk", "Cheese", "Apples"])
        #expect(h.store.list.items.allSatisfy { $0.section == "Produce" })

        let moved = try await h.call("remove_sections", ["sections": [["section": "Produce", "move_items_to": "Pantry"]]])
        #expect(moved.statuses == ["removed"])
        #expect(try await sections(h) == ["Pantry"], "a new target section is created")
        let onDisk = try h.box.decoded()
        #expect(onDisk.items.count == 3 && onDisk.items.allSatisfy { $0.section == "Pantry" })
    }

    @Test("moving items between sections and reordering them is update_items")
    func moveItems() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [
            ["name": "Milk", "section": "Dairy"], ["name": "Apples", "section": "Produce"], ["name": "Pears", "section": "Produce"],
        ]])
        let moved = try await h.call("update_items", ["items": [
            ["item": "Milk", "section": "PRODUCE", "position": 1], ["item": "Pears", "section": "Fruit"],
        ]])
        #expect(moved.statuses == ["updated", "updated"])
        let list = h.store.list
        #expect(list.items.filter { $0.section == "Produce" }.map(\.name) == ["Milk", "Apples"])
        #expect(list.named("Pears")?.section == "Fruit" && list.displaySections.last == "Fruit")
    }
}
