import BananasCore
import BananasFile
@testable import BananasMCP
import BananasSync
import Foundation
import MCP
import BananasTestSupport
import Testing

/// What an agent meets first (issue 22): a list that fits its context, revisions that hold,
/// guidance, and text it cannot be fooled by.
@MainActor
@Suite("MCP in process: paging, modes, revisions, guidance")
struct AgentFitTests {
    /// `count` items in sections A, B and C, added in batches as an agent would.
    static func fill(_ h: Harness, _ count: Int, name: (Int) -> String = { "Item \($0)" }) async throws {
        var start = 0
        while start < count {
            let batch = (start..<min(count, start + 500)).map { n -> Value in
                ["name": .string(name(n)), "section": .string(["A", "B", "C"][n % 3])]
            }
            let added = try await h.call("add_items", ["items": .array(batch)])
            #expect(added.statuses.allSatisfy { $0 == "added" })
            start += 500
        }
    }

    /// The size of a tool result as a client receives it (text and structured content).
    static func size(_ result: CallTool.Result) -> Int {
        var bytes: [UInt8] = []
        ValueJSON.append(result, to: &bytes)
        return bytes.count
    }

    @Test("get_shopping_list pages 1,000 items: the default page fits, the cursor walks every item once, in order")
    func pagesThroughTheList() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await Self.fill(h, 1_000)
        let all = h.store.list.items.map(\.id)

        let first = try await h.call("get_shopping_list")
        #expect(first.structured["total_items"] == .int(1_000) && first.structured["matching_items"] == .int(1_000))
        #expect(first.structured["has_more"] == .bool(true))
        #expect(first.structured["items"]?.arrayValue?.count == ListPage.defaultLimit)
        #expect(Self.size(first) <= 100_000, "the default answer stays under 25,000 tokens at 4 characters a token")
        // The cursor ends the text, on a line of its own: no sentence period to copy with it.
        let cursorLine = first.text.split(separator: "\n").last.map(String.init)
        #expect(cursorLine == first.structured["next_cursor"]?.stringValue, "\(first.text.suffix(200))")
        #expect(first.text.contains("call again with this cursor"))

