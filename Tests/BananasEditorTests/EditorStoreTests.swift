import BananasCore
import BananasEditor
import BananasFile
import BananasSync
import BananasTerminal
import Foundation
import BananasTestSupport
import Testing

/// The editor over a real store on a temp file: keys become durable edits, and changes from
/// another instance appear without a key press, with the cursor kept on its item.
@MainActor
@Suite("Editor over a store")
struct EditorStoreTests {
    @Test("keys edit the file through the store; u undoes, Ctrl-R redoes")
    func editsReachTheFile() async throws {
        let box = Sandbox()
        let editor = Editor(store: ListStore(file: box.file(), mode: .live), fileLabel: "test")
        editor.handle(.char("a"))
        for c in "Milk" { editor.handle(.char(c)) }
        editor.handle(.enter)
        for c in "2 L" { editor.handle(.char(c)) }
        editor.handle(.enter)
        editor.handle(.escape)
        #expect(await eventually { (try? box.decoded().items.map(\.name)) == ["Milk"] })
        #expect(try box.decoded().items.first?.section == "Dairy", "the catalogue's section for milk")

        editor.handle(.char(" "))
        #expect(await eventually { (try? box.decoded().items.first?.checked) == true })
        editor.handle(.char("u"))
        #expect(editor.state.message?.text.hasPrefix("Undid checked Milk") == true)
        #expect(await eventually { (try? box.decoded().items.first?.checked) == false })
        editor.handle(.ctrl("r"))
        #expect(await eventually { (try? box.decoded().items.first?.checked) == true })
        #expect(editor.store.close() == 0)
    }

    @Test("another instance's edit shows without a key press; the cursor stays on its item")
    func liveUpdate() async throws {
        let box = Sandbox()
        let other = ListStore(file: box.file(), mode: .live)
        let a = ItemID.random(), b = ItemID.random()
        try other.perform(.batch([
            .insert(Item(id: a, name: "Apples", section: "Produce", sortOrder: 1024)),
            .insert(Item(id: b, name: "Bread", section: "Produce", sortOrder: 2048)),
        ]), label: "seed")
        #expect(await other.waitUntilFlushed())

        let editor = Editor(store: ListStore(file: box.file(), mode: .live), fileLabel: "test")
        var redraws = 0
        editor.onNeedsDisplay = { redraws += 1 }
        editor.handle(.char("G"))
        #expect(editor.state.selection == .item(b))

        try other.perform(.insert(Item(id: ItemID.random(), name: "Avocado", section: "Produce", sortOrder: 1)), label: "add")
        #expect(await eventually { editor.render(width: 40, height: 10).text.contains("Avocado") })
        #expect(redraws > 0)
        #expect(editor.state.selection == .item(b))
        let grid = editor.render(width: 40, height: 10)
        let cursorRow = (0..<grid.height).first { grid[0, $0].highlighted }
        #expect(cursorRow.map { grid.lines[$0].contains("Bread") } == true)
        _ = other.close()
        _ = editor.store.close()
    }

    @Test("c then r restores a lost value through the store and marks the conflict reviewed")
    func restoreConflict() async throws {
        let box = Sandbox()
        let store = ListStore(file: box.file(), mode: .live)
        let id = ItemID.random()
        try store.perform(.insert(Item(id: id, name: "Oat milk", amount: "2 L", section: "Dairy", sortOrder: 1)), label: "add")
        // Another device's concurrent "1 L" lost to this one's "2 L": its record arrives in the file.
        let record = ConflictRecord(subject: .item(id, .amount), lost: .text("1 L"), lostStamp: Stamp(millis: 1, counter: 0, replica: "bbbbbbbbbbbb"))
        _ = try box.file().update { list, _ in list.merge(ShoppingList(sectionEntries: [:], conflicts: [record])) }
        #expect(await eventually { store.status.conflicts.count == 1 })
        let editor = Editor(store: store, fileLabel: "test")
        #expect(editor.render(width: 60, height: 8).text.contains("conflict 1 — Oat milk amount — press c"))
        editor.handle(.char("c"))
        editor.handle(.char("r"))
        #expect(store.list.item(id)?.amount == "1 L")
        #expect(store.status.conflicts.isEmpty)
        #expect(await eventually { (try? box.decoded().item(id)?.amount) == "1 L" })
        #expect(try box.decoded().conflictList().isEmpty, "the review reached the file: every device sees it reviewed")
        editor.handle(.char("u"))
        #expect(store.list.item(id)?.amount == "2 L")
        _ = store.close()
    }

