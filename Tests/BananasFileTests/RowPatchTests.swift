import BananasTestSupport
import Foundation
import Testing
@testable import BananasCore
@testable import BananasFile

/// The row patch (`RowScan`, `ListFile.patch`) against the whole decode, edit and encode it
/// stands in for: on lists of every shape the splice tests make, whatever it answers and
/// writes must be exactly what the whole-list path answers and writes; where it cannot, it
/// must say so (`Unavailable`, or no scan at all) rather than guess.
@Suite struct RowPatchTests {
    static let stamp = Stamp(millis: 1_810_000_000_000, counter: 3, replica: "a1b2c3d4e5f6")
    static let modifiedAt = "2027-05-12T10:00:00.000Z"

    /// Random lists as a file bananas wrote them, each with the list its bytes decode to.
    static func files(seed: UInt64, count: Int) -> [(bytes: [UInt8], list: ShoppingList)] {
        var rng = SplitMix(seed: seed)
        var clock = StampClock(replica: "fedcba987654")
        var files: [(bytes: [UInt8], list: ShoppingList)] = []
        for _ in 0..<count {
            var list = SpliceTests.list(rng.below(40))
            for _ in 0..<rng.below(12) { SpliceTests.mutate(&list, &rng, clock: &clock) }
            if rng.below(4) == 0 { list.rows.values.forEach { list.rows[$0.id]?.extra = [:] } }  // most rows plain
            if rng.below(3) == 0 {
                // Names and sections equal as Strings to texts with other bytes.
                for (n, (name, section)) in [("a;b", "Kit"), ("Kit", "a;b"), ("a\u{037E}b", "kit"), ("KIT", "\u{212A}it")].enumerated()
                where rng.below(2) == 0 {
                    list.rows["D0000000-0000-4000-8000-00000000000\(n)"] = Item(
                        id: "D0000000-0000-4000-8000-00000000000\(n)", name: name, section: section,
                        sortOrder: Double(rng.below(50_000)), stamps: ItemStamps(all: SpliceTests.stamp))
                }
            }
            let bytes = ListCodec.encode(list)
            files.append((bytes, try! ListCodec.decode(bytes).list))
        }
        return files
    }

    /// Names to ask about: every item's in three spellings, a section's, and strangers.
    static func queries(_ list: ShoppingList) -> [String] {
        // U+037E is ";" and U+212A "K" as Strings; "\u{212A}".lowercased() is "k".
        var names = ["New", "new", "nothing like it", "  Item 3 ", "S1", "s2", "", "Ünï", "a\u{037E}b", "\u{212A}it", "S\u{0031}"]
        for item in list.rows.values.prefix(8) {
            names += [item.name, item.name.uppercased(), item.id.lowercased(), String(item.id.prefix(6)), item.section,
                      String(item.name.prefix(3)), String(item.name.lowercased().prefix(6)), String(item.id.prefix(3))]
        }
        return names
    }

