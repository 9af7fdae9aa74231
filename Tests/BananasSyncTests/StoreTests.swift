import BananasCore
import BananasFile
@testable import BananasSync
import Foundation
import Observation
import BananasTestSupport
import Testing

@MainActor
@Suite("ListStore")
struct StoreTests {
    @Test("an edit is journaled before perform returns, then flushed and the journal cleared")
    func journalThenFlush() async throws {
        let box = Sandbox()
        let store = ListStore(file: box.file(), mode: .live)
        store.flushDelayMillis = 200
        try store.perform(.insert(item("Milk")), label: "add")
        // Before the flush: the edit is only in the journal, on disk.
        #expect(box.bytes == nil)
        let journal = try #require(box.journals.first)
        let entries = Journal.entries(in: [UInt8](FileManager.default.contents(atPath: journal)!))
        #expect(entries.count == 1 && entries[0].named("Milk") != nil)
        #expect(store.status.state == .pending && store.status.pendingCount == 1)

        #expect(await eventually { store.status.state == .synced })
        #expect(try box.decoded().named("Milk") != nil)
        #expect(FileManager.default.contents(atPath: journal)?.count == 0)
        store.close()
        #expect(box.journals.isEmpty)
    }

    @Test("an edit that changes nothing is not made: no undo step, nothing pending, nothing journaled")
    func anEditThatChangesNothing() async throws {
        let box = Sandbox()
        let store = ListStore(file: box.file(), mode: .live)
        let milk = item("Milk")
        #expect(try store.perform(.insert(milk), label: "add Milk"))
        #expect(try store.perform(.update(id: milk.id, changes: [.checked: .flag(true)]), label: "check"))
        #expect(await store.waitUntilFlushed())
        let revision = store.revision
        #expect(try !store.perform(.update(id: milk.id, changes: [.checked: .flag(true)]), label: "check again"))
        #expect(try !store.perform(.update(id: milk.id, changes: [.name: .text("Milk")]), label: "rename to itself"))
        #expect(store.undoLabel == "check" && store.revision == revision && store.status.pendingCount == 0)
        #expect(box.journals.allSatisfy { (FileManager.default.contents(atPath: $0)?.count ?? 0) == 0 })
        store.close()
    }

    @Test("undo and redo walk back and forth, and each step reaches the file")
    func undoRedo() async throws {
        let box = Sandbox()
        let store = ListStore(file: box.file(), mode: .live)
        let milk = item("Milk")
        try store.perform(.insert(milk), label: "add Milk")
        try store.perform(.update(id: milk.id, changes: [.amount: .text("2 L")]), label: "amount")
        try store.perform(.update(id: milk.id, changes: [.checked: .flag(true)]), label: "check")
        #expect(try store.undo() == "check")
        #expect(try store.undo() == "amount")
        #expect(store.list.item(milk.id)?.amount == "" && store.list.item(milk.id)?.checked == false)
        #expect(try store.redo() == "amount")
        #expect(store.list.item(milk.id)?.amount == "2 L")
        #expect(try store.undo() == "amount")
        #expect(try store.undo() == "add Milk")
        #expect(store.list.item(milk.id) == nil)
        #expect(try store.undo() == nil)
        #expect(try store.redo() == "add Milk")
        #expect(store.list.item(milk.id)?.name == "Milk")
        #expect(await store.waitUntilFlushed())
        let onDisk = try box.decoded()
        #expect(onDisk.item(milk.id)?.name == "Milk" && onDisk.item(milk.id)?.amount == "")
        store.close()
    }

