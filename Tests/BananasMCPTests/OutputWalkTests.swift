import Foundation
import Logging
import MCP
import Testing
import BananasCore
import BananasTestSupport
@testable import BananasMCP

/// Issue 39, item 6, for agents: every tool's answer (text and every string of
/// structuredContent), the list resource and the server's log lines, walked with the whole
/// hostile corpus (`HostileText`) stored as names, amounts, sections and conflict records, and
/// sent as arguments and as a tool name.
@Suite("Every output path of the MCP server, walked with the hostile corpus")
struct MCPOutputWalkTests {
    static func strings(_ value: Value) -> [String] {
        switch value {
        case .string(let text): [text]
        case .array(let values): values.flatMap(strings)
        case .object(let fields): fields.keys.map { $0 } + fields.values.flatMap(strings)
        default: []
        }
    }

    @Test("every tool, the resource and the log: never a raw control, bidi or tag character")
    func everyTool() async throws {
        let box = Sandbox()
        let names = HostileText.names
        func json(_ text: String) -> String {
            let data = try! JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])
            return String(decoding: data, as: UTF8.self).dropFirst().dropLast().description
        }
        let section = json("S\u{2066}x\u{E0041}")
        let items = names.indices.map { n in
            #"{"id": "I\#(n)", "name": \#(json(names[n])), "amount": \#(json(String(names[(n + 1) % names.count].prefix(40)))), "section": \#(section), "checked": false}"#
        }
        let records = names.indices.map { n in
            #"{"field": "amount", "item": "I\#(n)", "lost": \#(json(names[(n + 2) % names.count])), "lostStamp": "\#(String(format: "%016d", 1_795_800_000_000 + n))-000000-aaaaaaaaaaaa"}"#
        }
        box.write(#"{"schemaVersion": 3, "sections": [\#(section)], "items": [\#(items.joined(separator: ", "))], "sync": {"conflicts": [\#(records.joined(separator: ", "))]}}"#)
        let log = LogCapture()
        let h = try await Harness(box, logger: log.logger)
        defer { Task { await h.close() } }
        #expect(await eventually { h.store.list.items.count == names.count })

        let hostile = Value.string("X\u{9B}\u{202E}\u{E0041}")
        let calls: [(String, [String: Value])] = [
            ("get_shopping_list", [:]), ("get_shopping_list", ["mode": "compact"]), ("get_shopping_list", ["mode": "summary"]),
            ("get_shopping_list", ["text": "a"]), ("get_shopping_list", ["section": hostile]),
            ("suggest_items", ["text": "M"]), ("suggest_items", [:]),
            ("update_items", ["items": [["item": "I0", "checked": true], ["item": "I1", "amount": "2"], ["item": hostile, "checked": true]]]),
            ("add_items", ["items": [["name": "Milk"], ["name": hostile], ["name": "Tea", "section": hostile]]]),
            ("remove_items", ["items": [["item": "I2"], ["item": hostile]]]),
            ("undo", [:]),
            ("clear_checked", [:]),
            ("add_sections", ["sections": [["name": hostile], ["name": "Fresh"]]]),
            ("update_sections", ["sections": [["section": hostile, "name": "Y"], ["section": "Fresh", "name": hostile]]]),
            ("remove_sections", ["sections": [["section": hostile], ["section": "Fresh", "delete_items": true]]]),
            ("get_shopping_list", [:]),
            ("no_such_tool\u{1B}]0;pwned\u{07}\u{202E}", [:]),
        ]
        for (tool, arguments) in calls {
            var texts: [String]
            do {
                let result = try await h.call(tool, arguments)
                texts = Self.strings(result.structuredContent ?? .null) + [result.text]
            } catch {
                texts = ["\(error)"]  // a protocol error (an unknown tool): its message
            }
            for text in texts {
                #expect(HostileText.firstRaw(in: text) == nil, "\(tool.debugDescription): \(HostileText.firstRaw(in: text) ?? "")")
            }
        }
        let resource = try await h.client.readResource(uri: "bananas://list")
        for content in resource { #expect(HostileText.firstRaw(in: content.text ?? "") == nil, "resource: \(HostileText.firstRaw(in: content.text ?? "") ?? "")") }
        for line in log.lines { #expect(HostileText.firstRaw(in: line.message) == nil, "log: \(HostileText.firstRaw(in: line.message) ?? "")") }
        let first = try await h.call("get_shopping_list")
        #expect(first.text.contains("\\u{E0041}") || first.text.contains("\\u{202E}"), "the corpus reached the answer, escaped")
    }

    @Test("the launch's own notes (a bad log level, an unexpanded placeholder) name what was given, escaped")
    func launchNotes() {
        let hostile = "x\u{1B}]0;pwned\u{07}\u{202E}\u{E0041}"
        let level = MCPLogging.level(hostile).problem ?? ""
        #expect(!level.isEmpty && HostileText.firstRaw(in: level) == nil, "\(level.debugDescription)")
        let dropped = LaunchSettings.cleaned(explicit: "${" + hostile + "}", environment: ["BANANAS_FILE": "${" + hostile + "}"]).dropped
        #expect(dropped.count == 2 && dropped.allSatisfy { HostileText.firstRaw(in: $0) == nil }, "\(dropped)")
    }
}
