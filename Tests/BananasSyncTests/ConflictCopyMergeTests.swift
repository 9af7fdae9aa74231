import BananasCore
import BananasFile
@testable import BananasSync
import Dispatch
import Foundation
import BananasTestSupport
import Synchronization
import Testing

/// A device: a list file in its own folder with its own state folder (base, conflict log),
/// edited the way CLI commands edit it.
private struct Device {
    let box = Sandbox()
    var file: ListFile { box.file() }

    @discardableResult
    func edit(_ build: @escaping (ShoppingList) throws -> ListEdit?) throws -> ShoppingList {
        let session = try CommandSession(file: file)
        _ = try session.commit(lockTimeoutMillis: 2_000) { list in (try build(list), ()) }
        return session.list
    }

    func add(_ name: String) throws {
        try edit { list in .insert(Item(id: ItemID.random(), name: name, section: "Other", sortOrder: list.nextSortOrder)) }
    }

    func set(_ name: String, _ field: ItemField, _ value: FieldValue) throws {
        try edit { list in .update(id: list.named(name)!.id, changes: [field: value]) }
    }

    func remove(_ name: String) throws {
        try edit { list in .delete(id: list.named(name)!.id) }
    }

    var folder: String { Sys_directory(box.listPath) }

    /// Puts `bytes` beside the list under `name`, as a sync engine would.
    func drop(_ name: String, _ bytes: [UInt8]) {
        createTestFile(atPath: folder + "/" + name, contents: Data(bytes))
    }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: folder + "/" + name) }

    var archived: [String] {
        let state = StateFolder(listPath: file.path, stateDirectory: box.stateDirectory)
        return (try? FileManager.default.contentsOfDirectory(atPath: state.mergedCopiesPath)) ?? []
    }

    /// The values awaiting review, as the file now records them.
    var conflicts: [Conflict] { ((try? file.load())?.list.conflictList()) ?? [] }
}

private func Sys_directory(_ path: String) -> String { (path as NSString).deletingLastPathComponent }

private let syncthingCopy = "BananaList.sync-conflict-20261121-101530-BBBBBBB.json"

@Suite("Conflict copies: merged, then removed")
struct ConflictCopyMergeTests {
    /// Device B starts from A's file (a sync engine copied it), then both edit apart.
    private func forked() throws -> (a: Device, b: Device) {
        let a = Device(), b = Device()
        try a.add("Milk")
        try a.add("Tea")
        b.box.write(a.box.text!)
        return (a, b)
    }

    @Test("a copy from another device: both sides' fields survive, its new rows arrive, rows it never saw stay, its deletes apply")
    func stampedCopy() throws {
        let (a, b) = try forked()
        try a.set("Milk", .checked, .flag(true))
        try a.add("Bread")  // after the fork: the copy lacks it
        try b.set("Milk", .amount, .text("2 L"))
        try b.add("Eggs")
        try b.remove("Tea")
        a.drop(syncthingCopy, b.box.bytes!)

        let session = try CommandSession(file: a.file)  // any command: `bananas list`
        let milk = try #require(session.list.named("Milk"))
        #expect(milk.checked && milk.amount == "2 L")
        #expect(Set(session.list.items.map(\.name)) == ["Milk", "Bread", "Eggs"])
        #expect(try a.box.decoded().items.map(\.name) == session.list.items.map(\.name), "the merge is in the file")
        #expect(!a.exists(syncthingCopy), "the copy is gone once merged")
        #expect(a.archived.count == 1 && a.archived[0].hasSuffix("-" + syncthingCopy), "kept in the state folder")
        #expect(session.unmergedCopies.isEmpty && a.conflicts.isEmpty)
    }

    @Test("a read command's session shows a copy merged, deletes too, but writes nothing and leaves the copy")
    func readingSessionLeavesCopy() throws {
        let (a, b) = try forked()
        try b.remove("Tea")
        try b.add("Eggs")
        a.drop(syncthingCopy, b.box.bytes!)
        let before = a.box.bytes
        let session = try CommandSession(file: a.file, writing: false)  // `bananas list`
        #expect(Set(session.list.items.map(\.name)) == ["Milk", "Eggs"], "shown merged")
        #expect(session.waitingCopies == [syncthingCopy])
        #expect(a.box.bytes == before, "nothing written")
        #expect(a.exists(syncthingCopy) && a.archived.isEmpty, "the copy is left for a writer")
        #expect(try CommandSession(file: a.file, writing: false).waitingCopies == [syncthingCopy], "`bananas status` sees it the same way")
        // A writer merges it.
        try a.add("Jam")
        #expect(try a.box.decoded().items.map(\.name).sorted() == ["Eggs", "Jam", "Milk"])
        #expect(!a.exists(syncthingCopy))
    }

