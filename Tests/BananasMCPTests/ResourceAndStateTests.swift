import BananasCore
import BananasFile
@testable import BananasMCP
import BananasSync
import Foundation
import Logging
import MCP
import BananasTestSupport
import Testing

@MainActor
@Suite("MCP in process: the list resource, paused lists, logging")
struct ResourceAndStateTests {
    @Test("bananas://list: listed, read as JSON, and subscribed: every writer's change is notified")
    func resourceSubscription() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [["name": "Milk", "section": "Dairy"]]])
        let resources = try await h.client.listResources().resources
        #expect(resources.map(\.uri) == ["bananas://list"] && resources.first?.mimeType == "application/json")

        func read() async throws -> [String: Any] {
            let contents = try await h.client.readResource(uri: "bananas://list")
            #expect(contents.count == 1 && contents[0].mimeType == "application/json")
            return try JSONSerialization.jsonObject(with: Data((contents[0].text ?? "").utf8)) as! [String: Any]
        }
        let first = try await read()
        #expect(first["sections"] as? [String] == ["Dairy"])
        #expect((first["items"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Milk"])
        #expect(first["revision"] as? String == (try await h.revision()), "the same revision as get_shopping_list")
        await #expect(throws: (any Error).self) { _ = try await h.client.readResource(uri: "bananas://other") }

        #expect(h.updates.all.isEmpty, "nothing is sent before a subscription")
        try await h.client.subscribeToResource(uri: "bananas://list")

        // A change by this server's own tools.
        try await h.call("add_items", ["items": [["name": "Eggs"]]])
        #expect(await eventually { h.updates.all.count >= 1 })

        // A change by another writer on the same file (the editor, say). Its time includes the
        // other store's flush (lock, fsync), which parallel tests slow down: only reported.
        let editor = ListStore(file: h.box.file(), mode: .live)
        defer { editor.close() }
        #expect(await eventually { editor.list.named("Eggs") != nil })
        var viaEditor: [Double] = []
        for n in 0..<5 {
            let before = h.updates.all.count
            let started = ContinuousClock.now
            try editor.perform(.insert(Item(id: ItemID.random(), name: "Editor \(n)", sortOrder: editor.list.nextSortOrder)), label: "add")
            #expect(await eventually { h.updates.all.count > before && h.store.list.named("Editor \(n)") != nil })
            if let at = h.updates.all.dropFirst(before).first { viaEditor.append((at - started) / .milliseconds(1)) }
        }
        #expect((try await read()["items"] as? [[String: Any]])?.count == 7)

        // Hand edits of the file (a stampless writer replacing it atomically): measured from the
        // moment the new file is in place to the notice.
        var viaFile: [Double] = []
        for n in 0..<5 {
            let before = h.updates.all.count
            var object = try JSONSerialization.jsonObject(with: Data((h.box.text ?? "").utf8)) as! [String: Any]
            object["items"] = (object["items"] as! [Any]) + [["id": "HAND-\(n)", "name": "Hand \(n)", "section": "Other"]]
            let temp = h.box.listPath + ".hand"
            _ = FileManager.default.createFile(atPath: temp, contents: try JSONSerialization.data(withJSONObject: object))
            let started = ContinuousClock.now
            #expect(rename(temp, h.box.listPath) == 0)
            #expect(await eventually { h.updates.all.count > before && h.store.list.named("Hand \(n)") != nil })
            if let at = h.updates.all.dropFirst(before).first { viaFile.append((at - started) / .milliseconds(1)) }
        }
        viaEditor.sort()
        viaFile.sort()
        print("notifications/resources/updated: after another store's edit median \(Int(viaEditor[2])) ms, max \(Int(viaEditor[4])) ms; after a file replace median \(Int(viaFile[2])) ms, max \(Int(viaFile[4])) ms")
        // Speed is the benchmark's (propagation); here only that the watcher, not a slow poll,
        // brought the change: on a machine shared with parallel test runs the median took over
        // 200 ms once (6 ms alone).
        #expect(viaFile.count == 5 && viaFile[2] < 1_500, "within 1.5 s of the file changing: \(viaFile)")
        // Every editor edit was notified; its timing (which includes the other store's flush,
        // slowed by parallel tests sharing this process's main actor) is only reported.
        #expect(viaEditor.count == 5, "\(viaEditor)")

        // Unsubscribed: no more notices.
        let unsubscribe = try JSONDecoder().decode(ResourceUnsubscribe.Parameters.self, from: Data(#"{"uri": "bananas://list"}"#.utf8))
        _ = try await h.client.send(ResourceUnsubscribe.request(unsubscribe)).value
        let quiet = h.updates.all.count
        try await h.call("add_items", ["items": [["name": "Quiet"]]])
        try await Task.sleep(for: .milliseconds(200))
        #expect(h.updates.all.count == quiet)
    }

    @Test("stored names with C1 controls, bidi overrides and tag characters reach an agent escaped, in the text and in every string of structuredContent (issue 39, item 6)")
    func hostileStoredTextIsEscapedForAgents() async throws {
        let box = Sandbox()
        let hostile = ["Milk\u{202E}kliM", "Eggs\u{9B}31m", "Tea\u{E0041}\u{E0042}", "Jam\u{85}x", "Rye\u{7F}"]
        let section = "S\u{2066}x"
        let items = hostile.enumerated().map { #"{"id": "I\#($0.offset)", "name": "\#($0.element)", "amount": "\#($0.element)", "section": "\#(section)", "checked": false}"# }
        box.write(#"{"sections": ["\#(section)"], "items": ["# + items.joined(separator: ", ") + "]}")
        let h = try await Harness(box)
        defer { Task { await h.close() } }
        #expect(await eventually { h.store.list.items.count == hostile.count })
        let raw: (Unicode.Scalar) -> Bool = { s in
            (0x80...0x9F).contains(s.value) || s.value == 0x7F || (0x202A...0x202E).contains(s.value)
                || (0x2066...0x2069).contains(s.value) || (0xE0000...0xE007F).contains(s.value)
        }
        func strings(_ value: Value) -> [String] {
            switch value {
            case .string(let text): [text]
            case .array(let values): values.flatMap(strings)
            case .object(let fields): fields.values.flatMap(strings)
            default: []
            }
        }
        for (tool, arguments) in [("get_shopping_list", [String: Value]()), ("update_items", ["items": .array([.object(["item": .string("I0"), "checked": .bool(true)])])]),
                                  ("suggest_items", ["text": .string("M")])] {
            let result = try await h.call(tool, arguments)
            let texts = strings(result.structuredContent ?? .null) + [result.text]
            for text in texts { #expect(!text.unicodeScalars.contains(where: raw), "\(tool): \(text.debugDescription)") }
            if tool == "get_shopping_list" { #expect(result.text.contains("Milk\\u{202E}kliM"), "\(result.text)") }
        }
    }

    @Test("a state folder that keeps nothing (journal and base): an add is answered NOT saved, with why; written once it clears (issue 39, item 1)")
    func anAddNeitherWrittenNorJournaled() async throws {
        let box = Sandbox()
        let h = try await Harness(box)
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [["name": "Milk"]]])
        #expect(await eventually { h.store.status.pendingCount == 0 })
        let files = try #require(box.file().state).root + "/files"
        try FileManager.default.removeItem(atPath: files)
        createTestFile(atPath: files, contents: Data("not a folder".utf8))
        let added = try await h.call("add_items", ["items": [["name": "Eggs"]]])
        #expect(added.structured["saved"] == .bool(false) && added.structured["written"] == .bool(false), "\(added.structured)")
        #expect(added.text.contains("NOT saved") && added.text.contains("lost if the server stops"), "\(added.text)")
        #expect(!added.text.contains("nothing needs to be repeated"))
        try FileManager.default.removeItem(atPath: files)
        // A retry a second after the folder clears; the bound is for a loaded machine.
        #expect(await eventually(timeout: 60) { (try? box.decoded().named("Eggs")) != nil }, "written once the state folder can be made")
        let later = try await h.call("add_items", ["items": [["name": "Tea"]]])
        #expect(later.structured["saved"] == nil)
    }

    @Test("paused by a newer schema: shown with the reason; every mutating tool refuses; the file is untouched")
    func pausedNewerSchema() async throws {
        let box = Sandbox()
        let newer = #"{"schemaVersion": 99, "sections": ["Dairy"], "items": [{"id": "1", "name": "Milk", "section": "Dairy", "checked": true}], "future": true}"#
        box.write(newer)
        let h = try await Harness(box)
        defer { Task { await h.close() } }
        #expect(await eventually { h.store.status.pausedBy != nil })
        let read = try await h.call("get_shopping_list")
        #expect(read.isError == false && read.text.hasPrefix("The list is paused (newer schema (99))"))
        let sync = try #require(read.structured["sync"]?.objectValue)
        #expect(sync["state"] == .string("paused") && sync["paused"] == .string("newer schema (99)"))
        #expect(read.structured["items"]?.arrayValue?.count == 1, "a newer file is still shown")
        try await refusesEverything(h, reason: "newer schema (99)")
        #expect(box.text == newer)
    }

    @Test("paused by an unparseable file: every mutating tool refuses and names it; the file is untouched")
    func pausedUnparseable() async throws {
        let box = Sandbox()
        box.write("{\"items\": [")
        let h = try await Harness(box)
        defer { Task { await h.close() } }
        #expect(await eventually { h.store.status.pausedBy != nil })
        let read = try await h.call("get_shopping_list")
        #expect(read.text.contains("The list is paused (unparseable file)") && read.text.contains("changes are refused"))
        try await refusesEverything(h, reason: "unparseable file")
        #expect(box.text == "{\"items\": [")

        // Fixed by hand: the server takes edits again.
        box.write(#"{"items": [{"id": "A", "name": "Tea", "section": "Other"}]}"#)
        #expect(await eventually { h.store.status.pausedBy == nil })
        let added = try await h.call("add_items", ["items": [["name": "Coffee"]]])
        #expect(added.statuses == ["added"] && added.structured["written"] == .bool(true))
        #expect(Set(try box.decoded().items.map(\.name)) == ["Tea", "Coffee"])
    }

    func refusesEverything(_ h: Harness, reason: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let calls: [(String, [String: Value])] = [
            ("add_items", ["items": [["name": "Eggs"]]]),
            ("update_items", ["items": [["item": "Milk", "checked": false]]]),
            ("remove_items", ["items": [["item": "Milk"]]]),
            ("clear_checked", [:]),
            ("add_sections", ["sections": [["name": "Frozen"]]]),
            ("update_sections", ["sections": [["section": "Dairy", "name": "Milk things"]]]),
            ("remove_sections", ["sections": [["section": "Dairy", "delete_items": true]]]),
        ]
        for (tool, arguments) in calls {
            let result = try await h.call(tool, arguments)
            #expect(result.isError == true, "\(tool)", sourceLocation: sourceLocation)
            #expect(result.text.hasPrefix("The list is paused (\(reason))") && result.text.contains("Nothing was changed"),
                    "\(tool): \(result.text)", sourceLocation: sourceLocation)
        }
        #expect(!h.store.canUndo, "no edit was made", sourceLocation: sourceLocation)
    }

    @Test("each tool call is logged with its name, outcome and time; pauses are logged with the reason")
    func logging() async throws {
        let capture = LogCapture()
        let box = Sandbox()
        let h = try await Harness(box, logger: capture.logger)
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [["name": "Milk"], ["name": ""]]])
        try await h.call("remove_items", ["items": [["item": "Caviar"]]])
        try await h.call("get_shopping_list", ["unchecked_only": true])
        try await h.call("add_items", ["items": []])
        let lines = capture.lines
        let info = lines.filter { $0.level == .info }.map(\.message)
        #expect(info.contains { $0.hasPrefix("tool add_items: 1 added, 1 error ms=") }, "\(info)")
        #expect(info.contains { $0.hasPrefix("tool get_shopping_list: 1 items ms=") }, "\(info)")
        let notices = lines.filter { $0.level == .notice }.map(\.message)
        #expect(notices.contains { $0.hasPrefix("tool remove_items: 1 error ms=") }, "\(notices)")
        #expect(notices.contains { $0.hasPrefix("tool add_items: refused: Invalid arguments for add_items: items: needs at least 1 entries") }, "\(notices)")
        let debug = lines.filter { $0.level == .debug }.map(\.message)
        #expect(debug.contains { $0.hasPrefix("tool get_shopping_list called") && $0.contains(#"arguments={"unchecked_only":true}"#) }, "\(debug)")

        box.write("{ not json")
        #expect(await eventually { capture.lines.contains { $0.level == .warning && $0.message.hasPrefix("list paused (unparseable file):") } })
        box.write(#"{"items": []}"#)
        #expect(await eventually { capture.lines.contains { $0.level == .notice && $0.message.hasPrefix("list writable again") } })
    }

    @Test("BANANAS_LOG_LEVEL: each swift-log level in any case, warn, and a complaint for anything else")
    func logLevels() {
        #expect(MCPLogging.level(nil) == (.info, nil))
        #expect(MCPLogging.level("") == (.info, nil))
        #expect(MCPLogging.level("DEBUG").level == .debug)
        #expect(MCPLogging.level(" trace ").level == .trace)
        #expect(MCPLogging.level("warn").level == .warning)
        #expect(MCPLogging.level("critical").level == .critical)
        let bad = MCPLogging.level("loud")
        #expect(bad.level == .info && bad.problem?.contains("BANANAS_LOG_LEVEL=loud is not a level") == true)
    }
}
