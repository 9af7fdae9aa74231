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
        /// `modifiedMillis`: the file's time, as a sync engine that keeps it sets it.
        func receive(_ bytes: [UInt8], modifiedMillis: Int64? = nil) throws -> ShoppingList {
            box.write(String(decoding: bytes, as: UTF8.self))
            if let millis = modifiedMillis {
                let time = timespec(tv_sec: Int(millis / 1_000), tv_nsec: Int(millis % 1_000) * 1_000_000)
                var times = [time, time]
                _ = utimensat(AT_FDCWD, box.listPath, &times, 0)
            }
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


@Suite("Foreign edit stamps name the judgment")
struct ForeignStampJudgmentTests {
    @Test("the same synced phone save taken in on two devices with different histories is stamped apart; by two instances of one device, alike")
    func stampsApartAcrossDevices() throws {
        let laptop = ReceivedStateTests.Device(), desktop = ReceivedStateTests.Device()
        var clock = StampClock(replica: "laptop")
        var list = ShoppingList()
        let milk = Item(id: ItemID.random(), name: "Milk", section: "", sortOrder: 1)
        try list.apply(.insert(milk), stamp: clock.next(now: SystemTime().nowMillis()))
        _ = try laptop.engine.flush(local: list, lockTimeoutMillis: 1_000)
        var onDesk = try desktop.receive(try #require(laptop.box.bytes))
        // The desktop's history moves on (an edit there the laptop has not received yet).
        var deskClock = StampClock(replica: "desktop")
        try onDesk.apply(.insert(Item(id: ItemID.random(), name: "Eggs", section: "", sortOrder: 2)), stamp: deskClock.next(now: SystemTime().nowMillis()))
        _ = try desktop.engine.flush(local: onDesk, lockTimeoutMillis: 1_000)
        // Syncthing keeps a file's time: the phone's save lands on both with the same bytes and time.
        let save = #"{"sections": [], "items": [{"id": "\#(milk.id)", "name": "Milk", "amount": "2", "section": "", "checked": false, "optional": false}]}"#
        let written = SystemTime().nowMillis() + 1_000
        let onLaptop = try laptop.receive(Array(save.utf8), modifiedMillis: written)
        let second = SyncEngine(file: desktop.box.file())  // another instance on the desktop
        let onDesktop = try desktop.receive(Array(save.utf8), modifiedMillis: written)
        guard case .state(let seen) = second.read() else { throw CocoaError(.fileReadUnknown) }
        let stamp = { (list: ShoppingList) in list.rows[milk.id]?.stamps[.amount] }
        #expect(onLaptop.item(milk.id)?.amount == "2" && onDesktop.item(milk.id)?.amount == "2")
        #expect(stamp(onLaptop) != stamp(onDesktop), "judged against different histories")
        #expect(stamp(seen.list) == stamp(onDesktop), "one device's instances agree")
    }
}