    @Test("the same field changed on both devices: the newer wins and the other is logged as a conflict")
    func sameFieldConflict() throws {
        let (a, b) = try forked()
        try b.set("Milk", .amount, .text("1 L"))
        try a.set("Milk", .amount, .text("2 L"))  // later
        a.drop("BananaList (Ann's conflicted copy 2026-11-21).json", b.box.bytes!)
        let session = try CommandSession(file: a.file)
        #expect(session.list.named("Milk")?.amount == "2 L")
        let logged = a.conflicts
        #expect(logged.count == 1 && logged.first?.lost == .text("1 L") && logged.first?.kept == .text("2 L"), "\(logged)")
    }

    @Test("a command that began while the lock was busy merges the copies under its own lock: dismissing every conflict dismisses the copy's too, and the copy goes")
    func dismissWithTheLockBusyAtFirst() throws {
        let (a, b) = try forked()
        try b.set("Milk", .amount, .text("1 L"))
        try a.set("Milk", .amount, .text("2 L"))
        a.drop(syncthingCopy, b.box.bytes!)
        // What `bananas conflicts` shows, read while the copy waits beside the file.
        let shown = try CommandSession(file: a.file, writing: false).list.conflictList()
        #expect(shown.count == 1)

        // `bananas conflicts dismiss --all` begins while another writer (a Get Bananas server,
        // say: its lock file names its pid) holds the lock.
        createTestFile(atPath: a.file.lockPath, contents: Data("\(getpid())".utf8))
        let session = try CommandSession(file: a.file, lockTimeoutMillis: 100)
        try FileManager.default.removeItem(atPath: a.file.lockPath)
        #expect(a.exists(syncthingCopy), "not merged yet: the lock was busy")
        let dismissed = try session.commit(lockTimeoutMillis: 2_000) { list in
            let waiting = list.conflictList()
            return (list.dismissEdit(waiting), waiting.count)
        }
        #expect(dismissed == 1, "the edit was built on the file without the copy")
        #expect(a.conflicts.isEmpty)
        #expect(!a.exists(syncthingCopy) && a.archived.count == 1)
        #expect(try a.file.load().list.named("Milk")?.amount == "2 L")
    }

