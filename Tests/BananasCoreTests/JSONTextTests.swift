import BananasTestSupport
import Testing
import PropertyBased
@testable import BananasCore

@Suite struct JSONTextTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONText.parse(#"{"a": [1, -2.5e3, true, false, null, "x\u00e9\ud83c\udf4c\n"], "b": {}}"#)
        #expect(value == .object([
            "a": .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null, .string("xé🍌\n")]),
            "b": .object([:]),
        ]))
    }

    @Test func numberLiteralsAreKeptVerbatim() throws {
        let value = try JSONText.parse("[1.50, 1e400, 12345678901234567890]")
        #expect(String(decoding: JSONText.serialize(value), as: UTF8.self) == "[\n  1.50,\n  1e400,\n  12345678901234567890\n]\n")
    }

    @Test func errorsSayWhereAndWhat() {
        func failure(_ text: String) -> JSONSyntaxError? {
            do { _ = try JSONText.parse(text); return nil } catch { return error }
        }
        #expect(failure("")?.message == "the file is empty")
        let truncated = failure("{\n  \"items\": [\n    {\"name\": \"Mi")
        #expect(truncated?.message.contains("truncated") == true)
        #expect(truncated?.line == 3)
        let trailing = failure("{} x")
        #expect(trailing?.line == 1 && trailing?.column == 4)
        #expect(failure("[1,]") != nil)
        #expect(failure("{\"a\" 1}")?.message.contains("':'") == true)
        #expect(failure("[01]") != nil)
        #expect(failure("\"\\ud800\"")?.message.contains("surrogate") == true)
    }

    @Test func invalidUTF8IsAnError() {
        #expect(throws: JSONSyntaxError.self) { try JSONText.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try JSONText.parse(deep) }
    }

    @Test func outputIsDeterministicAndOrdered() {
        let value = JSONValue.object(["zeta": .number("1"), "name": .string("a\"b\\c\u{1}"), "id": .string("x"), "alpha": .null])
        let text = String(decoding: JSONText.serialize(value, keyOrder: ["id", "name"]), as: UTF8.self)
        #expect(text == "{\n  \"id\": \"x\",\n  \"name\": \"a\\\"b\\\\c\\u0001\",\n  \"alpha\": null,\n  \"zeta\": 1\n}\n")
    }

    @Test func serializeThenParseIsIdentity() async {
        await propertyCheck(count: 300, input: Gen.uint64().array(of: 0...200)) { draws in
            var rng = DrawnChoices(draws)
            let value = randomJSON(depth: 3, using: &rng)
            #expect((try? JSONText.parse(JSONText.serialize(value))) == value)
            #expect((try? JSONText.parse(JSONText.compact(value))) == value)
        }
    }
}

func randomText<R: RandomNumberGenerator>(maxLength: Int, using rng: inout R) -> String {
    let pool: [Unicode.Scalar] = ["a", "b", "Z", " ", "\"", "\\", "\n", "\u{1}", "é", "日", "🍌", "\u{202E}", "/"]
    return String(String.UnicodeScalarView((0..<Int.random(in: 0...maxLength, using: &rng)).map { _ in pool.randomElement(using: &rng)! }))
}

func randomJSON<R: RandomNumberGenerator>(depth: Int, using rng: inout R) -> JSONValue {
    switch Int.random(in: 0...(depth > 0 ? 6 : 4), using: &rng) {
    case 0: return .null
    case 1: return .bool(Bool.random(using: &rng))
    case 2: return .number(String(Int.random(in: -100_000...100_000, using: &rng)))
    case 3: return .number(["0.5", "-1e10", "3.25E-2"].randomElement(using: &rng)!)
    case 4: return .string(randomText(maxLength: 8, using: &rng))
    case 5: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in randomJSON(depth: depth - 1, using: &rng) })
    default:
        var object: [String: JSONValue] = [:]
        for _ in 0..<Int.random(in: 0...4, using: &rng) {
            object[randomText(maxLength: 5, using: &rng)] = randomJSON(depth: depth - 1, using: &rng)
        }
        return .object(object)
    }
}
