import BananasCore
import BananasFile
@testable import BananasMCP
import BananasSync
import Foundation
import MCP
import PropertyBased
import Testing

/// A read across pages while other writers edit: every item on the list throughout the read is
/// returned exactly once, whatever was added or removed between pages (the cursor goes on after
/// the place its item had, not after a count of items).
@Suite("MCP cursors survive edits by other writers")
struct CursorPropertyTests {
    /// `BANANAS_MODEL_SEED` fixes the histories (scripts/test sets it); unset, fresh ones.
    static let seed = ProcessInfo.processInfo.environment["BANANAS_MODEL_SEED"].flatMap { UInt64($0) }

    @Test("pages interleaved with random adds, removes (the cursor's item and items before it too) and checks: each item present throughout is read once")
    func readsEveryItemOnce() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        let histories = 30
        if let seed = Self.seed {
            var random = Xoshiro(seed: (seed, 0x41, 0x9E37_79B9_7F4A_7C15, 0xD1B5_4A32_D192_ED03))
            for n in 0..<histories { try await Self.read(h, history: n, random: &random) }
        } else {
            var n = 0
            await propertyCheck(count: histories, input: Gen<UInt64>.value(in: 0...UInt64.max)) { seed in
                var random = Xoshiro(seed: (seed, 0x41, 0, 1))
                n += 1
                try? await Self.read(h, history: n, random: &random)
            }
        }
    }

    /// One read: a fresh list, then pages of a random size, each followed by 0 to 3 edits.
    @MainActor
    static func read(_ h: Harness, history: Int, random: inout Xoshiro) async throws {
        let store = h.store
        _ = try store.perform(.batch(store.list.items.map { .delete(id: $0.id) }), label: "reset")
        let count = Int.random(in: 10...60, using: &random)
        var fill: [ListEdit] = []
        for n in 0..<count {
            // Ties in sortOrder on purpose: the id orders them. Names are the ids (compact
            // pages show no ids).
            let order = Double(Int.random(in: 0..<(count / 2 + 1), using: &random))
            let id = "H\(history)-\(n)-\(UInt32.random(in: 0...UInt32.max, using: &random))"
            fill.append(.insert(Item(id: id, name: id, section: ["A", "B"][n % 2], sortOrder: order)))
        }
        _ = try store.perform(.batch(fill), label: "fill")
        var throughout = Set(store.list.items.map(\.id))
        let limit = Int.random(in: 1...7, using: &random)
        let mode = ["full", "compact"][Int.random(in: 0...1, using: &random)]
        var seen: [String] = []
        var cursor: String?
        var log: [String] = ["limit \(limit), mode \(mode), \(count) items"]
        var added = 0
        repeat {
            var arguments: [String: Value] = ["limit": .int(limit), "mode": .string(mode)]
            if let cursor { arguments["cursor"] = .string(cursor) }
            let page = try await h.call("get_shopping_list", arguments)
            #expect(page.isError == false, "\(page.text)")
            let ids = page.structured["items"]?.arrayValue?.compactMap { $0.objectValue?["name"]?.stringValue } ?? []
            seen += ids
            log.append("page \(ids)")
            cursor = page.structured["next_cursor"]?.stringValue
            guard cursor != nil else { break }
            // Other writers, between pages.
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let items = store.list.items
                guard !items.isEmpty else { break }
                let last = seen.last.flatMap { id in items.firstIndex { $0.id == id } }
                switch Int.random(in: 0..<4, using: &random) {
                case 0 where last != nil:  // the item the cursor names
                    let id = items[last!].id
                    _ = try store.perform(.delete(id: id), label: "remove")
                    throughout.remove(id)
                    log.append("removed the cursor's \(id)")
                case 0, 1:  // anywhere, often before the cursor
                    let id = items[Int.random(in: 0..<items.count, using: &random)].id
                    _ = try store.perform(.delete(id: id), label: "remove")
                    throughout.remove(id)
                    log.append("removed \(id)")
                case 2:
                    let order = Double(Int.random(in: 0..<(count / 2 + 1), using: &random))
                    added += 1
                    let id = "N\(history)-\(added)"
                    _ = try store.perform(.insert(Item(id: id, name: id, section: "A", sortOrder: order)), label: "add")
                    log.append("added \(id) at \(order)")
                default:
                    let item = items[Int.random(in: 0..<items.count, using: &random)]
                    _ = try store.perform(.update(id: item.id, changes: [.checked: .flag(!item.checked)]), label: "check")
                    log.append("checked \(item.id)")
                }
            }
        } while true
        let counts = Dictionary(seen.map { ($0, 1) }, uniquingKeysWith: +)
        let twice = counts.filter { $0.value > 1 }.keys.sorted()
        let missed = throughout.filter { counts[$0] == nil }.sorted()
        #expect(twice.isEmpty && missed.isEmpty, "history \(history): read twice \(twice), missed \(missed)\n\(log.joined(separator: "\n"))")
    }
}