    @Test("a version-1 copy by Get Bananas: its edits and rows are taken against the base, a row it lacks stays, a stamped value it replaced is logged")
    func versionOneCopy() throws {
        let a = Device()
        try a.add("Milk")
        try a.add("Tea")
        try a.set("Milk", .amount, .text("1 L"))
        let list = try a.box.decoded()
        let milk = list.named("Milk")!, tea = list.named("Tea")!
        try a.add("Bread")  // after the copy forked
        // What Get Bananas wrote on the phone: version 1, no stamps, Tea checked, Milk's amount
        // changed, Oranges added.
        let v1 = """
            {"sections":["Other"],"items":[
            {"id":"\(milk.id)","name":"Milk","amount":"3 L","section":"Other","checked":false,"optional":false,"sortOrder":1},
            {"id":"\(tea.id)","name":"Tea","amount":"","section":"Other","checked":true,"optional":false,"sortOrder":2},
            {"id":"7A0E6B3C-1111-4222-8333-944455556666","name":"Oranges","amount":"","section":"Other","checked":false,"optional":false,"sortOrder":3}
            ]}
            """
        // (A Dropbox name: iCloud's numbered names count only in iCloud Drive, on macOS.)
        let name = "BananaList (Ann's conflicted copy 2026-11-21).json"
        a.drop(name, Array(v1.utf8))
        let session = try CommandSession(file: a.file)
        #expect(Set(session.list.items.map(\.name)) == ["Milk", "Tea", "Bread", "Oranges"])
        #expect(session.list.named("Tea")?.checked == true)
        #expect(session.list.named("Milk")?.amount == "3 L")
        #expect(!a.exists(name))
        let logged = a.conflicts
        #expect(logged.contains { $0.name == "Milk" && $0.field == "amount" && $0.lost == .text("1 L") },
                "the value it replaced can be restored")
    }

    @Test("a copy that cannot be read is left in place and named; the list is untouched")
    func unparseableCopy() throws {
        let a = Device()
        try a.add("Milk")
        let before = a.box.bytes
        let name = "BananaList (conflicted copy 2026-11-21 101530).json"
        a.drop(name, Array(#"{"items": [ {"id": "#.utf8))
        let session = try CommandSession(file: a.file)
        #expect(session.unmergedCopies.map(\.name) == [name])
        #expect(session.unmergedCopies.first?.reason == "unparseable file")
        #expect(a.exists(name) && a.box.bytes == before)
        var status = SyncStatus()
        status.unmergedCopies = session.unmergedCopies
        #expect(status.state == .conflict)
        #expect(status.summary(now: 0) == "conflict 1 — copy \(name) not merged (unparseable file)")
    }

    @Test("an iCloud numbered file outside iCloud Drive is another list, left alone, even with the list's rows and deletes")
    func numberedFileOutsideICloud() throws {
        let a = Device()
        try a.add("Milk")
        try a.add("Tea")
        // A second list the user made from this one, in which Tea was removed.
        let second = Device()
        second.drop("BananaList.json", a.box.bytes!)
        try second.remove("Tea")
        a.drop("BananaList 2.json", second.box.bytes!)
        let session = try CommandSession(file: a.file)  // a read command's session
        #expect(Set(session.list.items.map(\.name)) == ["Milk", "Tea"])
        #expect(a.exists("BananaList 2.json") && session.unmergedCopies.isEmpty)
    }

    @Test("an iCloud numbered file that shares no item with the list is another list, left alone")
    func unrelatedNumberedFile() throws {
        let a = Device(), other = Device()
        try a.add("Milk")
        try other.add("Nails")
        a.drop("BananaList 2.json", other.box.bytes!)
        let session = try CommandSession(file: a.file)
        #expect(session.list.items.map(\.name) == ["Milk"])
        #expect(a.exists("BananaList 2.json") && session.unmergedCopies.isEmpty)
    }

    @Test("a copy of a missing list becomes the list (a new device whose engine made a copy first)")
    func copyWithoutList() throws {
        let (a, b) = try forked()
        try FileManager.default.removeItem(atPath: a.box.listPath)
        a.drop(syncthingCopy, b.box.bytes!)
        let session = try CommandSession(file: a.file)
        #expect(Set(session.list.items.map(\.name)) == ["Milk", "Tea"])
        #expect(!a.exists(syncthingCopy))
    }

    @Test("eight commands racing over the same copies: each copy merged, every edit kept, nothing left behind")
    func racingCommands() throws {
        let (a, b) = try forked()
        try b.add("Eggs")
        a.drop(syncthingCopy, b.box.bytes!)
        try b.add("Jam")
        a.drop("BananaList (conflicted copy 2026-11-21 101530).json", b.box.bytes!)
        let file = a.file
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { n in
            do {
                let session = try CommandSession(file: file, lockTimeoutMillis: 10_000)
                _ = try session.commit(lockTimeoutMillis: 10_000) { list in
                    (ListEdit.insert(Item(id: ItemID.random(), name: "Cmd \(n)", section: "Other", sortOrder: list.nextSortOrder)), ())
                }
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        let names = Set(try a.box.decoded().items.map(\.name))
        #expect(names == Set(["Milk", "Tea", "Eggs", "Jam"] + (0..<8).map { "Cmd \($0)" }))
        #expect(a.box.snapshot().keys.filter { $0.hasPrefix("list/") } == ["list/BananaList.json"])
        #expect(a.archived.count == 2, "each copy archived once")
    }
}

@MainActor
@Suite("Conflict copies in running instances")
struct ConflictCopyStoreTests {
    @Test("a copy appearing beside the list is merged by a running instance, with events or by polling", arguments: [false, true])
    func liveInstance(polling: Bool) async throws {
        let a = Device(), b = Device()
        try a.add("Milk")
        b.box.write(a.box.text!)
        try b.add("Eggs")
        var options = FolderWatcher.Options()
        options.forcePolling = polling
        let store = ListStore(file: a.file, mode: .live, watch: options)
        defer { store.close() }
        let viewer = ListStore(file: a.file, mode: .viewer, watch: options)
        defer { viewer.close() }
        a.drop(syncthingCopy, b.box.bytes!)
        #expect(await eventually(timeout: 10) { store.list.named("Eggs") != nil })
        #expect(await eventually(timeout: 10) { viewer.list.named("Eggs") != nil }, "the viewer sees the merged file")
        #expect(await eventually { !a.exists(syncthingCopy) })
        #expect(try a.box.decoded().named("Eggs") != nil)
        #expect(store.status.state == .synced)
    }

    @Test("the viewer merges nothing, but names a copy it cannot read; the editor's status names it too")
    func viewerAndBrokenCopy() async throws {
        let a = Device(), b = Device()
        try a.add("Milk")
        b.box.write(a.box.text!)
        try b.add("Eggs")
        let viewer = ListStore(file: a.file, mode: .viewer)
        defer { viewer.close() }
        a.drop(syncthingCopy, b.box.bytes!)
        let broken = "BananaList.sync-conflict-20261121-101531-CCCCCCC.json"
        a.drop(broken, Array("not json".utf8))
        #expect(await eventually { viewer.status.unmergedCopies.map(\.name) == [broken] })
        #expect(viewer.status.state == .conflict)
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(a.exists(syncthingCopy), "the viewer never writes")
        #expect(try a.box.decoded().named("Eggs") == nil)

        let store = ListStore(file: a.file, mode: .live)
        defer { store.close() }
        #expect(await eventually { store.list.named("Eggs") != nil && !a.exists(syncthingCopy) })
        #expect(await eventually { store.status.unmergedCopies.map(\.name) == [broken] })
        #expect(store.status.summary(now: 0).hasPrefix("conflict 1 — copy \(broken) not merged (unparseable file)"))
        try FileManager.default.removeItem(atPath: a.folder + "/" + broken)
        #expect(await eventually { store.status.state == .synced }, "fixed (here: removed by the user), the state clears")
    }

    @Test("the file missing for a moment (Syncthing moving it aside as a conflict copy) makes no conflicts of changes that follow")
    func fileMissingForAMoment() async throws {
        let a = Device()
        try a.add("Milk")
        let store = ListStore(file: a.file, mode: .live)
        defer { store.close() }
        // A live holder of the lock (another process: the one that started the tests) keeps
        // the store from writing the list back meanwhile.
        let lock = a.box.listPath + ".lock"
        createTestFile(atPath: lock, contents: Data(String(getppid()).utf8))
        defer { try? FileManager.default.removeItem(atPath: lock) }
        let aside = ListFile(path: a.folder + "/aside.json")
        try FileManager.default.moveItem(atPath: a.box.listPath, toPath: aside.path)
        try await Task.sleep(nanoseconds: 300_000_000)  // the store sees the file gone
        // Another device's version arrives, with Milk's amount changed there.
        _ = try CommandSession(file: aside).commit(lockTimeoutMillis: 2_000) { list in
            (ListEdit.update(id: list.named("Milk")!.id, changes: [.amount: .text("2 L")]), ())
        }
        // Put back by rename, as Syncthing does: it replaces whatever is there (on a loaded
        // machine the store may have written the list back meanwhile, once the lock looked stale).
        #expect(rename(aside.path, a.box.listPath) == 0)
        try? FileManager.default.removeItem(atPath: lock)
        #expect(await eventually { store.list.named("Milk")?.amount == "2 L" })
        #expect(await eventually { store.status.state == .synced })
        #expect(store.status.conflicts.isEmpty && a.conflicts.isEmpty, "\(a.conflicts)")
    }

    @Test("two running instances see the same copy: it is merged once and nothing is lost")
    func twoInstances() async throws {
        let (a, b) = (Device(), Device())
        try a.add("Milk")
        b.box.write(a.box.text!)
        try b.add("Eggs")
        try b.set("Milk", .amount, .text("2 L"))
        let one = ListStore(file: a.file, mode: .live)
        defer { one.close() }
        let two = ListStore(file: a.file, mode: .live)
        defer { two.close() }
        try one.perform(.update(id: one.list.named("Milk")!.id, changes: [.checked: .flag(true)]), label: "check")
        #expect(await one.waitUntilFlushed())
        a.drop(syncthingCopy, b.box.bytes!)
        for store in [one, two] {
            #expect(await eventually(timeout: 10) {
                store.list.named("Eggs") != nil && store.list.named("Milk")?.amount == "2 L" && store.list.named("Milk")?.checked == true
            })
        }
        #expect(await eventually { !a.exists(syncthingCopy) })
        #expect(a.archived.count == 1)
        #expect(a.conflicts.isEmpty)
    }
}