    @Test("a new edit clears the redo history; undo skips an item someone else deleted")
    func undoAfterRemoteDelete() async throws {
        let box = Sandbox()
        let a = ListStore(file: box.file(), mode: .live)
        let b = ListStore(file: box.file(), mode: .live)
        let milk = item("Milk"), eggs = item("Eggs", order: 2)
        try a.perform(.insert(milk), label: "add Milk")
        try a.perform(.insert(eggs), label: "add Eggs")
        try a.perform(.update(id: milk.id, changes: [.amount: .text("1 L")]), label: "amount")
        #expect(await eventually { b.list.item(milk.id)?.amount == "1 L" })
        try b.perform(.delete(id: milk.id), label: "remove")
        #expect(await eventually { a.list.item(milk.id) == nil })
        // The amount change's item is gone: undo moves on to the step before.
        #expect(try a.undo() == "add Eggs")
        #expect(a.list.item(eggs.id) == nil)
        try a.perform(.insert(item("Bread")), label: "add Bread")
        #expect(!a.canRedo)
        a.close()
        b.close()
    }

    @Test("subscribers hear about every change once")
    func subscribersOnce() async throws {
        let box = Sandbox()
        let store = ListStore(file: box.file(), mode: .live)
        var edits = 0
        let token = store.subscribe { if $0 == .edited { edits += 1 } }
        let milk = item("Milk")
        try store.perform(.insert(milk), label: "add")
        try store.perform(.update(id: milk.id, changes: [.checked: .flag(true)]), label: "check")
        try store.perform(.update(id: milk.id, changes: [.checked: .flag(true)]), label: "check again")  // no change
        #expect(edits == 2)
        #expect(await store.waitUntilFlushed())
        #expect(edits == 2)  // our own write coming back is not a change
        token.cancel()
        try store.perform(.delete(id: milk.id), label: "remove")
        #expect(edits == 2)
        store.close()
    }

    @Test("an edit in one store shows up in another, and in a read-only viewer")
    func propagation() async throws {
        let box = Sandbox()
        let a = ListStore(file: box.file(), mode: .live)
        let b = ListStore(file: box.file(), mode: .live)
        let viewer = ListStore(file: box.file(), mode: .viewer)
        var merges = 0
        let token = b.subscribe { if $0 == .merged { merges += 1 } }
        let milk = item("Milk")
        try a.perform(.insert(milk), label: "add")
        #expect(await eventually { b.list.item(milk.id) != nil && viewer.list.item(milk.id) != nil })
        #expect(merges == 1)
        #expect(throws: StoreError.readOnly) { try viewer.perform(.delete(id: milk.id), label: "remove") }
        try b.perform(.update(id: milk.id, changes: [.amount: .text("2 L")]), label: "amount")
        #expect(await eventually { a.list.item(milk.id)?.amount == "2 L" })
        token.cancel()
        for store in [a, b, viewer] { store.close() }
    }

    @Test("a concurrent edit to the same field: the later wins, the other is recorded in the file for every instance")
    func conflictLogged() async throws {
        let box = Sandbox()
        let a = ListStore(file: box.file(), mode: .live)
        let b = ListStore(file: box.file(), mode: .live)
        let milk = item("Milk")
        try a.perform(.insert(milk), label: "add")
        #expect(await eventually { b.list.item(milk.id) != nil })
        // Neither can write while the lock is held: both edits are made without the other's.
        // Held on this (main) thread with no await until it is let go: held across an await,
        // other tests' waits for it could take every thread of the test pool.
        let lock = try FileLock.acquire(path: box.file().lockPath, timeoutMillis: 2_000)
        try a.perform(.update(id: milk.id, changes: [.amount: .text("1 L")]), label: "amount")
        usleep(5_000)  // b's edit is the later one
        try b.perform(.update(id: milk.id, changes: [.amount: .text("2 L")]), label: "amount")
        lock.release()
        #expect(await eventually { a.status.conflicts.count == 1 })
        let entry = try #require(a.status.conflicts.first)
        #expect(entry.lost == .text("1 L") && entry.kept == .text("2 L"))
        #expect(a.list.item(milk.id)?.amount == "2 L")
        #expect(await eventually { a.status.state == .conflict })  // paused until its own write lands
        #expect(await eventually { b.status.conflicts.count == 1 })  // every instance sees it, through the file
        a.close()
        b.close()
    }