        var seen: [String] = []
        var cursor = first.structured["next_cursor"]?.stringValue
        seen += first.structured["items"]!.arrayValue!.map { $0.objectValue!["id"]!.stringValue! }
        // An item added at the top meanwhile shifts nothing: the cursor goes on after the last id.
        try await h.call("update_items", ["items": [["item": .string(all[500]), "position": 1]]])
        var pages = 1
        while let next = cursor {
            let page = try await h.call("get_shopping_list", ["cursor": .string(next)])
            #expect(page.isError == false, "\(page.text)")
            seen += page.structured["items"]!.arrayValue!.map { $0.objectValue!["id"]!.stringValue! }
            cursor = page.structured["next_cursor"]?.stringValue
            #expect((page.structured["has_more"] == .bool(true)) == (cursor != nil))
            pages += 1
            #expect(pages < 20)
        }
        #expect(seen.count == 999 && Set(seen).count == 999, "every item once (the one moved before the cursor is behind it)")
        #expect(Set(seen) == Set(all).subtracting([all[500]]))
    }

    @Test("a page ends at the size budget whatever the names' length; limit and modes")
    func budgetAndModes() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        // Long names full of characters JSON escapes: the worst case for size.
        try await Self.fill(h, 400) { n in String(repeating: "\"\\", count: 240) + " \(n)" }
        let page = try await h.call("get_shopping_list", ["limit": 1_000])
        let count = try #require(page.structured["items"]?.arrayValue?.count)
        #expect(count > 10 && count < 400 && page.structured["has_more"] == .bool(true))
        #expect(Self.size(page) <= 100_000, "\(Self.size(page)) characters")

        let limited = try await h.call("get_shopping_list", ["limit": 3, "section": "b"])
        #expect(limited.structured["items"]?.arrayValue?.count == 3 && limited.structured["matching_items"] == .int(133))
        let compact = try await h.call("get_shopping_list", ["mode": "compact", "limit": 2])
        let item = try #require(compact.structured["items"]?.arrayValue?.first?.objectValue)
        #expect(Set(item.keys) == ["name", "section", "checked"])
        let summary = try await h.call("get_shopping_list", ["mode": "summary"])
        #expect(summary.structured["items"] == .array([]) && summary.structured["has_more"] == .bool(false))
        let counts = (summary.structured["section_counts"]?.arrayValue ?? []).compactMap(\.objectValue)
        #expect(counts.map { $0["section"]?.stringValue } == ["A", "B", "C"])
        #expect(counts.map { $0["items"]?.intValue } == [134, 133, 133])
        #expect(summary.text.contains("By section"))

        let wrongMode = try await h.call("get_shopping_list", ["mode": "tiny"])
        #expect(wrongMode.isError == true && wrongMode.text.contains("must be one of full, compact, summary"))
        let tooMany = try await h.call("get_shopping_list", ["limit": 5_000])
        #expect(tooMany.isError == true && tooMany.text.contains("at most 1000"))
    }

    @Test("cursors: opaque, tied to their query; an unknown section suggests close names")
    func cursorsAndSections() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [
            ["name": "Milk", "section": "Dairy"], ["name": "Cheese", "section": "Dairy"], ["name": "Apples", "section": "Produce"],
        ]])
        let first = try await h.call("get_shopping_list", ["limit": 1])
        let cursor = try #require(first.structured["next_cursor"]?.stringValue)
        #expect(!cursor.contains("Milk") && !cursor.contains(h.store.list.named("Milk")!.id), "opaque")
        let other = try await h.call("get_shopping_list", ["cursor": .string(cursor), "mode": "compact"])
        #expect(other.isError == true && other.text.contains("other filters or another mode"))
        let junk = try await h.call("get_shopping_list", ["cursor": "not-a-cursor"])
        #expect(junk.isError == true && junk.text.contains("not one this server gave"))
        // The same cursor twice gives the same page (stable across calls).
        let again1 = try await h.call("get_shopping_list", ["cursor": .string(cursor), "limit": 1])
        let again2 = try await h.call("get_shopping_list", ["cursor": .string(cursor), "limit": 1])
        #expect(again1.structured["items"] == again2.structured["items"])
        #expect(again1.structured["items"]?.arrayValue?.first?.objectValue?["name"] == .string("Cheese"))

        let diary = try await h.call("get_shopping_list", ["section": "Diary"])
        #expect(diary.isError == true && diary.text.contains("Did you mean: \"Dairy\""), "\(diary.text)")
        #expect(diary.structuredContent?.objectValue?["suggestions"] == .array(["Dairy"]))
        let nothingClose = try await h.call("get_shopping_list", ["section": "Hardware"])
        #expect(nothingClose.text.contains("The sections are: \"Dairy\", \"Produce\""))
    }

    @Test("the resource pages the same way: bananas://list, then ?cursor=; a template says how")
    func resourcePages() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await Self.fill(h, 450)
        func read(_ uri: String) async throws -> [String: Any] {
            let contents = try await h.client.readResource(uri: uri)
            return try JSONSerialization.jsonObject(with: Data((contents[0].text ?? "").utf8)) as! [String: Any]
        }
        let first = try await read("bananas://list")
        #expect((first["items"] as? [Any])?.count == ListPage.defaultLimit && first["has_more"] as? Bool == true)
        var ids = (first["items"] as! [[String: Any]]).map { $0["id"] as! String }
        var cursor = first["next_cursor"] as? String
        while let next = cursor {
            let page = try await read("bananas://list?cursor=\(next)")
            ids += (page["items"] as! [[String: Any]]).map { $0["id"] as! String }
            cursor = page["next_cursor"] as? String
        }
        #expect(ids == h.store.list.items.map(\.id))
        let summary = try await read("bananas://list?mode=summary")
        #expect((summary["section_counts"] as? [Any])?.count == 3)
        await #expect(throws: (any Error).self) { _ = try await h.client.readResource(uri: "bananas://list?colour=red") }
        let templates = try await h.client.listResourceTemplates().templates
        #expect(templates.map(\.uriTemplate) == ["bananas://list{?cursor,mode,limit,section,text,unchecked_only}"])
    }

    @Test("the list's order and revision are computed once per change, not at every read")
    func snapshotCached() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [["name": "Milk"]]])
        let a = ListSnapshot.of(h.store)
        #expect(ListSnapshot.of(h.store) === a)
        try await h.call("add_items", ["items": [["name": "Eggs"]]])
        let b = ListSnapshot.of(h.store)
        #expect(b !== a && b.revision != a.revision && b.revision == Revision.of(h.store.list))
    }

    @Test("a rename onto a name on the list is refused like a duplicate add; the note is not an error")
    func renameDuplicates() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [["name": "Milk"], ["name": "Oat milk"]]])
        let milk = try #require(h.store.list.named("Milk")?.id)
        let again = try await h.call("add_items", ["items": [["name": "milk"]]])
        #expect(again.results[0]["note"]?.stringValue?.contains("allow_duplicates") == true && again.results[0]["error"] == nil)

        let renamed = try await h.call("update_items", ["items": [["item": "Oat milk", "name": "MILK", "amount": "2"]]])
        #expect(renamed.statuses == ["already_on_list"] && renamed.isError == false)
        #expect(renamed.results[0]["id"] == .string(milk) && renamed.results[0]["note"]?.stringValue?.contains("allow_duplicates") == true)
        #expect(h.store.list.named("Oat milk")?.amount == "", "nothing in the entry changed")
        let caseOnly = try await h.call("update_items", ["items": [["item": "Milk", "name": "MILK"]]])
        #expect(caseOnly.statuses == ["updated"], "renaming an item to its own name in another case is fine")
        let insisted = try await h.call("update_items", ["items": [["item": "Oat milk", "name": "milk"]], "allow_duplicates": true])
        #expect(insisted.statuses == ["updated"])
    }

    @Test("expected_revision is checked against the file under the lock: a write the store has not taken in yet is seen")
    func revisionAgainstTheFile() async throws {
        // This server's store hears of no change in the folder: only what it reads under the
        // lock can tell it the file moved on (a watcher is never faster than every writer).
        var deaf = FolderWatcher.Options()
        deaf.forcePolling = true
        deaf.remotePollMillis = 600_000
        deaf.remoteRescanMillis = 600_000
        let h = try await Harness(watch: deaf)
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [["name": "Milk"], ["name": "Bread"]]])
        let other = ListStore(file: h.box.file(), mode: .live)
        defer { other.close() }
        #expect(await eventually { other.list.named("Bread") != nil })
        for n in 0..<10 {
            let read = try await h.revision()
            // Another writer changes the file; this server's store has not been told yet.
            try other.perform(.update(id: other.list.named("Milk")!.id, changes: [.amount: .text("\(n + 1) L")]), label: "amount")
            #expect(await other.waitUntilFlushed())
            let stale = try await h.call("remove_items", ["items": [["item": "Bread"]], "expected_revision": .string(read)])
            #expect(stale.isError == true && stale.structured["stale"] == .bool(true), "try \(n): \(stale.text)")
            #expect(stale.structured["revision"] != .string(read))
            let changed = try #require(stale.structured["changed_since"]?.objectValue)
            let updated = try #require(changed["updated"]?.arrayValue?.first?.objectValue)
            #expect(updated["item"] == .string("Milk") && updated["amount"] == .string("\(n + 1) L"))
            #expect(stale.text.contains("\"Milk\" amount \"\(n + 1) L\""))
            #expect(stale.structured["revision"] == .string(Revision.of(h.store.list)), "the store has taken in the file")
            let inFile = try h.box.decoded().named("Bread")
            #expect(h.store.list.named("Bread") != nil && inFile != nil)
        }
        let fresh = try #require(try await h.call("get_shopping_list").structured["revision"]?.stringValue)
        let removed = try await h.call("remove_items", ["items": [["item": "Bread"]], "expected_revision": .string(fresh)])
        #expect(removed.statuses == ["removed"] && removed.structured["written"] == .bool(true))
        #expect(try h.box.decoded().named("Bread") == nil)
        #expect(h.store.canUndo, "a conditional edit is one undo step like any other")
    }

    @Test("instructions and prompts tell the model how to use the list")
    func guidance() async throws {
        let box = Sandbox()
        let store = ListStore(file: box.file(), mode: .live)
        defer { store.close() }
        let server = await BananasMCPServer(store: store).makeServer()
        let client = Client(name: "bananas-tests", version: "1")
        let (clientSide, serverSide) = await InMemoryTransport.createConnectedPair()
        try await server.start(transport: serverSide)
        let initialized = try await client.connect(transport: clientSide)
        defer { Task { await client.disconnect(); await server.stop() } }
        let instructions = try #require(initialized.instructions)
        for phrase in ["id", "exact name", "results", "isError only when every entry failed", "expected_revision", "next_cursor"] {
            #expect(instructions.contains(phrase), "\(phrase)")
        }
        let prompts = try await client.listPrompts().prompts
        #expect(prompts.map(\.name) == ["plan_week_shop", "add_recipe", "tidy_list"])
        let recipe = try await client.getPrompt(name: "add_recipe", arguments: ["recipe": "pancakes", "servings": "4"])
        guard case .text(let text)? = recipe.messages.first?.content else { Issue.record("no text"); return }
        #expect(text.contains("pancakes") && text.contains("already on the list") && text.contains("add_items"))
        // tidy_list reads the list in compact pages of 1,000 (about 10 calls at 10,000 items),
        // never the whole list in full mode (67 calls, 2.1 MB).
        let tidy = try await client.getPrompt(name: "tidy_list", arguments: [:])
        guard case .text(let tidyText)? = tidy.messages.first?.content else { Issue.record("no text"); return }
        #expect(tidyText.contains("mode \"compact\" and limit 1000") && tidyText.contains("one section at a time"), "\(tidyText)")
        #expect(!tidyText.contains("\"full\""), "no read in full mode: \(tidyText)")
        await #expect(throws: (any Error).self) { _ = try await client.getPrompt(name: "add_recipe", arguments: [:]) }
        await #expect(throws: (any Error).self) { _ = try await client.getPrompt(name: "shop_for_me", arguments: [:]) }
    }

    @Test("every text answer shows unsafe characters from the file escaped")
    func textAnswersEscaped() async throws {
        let box = Sandbox()
        let hostile = "Milk\u{202E}kliM\u{1B}[2J\u{7}"
        box.write(#"{"sections": ["Dairy\u202e"], "items": [{"id": "A1B2C3D4-0000-4000-8000-000000000001", "name": "\#(hostile.unicodeScalars.map { $0.value < 0x80 && $0.value >= 0x20 ? String($0) : String(format: "\\u%04x", $0.value) }.joined())", "amount": "1\u0007", "section": "Dairy\u202e", "checked": false, "optional": false}]}"#)
        let h = try await Harness(box)
        defer { Task { await h.close() } }
        #expect(await eventually { h.store.list.items.count == 1 })
        let read = try await h.revision()
        var answers: [CallTool.Result] = []
        answers.append(try await h.call("get_shopping_list"))
        answers.append(try await h.call("get_shopping_list", ["mode": "compact"]))
        answers.append(try await h.call("get_shopping_list", ["mode": "summary"]))
        answers.append(try await h.call("get_shopping_list", ["section": "dairy"]))
        answers.append(try await h.call("update_items", ["items": [["item": "A1B2C3D4", "checked": true]]]))
        answers.append(try await h.call("update_items", ["items": [["item": "Milk"]]]))
        answers.append(try await h.call("remove_items", ["items": [["item": "A1B2"]], "expected_revision": .string(read)]))
        answers.append(try await h.call("add_sections", ["sections": [["name": "dairy\u{202E}"]]]))
        answers.append(try await h.call("get_shopping_list", ["section": "Dairy\u{1B}x"]))
        do {
            _ = try await h.call("no_such\u{1B}[2Jtool")
            Issue.record("an unknown tool is an error")
        } catch let error as MCPError {
            let said = error.errorDescription ?? ""
            #expect(!said.unicodeScalars.contains { TextRules.isUnsafe($0) } && said.contains("no_such\\e[2Jtool"), "\(said)")
        }
        answers.append(try await h.call("update_items", ["items": [["item": "Milk", "col\u{7}our": "red"]]]))
        for answer in answers {
            // Lines are the answer's own; nothing else unsafe may come through.
            #expect(!answer.text.unicodeScalars.contains { $0 != "\n" && TextRules.isUnsafe($0) }, "\(answer.text)")
        }
        #expect(answers[0].text.contains("\\u{202E}") && answers[0].text.contains("\\e"))
    }
}
