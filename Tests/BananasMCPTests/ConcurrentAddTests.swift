import BananasCore
import BananasFile
@testable import BananasMCP
import BananasSync
import Foundation
import MCP
import BananasTestSupport
import Testing

/// The duplicate rule (a name already on the list is not added again) is decided under the
/// list file's lock: two servers adding the same names at the same moment cannot both add them.
@Suite("MCP duplicates across concurrent writers")
struct ConcurrentAddTests {
    /// Servers that hear of no change in the folder: only what each reads under the lock can
    /// tell it another writer added a name (a watcher is never faster than every writer).
    static var deaf: FolderWatcher.Options {
        var options = FolderWatcher.Options()
        options.forcePolling = true
        options.remotePollMillis = 600_000
        options.remoteRescanMillis = 600_000
        return options
    }

    @Test("two servers add the same 20 names at once, ten times: every name is on the list once, and answered added by one server only")
    func twoServersAddTheSameNames() async throws {
        let one = try await Harness(watch: Self.deaf)
        let two = try await Harness(one.box, watch: Self.deaf)
        defer { Task { await one.close(); await two.close() } }
        for round in 0..<10 {
            let names = (0..<20).map { "Round \(round) item \($0)" }
            let batch: Value = .array(names.map { .object(["name": .string($0)]) })
            async let first = one.call("add_items", ["items": batch])
            async let second = two.call("add_items", ["items": batch])
            let answers = try await [first, second]
            var added: [String: Int] = [:]
            for answer in answers {
                #expect(answer.isError == false, "\(answer.text)")
                for entry in answer.results where entry["status"] == .string("added") { added[entry["item"]?.stringValue ?? "", default: 0] += 1 }
            }
            #expect(names.allSatisfy { added[$0] == 1 }, "round \(round): answered added \(added.filter { $0.value != 1 })")
            let flushedOne = await one.store.waitUntilFlushed()
            let flushedTwo = await two.store.waitUntilFlushed()
            #expect(flushedOne && flushedTwo)
            let inFile = try one.box.decoded().items.map(\.name).filter { $0.hasPrefix("Round \(round) ") }
            #expect(inFile.count == 20 && Set(inFile).count == 20, "round \(round): \(inFile.count) rows for 20 names")
        }
    }

    @Test("a rename onto a name another writer has just added is refused, not made")
    func renameRacesAnAdd() async throws {
        let one = try await Harness(watch: Self.deaf)
        let two = try await Harness(one.box, watch: Self.deaf)
        defer { Task { await one.close(); await two.close() } }
        try await one.call("add_items", ["items": [["name": "Old name"]]])
        // The other server adds "Tea"; this one has not heard of it when it renames.
        let otherStore = await MainActor.run { two.store }
        _ = try await MainActor.run { try otherStore.perform(.insert(Item(id: ItemID.random(), name: "Tea", section: "Other", sortOrder: 1e9)), label: "add") }
        #expect(await otherStore.waitUntilFlushed())
        let renamed = try await one.call("update_items", ["items": [["item": "Old name", "name": "tea"]]])
        #expect(renamed.statuses == ["already_on_list"], "\(renamed.text)")
        #expect(try one.box.decoded().items.map(\.name).sorted() == ["Old name", "Tea"])
    }
}
