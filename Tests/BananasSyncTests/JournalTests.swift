import BananasCore
import BananasFile
@testable import BananasSync
import Foundation
import BananasTestSupport
import Testing

@Suite("Journal, deltas and the conflict log")
struct JournalTests {
    @Test("replaying the deltas of any edits, in any order, any number of times, gives the edited list")
    func deltasReplay() throws {
        var rng = SystemRandomNumberGenerator()
        for round in 0..<200 {
            var list = ShoppingList(sections: ["A"], sectionsStamp: Stamp(millis: 1, counter: 0, replica: "base"))
            var clock = StampClock(replica: "r\(round)")
            let start = list
            var deltas: [ShoppingList] = []
            for step in 0..<Int.random(in: 1...12, using: &rng) {
                let ids = list.items.map(\.id)
                let edit: ListEdit
                switch (ids.isEmpty ? 0 : Int.random(in: 0...4, using: &rng)) {
                case 0: edit = .insert(Item(id: ItemID.random(), name: "n\(step)", section: "A", sortOrder: Double(step)))
                case 1: edit = .update(id: ids.randomElement(using: &rng)!, changes: [.checked: .flag(Bool.random(using: &rng))])
                case 2: edit = .update(id: ids.randomElement(using: &rng)!, changes: [.name: .text("x\(step)"), .amount: .text("\(step)")])
                case 3: edit = .delete(id: ids.randomElement(using: &rng)!)
                default: edit = .setSections(["A", "S\(step)"])
                }
                let stamp = clock.next(now: Int64(1_000 + step))
                let before = list
                try list.apply(edit, stamp: stamp)
                deltas.append(list.delta(from: before))
            }
            var replayed = start
            for delta in (deltas + deltas).shuffled(using: &rng) { replayed.merge(delta) }
            #expect(replayed.items == list.items && replayed.sections == list.sections, "round \(round)")
        }
    }

    @Test("a journal reads back what was appended; a torn or altered line is skipped")
    func journalLines() throws {
        let box = Sandbox()
        let journal = try Journal(in: box.file().state!)
        var list = ShoppingList()
        let stamp = Stamp(millis: 5, counter: 0, replica: "a")
        try list.apply(.insert(item("Milk")), stamp: stamp)
        try journal.append(list.delta(from: ShoppingList()))
        try journal.append(list.delta(from: ShoppingList()))
        var bytes = [UInt8](FileManager.default.contents(atPath: journal.path)!)
        #expect(Journal.entries(in: bytes).count == 2)
        bytes[bytes.count - 10] ^= 1  // damage the second line
        #expect(Journal.entries(in: bytes).count == 1)
        #expect(Journal.entries(in: Array(bytes.prefix(bytes.count / 2 + 20))).count == 1)  // torn tail
        #expect(Journal.entries(in: []).isEmpty)
    }

    @Test("a live instance's journal is never adopted; a dead one's is, once")
    func orphans() throws {
        let box = Sandbox()
        let folder = box.file().state!
        var list = ShoppingList()
        let stamp = Stamp(millis: 5, counter: 0, replica: "a")
        try list.apply(.insert(item("Milk")), stamp: stamp)
        var journal: Journal? = try Journal(in: folder)
        try journal!.append(list.delta(from: ShoppingList()))
        #expect(Journal.orphans(in: folder).isEmpty)  // its lock is held
        let path = journal!.path
        journal = nil  // the owner is gone (its lock with it)
        let found = Self.orphansOnceReleased(in: folder)
        #expect(found.count == 1 && found[0].path == path && found[0].entries.count == 1)
        #expect(Journal.orphans(in: folder).isEmpty)  // locked by the adopter meanwhile
        found[0].discard()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("empty journals of dead instances are removed")
    func emptyOrphans() throws {
        let box = Sandbox()
        let folder = box.file().state!
        var journal: Journal? = try Journal(in: folder)
        let path = journal!.path
        journal = nil
        #expect(Self.orphansOnceReleased(in: folder).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// `Journal.orphans` once no process holds a dead owner's lock. Another test starting a
    /// process forks this one, and until the child execs it holds a copy of every open file,
    /// the journal's lock with it: for that moment the journal looks alive, as it would to
    /// a real instance, which adopts it at its next look.
    static func orphansOnceReleased(in folder: StateFolder) -> [Journal.Orphan] {
        for _ in 0..<100 {
            let found = Journal.orphans(in: folder)
            let left = ((try? FileManager.default.contentsOfDirectory(atPath: folder.journalsPath)) ?? []).filter { $0.hasSuffix(".journal") }
            if !found.isEmpty || left.isEmpty { return found }
            usleep(20_000)
        }
        return Journal.orphans(in: folder)
    }
}
