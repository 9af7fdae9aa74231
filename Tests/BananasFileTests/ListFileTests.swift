import Foundation
import Testing
import Synchronization
@testable import BananasCore
@testable import BananasFile
import BananasTestSupport

func addItem(_ name: String, to file: ListFile) throws {
    _ = try file.update { list, _ in
        try list.apply(.insert(Item(id: ItemID.random(), name: name, section: "A", sortOrder: list.nextSortOrder)),
                       stamp: Stamp(millis: SystemTime().nowMillis(), counter: 0, replica: "test"))
    }
}

func inode(_ path: String) -> UInt64? {
    var st = stat()
    return stat(path, &st) == 0 ? UInt64(st.st_ino) : nil
}

@Suite struct ListFileTests {
    @Test func firstWriteCreatesAPrivateFileAndLeavesNoTempOrLock() throws {
        let folder = TempFolder()
        let file = ListFile(path: folder.listPath)
        try addItem("Milk", to: file)
        #expect(folder.entries == ["BananaList.json"])
        var st = stat()
        stat(folder.listPath, &st)
        #expect(st.st_mode & 0o777 == 0o600)
        #expect(try file.load().list.items.map(\.name) == ["Milk"])
    }

    /// `load` compares the file with the bytes it last saw before reading a copy: a change
    /// made in place, with the same length, must still be read.
    /// Bytes read that are this process's own last write are known without hashing or
    /// decoding them again, with their own hash; the same bytes changed in place, or another
    /// file's, are not.
    @Test func onlyTheBytesLastWrittenAreKnownAgain() throws {
        let folder = TempFolder()
        let file = ListFile(path: folder.listPath)
        #expect(file.lastSnapshot(ifSameAs: []) == nil)
        try addItem("Milk", to: file)
        try addItem("Eggs", to: file)
        let written = try #require(try file.readBytes())
        let known = try #require(file.lastSnapshot(ifSameAs: written))
        #expect(known.contentHash == Hash.content(written) && known.list.items.map(\.name) == ["Milk", "Eggs"])
        for at in [0, written.count / 2, written.count - 1] {
            var changed = written
            changed[at] ^= 0x20
            #expect(file.lastSnapshot(ifSameAs: changed) == nil)
        }
        #expect(file.lastSnapshot(ifSameAs: Array(written.dropLast())) == nil)
    }

    @Test func aSameSizeChangeInPlaceIsRead() throws {
        let folder = TempFolder()
        let file = ListFile(path: folder.listPath, stateDirectory: folder.path + "/state")
        try addItem("Milk", to: file)
        #expect(try file.load().list.items.map(\.name) == ["Milk"])
        let before = try Data(contentsOf: URL(fileURLWithPath: folder.listPath))
        let after = Data(String(decoding: before, as: UTF8.self).replacingOccurrences(of: "Milk", with: "Oats").utf8)
        #expect(after.count == before.count)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.listPath))
        try handle.write(contentsOf: after)  // in place: same inode, same size
        try handle.close()
        #expect(try file.load().list.items.map(\.name) == ["Oats"])
        // And the next write keeps the change (the file as read, not reverted).
        try addItem("Eggs", to: file)
        #expect(try Set(ListFile(path: folder.listPath).load().list.items.map(\.name)) == ["Oats", "Eggs"])
    }

    /// A writer names the bytes it is about to rename into place, so another process that
    /// wakes at the rename knows them for a bananas write before the base is saved.
    @Test func aWriteAnnouncesItsBytesAndTheBaseRemembersThem() throws {
        let folder = TempFolder()
        let file = ListFile(path: folder.listPath, stateDirectory: folder.path + "/state")
        #expect(file.base?.announced() == nil)
        try addItem("Milk", to: file)
        let written = Hash.content(Array(try Data(contentsOf: URL(fileURLWithPath: folder.listPath))))
        #expect(file.base?.announced() == written)
        #expect(file.base?.glance().writtenHashes.last == written)
        try addItem("Eggs", to: file)
        let next = Hash.content(Array(try Data(contentsOf: URL(fileURLWithPath: folder.listPath))))
        #expect(next != written && file.base?.announced() == next)
        #expect(!FileManager.default.fileExists(atPath: folder.listPath + ".lock"))
    }

