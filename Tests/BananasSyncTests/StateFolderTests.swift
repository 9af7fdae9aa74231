import BananasCore
import BananasFile
@testable import BananasSync
import Foundation
import BananasTestSupport
import Testing

/// Issue 21, "the state folder on a full disk": when this machine's sync state (the base)
/// cannot be saved, nothing relies on it. The store pauses with the reason, keeps later edits
/// in memory, retries, and a Get Bananas delete made meanwhile stays deleted.
@MainActor
@Suite("The state folder cannot take the base")
struct StateFolderTests {
    static func versionOne(_ rows: [(id: String, name: String)]) -> String {
        let items = rows.map {
            #"{"id": "\#($0.id)", "name": "\#($0.name)", "amount": "", "section": "Other", "checked": false, "optional": false}"#
        }
        return #"{"sections": ["Other"], "items": ["# + items.joined(separator: ", ") + "]}"
    }

    @Test("a full disk: paused with the reason, later edits wait, a Get Bananas delete stays deleted, all lands once there is room")
    func fullDisk() async throws {
        guard let disk = SmallDisk() else { return }  // mounting a small disk needs root
        let box = Sandbox()
        let store = ListStore(file: ListFile(path: box.listPath, stateDirectory: disk.path), mode: .live)
        defer { store.close() }
        try store.perform(.insert(item("Milk")), label: "add")
        #expect(await store.waitUntilFlushed())
        let milk = try #require(store.list.named("Milk")).id
        disk.fill()

        // Get Bananas adds Yogurt (a whole-list save): it holds the row from now on.
        let yogurt = "7E57AAAA-0000-4000-8000-000000000001"
        box.write(Self.versionOne([(milk, "Milk"), (yogurt, "Yogurt")]))
        #expect(await eventually { store.list.named("Yogurt") != nil })

        // The next write here (the edit, or the write-back of what was absorbed) is not made:
        // its base cannot be written first.
        try store.perform(.insert(item("Bread", order: 5000)), label: "add")
        #expect(await eventually { store.status.pausedBy != nil })
        guard case .stateNotSaved(_, let reason, _)? = store.status.pausedBy else {
            Issue.record("not paused for the state: \(String(describing: store.status.pausedBy))")
            return
        }
        #expect(reason == "disk full")
        #expect(store.status.state == .paused)
        #expect(store.status.summary(now: SystemTime().nowMillis()).hasPrefix("paused: state not saved: disk full"), "\(store.status.summary(now: SystemTime().nowMillis()))")

        // Nothing more is written while the state cannot be saved: the next edit waits.
        let written = box.bytes
        try store.perform(.insert(item("Jam", order: 6000)), label: "add")
        #expect(await eventually { !store.flushScheduled && !store.flushRunning })
        #expect(box.bytes == written)
        #expect(store.list.named("Jam") != nil && store.status.pendingCount >= 1 && store.status.state == .paused)

        // Get Bananas removes Yogurt: a whole-list save of what it read, without the row. The
        // base on disk predates the row; merged against that base, the remove would be no
        // remove: the file as last read is what it is merged against.
        let read = try box.decoded().items.filter { $0.name != "Yogurt" }.map { (id: $0.id, name: $0.name) }
        box.write(Self.versionOne(read))
        #expect(await eventually { store.list.named("Yogurt") == nil }, "the remove is taken")

        disk.free()
        #expect(await eventually(timeout: 10) { store.status.pausedBy == nil && store.status.pendingCount == 0 })
        let final = try box.decoded()
        #expect(final.items.map(\.name) == ["Milk", "Bread", "Jam"], "the waiting edit reached the file; Yogurt stayed deleted")
    }

    @Test("a conflict copy found while the state folder is full: not merged (nothing written), paused with the reason, merged once the base can be saved")
    func copyMergedOnAFullDisk() async throws {
        guard let disk = SmallDisk() else { return }  // mounting a small disk needs root
        let box = Sandbox()
        let file = ListFile(path: box.listPath, stateDirectory: disk.path)
        let store = ListStore(file: file, mode: .live)
        defer { store.close() }
        try store.perform(.insert(item("Milk")), label: "add")
        #expect(await store.waitUntilFlushed())
        // Another device's version, with Eggs, saved beside the list by Syncthing.
        var other = try box.decoded()
        try other.apply(.insert(item("Eggs", order: 5000)), stamp: Stamp(millis: SystemTime().nowMillis(), counter: 0, replica: "0123456789ab"))
        disk.fill()
        let folder = (box.listPath as NSString).deletingLastPathComponent
        let copy = folder + "/BananaList.sync-conflict-20261121-101530-BBBBBBB.json"
        let before = box.bytes
        createTestFile(atPath: copy, contents: Data(ListCodec.encode(other)))
        #expect(await eventually(timeout: 10) { store.status.pausedBy != nil })
        guard case .stateNotSaved? = store.status.pausedBy else {
            Issue.record("not paused for the state: \(String(describing: store.status.pausedBy))")
            return
        }
        #expect(box.bytes == before, "nothing written")
        #expect(FileManager.default.fileExists(atPath: copy), "the copy waits")
        disk.free()
        #expect(await eventually(timeout: 10) { store.status.pausedBy == nil && store.list.named("Eggs") != nil })
        #expect(file.unsavedBase == nil)
        #expect(try box.decoded().named("Eggs") != nil)
        #expect(await eventually(timeout: 10) { !FileManager.default.fileExists(atPath: copy) }, "merged, then retired")
    }

    @Test("a file where the state folder should be: nothing is written, the store pauses, the edit lands when the folder can be made")
    func folderIsAFile() async throws {
        let box = Sandbox()
        let time = ManualTime()
        let file = box.file(time: time)
        let store = ListStore(file: file, mode: .live)
        defer { store.close() }
        try store.perform(.insert(item("Milk")), label: "add")
        #expect(await store.waitUntilFlushed())
        let folder = try #require(file.state).path
        try FileManager.default.removeItem(atPath: folder)
        createTestFile(atPath: folder, contents: Data("not a folder".utf8))
        let before = box.bytes

        try store.perform(.insert(item("Eggs", order: 2)), label: "add")
        #expect(await eventually { store.status.pausedBy != nil })
        guard case .stateNotSaved? = store.status.pausedBy else {
            Issue.record("not paused for the state: \(String(describing: store.status.pausedBy))")
            return
        }
        #expect(box.bytes == before, "nothing written")
        #expect(store.list.named("Eggs") != nil && store.status.pendingCount == 1)

        try FileManager.default.removeItem(atPath: folder)
        // A paused write is tried again a second later: time moved on, not slept through.
        #expect(await eventually { time.waiting > 0 })
        time.advance(by: 1_000)
        #expect(await eventually { store.status.pausedBy == nil && store.status.pendingCount == 0 })
        #expect(try box.decoded().named("Eggs") != nil)
    }
}
