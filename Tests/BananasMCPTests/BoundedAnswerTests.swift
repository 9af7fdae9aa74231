import BananasCore
import BananasFile
@testable import BananasMCP
import BananasSync
import Foundation
import MCP
import BananasTestSupport
import Testing

/// Every answer bounded by construction: the worst lists an agent can meet (1,000 items of
/// one name, 10,000 ids sharing their first 4 characters, 3,000 sections, long names) sent
/// through every tool, with batches of 500 misspelled or ambiguous names. No answer may pass
/// 100 KB (Claude Code cuts a tool result above 25,000 tokens), and `tools/list`, sent in
/// every session, stays under 16 KB.
@Suite("MCP answers stay bounded whatever the list holds")
struct BoundedAnswerTests {
    static let answerCap = 100_000

    /// The size of a result as the client receives it.
    static func size(_ result: CallTool.Result) -> Int {
        var bytes: [UInt8] = []
        ValueJSON.append(result, to: &bytes)
        return bytes.count
    }

    /// 10,000 items, ids all starting "ABCD"; 1,000 named "Tea"; names up to 300 characters,
    /// some with characters shown escaped; 3,000 sections (300 of them holding items); half
    /// checked.
    @MainActor
    static func worstList(_ h: Harness) throws {
        var edits: [ListEdit] = [.setSections((0..<3_000).map { "Section \($0) " + String(repeating: "s", count: 60) })]
        for n in 0..<10_000 {
            let name = n < 1_000 ? "Tea" : "Item \(n) " + String(repeating: n % 2 == 0 ? "long name " : "\u{202E}x", count: 30)
            edits.append(.insert(Item(id: String(format: "ABCD%04d-0000-4000-8000-%012d", n, n), name: name,
                                      amount: String(repeating: "9", count: 80), section: "Section \(n % 300) " + String(repeating: "s", count: 60),
                                      checked: n % 2 == 1, sortOrder: Double(n))))
        }
        _ = try h.store.perform(.batch(edits), label: "fill")
    }

    @Test("the worst cases through every tool: each answer under 100 KB, candidates and suggestions capped at 10 with their total, batches counted whole")
    func worstCasesThroughEveryTool() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await MainActor.run { try Self.worstList(h) }
        var sizes: [(String, Int)] = []
        func call(_ label: String, _ tool: String, _ arguments: [String: Value] = [:]) async throws -> CallTool.Result {
            let result = try await h.call(tool, arguments)
            sizes.append((label, Self.size(result)))
            #expect(Self.size(result) <= Self.answerCap, "\(label): \(Self.size(result)) bytes")
            return result
        }

        // Reading: every mode, the first and a later page, an unknown section.
        for mode in ["full", "compact", "summary"] {
            let first = try await call("get_shopping_list \(mode)", "get_shopping_list", ["mode": .string(mode), "limit": 1_000])
            #expect(first.structured["has_more"] == .bool(true), "\(mode)")
            let cursor = try #require(first.structured["next_cursor"])
            _ = try await call("get_shopping_list \(mode) page 2", "get_shopping_list", ["mode": .string(mode), "limit": 1_000, "cursor": cursor])
            #expect((first.structured["sections"]?.arrayValue?.count ?? 0) <= 1_000, "\(mode): sections are those of the page")
        }
        // Summary pages through the 3,000 sections: each once, in order.
        var seen: [String] = []
        var cursor: Value?
        repeat {
            var arguments: [String: Value] = ["mode": "summary"]
            if let cursor { arguments["cursor"] = cursor }
            let page = try await call("get_shopping_list summary", "get_shopping_list", arguments)
            seen += page.structured["section_counts"]?.arrayValue?.compactMap { $0.objectValue?["section"]?.stringValue } ?? []
            cursor = page.structured["next_cursor"]
        } while cursor != nil
        let allSections = await MainActor.run { h.store.list.sections }
        #expect(seen == allSections)
        let unknownSection = try await call("get_shopping_list unknown section", "get_shopping_list", ["section": "Nowhere at all"])
        #expect(unknownSection.isError == true && (unknownSection.structuredContent?.objectValue?["suggestions"]?.arrayValue?.count ?? 99) <= 10)
        #expect(unknownSection.text.contains("2990 more"), "\(unknownSection.text.prefix(300))")
        _ = try await call("suggest_items 200", "suggest_items", ["limit": 200, "text": "Item"])

