import BananasCore
import BananasFile
@testable import BananasSync
import Foundation
import BananasTestSupport
import Testing

/// `ListStore.perform(_:label:if:)`: an edit made only when a condition holds for the file as
/// it is, checked and written under one lock (MCP's `expected_revision`).
@MainActor
@Suite("ListStore: conditional edits judged on the file under its lock")
struct ConditionalEditTests {
    /// A store that hears of no change in the folder: only what it reads under the lock tells it.
    static var deaf: FolderWatcher.Options {
        var options = FolderWatcher.Options()
        options.forcePolling = true
        options.remotePollMillis = 600_000
        options.remoteRescanMillis = 600_000
        return options
    }

    @Test("the condition sees another writer's change the store has not heard of; refused, nothing written, the file taken in")
    func refusedOnTheFile() async throws {
        let box = Sandbox()
        let store = ListStore(file: box.file(), mode: .live, watch: Self.deaf)
        defer { store.close() }
        try store.perform(.insert(item("Milk")), label: "add")
        #expect(await store.waitUntilFlushed())
        let other = ListStore(file: box.file(), mode: .live)
        defer { other.close() }
        #expect(await eventually { other.list.named("Milk") != nil })
        try other.perform(.insert(item("Eggs", order: 2)), label: "add")
        #expect(await other.waitUntilFlushed())
        #expect(store.list.named("Eggs") == nil, "the store has not heard of it")

        let milk = try #require(store.list.named("Milk")?.id)
        let before = try #require(box.bytes)
        let outcome = try await store.perform(.delete(id: milk), label: "remove", if: { $0.named("Eggs") == nil })
        #expect(outcome == .refused)
        #expect(box.bytes == before, "nothing written")
        #expect(store.list.named("Eggs") != nil && store.list.named("Milk") != nil, "the store took in the file")
        #expect(!store.canUndo || store.undoLabel == "add")
    }

    @Test("when it holds, the edit is in the file as the call returns, one undo step; with nil only the check")
    func doneUnderTheLock() async throws {
        let box = Sandbox()
        let store = ListStore(file: box.file(), mode: .live, watch: Self.deaf)
        defer { store.close() }
        try store.perform(.insert(item("Milk")), label: "add")
        let milk = try #require(store.list.named("Milk")?.id)
        // The pending add is written by the same flush.
        let checked = try await store.perform(nil, label: "check", if: { $0.item(milk) != nil })
        #expect(checked == .done(changed: false))
        #expect(try box.decoded().named("Milk") != nil)
        let outcome = try await store.perform(.update(id: milk, changes: [.amount: .text("2 L")]), label: "amount", if: { _ in true })
        #expect(outcome == .done(changed: true))
        #expect(try box.decoded().named("Milk")?.amount == "2 L" && store.list.named("Milk")?.amount == "2 L")
        #expect(store.status.pendingCount == 0 && store.undoLabel == "amount")
        #expect(try store.undo() == "amount")
        #expect(store.list.named("Milk")?.amount == "")
    }

    @Test("a lock held past the wait: the edit is not made and the call says so")
    func lockHeld() async throws {
        let box = Sandbox()
        let store = ListStore(file: box.file(), mode: .live)
        defer { store.close() }
        try store.perform(.insert(item("Milk")), label: "add")
        #expect(await store.waitUntilFlushed())
        store.lockTimeoutMillis = 200
        // Another process's live lock (pid 1 is always alive), as Get Bananas holds it.
        let lockPath = box.file().lockPath
        try "1".write(toFile: lockPath, atomically: false, encoding: .utf8)
        defer { unlink(lockPath) }
        let milk = try #require(store.list.named("Milk")?.id)
        await #expect(throws: ListFileError.self) {
            _ = try await store.perform(.delete(id: milk), label: "remove", if: { _ in true })
        }
        #expect(store.list.named("Milk") != nil && store.status.pendingCount == 0)
    }
}
