import BananasCore
@testable import BananasMCP
import Foundation
import MCP
import Testing

/// `ToolCallTransport` answers `tools/call` with bytes of its own (`ValueJSON`): what a client
/// decodes from them must be what it decodes from the SDK's own encoding.
@Suite("Tool calls answered outside the SDK's handler table")
struct ToolCallTransportTests {
    static let awkward = "quote \" backslash \\ slash / newline \n tab \t bell \u{07} delete \u{7F} é 🍌 \u{2028}"

    static let results: [CallTool.Result] = [
        .init(content: [.text(text: "3 items:\n[ ] Milk", annotations: nil, _meta: nil)],
              structuredContent: .object([
                  "revision": .string("r-1"), "sections": .array([.string("Dairy"), .string(awkward)]),
                  "items": .array([.object(["id": .string("A"), "checked": .bool(true), "count": .int(-42),
                                            "ratio": .double(0.1), "big": .double(1e20), "none": .null])]),
                  "nested": .object(["empty": .object([:]), "list": .array([])]),
                  "blob": .data(mimeType: "image/png", Data([0, 1, 2, 255])),
              ]),
              isError: false),
        .init(content: [.text(text: "There is no tool named x." + awkward, annotations: nil, _meta: nil)], isError: true),
        .init(content: [], structuredContent: nil, isError: nil),
        .init(content: [.text(text: "a", annotations: nil, _meta: nil), .text(text: "b", annotations: nil, _meta: nil)],
              structuredContent: .array([.int(1), .string(awkward)]), isError: false),
    ]

    @Test("a result written by ValueJSON decodes to the same result as the SDK's encoding of it")
    func sameAsTheSDK() throws {
        for result in Self.results {
            var bytes: [UInt8] = []
            ValueJSON.append(result, to: &bytes)
            let ours = try JSONDecoder().decode(CallTool.Result.self, from: Data(bytes))
            let theirs = try JSONDecoder().decode(CallTool.Result.self, from: JSONEncoder().encode(result))
            #expect(ours == theirs)
            #expect(ours == result)
        }
    }

    @Test("a tools/call request is taken apart: its id as sent, the name, the arguments as the SDK's decoder makes them")
    func parsesCalls() throws {
        let text = #"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add_items","arguments":{"items":[{"name":"Tea \"green\"","count":2,"ratio":1.5,"flag":true,"none":null}]}}}"#
        let call = try #require(ToolCallRequest(Data(text.utf8)))
        #expect(call.id == .number("7"))
        #expect(call.name == "add_items")
        #expect(call.arguments == ["items": .array([.object([
            "name": .string("Tea \"green\""), "count": .int(2), "ratio": .double(1.5), "flag": .bool(true), "none": .null,
        ])])])
        let named = try #require(ToolCallRequest(Data(#"{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"clear_checked"}}"#.utf8)))
        #expect(named.id == .string("abc"))
        #expect(named.arguments.isEmpty)
        var echoed: [UInt8] = []
        ValueJSON.append(named.id, to: &echoed)
        #expect(String(decoding: echoed, as: UTF8.self) == #""abc""#)
    }

    @Test("numbers become what the SDK's decoder makes of them")
    func numbersAsTheSDK() throws {
        for text in ["0", "-7", "2", "2.0", "1e2", "-0.0", "1.5", "0.1", "1e-3", "123456789012", "9.5e18", "1e400"] {
            let ours = ValueJSON.value(try JSONText.parse(text))
            let theirs = try? JSONDecoder().decode(Value.self, from: Data(text.utf8))
            if let theirs { #expect(ours == theirs, "\(text): \(ours) vs \(theirs)") }
        }
    }

    @Test("anything else goes to the SDK: other methods, notifications, responses, batches, malformed calls")
    func leavesTheRest() {
        let others = [
            #"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            #"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"get_shopping_list"}}"#,
            #"{"jsonrpc":"2.0","id":1,"result":{"note":"tools/call"}}"#,
            #"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_shopping_list"}}]"#,
            #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_shopping_list","arguments":[1]}}"#,
            #"{"jsonrpc":"2.0","id":{"x":1},"method":"tools/call","params":{"name":"get_shopping_list"}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"tools/call""#,
        ]
        for text in others {
            #expect(ToolCallRequest(Data(text.utf8)) == nil, "\(text)")
        }
    }
}