    @Test("paused while the file is unparseable; edits queue and land once it is fixed, without a restart")
    func pausedUnparseable() async throws {
        let box = Sandbox()
        box.write("{ not json")
        let store = ListStore(file: box.file(), mode: .live)
        #expect(store.status.state == .paused)
        #expect(store.status.pausedBy?.pausedReason == "unparseable file")
        try store.perform(.insert(item("Milk")), label: "add")
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(String(decoding: box.bytes!, as: UTF8.self) == "{ not json")  // never overwritten
        #expect(store.status.summary(now: 0).hasPrefix("paused: unparseable file"))
        box.write(#"{"schemaVersion": 2, "sections": [], "items": []}"#)
        #expect(await eventually { store.status.state == .synced })
        #expect(try box.decoded().named("Milk") != nil)
        store.close()
    }

    @Test("idle stores write nothing; a burst of edits ends in a quiet file")
    func idleAndBurst() async throws {
        let box = Sandbox()
        let time = ManualTime()
        let a = ListStore(file: box.file(time: time), mode: .live)
        let b = ListStore(file: box.file(time: time), mode: .live)
        /// An hour passes: every delay either store set falls due, and runs.
        func anHourLater() async throws {
            time.advance(by: 3_600_000)
            try await Task.sleep(nanoseconds: 200_000_000)  // what fell due runs on the queues
        }
        try a.perform(.insert(item("Milk")), label: "add")
        #expect(await a.waitUntilFlushed())
        #expect(await eventually { b.list.visibleCount == 1 })
        let before = FileSignature.of(box.listPath)
        try await anHourLater()
        #expect(FileSignature.of(box.listPath) == before)
        #expect(time.waiting == 0, "an idle store waits for nothing")

        for n in 0..<100 { try a.perform(.insert(item("Item \(n)", order: Double(n + 10))), label: "add") }
        #expect(await a.waitUntilFlushed())
        #expect(await eventually { b.list.visibleCount == 101 })
        let settled = FileSignature.of(box.listPath)
        try await anHourLater()
        #expect(FileSignature.of(box.listPath) == settled)
        #expect(time.waiting == 0)
        a.close()
        b.close()
    }
}

@MainActor
@Suite("ListStore with Observation")
struct ObservationTests {
    @Test("withObservationTracking sees a change merged from another instance")
    func observationTracking() async throws {
        let box = Sandbox()
        let a = ListStore(file: box.file(), mode: .live)
        let viewer = ListStore(file: box.file(), mode: .viewer)
        final class Flag: @unchecked Sendable { var fired = false }
        let flag = Flag()
        withObservationTracking {
            _ = viewer.list
        } onChange: {
            flag.fired = true
        }
        try a.perform(.insert(item("Milk")), label: "add")
        #expect(await eventually { flag.fired })
        #expect(viewer.list.named("Milk") != nil)
        a.close()
        viewer.close()
    }
}

@MainActor
@Suite("ListStore against a file that moves under it")
struct FileUnderfootTests {
    @Test("a sync engine puts back an older copy without our edit: the edit is written again")
    func olderCopyPutBack() async throws {
        let box = Sandbox()
        let store = ListStore(file: box.file(), mode: .live)
        try store.perform(.insert(item("Milk")), label: "add")
        #expect(await store.waitUntilFlushed())
        let before = try #require(box.bytes)
        try store.perform(.insert(item("Eggs", order: 2)), label: "add")
        #expect(await store.waitUntilFlushed())
        box.write(String(decoding: before, as: UTF8.self))  // Eggs gone from the file
        #expect(await eventually { (try? box.decoded().named("Eggs")) != nil })
        #expect(store.status.state == .synced)
        store.close()
    }

