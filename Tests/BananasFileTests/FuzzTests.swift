import Foundation
import BananasTestSupport
import Testing
import PropertyBased
@testable import BananasCore
@testable import BananasFile

/// A seeded random fuzzer over the decoder (`JSONText`, `ListCodec`) and the merge: mutated
/// and generated files, bounded in time. No input may crash, hang, or break these rules:
///
/// - JSON that parses serializes to JSON that parses to the same value;
/// - a list that decodes encodes to bytes that decode again, and a second round gives the
///   same bytes (a rewrite never churns the file: no write loops);
/// - the merge of decoded lists is commutative and idempotent.
///
/// `BANANAS_FUZZ_SECONDS` (default 6 per test: about 20 s in all) and `BANANAS_FUZZ_SEED`
/// (default: random, printed) let a longer run be started, or a failure replayed:
///
///     scripts/fuzz 600                        (600 s per target)
///     BANANAS_FUZZ_SEED=42 scripts/fuzz 60    (replays a failing run)
@Suite("Fuzzing the decoder and the merge", .serialized)
struct FuzzTests {
    static let environment = ProcessInfo.processInfo.environment
    static let seconds = Double(environment["BANANAS_FUZZ_SECONDS"] ?? "") ?? 6
    static let seed = UInt64(environment["BANANAS_FUZZ_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64.max)
    /// One input taking longer than this is reported as a hang.
    static let perInputLimit: Duration = .seconds(2)

    /// Valid lists and the hostile corpus: the mutations start from these.
    static let seeds: [[UInt8]] = {
        var seeds = [fixture("legacy-BananaList.json")]
        var list = ShoppingList()
        let stamp = Stamp(millis: 1_700_000_000_000, counter: 3, replica: "0123456789ab")
        for n in 0..<6 {
            var item = Item(id: "id-\(n)", name: ["Milk", "Eggs", "日本 🍌", "a\\u0000b", "Jam", "Oat milk"][n],
                            amount: n % 2 == 0 ? "2 L" : "", section: ["A", "B", ""][n % 3], sortOrder: Double(n))
            item.extra = n == 1 ? ["price": .number("1.10"), "tags": .array([.string("x"), .null])] : [:]
            try! list.apply(.insert(item), stamp: stamp)
        }
        try! list.apply(.delete(id: "id-5"), stamp: Stamp(millis: 1_700_000_000_001, counter: 0, replica: "0123456789ab"))
        try! list.apply(.setSections(["A", "B"]), stamp: stamp)
        list.extra["future"] = .object(["nested": .array([.number("1e3"), .bool(true)])])
        seeds.append(ListCodec.encode(list))
        seeds += HostileCorpus.committed.map(\.bytes)
        return seeds
    }()

    /// Pieces that steer mutations towards the decoder's edges.
    static let tokens: [String] = [
        "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\ud800", "\\udc00", "\\u0000", "\\\"", "null", "true", "false",
        "-", "0", "-0", "1e999999", "1.5e-400", "00", "1.", ".5", "9223372036854775808", "\"items\"", "\"sections\"",
        "\"sync\"", "\"deleted\"", "\"deletedRows\"", "\"stamps\"", "\"schemaVersion\"", "\"sortOrder\"", "\"id\"",
        "\"name\"", "\"checked\"", "0000000000001-0000-aaaaaaaaaaaa", "\u{FEFF}", "\u{202E}", "\u{1B}[2J", "\t", "\n",
    ]

    struct Stats: CustomStringConvertible {
        var inputs = 0, parsed = 0, decoded = 0, merges = 0
        var slowest: Duration = .zero
        var description: String {
            "\(inputs) inputs (\(parsed) valid JSON, \(decoded) lists, \(merges) merge triples), slowest \(slowest)"
        }
    }

    /// Runs `body` on inputs until the time is up; records an issue with the seed and the
    /// input (base64) for every failure, stopping after a few.
    static func run(_ name: String, _ body: (inout Xoshiro, inout Stats) -> [UInt8]?) -> Stats {
        var rng = Xoshiro(seed: (seed &+ UInt64(name.utf8.reduce(0) { $0 &* 31 &+ Int($1) }), 0, 0, 0))
        var stats = Stats()
        let clock = ContinuousClock()
        let end = clock.now + .seconds(seconds)
        var failures = 0
        while clock.now < end && failures < 5 {
            let start = clock.now
            let failing = body(&rng, &stats)
            let took = clock.now - start
            stats.inputs += 1
            stats.slowest = max(stats.slowest, took)
            if let failing {
                failures += 1
                Issue.record("\(name) failed (BANANAS_FUZZ_SEED=\(seed)); input base64: \(Data(failing.prefix(4096)).base64EncodedString())")
            }
        }
        #expect(stats.slowest < perInputLimit, "one input took \(stats.slowest) (seed \(seed))")
        print("fuzz \(name): seed \(seed), \(stats)")
        return stats
    }

    static func mutated(_ rng: inout Xoshiro) -> [UInt8] {
        var bytes = seeds[rng.below(seeds.count)]
        for _ in 0...rng.below(4) {
            let at = bytes.isEmpty ? 0 : rng.below(bytes.count + 1)
            switch rng.below(8) {
            case 0 where !bytes.isEmpty: bytes[min(at, bytes.count - 1)] ^= UInt8(1 << rng.below(8))
            case 1: bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: at)
            case 2 where !bytes.isEmpty:
                let length = rng.below(min(64, bytes.count - min(at, bytes.count - 1)) + 1)
                bytes.removeSubrange(min(at, bytes.count - 1)..<min(bytes.count, at + length))
            case 3: bytes.insert(contentsOf: Array(tokens[rng.below(tokens.count)].utf8), at: at)
            case 4: bytes = Array(bytes.prefix(at))  // truncated, as by a half-synced copy
            case 5 where !bytes.isEmpty:  // a slice repeated
                let from = rng.below(bytes.count)
                let slice = bytes[from..<min(bytes.count, from + rng.below(200) + 1)]
                bytes.insert(contentsOf: slice, at: at)
            case 6:  // spliced with another seed
                let other = seeds[rng.below(seeds.count)]
                bytes = Array(bytes.prefix(at)) + other.suffix(rng.below(other.count + 1))
            default: bytes.insert(contentsOf: Array(repeating: UInt8(ascii: "["), count: rng.below(150)), at: at)
            }
        }
        return bytes
    }

    /// A random list-shaped JSON value: mostly the keys the decoder knows, with values of
    /// every type, so the structure checks see every wrong type.
    static func generatedValue(_ rng: inout Xoshiro, depth: Int = 0) -> JSONValue {
        func text() -> String {
            let pieces = ["Milk", "", " ", "A", "B", "日本", "🍌", "\u{0}", "\u{1B}[31m", "\u{202E}", "x", "0000000000001-0000-aaaaaaaaaaaa",
                          "id-1", "ID-1", "\u{FFFF}", "é", "e\u{301}"]
            return (0..<rng.below(3)).map { _ in pieces[rng.below(pieces.count)] }.joined()
        }
        func scalar() -> JSONValue {
            switch rng.below(6) {
            case 0: return .null
            case 1: return .bool(rng.below(2) == 0)
            case 2: return .number(["0", "1", "-1", "2", "99", "1.5", "1e308", "-0", "3"][rng.below(9)])
            default: return .string(text())
            }
        }
        let keys = ["schemaVersion", "sections", "items", "sync", "id", "name", "amount", "section", "checked", "optional",
                    "sortOrder", "lastModified", "stamps", "sectionsStamp", "deleted", "deletedRows", "extra"]
        if depth > 4 { return scalar() }
        switch rng.below(depth == 0 ? 2 : 5) {
        case 0:
            var object: [String: JSONValue] = [:]
            for _ in 0..<rng.below(6) { object[keys[rng.below(keys.count)]] = generatedValue(&rng, depth: depth + 1) }
            if depth == 0 {
                object["items"] = .array((0..<rng.below(6)).map { _ in generatedValue(&rng, depth: depth + 2) })
            }
            return .object(object)
        case 1: return .array((0..<rng.below(5)).map { _ in generatedValue(&rng, depth: depth + 1) })
        default: return scalar()
        }
    }

    /// The rules for one input; nil when they hold, else the input.
    static func check(_ bytes: [UInt8], _ stats: inout Stats) -> [UInt8]? {
        func broken(_ rule: String) -> [UInt8] {
            Issue.record("\(rule) (BANANAS_FUZZ_SEED=\(seed))")
            return bytes
        }
        if let value = try? JSONText.parse(bytes) {
            stats.parsed += 1
            guard (try? JSONText.parse(JSONText.serialize(value))) == value else { return broken("JSON does not survive a round trip") }
        }
        guard let decoded = try? ListCodec.decode(bytes) else { return nil }
        stats.decoded += 1
        let once = ListCodec.encode(decoded.list)
        guard let again = try? ListCodec.decode(once) else { return broken("what we wrote does not decode") }
        guard ListCodec.encode(again.list) == once else {
            return broken("a rewrite changes the file:\n\(String(decoding: once, as: UTF8.self))")
        }
        return nil
    }

    @Test("mutated files: the decoder never crashes, and what it reads it writes back stably", .timeLimit(.minutes(60)))
    func mutatedFiles() {
        let stats = Self.run("mutated") { rng, stats in Self.check(Self.mutated(&rng), &stats) }
        #expect(stats.decoded > 0 && stats.inputs > stats.decoded, "the mutations reach both sides of the decoder")
    }

    @Test("generated list-shaped files of every wrong type", .timeLimit(.minutes(60)))
    func generatedFiles() {
        let stats = Self.run("generated") { rng, stats in
            Self.check(JSONText.serialize(Self.generatedValue(&rng)), &stats)
        }
        #expect(stats.decoded > 0)
    }

    @Test("the merge of decoded hostile lists is commutative and idempotent", .timeLimit(.minutes(60)))
    func mergeOfDecodedLists() {
        var pool: [ShoppingList] = Self.seeds.compactMap { try? ListCodec.decode($0).list }
        let stats = Self.run("merge") { rng, stats in
            let bytes = rng.below(2) == 0 ? Self.mutated(&rng) : JSONText.serialize(Self.generatedValue(&rng))
            guard let list = try? ListCodec.decode(bytes).list else { return nil }
            stats.decoded += 1
            pool.append(list)
            if pool.count > 64 { pool.remove(at: rng.below(pool.count)) }
            let a = list, b = pool[rng.below(pool.count)], c = pool[rng.below(pool.count)]
            stats.merges += 1
            let ab = a.merged(with: b)
            var broken: String?
            if ab != b.merged(with: a) { broken = "commutative" }
            else if ab.merged(with: b) != ab || a.merged(with: a) != a { broken = "idempotent" }
            else if ab.merged(with: c) != a.merged(with: b.merged(with: c)) { broken = "associative" }
            else {
                // What the merge makes, the codec writes and reads back unchanged.
                let written = ListCodec.encode(ab)
                if (try? ListCodec.decode(written)).map({ ListCodec.encode($0.list) == written }) != true { broken = "round trip" }
            }
            guard let broken else { return nil }
            let lists = [a, b, c].map { String(decoding: JSONText.serialize(ListCodec.encodeValue($0)), as: UTF8.self) }
            Issue.record("merge is not \(broken) for these lists (a is the input below):\n\(lists.joined(separator: "\n"))")
            return bytes
        }
        #expect(stats.merges > 0)
    }
}

/// Inputs the fuzzer once broke a rule with, kept so the rule stays checked.
@Suite("Fuzzer findings")
struct FuzzFindings {
    @Test("an empty lastModified survives merging a row with itself (merge was not idempotent)")
    func emptyLastModified() throws {
        let list = try ListCodec.decode(Array(#"{"items": [{"id": "1", "name": "Milk", "lastModified": ""}]}"#.utf8)).list
        #expect(list.merged(with: list) == list)
        let other = try ListCodec.decode(Array(#"{"items": [{"id": "1", "name": "Milk"}]}"#.utf8)).list
        #expect(list.merged(with: other) == other.merged(with: list))
        #expect(list.merged(with: other).items.first?.lastModified == "")
    }
}