        // 1,000 items named Tea: an ambiguous name names 10 candidates, the total, and how to narrow.
        let tea = try await call("remove_items Tea", "remove_items", ["items": [["item": "Tea"]]])
        let teaEntry = try #require(tea.results.first)
        #expect(teaEntry["candidates"]?.arrayValue?.count == 10 && teaEntry["candidates_total"] == .int(1_000))
        #expect(teaEntry["error"]?.stringValue?.contains("990 more: give more characters of an id, or find the one you mean with get_shopping_list") == true)
        // A 4-character id start over 10,000 items.
        let prefix = try await call("update_items ABCD", "update_items", ["items": [["item": "ABCD", "checked": true]]])
        #expect(prefix.results.first?["candidates_total"] == .int(10_000))
        // A stale revision after a change to hundreds of items and to the order of 3,000 sections.
        let read = try #require(try await h.list(["mode": "summary"])["revision"])
        try await MainActor.run {
            let moved = h.store.list.items.prefix(300).map { ListEdit.update(id: $0.id, changes: [.amount: .text("changed")]) }
            var order = h.store.list.sections
            order.swapAt(0, 1)
            _ = try h.store.perform(.batch(moved + [.setSections(order)]), label: "other writer")
        }
        let stale = try await call("stale expected_revision", "remove_items", ["items": [["item": "ABCD0001"]], "expected_revision": read])
        #expect(stale.structured["stale"] == .bool(true))
        // What changed is told from the revisions this process showed lately (tests running
        // beside this one in the process can push the read out of them).
        if stale.structured["changed_since"]?.objectValue?["known"] == .bool(true) {
            #expect(stale.text.contains("and 2990 more (mode \"summary\" lists them)") && stale.text.contains("and 290 more"), "\(stale.text.prefix(400))")
        }
        // clear_checked of 5,000 items: the edit is whole, the answer counts what it does not list.
        let cleared = try await call("clear_checked 5,000", "clear_checked")
        #expect(cleared.results.count + (cleared.structured["omitted_results"]?.intValue ?? 0) == 5_000)
        #expect(cleared.results.count < 5_000 && cleared.text.contains("left out of this answer"))
        let resource = try await h.client.readResource(uri: "bananas://list?limit=1000")
        #expect((resource.first?.text ?? "").utf8.count <= Self.answerCap)
        print("BoundedAnswerTests sizes: " + sizes.map { "\($0.0) \($0.1)" }.joined(separator: "; "))

        // tools/list, sent in every session, whatever the list.
        let tools = try await h.client.listTools().tools
        let listed = try JSONEncoder().encode(ListTools.Result(tools: tools))
        #expect(listed.count < 16_000, "tools/list is \(listed.count) bytes")
    }

    /// 1,000 items named "Tea" (ids starting "ABCD"), 1,000 of everyday names, 300 sections:
    /// the batch cases (the answer's size grows with the batch, not the list).
    @MainActor
    static func batchList(_ h: Harness) throws {
        var edits: [ListEdit] = [.setSections((0..<300).map { "Section \($0) " + String(repeating: "s", count: 60) })]
        for n in 0..<2_000 {
            edits.append(.insert(Item(id: String(format: "ABCD%04d-0000-4000-8000-%012d", n, n), name: n < 1_000 ? "Tea" : "Milk \(n)",
                                      amount: "2 L", section: "Section \(n % 300) " + String(repeating: "s", count: 60), sortOrder: Double(n))))
        }
        _ = try h.store.perform(.batch(edits), label: "fill")
    }

    @Test("batches of 500: ambiguous names, misspelled names, unknown sections, new sections, duplicates: each answer under 100 KB, every entry answered")
    func worstBatches() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await MainActor.run { try Self.batchList(h) }
        func call(_ label: String, _ tool: String, _ arguments: [String: Value] = [:]) async throws -> CallTool.Result {
            let result = try await h.call(tool, arguments)
            #expect(Self.size(result) <= Self.answerCap, "\(label): \(Self.size(result)) bytes")
            return result
        }
        // 500 ambiguous names and 500 misspelled names in one batch each: every entry answered,
        // in order, by its number (none only counted).
        for (label, name) in [("update_items 500 x Tea", "Tea"), ("update_items 500 misspelled", "Mlik"), ("remove_items 500 misspelled", "Mlik")] {
            let entries: [Value] = (0..<500).map { n in .object(["item": .string(name == "Tea" ? "Tea" : "\(name) \(n)"), "checked": .bool(true)]) }
            let tool = label.hasPrefix("update") ? "update_items" : "remove_items"
            let batch = try await call(label, tool, ["items": .array(tool == "remove_items" ? entries.map { .object(["item": $0.objectValue!["item"]!]) } : entries)])
            #expect(batch.structured["omitted_results"] == nil, "\(label)")
            #expect(batch.results.map { $0["entry"]?.intValue } == (0..<500).map { $0 }, "\(label)")
            #expect(batch.results.allSatisfy { $0["status"] == .string("error") })
        }
        // Sections: 500 unknown ones, each with at most 10 suggestions.
        let sections: [Value] = (0..<500).map { .object(["section": .string("Nowhere \($0)")]) }
        let unknown = try await call("update_sections 500 unknown", "update_sections", ["sections": .array(sections.map { .object(["section": $0.objectValue!["section"]!, "name": "X"]) })])
        #expect(unknown.results.allSatisfy { ($0["suggestions"]?.arrayValue?.count ?? 0) <= 10 })
        _ = try await call("remove_sections 500 unknown", "remove_sections", ["sections": .array(sections)])
        _ = try await call("add_sections 500", "add_sections", ["sections": .array((0..<500).map { .object(["name": .string("New section \($0) " + String(repeating: "n", count: 80))]) })])
        _ = try await call("add_items 500 duplicates", "add_items", ["items": .array((0..<500).map { _ in .object(["name": "Tea"]) })])
    }
}