    @Test("a stampless writer (the Get Bananas server) adds a row and removes it before any bananas write: it stays removed")
    func stamplessAddThenRemove() async throws {
        let box = Sandbox()
        let store = ListStore(file: box.file(), mode: .live)
        defer { store.close() }
        try store.perform(.insert(item("Milk")), label: "add")
        #expect(await store.waitUntilFlushed())
        let milk = try #require(store.list.named("Milk")).id
        func versionOne(_ rows: [(id: String, name: String)]) -> String {
            let items = rows.map {
                #"{"id": "\#($0.id)", "name": "\#($0.name)", "amount": "", "section": "", "checked": false, "optional": false}"#
            }
            return #"{"sections": [], "items": ["# + items.joined(separator: ", ") + "]}"
        }
        let tea = "7E57AAAA-0000-4000-8000-000000000001"
        box.write(versionOne([(milk, "Milk"), (tea, "Tea")]))
        #expect(await eventually { store.list.named("Tea") != nil })
        box.write(versionOne([(milk, "Milk")]))  // the same writer removes it again
        #expect(await eventually { store.list.named("Tea") == nil }, "the remove is taken")
        try await Task.sleep(nanoseconds: 500_000_000)
        #expect(try box.decoded().named("Tea") == nil, "and not written back")
        #expect(store.list.named("Milk") != nil)
    }

    @Test("a stampless save read while another process holds the lock: not shown (paused, holder named) until taken in, a second later")
    func aSaveIsShownOnceTakenIn() async throws {
        let box = Sandbox()
        let time = ManualTime()
        let store = ListStore(file: box.file(time: time), mode: .live)
        defer { store.close() }
        try store.perform(.insert(item("Milk")), label: "add")
        #expect(await store.waitUntilFlushed())
        let milk = try #require(store.list.named("Milk")).id
        let lock = box.listPath + ".lock"
        try "1".write(toFile: lock, atomically: false, encoding: .utf8)  // pid 1 is always alive
        let tea = "7E57AAAA-0000-4000-8000-000000000002"
        box.write(#"{"sections": [], "items": [{"id": "\#(milk)", "name": "Milk", "amount": "", "section": "", "checked": false, "optional": false}, {"id": "\#(tea)", "name": "Tea", "amount": "", "section": "", "checked": false, "optional": false}]}"#)
        #expect(await eventually { if case .lockHeld(_, 1, _, _)? = store.status.pausedBy { true } else { false } }, "\(store.status)")
        // Shown now, it would be merged into this instance's next write, while the holder may
        // write a later save judged without it (a remove it made undone).
        #expect(store.list.named("Tea") == nil)
        unlink(lock)
        #expect(time.waiting > 0, "a take-in waits for time to pass")
        time.advance(by: 1_000)
        #expect(await eventually { store.list.named("Tea") != nil && store.status.pausedBy == nil }, "\(store.status)")
        #expect(await eventually { (try? box.decoded().named("Tea")?.id) == tea }, "taken in: published and written back")
    }
}

@MainActor
@Suite("ListStore: undo compares stamps (issue 38, failure 9)")
struct UndoByStampStoreTests {
    @Test("another instance sets the text this one wrote, with a newer stamp: undo is refused, nothing changes, in memory or in the file")
    func sameTextFromAnotherInstance() async throws {
        let box = Sandbox()
        let a = ListStore(file: box.file(), mode: .live)
        let b = ListStore(file: box.file(), mode: .live)
        let bread = item("Bread")
        try a.perform(.insert(bread), label: "add Bread")
        try a.perform(.update(id: bread.id, changes: [.amount: .text("2")]), label: "amount")
        #expect(await a.waitUntilFlushed())
        #expect(await eventually { b.list.item(bread.id)?.amount == "2" })
        try b.perform(.update(id: bread.id, changes: [.amount: .text("3")]), label: "amount")
        try b.perform(.update(id: bread.id, changes: [.amount: .text("2")]), label: "amount")
        #expect(await b.waitUntilFlushed())
        let theirs = b.list.item(bread.id)!.stamps[.amount]
        #expect(await eventually { a.list.item(bread.id)?.stamps[.amount] == theirs })
        let before = a.list
        #expect(throws: ListStore.UndoRefused.self) { try a.undo() }
        #expect(a.list == before && a.status.pendingCount == 0, "nothing changed")
        #expect(try box.decoded().item(bread.id)?.stamps[.amount] == theirs, "the file keeps the other instance's edit")
        #expect(a.undoLabel == "add Bread", "the refused step is dropped")
        a.close()
        b.close()
    }
}