    @Test("every question add and check ask gets the whole list's answer, or none")
    func answersMatchTheWholeList() throws {
        var scanned = 0, answered = 0, declined = 0
        for (bytes, list) in RowPatchTests.files(seed: 77, count: 150) {
            guard let scan = RowScan(bytes) else {
                // Rows with keys of their own are left to the whole-list path.
                #expect(list.rows.values.contains { !$0.extra.isEmpty } || !list.unreadableRows.isEmpty,
                        "a plain file bananas wrote was not scanned")
                continue
            }
            scanned += 1
            #expect(scan.count == list.items.count)
            #expect(scan.nextSortOrder == list.nextSortOrder)
            #expect(scan.sections == list.sections)
            for query in RowPatchTests.queries(list) {
                #expect(try scan.firstItem(named: query) == list.firstItem(named: query), "firstItem(named: \(query))")
                // Two spellings among the items only: the whole list decides (a throw).
                if let section = try? scan.section(named: query) {
                    #expect(section == list.section(named: query), "section(named: \(query))")
                    answered += 1
                }
                do {
                    let index = try scan.resolveExactly(query)
                    let expected = try Addressing.resolve(query, in: list, allowNamePrefix: true)
                    #expect(try scan.item(index) == expected, "resolve \(query)")
                    answered += 1
                } catch is RowScan.Unavailable {
                    declined += 1
                }
            }
        }
        #expect(scanned > 60)
        #expect(answered > 100)
        #expect(declined > 100)
    }

    @Test("a patched file is byte for byte the whole encode of the edited list")
    func patchesMatchTheWholeCodec() throws {
        var rng = SplitMix(seed: 4242)
        var patched = 0, declined = 0
        for (bytes, list) in RowPatchTests.files(seed: 99, count: 200) {
            guard var scan = RowScan(bytes) else { continue }
            let visible = list.items
            var steps: [ListEdit] = []
            switch rng.below(5) {
            case 0, 1:
                // check / uncheck a few items (some already so)
                for _ in 0..<1 + rng.below(3) where !visible.isEmpty {
                    let item = visible[rng.below(visible.count)]
                    steps.append(.update(id: item.id, changes: [.checked: .flag(rng.below(2) == 0)]))
                }
            case 2:
                // add, as `bananas add` plans it
                let names = ["Oat milk", "ünï \"q\"", visible.first?.name ?? "Item 1", "Bread"].prefix(1 + rng.below(3))
                let section = ["S1", "Pantry", "s3", "Ünï"][rng.below(4)]
                steps.append(try Self.addPlan(Array(names), section: section, in: list))
            case 3:
                // an update that moves the item: only the whole path may write that
                if let item = visible.first {
                    steps.append(.update(id: item.id, changes: [.sortOrder: .order(-5)]))
                }
            default:
                if let item = visible.last {
                    steps.append(.update(id: item.id, changes: [.checked: .flag(true), .amount: .text("3")]))
                }
                steps.append(.setSections(list.sections + ["Extra \(rng.below(3))"]))
            }
            let edit = ListEdit.batch(steps)
            let cutoff: Int64 = rng.below(3) == 0 ? 1_800_000_000_500 : 0  // expire some tombstones
            var whole = list
            try whole.apply(edit, stamp: RowPatchTests.stamp, modifiedAt: RowPatchTests.modifiedAt)
            whole.expireTombstones(before: cutoff)
            do {
                var observed: ShoppingList?
                let (out, changed) = try scan.applying(edit, modifiedAt: RowPatchTests.modifiedAt, expiringBefore: cutoff) { part in
                    observed = part
                    return RowPatchTests.stamp
                }
                #expect(changed == (out != bytes))
                #expect(out == ListCodec.encode(whole), "the patch wrote other bytes than the whole encode")
                #expect(try ListCodec.decode(out).list == whole)
                // The stamp source saw the frame's stamps: sections, tombstones, hidden rows.
                #expect(observed?.sectionsStamp == list.sectionsStamp)
                #expect(observed?.tombstones == list.tombstones)
                patched += 1
            } catch is RowScan.Unavailable {
                declined += 1
            }
        }
        #expect(patched > 80)
        #expect(declined > 5)
    }

    /// `AddCommand.plan`'s edit, written out here (BananasCLI is not a dependency of this
    /// target): names not already visible are inserted after every row, into `section`.
    static func addPlan(_ names: [String], section: String, in list: any ItemQueries) throws -> ListEdit {
        var steps: [ListEdit] = []
        let target = try list.section(named: section) ?? section
        var order = try list.nextSortOrder
        for (n, name) in names.enumerated() where try list.firstItem(named: name) == nil {
            steps.append(.insert(Item(id: "C0000000-0000-4000-8000-00000000000\(n)", name: name, section: target, sortOrder: order)))
            order += 1024
        }
        if let ensure = list.ensureSectionEdit(target) { steps.insert(ensure, at: 0) }
        return .batch(steps)
    }

    @Test("files bananas did not write as it writes them are not scanned")
    func otherShapesAreNotScanned() throws {
        let list = SpliceTests.list(5)
        let bytes = ListCodec.encode(list)
        #expect(RowScan(bytes) != nil)
        let text = String(decoding: bytes, as: UTF8.self)
        // Keys in another order (an older writer's): scanned, and a patch of it holds the
        // same list as the whole path's write, in the writer's order around the touched rows.
        let sorted = JSONText.serialize(ListCodec.encodeValue(list))
        var scan = try #require(RowScan(sorted))
        let edit = ListEdit.update(id: list.items[1].id, changes: [.checked: .flag(true)])
        var whole = list
        try whole.apply(edit, stamp: RowPatchTests.stamp, modifiedAt: RowPatchTests.modifiedAt)
        let out = try scan.applying(edit, modifiedAt: RowPatchTests.modifiedAt, expiringBefore: 0) { _ in RowPatchTests.stamp }
        #expect(try ListCodec.decode(out.bytes).list == whole)

        let others = [
            // a row the decoder keeps unread (amount not a string)
            Array(text.replacingFirst("\"amount\": \"2 kg\"", with: "\"amount\": 2").utf8),
            // a blank name
            Array(text.replacingFirst("\"name\": \"Item 1\"", with: "\"name\": \"   \"").utf8),
            // a key of its own
            Array(text.replacingFirst("\"checked\": true", with: "\"checked\": true,\n      \"price\": 3").utf8),
            // a repeated key
            Array(text.replacingFirst("\"checked\": true", with: "\"checked\": true,\n      \"checked\": false").utf8),
            // a version from the future
            Array(text.replacingFirst("\"schemaVersion\": 2", with: "\"schemaVersion\": 3").utf8),
            // truncated
            Array(bytes.dropLast(40)),
        ]
        for (n, other) in others.enumerated() {
            #expect(RowScan(other) == nil, "shape \(n) was scanned")
        }
    }

    @Test("the empty list and a list whose rows are all hidden take adds")
    func emptyLists() throws {
        var list = ShoppingList()
        for bytes in [ListCodec.encode(list), { () -> [UInt8] in
            list = SpliceTests.list(2)
            for item in list.items { try! list.apply(.delete(id: item.id), stamp: RowPatchTests.stamp) }
            return ListCodec.encode(list)
        }()] {
            let decoded = try ListCodec.decode(bytes).list
            var scan = try #require(RowScan(bytes))
            let edit = try Self.addPlan(["Milk", "Eggs"], section: "Dairy", in: scan)
            var whole = decoded
            try whole.apply(edit, stamp: RowPatchTests.stamp, modifiedAt: RowPatchTests.modifiedAt)
            let out = try scan.applying(edit, modifiedAt: RowPatchTests.modifiedAt, expiringBefore: 0) { _ in RowPatchTests.stamp }
            #expect(out.bytes == ListCodec.encode(whole))
        }
    }
}

