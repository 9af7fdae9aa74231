import BananasCore
import BananasFile
@testable import BananasMCP
import BananasSync
import Foundation
import MCP
import BananasTestSupport
import Testing

/// Hostile text in MCP arguments: every string argument of every tool, found by walking the
/// advertised input schemas (so a new tool or field is covered without a new test), sent
/// 10,000 characters long and sent with escape sequences, control characters and bidi
/// overrides. Limits hold, nothing changes, and no answer carries a raw control character.
@MainActor
@Suite("MCP: hostile text in every string argument")
struct HostileArgumentTests {
    /// One string field somewhere in a tool's arguments, and how to send a value in it.
    struct StringField: CustomStringConvertible {
        let tool: String
        let path: String
        let maxLength: Int?
        let build: (Value) -> [String: Value]
        var description: String { "\(tool) \(path)" }
    }

    /// A plausible value for a required field that is not the one under test.
    static func filler(_ schema: [String: Value]) -> Value {
        switch schema["type"]?.stringValue {
        case "boolean": .bool(false)
        case "integer": .int(1)
        default: .string("Milk")
        }
    }

    static func fields() -> [StringField] {
        var found: [StringField] = []
        for tool in ToolCatalog.all {
            let top = tool.inputSchema.objectValue?["properties"]?.objectValue ?? [:]
            // The tool's required arguments, filled plausibly (a batch gets one entry).
            var required: [String: Value] = [:]
            for name in tool.inputSchema.objectValue?["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                guard let schema = top[name]?.objectValue else { continue }
                if schema["type"]?.stringValue == "array", let entry = schema["items"]?.objectValue {
                    let properties = entry["properties"]?.objectValue ?? [:]
                    var object: [String: Value] = [:]
                    for field in entry["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                        object[field] = filler(properties[field]?.objectValue ?? [:])
                    }
                    required[name] = .array([.object(object)])
                } else {
                    required[name] = filler(schema)
                }
            }
            for (key, property) in top.sorted(by: { $0.key < $1.key }) {
                guard let schema = property.objectValue else { continue }
                if schema["type"]?.stringValue == "string" {
                    found.append(StringField(tool: tool.name, path: key, maxLength: schema["maxLength"]?.intValue) { value in
                        var arguments = required
                        arguments[key] = value
                        return arguments
                    })
                }
                guard schema["type"]?.stringValue == "array", let entry = schema["items"]?.objectValue,
                      let entryProperties = entry["properties"]?.objectValue else { continue }
                let required = entry["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
                for (field, fieldSchema) in entryProperties.sorted(by: { $0.key < $1.key }) where fieldSchema.objectValue?["type"]?.stringValue == "string" {
                    found.append(StringField(tool: tool.name, path: "\(key)[0].\(field)", maxLength: fieldSchema.objectValue?["maxLength"]?.intValue) { value in
                        var object: [String: Value] = [:]
                        for name in required { object[name] = filler(entryProperties[name]?.objectValue ?? [:]) }
                        object[field] = value
                        return [key: .array([.object(object)])]
                    })
                }
            }
        }
        return found
    }

    static let hostile = [
        "Milk\u{1B}]0;pwned\u{07}", "Milk\u{1B}[2J\u{1B}[31m", "\u{9B}31mMilk", "Milk\u{202E}kliM", "Mi\u{2066}lk\u{2069}",
        "Milk\u{0}", "Milk\r\nEggs", "Milk\u{7F}", "Milk\u{2028}", "Milk\u{200F}",
    ]

    static func rawUnsafe(_ text: String) -> Bool {
        text.unicodeScalars.contains { TextRules.isUnsafe($0) && $0 != "\n" }
    }

    @Test("10,000 characters in any string argument: refused with the limit, nothing changes")
    func longStrings() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [["name": "Milk", "section": "Dairy"]]])
        let revision = try await h.revision()
        let long = String(repeating: "x", count: 10_000)
        let fields = Self.fields()
        #expect(fields.count >= 15, "the walk finds the string fields: \(fields)")
        print("mcp hostile text: \(fields.count) string arguments in \(ToolCatalog.all.count) tools, each sent 10,000 characters and \(Self.hostile.count) hostile strings")
        for field in fields {
            let result = try await h.call(field.tool, field.build(.string(long)))
            #expect(result.isError == true, "\(field)")
            if let max = field.maxLength {
                #expect(result.text.contains("at most \(max) characters (got 10000)"), "\(field): \(result.text.prefix(300))")
            }
            #expect(result.text.count < 2_000, "\(field): the answer does not echo the 10,000 characters")
        }
        #expect(try await h.revision() == revision)
        #expect(try await h.names() == ["Milk"])
    }

    @Test("escape sequences, controls and bidi overrides: never stored, never echoed raw")
    func controlCharacters() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        try await h.call("add_items", ["items": [["name": "Milk", "section": "Dairy"]]])
        for field in Self.fields() {
            for text in Self.hostile {
                let result = try await h.call(field.tool, field.build(.string(text)))
                #expect(!Self.rawUnsafe(result.text), "\(field) \(text.debugDescription): \(result.text.debugDescription)")
            }
        }
        // Whatever was accepted (queries that matched nothing), nothing hostile was stored.
        let stored = try h.box.decoded()
        for item in stored.items {
            #expect(!Self.rawUnsafe(item.name + item.amount + item.section), "\(item.name.debugDescription)")
        }
        #expect(!stored.sections.contains(where: Self.rawUnsafe))
    }

    @Test("stored hostile names (from another writer) come back escaped in every answer's text")
    func storedHostileText() async throws {
        let box = Sandbox()
        let names = Self.hostile.enumerated().map { n, name in
            #"{"id": "id-\#(n)", "name": \#(String(decoding: JSONText.serialize(.string(name)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)), "section": "S\u001b[31m"}"#
        }
        let long = String(repeating: "y", count: 10_000)
        box.write(#"{"sections": ["S\u001b[31m"], "items": [\#(names.joined(separator: ", ")), {"id": "long", "name": "\#(long)"}]}"#)
        let h = try await Harness(box)
        defer { Task { await h.close() } }
        let read = try await h.call("get_shopping_list")
        #expect(read.isError == false)
        #expect(!Self.rawUnsafe(read.text), "\(read.text.debugDescription)")
        #expect(read.text.contains("Milk\\e]0;pwned\\u{7}"))
        #expect(read.structured["items"]?.arrayValue?.count == Self.hostile.count + 1, "the data itself is returned as it is, in JSON")
        for query in ["Milk", "Mi", "id-1", "S\u{1B}[31m"] {
            let answer = try await h.call("update_items", ["items": [["item": .string(query), "checked": true]]])
            #expect(!Self.rawUnsafe(answer.text), "\(query.debugDescription): \(answer.text.debugDescription)")
        }
    }
}
