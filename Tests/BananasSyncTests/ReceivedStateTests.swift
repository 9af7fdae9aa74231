import BananasCore
import BananasFile
@testable import BananasSync
import BananasTestSupport
import Foundation
import Testing

/// A state another device wrote, taken in here without a write (nothing to add to it), is the
/// state the next stampless save is judged against and merged into: its deletes and records
/// included, which only the file holds (found by the contract model on disk).
@Suite("A received state is the head a later save is merged into")
struct ReceivedStateTests {
    /// A device: a folder with the list, a state folder, a running instance's engine.
    struct Device {
        let box = Sandbox()
        let engine: SyncEngine
        init() { engine = SyncEngine(file: box.file()) }

        /// A sync engine delivers another device's file here; the instance reads it.
        func receive(_ bytes: [UInt8]) throws -> ShoppingList {
            box.write(String(decoding: bytes, as: UTF8.self))
            guard case .state(let state) = engine.read() else { throw CocoaError(.fileReadUnknown) }
            return state.list
        }
    }

    @Test("Milk deleted on the laptop, received on the desktop, then a phone save there: Milk stays deleted")
    func aReceivedDeleteSurvivesAPhoneSave() throws {
        let laptop = Device(), desktop = Device()
        var clock = StampClock(replica: "laptop")
        var list = ShoppingList()
        let milk = Item(id: ItemID.random(), name: "Milk", section: "", sortOrder: 1)
        let eggs = Item(id: ItemID.random(), name: "Eggs", section: "", sortOrder: 2)
        try list.apply(.insert(milk), stamp: clock.next(now: SystemTime().nowMillis()))
        try list.apply(.insert(eggs), stamp: clock.next(now: SystemTime().nowMillis()))
        list = try laptop.engine.flush(local: list, lockTimeoutMillis: 1_000).written
        _ = try desktop.receive(try #require(laptop.box.bytes))

        try list.apply(.delete(id: milk.id), stamp: clock.next(now: SystemTime().nowMillis()))
        _ = try laptop.engine.flush(local: list, lockTimeoutMillis: 1_000)
        let received = try desktop.receive(try #require(laptop.box.bytes))
        #expect(received.item(milk.id) == nil)
        #expect(desktop.box.bytes == laptop.box.bytes, "nothing to add: taken in without a write")

        // The app on the phone reads the desktop's file and checks Eggs (its save proves no
        // state: the desktop's first state was received, not published first there).
        let save = #"{"sections": [], "items": [{"id": "\#(eggs.id)", "name": "Eggs", "amount": "", "section": "", "checked": true, "optional": false}]}"#
        let after = try desktop.receive(Array(save.utf8))
        #expect(after.item(eggs.id)?.checked == true)
        #expect(after.item(milk.id) == nil, "the delete the desktop took in is kept")
        #expect(after.recentlyDeleted.map(\.item.name) == ["Milk"])
        #expect(try desktop.box.decoded().item(milk.id) == nil, "and written so")
    }
}