    /// A process that glances at the base while another saves one must find the written
    /// hashes as one save left them. Written in place, a reader could meet a mix of two saves
    /// (the same length, shifted by a line) that ended in an older hash; the older base it
    /// then merged against hid a Get Bananas remove, and the row came back
    /// (docs/reliability.md, "Fixed: a half-written hash list").
    @Test func aReaderNeverMeetsTheWrittenHashesHalfWritten() throws {
        let folder = TempFolder()
        let store = try #require(ListFile(path: folder.listPath, stateDirectory: folder.path + "/state").base)
        let saves = (0..<10_000).map { Array("{\"save\": \($0)}".utf8) }
        let hashes = saves.map(Hash.content)
        let order = Dictionary(uniqueKeysWithValues: hashes.enumerated().map { ($1, $0) })
        store.announce(hashes[0])
        for n in 0..<BaseStore.hashesKept { store.save(nil, written: saves[n]) }  // a full list: each save shifts it

        let done = Mutex(false)
        // A thread of its own: the reader below spins on a thread of the shared pool, and two
        // such tests at once on two cores would leave the writer no pool thread to run on.
        Thread.detachNewThread {
            for n in BaseStore.hashesKept..<saves.count { store.save(nil, written: saves[n]) }
            done.withLock { $0 = true }
        }
        var glances = 0, mixed: [[String]] = []
        while !done.withLock({ $0 }) {
            let seen = store.glance().writtenHashes.map { order[$0] }
            glances += 1
            // One save's list: hashes it saved, each the one after the one before.
            let whole = !seen.isEmpty && seen.allSatisfy { $0 != nil }
                && zip(seen, seen.dropFirst()).allSatisfy { $0! + 1 == $1! }
            if !whole { mixed.append(seen.map { $0.map(String.init) ?? "?" }) }
        }
        #expect(glances > 100, "the reader ran alongside the writer")
        #expect(mixed.isEmpty, "\(mixed.count) of \(glances) glances met a mix of saves: \(mixed.prefix(2))")
    }

    /// A large base is replaced by a rename, growing or shrinking, while a reader in another
    /// process takes bases; one it meets written over halfway (by hand: bananas never writes
    /// a base in place) is not taken (it hashes to nothing written), and a base with another
    /// name is replaced, leaving the bytes under that name alone.
    @Test func aLargeBaseIsReplacedAndNeverTakenHalfWritten() throws {
        let folder = TempFolder()
        let state = folder.path + "/state"
        let store = try #require(ListFile(path: folder.listPath, stateDirectory: state).base)
        // A reader with a store (and a cache of parsed bases) of its own, as another process has.
        let reader = try #require(ListFile(path: folder.listPath, stateDirectory: state).base)
        let longName = String(repeating: "Banana ", count: 150)
        func list(_ count: Int, _ tag: Character) -> [UInt8] {
            let rows = (0..<count).map { n in
                "{\"id\": \"B0000000-0000-4000-8000-\(String(format: "%012d", n))\", \"name\": \"\(longName)\(tag)\(n)\", \"section\": \"A\", \"sortOrder\": \(n)}"
            }
            return Array("{\"schemaVersion\": 1, \"sections\": [\"A\"], \"items\": [\n\(rows.joined(separator: ",\n"))\n]}\n".utf8)
        }
        let (small, large, larger) = (list(4_400, "a"), list(4_600, "b"), list(5_000, "c"))
        let counts = [Hash.content(small): 4_400, Hash.content(large): 4_600, Hash.content(larger): 5_000]
        @Sendable func save(_ bytes: [UInt8]) {
            store.announce(Hash.content(bytes))
            #expect(store.save(nil, written: bytes) == nil)
        }
        save(large)
        for bytes in [larger, small, large] {
            save(bytes)
            #expect(FileSystem.contents(atPath: store.path).map { Bytes.equal($0, bytes) } == true)
            #expect(reader.glance().list()?.items.count == counts[Hash.content(bytes)])
        }

        let done = Mutex(false)
        Thread.detachNewThread {  // its own thread, as above
            for n in 0..<20 { save([small, larger][n % 2]) }
            done.withLock { $0 = true }
        }
        var taken = 0, wrong: [Int] = []
        while !done.withLock({ $0 }) {
            let glance = reader.glance()
            guard let base = glance.list() else { continue }
            taken += 1
            let newest = glance.writtenHashes.suffix(2)
            if !newest.contains(where: { counts[$0] == base.items.count }) { wrong.append(base.items.count) }
        }
        #expect(taken > 0, "the reader took bases while the writer saved")
        #expect(wrong.isEmpty, "bases taken that are no save the reader glanced: \(wrong.prefix(3))")

        // Met halfway through a write: the first half of one save over another, which still
        // decodes as a list (the rows are the same length, the new bytes end at a row's end).
        let (shorter, longer) = (list(3_000, "d"), list(6_000, "e"))
        save(longer)
        let cut = try #require(shorter[..<(shorter.count / 2)].lastIndex(of: UInt8(ascii: "}")))
        let mix = Array(shorter[...cut]) + Array(longer[(cut + 1)...])
        #expect((try? ListCodec.decode(mix)) != nil, "a mix a reader could parse")
        let fd = open(store.path, O_WRONLY)
        _ = mix.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        close(fd)
        #expect(reader.glance().list() == nil, "a half-written base is not taken")

        let other = folder.path + "/linked-base"
        #expect(link(store.path, other) == 0)
        let before = try #require(FileSystem.contents(atPath: other))
        let linked = try #require(inode(store.path))
        save(large)
        #expect(inode(store.path) != linked, "a base with two names is replaced, not written through")
        #expect(FileSystem.contents(atPath: store.path).map { Bytes.equal($0, large) } == true)
        #expect(FileSystem.contents(atPath: other).map { Bytes.equal($0, before) } == true)
    }

