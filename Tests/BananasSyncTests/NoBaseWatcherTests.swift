import BananasCore
import BananasFile
@testable import BananasSync
import Foundation
import BananasTestSupport
import Testing

/// A device that only ever received the list, and has not written it (no base): an editor or a
/// viewer open on it while a phone running Get Bananas saves the whole list (version 1, no
/// stamps) again and again. Each save must show as the phone made it.
@MainActor
@Suite("An instance with no base watching version-1 saves")
struct NoBaseWatcherTests {
    func save(_ box: Sandbox, _ rows: [(id: String, name: String, amount: String)]) {
        let items = rows.enumerated().map { index, row in
            #"{"id": "\#(row.id)", "name": "\#(row.name)", "amount": "\#(row.amount)", "section": "Dairy", "checked": false, "sortOrder": \#(index)}"#
        }
        let text = #"{"sections": ["Dairy"], "items": [\#(items.joined(separator: ", "))]}"#
        let temp = box.listPath + ".phone.tmp"
        _ = FileManager.default.createFile(atPath: temp, contents: Data(text.utf8))
        rename(temp, box.listPath)
    }

    @Test("each phone save shows in an editor and a viewer that never wrote: edits, a value set back, and deletes", arguments: [ListStore.Mode.live, .viewer])
    func phoneSavesShow(mode: ListStore.Mode) async throws {
        let box = Sandbox()
        save(box, [("1", "Milk", "1 L"), ("2", "Eggs", "6"), ("3", "Tea", "")])
        let store = ListStore(file: box.file(), mode: mode)
        defer { store.close() }
        #expect(await eventually { store.list.item("1")?.amount == "1 L" })
        save(box, [("1", "Oat milk", "2 L"), ("2", "Eggs", "6"), ("3", "Tea", "")])
        #expect(await eventually { store.list.item("1")?.name == "Oat milk" && store.list.item("1")?.amount == "2 L" })
        save(box, [("1", "Milk", "2 L"), ("2", "Eggs", "6")])
        #expect(await eventually { store.list.item("1")?.name == "Milk" && store.list.item("3") == nil },
                "the name set back and Tea deleted: \(store.list.items.map(\.name))")
        save(box, [("1", "Milk", "2 L"), ("2", "Eggs", "12")])
        #expect(await eventually { store.list.item("2")?.amount == "12" })
        #expect(store.list.item("1")?.name == "Milk" && store.list.item("3") == nil)
    }
}