/// `ListFile.patch` on real files: when it may edit bytes in place of the whole-list path,
/// and that what it leaves behind (the file, the base, the written hashes) is what the
/// whole-list path would have left.
@Suite struct ListFilePatchTests {
    func check(_ name: String) -> (RowScan) throws -> (edit: ListEdit?, report: String) {
        { scan in
            let item = try scan.item(try scan.resolveExactly(name))
            return (.update(id: item.id, changes: [.checked: .flag(true)]), item.id)
        }
    }

    @Test("a file bananas wrote is patched; the base then holds its bytes")
    func patchesItsOwnFile() throws {
        let folder = TempFolder()
        let file = ListFile(path: folder.listPath, stateDirectory: folder.path + "/state")
        // Stamped by a clock running 30 s ahead of this one: the check must still win.
        let ahead = Stamp(millis: Clock.nowMillis() + 30_000, counter: 0, replica: "a1b2c3d4e5f6")
        _ = try file.update { list, _ in
            for (n, name) in ["Milk", "Eggs", "Bread"].enumerated() {
                try list.apply(.insert(Item(id: ItemID.random(), name: name, sortOrder: Double(n * 1024))), stamp: ahead)
            }
        }
        let id = try #require(try file.patch(lockTimeoutMillis: 1_000, check("eggs")))
        let bytes = try #require(folder.bytes())
        let list = try ListCodec.decode(bytes).list
        #expect(list.item(id)?.checked == true)
        #expect(list.item(id)?.stamps[.checked] ?? .zero > ahead, "stamped past what it replaced")
        #expect(bytes == ListCodec.encode(list), "the bytes are the encoder's")
        let base = try #require(file.base)
        #expect(base.glance().writtenHashes.last == Hash.content(bytes))
        #expect(base.glance().list() == list, "the base is the patched file")
        // Nothing to change: nothing written.
        let again = try file.patch(lockTimeoutMillis: 1_000, check("Eggs"))
        #expect(again == id)
        #expect(folder.bytes() == bytes)
    }

    @Test("a foreign write, a conflict copy or a dead instance's journal send it the whole-list way")
    func declinesWhatItCannotSee() throws {
        let folder = TempFolder()
        let file = ListFile(path: folder.listPath, stateDirectory: folder.path + "/state")
        _ = try file.update { list, _ in
            try list.apply(.insert(Item(id: ItemID.random(), name: "Milk", sortOrder: 0)), stamp: RowPatchTests.stamp)
        }
        let ours = try #require(folder.bytes())

        // A conflict copy beside the list.
        folder.write(String(decoding: ours, as: UTF8.self), to: "BananaList.sync-conflict-20261121-101530-ABCDEF7.json")
        #expect(try file.patch(lockTimeoutMillis: 1_000, check("Milk")) == nil)
        try FileManager.default.removeItem(atPath: folder.path + "/BananaList.sync-conflict-20261121-101530-ABCDEF7.json")

        // A journal left by an instance that died with an edit in it.
        let journals = file.state!.journalsPath
        try FileManager.default.createDirectory(atPath: journals, withIntermediateDirectories: true)
        var edited = try ListCodec.decode(ours).list
        try edited.apply(.insert(Item(id: ItemID.random(), name: "Jam", sortOrder: 9)), stamp: RowPatchTests.stamp)
        createTestFile(atPath: journals + "/dead.journal", contents: Data(Journal.line(for: edited)))
        #expect(try file.patch(lockTimeoutMillis: 1_000, check("Milk")) == nil)
        try FileManager.default.removeItem(atPath: journals + "/dead.journal")

        // A stampless writer's version of the file (same list, other bytes).
        folder.write(String(decoding: JSONText.serialize(ListCodec.encodeValue(try ListCodec.decode(ours).list)), as: UTF8.self))
        #expect(try file.patch(lockTimeoutMillis: 1_000, check("Milk")) == nil)

        // Its own file again: patched.
        folder.write(String(decoding: ours, as: UTF8.self))
        #expect(try file.patch(lockTimeoutMillis: 1_000, check("Milk")) != nil)
        // A question whose answer is an error (no such item): declined, nothing written; the
        // whole-list path words the error.
        let before = folder.bytes()
        #expect(try file.patch(lockTimeoutMillis: 1_000, check("Zz")) == nil)
        #expect(folder.bytes() == before)
    }
}