    /// Another process that reads a file bananas wrote may splice its next write into those
    /// bytes; a file someone else wrote is encoded whole. Either way the bytes written are
    /// the whole encode's.
    @Test func bytesBananasWroteAreSplicedIntoByTheNextProcess() throws {
        let folder = TempFolder()
        let state = folder.path + "/state"
        try addItem("Milk", to: ListFile(path: folder.listPath, stateDirectory: state))
        try addItem("Eggs", to: ListFile(path: folder.listPath, stateDirectory: state))
        let next = ListFile(path: folder.listPath, stateDirectory: state)
        #expect(try next.load().layout?.isCanonical == true)
        let result = try next.update { list, _ in
            let id = list.items[0].id
            try list.apply(.update(id: id, changes: [.checked: .flag(true)]), stamp: Stamp(millis: SystemTime().nowMillis(), counter: 0, replica: "test"))
        }
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: folder.listPath))) == ListCodec.encode(result.list))

        // The same list with other spacing (a hand edit): not ours, not spliced into.
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: folder.listPath)), as: UTF8.self)
        try Data(text.replacingOccurrences(of: "\n    ", with: "\n     ").utf8).write(to: URL(fileURLWithPath: folder.listPath))
        let other = ListFile(path: folder.listPath, stateDirectory: state)
        #expect(try other.load().layout?.isCanonical == false)
        let rewritten = try other.update { list, _ in
            let id = list.items[1].id
            try list.apply(.update(id: id, changes: [.checked: .flag(true)]), stamp: Stamp(millis: SystemTime().nowMillis() + 1, counter: 0, replica: "test"))
        }
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: folder.listPath))) == ListCodec.encode(rewritten.list))
    }

    @Test func anExistingFilesModeIsKept() throws {
        let folder = TempFolder()
        folder.write(#"{"sections": [], "items": []}"#)
        chmod(folder.listPath, 0o644)
        try addItem("Milk", to: ListFile(path: folder.listPath))
        var st = stat()
        stat(folder.listPath, &st)
        #expect(st.st_mode & 0o777 == 0o644)
    }

    @Test func aWriteThatChangesNothingIsSkipped() throws {
        let folder = TempFolder()
        let file = ListFile(path: folder.listPath)
        try addItem("Milk", to: file)
        let before = inode(folder.listPath)
        let result = try file.update { _, _ in }
        #expect(!result.wrote)
        #expect(inode(folder.listPath) == before, "the file was not replaced")
    }

    @Test func anUnchangedVersionOneFileIsNotUpgraded() throws {
        let folder = TempFolder()
        let legacy = fixture("legacy-BananaList.json")
        createTestFile(atPath: folder.listPath, contents: Data(legacy))
        let result = try ListFile(path: folder.listPath).update { _, _ in }
        #expect(!result.wrote)
        #expect(folder.bytes() == legacy)
    }

    @Test func aNewerSchemaIsNeverWritten() throws {
        let folder = TempFolder()
        let text = #"{"schemaVersion": 5, "sections": ["A"], "items": [{"id": "x", "name": "Milk", "section": "A"}]}"#
        folder.write(text)
        let file = ListFile(path: folder.listPath)
        #expect(try file.load().list.items.map(\.name) == ["Milk"])
        #expect(throws: ListFileError.newerSchema(path: file.path, found: 5, supported: 4)) { try addItem("Eggs", to: file) }
        #expect(folder.bytes() == Array(text.utf8))
        #expect(folder.entries == ["BananaList.json"])
    }

    @Test func anUnparseableFileIsNeverOverwritten() throws {
        let folder = TempFolder()
        for damaged in [#"{"sections": ["A"], "items": [{"name": "Mi"#, "\u{0}\u{1}binary\u{FF}", ""] {
            folder.write(damaged)
            let file = ListFile(path: folder.listPath)
            #expect(throws: ListFileError.self) { try addItem("Eggs", to: file) }
            #expect(folder.bytes() == Array(damaged.utf8))
            #expect(folder.entries == ["BananaList.json"])
        }
    }

    @Test func aDirectoryWhereTheFileShouldBe() throws {
        let folder = TempFolder()
        try FileManager.default.createDirectory(atPath: folder.listPath, withIntermediateDirectories: false)
        let file = ListFile(path: folder.listPath)
        #expect(throws: ListFileError.notARegularFile(path: file.path, kind: "a directory")) { try file.load() }
        #expect(throws: ListFileError.self) { try addItem("Eggs", to: file) }
    }

    @Test func aMissingFolderIsReportedUnlessItIsOursToCreate() throws {
        let folder = TempFolder()
        let explicit = ListFile(path: folder.path + "/nowhere/BananaList.json")
        #expect(throws: ListFileError.folderMissing(path: folder.path + "/nowhere")) { try explicit.load() }
        let defaultLocation = ListFile(path: folder.path + "/data/bananas/BananaList.json", createsFolder: true)
        #expect(try defaultLocation.load().list.items.isEmpty)
        try addItem("Milk", to: defaultLocation)
        #expect(try defaultLocation.load().list.items.map(\.name) == ["Milk"])
    }

    @Test("a delete is forgotten 180 days after this device first saw it, never by its stamp or the date the file claims")
    func deletesAreForgottenByThisDevicesFirstSighting() throws {
        let folder = TempFolder()
        let day: Int64 = 86_400_000
        let old = Stamp(millis: SystemTime().nowMillis() - 200 * day, counter: 0, replica: "old")
        let recent = Stamp(millis: SystemTime().nowMillis() - day, counter: 0, replica: "new")
        folder.write("""
            {"schemaVersion": 2, "sections": [], "items": [],
             "sync": {"deleted": {"OLD": "\(old.encoded)", "NEW": "\(recent.encoded)"}}}
            """)
        let file = ListFile(path: folder.listPath, stateDirectory: folder.path + "/state")
        try addItem("Milk", to: file)
        #expect(try file.load().list.tombstones.keys.sorted() == ["NEW", "OLD"].map(Tombstone.key(for:)).sorted(), "first seen here now, whatever the stamps say")
        // This device saw OLD 200 days ago (its sightings say so): the next write forgets it.
        let store = try #require(file.base)
        var sightings = store.deleteSightings()
        #expect(sightings.byKey[Tombstone.key(for: "OLD")] != nil && sightings.byKey[Tombstone.key(for: "NEW")] != nil)
        sightings.byKey[Tombstone.key(for: "OLD")]!.firstSeen = SystemTime().nowMillis() - 200 * day
        #expect(store.saveTakenIn(try file.load().list, sightings: sightings) == nil)
        try addItem("Eggs", to: file)
        #expect(try file.load().list.tombstones.keys.sorted() == [Tombstone.key(for: "NEW")])
    }

    @Test func aSymlinkThatAppearsLaterIsRefused() throws {
        let folder = TempFolder()
        folder.write(#"{"sections": [], "items": []}"#, to: "elsewhere.json")
        let file = ListFile(path: folder.listPath)  // resolved while no link exists
        symlink(folder.path + "/elsewhere.json", folder.listPath)
        #expect(throws: ListFileError.symlinkRefused(path: file.path)) { try addItem("Milk", to: file) }
        #expect(folder.bytes("elsewhere.json") == Array(#"{"sections": [], "items": []}"#.utf8))
    }

    @Test func aSymlinkTheUserSetUpIsFollowed() throws {
        let folder = TempFolder()
        folder.write(#"{"sections": [], "items": []}"#, to: "real.json")
        symlink(folder.path + "/real.json", folder.listPath)
        try addItem("Milk", to: ListFile(path: folder.listPath))
        #expect(try ListCodec.decode(folder.bytes("real.json")!).list.items.map(\.name) == ["Milk"])
    }
}

@Suite struct FileLockTests {
    @Test func aLiveHoldersFreshLockIsWaitedForNotBroken() throws {
        let folder = TempFolder()
        let lockPath = folder.listPath + ".lock"
        folder.write(String(getppid()), to: "BananaList.json.lock")  // a live process that is not us
        do {
            _ = try FileLock.acquire(path: lockPath, timeoutMillis: 200)
            Issue.record("the lock was taken from a live holder")
        } catch {
            guard case .lockHeld(_, let pid, _, _) = error else { Issue.record("\(error)"); return }
            #expect(pid == getppid())
        }
        #expect(folder.bytes("BananaList.json.lock") == Array(String(getppid()).utf8))
    }

    @Test("a lock not refreshed for the stale window is broken whoever has its PID (PID 1, a reused PID)",
          arguments: [Int32(1), getppid()])
    func aStaleLockOfALivePIDIsBroken(pid: Int32) throws {
        let folder = TempFolder()
        let lockPath = folder.listPath + ".lock"
        folder.write(String(pid), to: "BananaList.json.lock")
        let old = timespec(tv_sec: time(nil) - 6, tv_nsec: 0)
        utimensat(AT_FDCWD, lockPath, [old, old], 0)
        let lock = try FileLock.acquire(path: lockPath, timeoutMillis: 200)
        #expect(folder.bytes("BananaList.json.lock") == Array(String(getpid()).utf8))
        lock.release()
    }

    @Test("a young lock of a process that has ended is called stale, not held by it")
    func aYoungLockOfADeadProcessSaysSo() throws {
        let folder = TempFolder()
        let lockPath = folder.listPath + ".lock"
        folder.write("999999", to: "BananaList.json.lock")  // above the default pid_max: not running
        do {
            _ = try FileLock.acquire(path: lockPath, timeoutMillis: 100)
            Issue.record("a fresh lock was broken")
        } catch {
            #expect(error.pausedReason == "stale lock (pid 999999 ended)")
            #expect(error.description.contains("no longer running"), "\(error)")
        }
    }

    @Test func aStaleLockOfADeadProcessIsBroken() throws {
        let folder = TempFolder()
        let lockPath = folder.listPath + ".lock"
        folder.write("999999", to: "BananaList.json.lock")  // above the default pid_max
        let old = timespec(tv_sec: time(nil) - 10, tv_nsec: 0)
        utimensat(AT_FDCWD, lockPath, [old, old], 0)
        let lock = try FileLock.acquire(path: lockPath, timeoutMillis: 200)
        #expect(folder.bytes("BananaList.json.lock") == Array(String(getpid()).utf8))
        lock.release()
        #expect(folder.entries.isEmpty)
    }

    @Test func aFreshLockOfADeadProcessIsStillRespectedForFiveSeconds() {
        let folder = TempFolder()
        folder.write("999999", to: "BananaList.json.lock")
        #expect(throws: ListFileError.self) { _ = try FileLock.acquire(path: folder.listPath + ".lock", timeoutMillis: 100) }
    }

    @Test func aSymlinkedLockIsNotTouched() {
        let folder = TempFolder()
        folder.write("precious", to: "target")
        symlink(folder.path + "/target", folder.listPath + ".lock")
        #expect(throws: ListFileError.self) { _ = try FileLock.acquire(path: folder.listPath + ".lock", timeoutMillis: 100) }
        #expect(folder.bytes("target") == Array("precious".utf8))
    }

    @Test func threadsOfOneProcessTakeTurns() async throws {
        let folder = TempFolder()
        let file = ListFile(path: folder.listPath)
        await withTaskGroup(of: Void.self) { group in
            for n in 0..<20 {
                group.addTask { try? addItem("item \(n)", to: file) }
            }
        }
        #expect(try file.load().list.items.count == 20)
    }
}
