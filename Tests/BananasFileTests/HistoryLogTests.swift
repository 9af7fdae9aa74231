import Foundation
import Testing
@testable import BananasCore
@testable import BananasFile
import BananasTestSupport

/// The published history kept as a file and a log appended by each write (HistoryFiles.swift)
/// reads back as the history publishing every state in memory gives, folded where the files
/// were; a log cut short or left without its file proves less, never something else.
@Suite struct HistoryLogTests {
    static let day: Int64 = 86_400_000

    /// Writes through `ListFile.update`, over months: adds, checks, renames, deletes (alone and
    /// several at once), section renames, and whole-list saves by a writer without stamps
    /// (which make the next write read the whole history). After each write, the history read
    /// afresh from the state folder equals one that published every written state in memory
    /// (looking at every row) and was pruned exactly where the files were folded.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func theFilesHoldWhatPublishingEveryStateGives(seed: UInt64) throws {
        let folder = TempFolder()
        let time = ManualTime(startMillis: 1_800_000_000_000)
        // Each write by a new process, as commands make them (a running instance keeps the
        // whole history in memory); half the seeds read rows as commands do, left in the bytes.
        var file: ListFile {
            let plain = ListFile(path: folder.listPath, stateDirectory: folder.path + "/state", time: time)
            return seed.isMultiple(of: 2) ? plain.readingRowsOnDemand() : plain
        }
        var random = SeededGenerator(seed: seed)
        var model = PublishedHistory()
        var counter = 0
        var pruned = 0
        for step in 0..<160 {
            time.advance(by: step % 40 == 39 ? 45 * Self.day : Int64.random(in: 1...(Self.day / 2), using: &random))
            let file = file
            let before = try file.load()
            if Int.random(in: 0..<12, using: &random) == 0, before.exists {
                folder.write(Self.stamplessSave(of: before.list, random: &random))
            }
            let read = try file.load()
            let written = try file.update { list, _ in
                counter += 1
                let stamp = Stamp(millis: time.nowMillis(), counter: counter, replica: "r")
                try list.apply(Self.edit(list, random: &random), stamp: stamp)
            }
            guard written.wrote else { continue }
            let store = BaseStore(folder: file.state!)
            let stored = store.history()
            let head = try #require(stored.head)
            #expect(head.hash == written.snapshot.contentHash)
            model.publish(written.list, hash: head.hash, kind: head.kind, now: head.firstSeen, born: !read.exists)
            if Self.folded(in: store) {
                let count = model.states.count
                defer { if model.states.count < count { pruned += 1 } }
                model = model.pruned(now: head.firstSeen, maxBytes: BaseStore.historyMaxBytes(listSize: written.snapshot.bytes!.count),
                                     head: written.list)
            }
            #expect(stored == model, "step \(step): the history read back differs from the one published")
            if stored != model {
                for id in Set(stored.rows.keys).union(model.rows.keys) where stored.rows[id] != model.rows[id] {
                    Issue.record("row \(id): stored \(stored.rows[id].map { $0.map { "\($0.from):\($0.value.map { "\($0.name)/\($0.checked)" } ?? "nil")" } } ?? []) model \(model.rows[id].map { $0.map { "\($0.from):\($0.value.map { "\($0.name)/\($0.checked)" } ?? "nil")" } } ?? [])")
                }
                if stored.sections != model.sections { Issue.record("sections differ") }
                if stored.deletesSeen != model.deletesSeen { Issue.record("sightings differ") }
                if stored.states != model.states { Issue.record("states differ") }
                return
            }
        }
        #expect(pruned > 0, "old states were pruned")
        #expect(model.states.first!.firstSeen >= time.nowMillis() - PublishedHistory.lifetimeMillis - 60 * Self.day)
    }

    /// The log was just begun: its one line names the history file's head.
    static func folded(in store: BaseStore) -> Bool {
        guard let bytes = FileManager.default.contents(atPath: store.folder + "/published.log") else { return false }
        return bytes.filter { $0 == UInt8(ascii: "\n") }.count == 1
    }

    static func edit(_ list: ShoppingList, random: inout SeededGenerator) -> ListEdit {
        let items = list.items
        let sections = ["Produce", "Dairy", "Bakery"]
        switch items.isEmpty ? 0 : Int.random(in: 0..<10, using: &random) {
        case 0, 1, 2:
            return .insert(Item(id: "R\(random.next() % 1_000_000)", name: "item \(Int.random(in: 0..<40, using: &random))",
                                section: sections.randomElement(using: &random)!, sortOrder: list.nextSortOrder))
        case 3, 4:
            let item = items.randomElement(using: &random)!
            return .update(id: item.id, changes: [.checked: .flag(!item.checked)])
        case 5:
            let item = items.randomElement(using: &random)!
            return .update(id: item.id, changes: [.name: .text(item.name + "!"), .amount: .text("\(Int.random(in: 1...9, using: &random))")])
        case 6:
            return .delete(id: items.randomElement(using: &random)!.id)
        case 7:
            let checked = items.filter(\.checked)
            return checked.isEmpty ? .delete(id: items[0].id) : .batch(checked.map { .delete(id: $0.id) })
        case 8:
            let key = list.sectionEntries.keys.sorted().randomElement(using: &random) ?? "Produce"
            return .updateSection(key: key, changes: [.name: .text("Aisle \(Int.random(in: 0..<5, using: &random))")])
        default:
            return .insert(Item(id: "X\(random.next() % 1_000_000)", name: "extra", section: "Bakery", sortOrder: list.nextSortOrder))
        }
    }

    /// What the Get Bananas app saves: the visible list without stamps, one item changed.
    static func stamplessSave(of list: ShoppingList, random: inout SeededGenerator) -> String {
        var items = list.items
        if !items.isEmpty { items[Int.random(in: 0..<items.count, using: &random)].checked.toggle() }
        let rows = items.map { item in
            #"{"id": "\#(item.id)", "name": "\#(item.name)", "amount": "\#(item.amount)", "section": "\#(item.section)", "optional": false, "checked": \#(item.checked)}"#
        }
        let sections = list.sections.map { "\"\($0)\"" }.joined(separator: ", ")
        return #"{"sections": [\#(sections)], "items": [\#(rows.joined(separator: ", "))]}"#
    }

    /// A write whose log line a crash cut short: the next write writes over it, and the
    /// history reads as it was before the cut line, plus the next write.
    @Test func aLineCutShortIsWrittenOver() throws {
        let folder = TempFolder()
        let file = ListFile(path: folder.listPath, stateDirectory: folder.path + "/state")
        for name in ["Milk", "Eggs", "Bread"] { try addItem(name, to: file) }
        let store = try #require(file.base)
        let log = store.folder + "/published.log"
        let before = store.history()
        let handle = try #require(FileHandle(forWritingAtPath: log))
        handle.seekToEndOfFile()
        handle.write(Data(#"[99, "00000000000000ff", "w", "", 1, {"X": ["#.utf8))
        handle.closeFile()
        #expect(BaseStore(folder: file.state!).history() == before, "a line cut short is not part of the log")
        try addItem("Jam", to: file)
        let after = BaseStore(folder: file.state!).history()
        #expect(after.states.count == before.states.count + 1)
        #expect(after.list(at: after.head!.number).items.map(\.name).sorted() == ["Bread", "Eggs", "Jam", "Milk"])
        let text = String(decoding: try #require(FileManager.default.contents(atPath: log)), as: UTF8.self)
        #expect(!text.contains("\"X\""), "written over")
    }

    /// A log whose history file is gone, or whose lines do not follow it, is not read past
    /// what it can prove; the next write writes both afresh.
    @Test func aLogWithoutItsFileProvesNothing() throws {
        let folder = TempFolder()
        let file = ListFile(path: folder.listPath, stateDirectory: folder.path + "/state")
        for name in ["Milk", "Eggs"] { try addItem(name, to: file) }
        let store = try #require(file.base)
        try FileManager.default.removeItem(atPath: store.historyPath)
        #expect(BaseStore(folder: file.state!).history().isEmpty)
        try addItem("Bread", to: file)
        let history = BaseStore(folder: file.state!).history()
        #expect(history.states.count == 1 && history.list(at: history.head!.number).items.count == 3)
        #expect(FileManager.default.fileExists(atPath: store.historyPath))
    }

    /// Writes append; the history file is rewritten only when the log has grown, so a week
    /// of adds leaves it as it was while the log holds them.
    @Test func writesAppendAndTheLogIsFoldedWhenItGrows() throws {
        let folder = TempFolder()
        let file = ListFile(path: folder.listPath, stateDirectory: folder.path + "/state")
        try addItem("First", to: file)
        let store = try #require(file.base)
        let first = FileSignature.of(store.historyPath)
        for n in 0..<5 { try addItem("item \(n)", to: file) }
        #expect(FileSignature.of(store.historyPath) == first, "appended, not rewritten")
        var folds = 0
        var last = first
        for n in 0..<300 {
            try addItem("more \(n) " + String(repeating: "x", count: 40), to: file)
            if FileSignature.of(store.historyPath) != last { folds += 1; last = FileSignature.of(store.historyPath) }
            let size = (try? FileManager.default.attributesOfItem(atPath: store.folder + "/published.log")[.size] as? Int) ?? 0
            #expect(size <= BaseStore.logMaxBytes(historySize: 0) * 4)
        }
        #expect(folds >= 1 && folds < 100)
        #expect(BaseStore(folder: file.state!).history().states.count == 306)
    }

    /// The deletes' sightings read back as written, and bytes that are not theirs read as none.
    @Test func sightingsReadBack() throws {
        var seen: [UInt64: PublishedHistory.DeleteSighting] = [:]
        for n in 0..<50 {
            let stamp = n % 7 == 0 ? nil : n % 5 == 0 ? Stamp.zero : Stamp(millis: 1_800_000_000_000 + Int64(n % 3), counter: n % 2, replica: "abc")
            seen[UInt64.random(in: 0...UInt64.max)] = .init(hidden: stamp, firstSeen: 1_800_000_000_000 + Int64(n % 4))
        }
        #expect(PublishedHistory.sightings(encoded: PublishedHistory.encoded(sightings: seen)) == seen)
        #expect(PublishedHistory.sightings(encoded: PublishedHistory.encoded(sightings: [:])) == [:])
        for bad in ["", "bananas deletes-seen 2\n", "bananas deletes-seen 1\nx - 00\n", "bananas deletes-seen 1\n5 - 0123456789abcdeg\n",
                    "bananas deletes-seen 1\n5 -"] {
            #expect(PublishedHistory.sightings(encoded: Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    /// A log and sightings as a write left them read, and write back the same bytes.
    @Test func theWrittenFilesRead() throws {
        let log = fixture("written/state/published.log")
        let summary = try #require(HistoryLog(summarizing: log))
        let publications = HistoryLog.publications(in: log)
        #expect(summary.folded.number == 1 && summary.head.number == 5 && publications.count == 4)
        #expect(HistoryLog.header(folded: summary.folded, oldest: summary.oldest) + publications.flatMap(HistoryLog.line) == log)
        let seen = fixture("written/state/deletes-seen")
        #expect(PublishedHistory.sightings(encoded: seen).map(PublishedHistory.encoded(sightings:)) == seen)
    }
}