    @Test("the viewer shows live changes and writes nothing: no file, no lock, no journal")
    func viewerWritesNothing() async throws {
        let box = Sandbox()
        let viewer = Editor(store: ListStore(file: box.file(), mode: .viewer), fileLabel: "test")
        for key: Key in [.char("a"), .char(" "), .char("d"), .char("A"), .char("X"), .char("u")] { viewer.handle(key) }
        #expect(viewer.state.message?.kind == .readOnly)
        #expect(box.bytes == nil)

        let writer = ListStore(file: box.file(), mode: .live)
        try writer.perform(.insert(Item(id: ItemID.random(), name: "Cheese", section: "Dairy", sortOrder: 1)), label: "add")
        #expect(await writer.waitUntilFlushed())
        _ = writer.close()
        let before = box.snapshot()
        #expect(await eventually { viewer.render(width: 40, height: 8).text.contains("Cheese") })
        for key: Key in [.char("j"), .char(" "), .char("e"), .enter, .char("d"), .char("u"), .ctrl("r")] { viewer.handle(key) }
        try await Task.sleep(nanoseconds: 300_000_000)
        _ = viewer.store.close()
        #expect(box.snapshot() == before)
    }

    @Test("an idle editor is woken only when the screen changes by itself, and then repaints just the status bar")
    func idleTicks() async throws {
        let box = Sandbox()
        let store = ListStore(file: box.file(), mode: .live)
        let editor = Editor(store: store, fileLabel: "test")
        try store.perform(.insert(Item(id: ItemID.random(), name: "Milk", section: "Dairy", sortOrder: 1)), label: "add")
        #expect(await store.waitUntilFlushed())
        #expect(await eventually { store.status.state == .synced && store.status.lastSyncMillis != nil })
        let synced = try #require(store.status.lastSyncMillis)

        // 3.5 s after the sync: the text turns `4s ago` in 0.5 s. A message shown now goes
        // in 5 s, so the age comes first.
        var now = synced + 3_500
        #expect(editor.millisUntilNextTick(now: now) == 500)
        editor.handle(.char("?"))  // help: no message to expire; the age still ticks
        #expect(editor.millisUntilNextTick(now: now) == 500)
        editor.handle(.escape)
        // 45 s on: `40s ago` until 50 s.
        now = synced + 45_000
        #expect(editor.millisUntilNextTick(now: now) == 5_000)
        _ = editor.tick(now: now)
        #expect(editor.tick(now: now + 4_999) == false, "the text did not change: no draw")
        #expect(editor.tick(now: now + 5_000) == true)
        // Past an hour: once an hour.
        let hourly: Int64? = 3_599_990
        #expect(editor.millisUntilNextTick(now: synced + 3_600_010) == hourly)

        // Only the clock moved on: the frame is the full render's, status bar and all.
        let before = editor.render(width: 40, height: 10, now: synced + 4_000)
        let after = editor.render(width: 40, height: 10, now: synced + 125_000)
        let full = Screen.render(Frame(state: editor.state, list: store.list, status: SyncView(store.status, now: synced + 125_000),
                                       fileLabel: "test"), width: 40, height: 10)
        #expect(after == full && after != before)
        #expect(after.lines.last?.contains("synced 2m ago") == true)
        // A change to the list shows (the store's notification makes it a full render).
        try store.perform(.insert(Item(id: ItemID.random(), name: "Eggs", section: "Dairy", sortOrder: 2)), label: "add")
        #expect(editor.render(width: 40, height: 10).text.contains("Eggs"))
        #expect(store.close() == 0)
    }
}
