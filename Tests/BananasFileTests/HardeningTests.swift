import Foundation
import Synchronization
import Testing
@testable import BananasCore
@testable import BananasFile
import BananasTestSupport

/// The list's neighbours, hostile files and the lock, attacked the way issue 21 describes,
/// with a corpus of our own (docs/reliability.md, "Hardening").
@Suite struct NeighbourTests {
    static let listWithMilk = """
        {"schemaVersion": 2, "sections": ["A"], "items": [
          {"id": "6513270E-269E-4D37-B2A7-4DE452E6B438", "name": "Milk", "amount": "", "section": "A",
           "checked": false, "optional": false, "sortOrder": 1024,
           "stamps": {"name": "0001795291172142-000007-1707d81d026f"}}]}
        """

    @Test("an iCloud numbered name on Linux is a second list: never a conflict copy, even with the list's rows")
    func numberedNameIsAnotherListHere() throws {
        let folder = TempFolder()
        folder.write(Self.listWithMilk)
        folder.write(Self.listWithMilk, to: "BananaList 2.json")
        #expect(ConflictCopy.find(beside: folder.listPath).isEmpty)
        #expect(!ConflictCopy.recogniser(forList: folder.listPath)("BananaList 2.json"))
        #expect(!Locations.isICloudDrive(folder.path))
        #expect(!Locations.isICloudDrive("/home/ann/Library/Mobile Documents/com~apple~CloudDocs"), "macOS only")
    }

    @Test("in iCloud Drive, a numbered file counts only with a row version it shares with the list")
    func numberedFileNeedsEvidence() throws {
        let folder = TempFolder()
        folder.write(Self.listWithMilk)
        // The same id, another stamp and name: a list of its own that reused an id.
        folder.write(Self.listWithMilk.replacingOccurrences(of: "1707d81d026f", with: "aaaaaaaaaaaa")
            .replacingOccurrences(of: "Milk", with: "Tea"), to: "BananaList 2.json")
        folder.write(#"{"sections": [], "items": [{"id": "X", "name": "Soap"}]}"#, to: "BananaList 3.json")
        folder.write(Self.listWithMilk, to: "BananaList 4.json")
        #expect(ConflictCopy.find(beside: folder.listPath, inICloudDrive: true).map(\.name) == ["BananaList 4.json"])
        #expect(ConflictCopy.engine(of: "BananaList 4.json", listName: "BananaList.json", inICloudDrive: false) == nil)
    }

    @Test("a conflict copy swapped for a symlink, or for another file, after it was found is not read")
    func swappedCopyIsNotRead() throws {
        let folder = TempFolder()
        folder.write(Self.listWithMilk)
        folder.write(#"{"sections": [], "items": [{"id": "S", "name": "SECRET"}]}"#, to: "secret.json")
        let name = "BananaList.sync-conflict-20261121-101530-ABCDEF7.json"
        folder.write(Self.listWithMilk, to: name)
        let copy = try #require(ConflictCopy.find(beside: folder.listPath).first)
        unlink(folder.path + "/" + name)
        symlink(folder.path + "/secret.json", folder.path + "/" + name)
        #expect(try copy.load().bytes == nil)
        unlink(folder.path + "/" + name)
        link(folder.path + "/secret.json", folder.path + "/" + name)  // another inode under the name
        #expect(try copy.load().bytes == nil)
        #expect(copy.retire(merged: Array(Self.listWithMilk.utf8), archive: nil, now: SystemTime().nowMillis()))
        #expect(folder.bytes("secret.json") != nil && folder.bytes(name) != nil, "neither the secret nor its link is touched")
    }

    @Test("a JSON object with neither items nor sections is not a list: refused, never written",
          arguments: [#"{"theme": "dark", "fontSize": 12}"#, "{}", #"{"schemaVersion": 2}"#])
    func aSettingsFileIsNotAList(text: String) throws {
        let folder = TempFolder()
        folder.write(text)
        let file = ListFile(path: folder.listPath)
        #expect(throws: ListFileError.notAList(path: file.path)) { try file.load() }
        #expect(throws: ListFileError.notAList(path: file.path)) { try addItem("Milk", to: file) }
        #expect(folder.bytes() == Array(text.utf8))
        #expect(ListFileError.notAList(path: "x").pausedReason == "not a list")
        #expect(ListFileError.notAList(path: "x").exitCode == ExitCodes.unreadableFile)
    }

    @Test("a symlink at the list path to a settings file: followed, and the settings file left alone")
    func aSymlinkToASettingsFile() throws {
        let folder = TempFolder()
        let settings = #"{"editor.fontSize": 14}"#
        folder.write(settings, to: "settings.json")
        symlink(folder.path + "/settings.json", folder.listPath)
        let file = ListFile(path: folder.listPath)
        #expect(file.lockPath == folder.path + "/settings.json.lock", "the lock is beside the real file")
        #expect(throws: ListFileError.self) { try addItem("Milk", to: file) }
        #expect(folder.bytes("settings.json") == Array(settings.utf8))
        #expect(folder.entries == ["BananaList.json", "settings.json"])
    }

    @Test("empty lists in either shape are lists", arguments: [#"{"items": []}"#, #"{"sections": []}"#])
    func emptyListsAreLists(text: String) throws {
        let folder = TempFolder()
        folder.write(text)
        try addItem("Milk", to: ListFile(path: folder.listPath))
        #expect(try ListFile(path: folder.listPath).load().list.items.map(\.name) == ["Milk"])
    }

    @Test("a read-only list (0444) is respected: refused with its own reason, never replaced")
    func readOnlyListIsRespected() throws {
        let folder = TempFolder()
        folder.write(Self.listWithMilk)
        chmod(folder.listPath, 0o444)
        let file = ListFile(path: folder.listPath)
        #expect(throws: ListFileError.permissionDenied(path: file.path, action: ListFileError.readOnlyFileAction)) {
            try addItem("Eggs", to: file)
        }
        #expect(folder.bytes() == Array(Self.listWithMilk.utf8))
        let error = ListFileError.permissionDenied(path: file.path, action: ListFileError.readOnlyFileAction)
        #expect(error.pausedReason == "read-only file" && error.exitCode == ExitCodes.cannotWrite)
        #expect(error.description.contains("read-only"))
        #expect(folder.entries == ["BananaList.json"], "no temp file or lock left")
    }

    @Test("an I/O error reading the list exits 5, the code for a file that cannot be read")
    func readErrorExitsFive() throws {
        // Reading /proc/self/mem at offset 0 fails with EIO: a regular file whose read fails.
        let file = ListFile(path: "/proc/self/mem")
        do {
            _ = try file.load()
            Issue.record("read")
        } catch {
            guard case .io(_, let action, let code) = error else { Issue.record("\(error)"); return }
            #expect(action == ListFileError.readAction && code == EIO)
            #expect(error.exitCode == ExitCodes.unreadableFile)
        }
    }

    @Test("the state folder cannot be made: nothing is written, and the caller is told why")
    func stateFolderRefusedBeforeTheWrite() throws {
        let folder = TempFolder()
        folder.write("not a folder", to: "state")  // the state folder's parent is a file
        let file = ListFile(path: folder.listPath, stateDirectory: folder.path + "/state")
        do {
            _ = try file.update { list, _ in
                try list.apply(.insert(Item(id: ItemID.random(), name: "Milk", section: "A", sortOrder: 1)),
                               stamp: Stamp(millis: SystemTime().nowMillis(), counter: 0, replica: "test"))
            }
            Issue.record("written")
        } catch let error as ListFileError {
            guard case .stateNotSaved = error else { Issue.record("\(error)"); return }
            #expect(error.pausedReason.hasPrefix("state not saved") && error.exitCode == ExitCodes.cannotWrite)
        }
        #expect(folder.bytes() == nil, "the list was not written")
    }

    @Test("a full or read-only state folder: the base is written before the list, so a command that cannot save it writes nothing, and the base on disk stays the file's")
    func fullStateFolderWritesNothing() throws {
        guard let disk = SmallDisk() else { return }  // mounting a small disk needs root
        let folder = TempFolder()
        let file = ListFile(path: folder.listPath, stateDirectory: disk.path)
        func add(_ name: String, _ order: Double, to file: ListFile) throws -> ListFile.UpdateResult<Void> {
            try file.update { list, _ in
                try list.apply(.insert(Item(id: ItemID.random(), name: name, section: "A", sortOrder: order)),
                               stamp: Stamp(millis: SystemTime().nowMillis(), counter: 0, replica: "test"))
            }
        }
        _ = try add("Milk", 1, to: file)
        let written = folder.bytes()
        func expectRefused(_ reason: String) {
            // A new process each time (a CLI command): nothing in memory to fall back on.
            let command = ListFile(path: folder.listPath, stateDirectory: disk.path)
            do {
                _ = try add("Eggs", 2, to: command)
                Issue.record("written")
            } catch let error as ListFileError {
                guard case .stateNotSaved(_, let found, _) = error else { Issue.record("\(error)"); return }
                #expect(found == reason && error.exitCode == ExitCodes.cannotWrite)
            } catch {
                Issue.record("\(error)")
            }
            #expect(folder.bytes() == written, "the list was not written")
            #expect(command.unsavedBase == nil)
            let base = command.base!.load()
            #expect(base.writtenHashes.last == Hash.content(written!) && base.list?.items.map(\.name) == ["Milk"],
                    "the base on disk is still the file's")
            #expect(!Sys.directoryEntries(command.state!.path).contains { $0.contains(".tmp.") }, "no temp file left")
        }
        disk.fill()
        expectRefused("disk full")
        disk.free()
        #expect(disk.setReadOnly(true))
        expectRefused("read-only file system")
        #expect(disk.setReadOnly(false))
        _ = try add("Eggs", 2, to: ListFile(path: folder.listPath, stateDirectory: disk.path))
        let base = try #require(file.base).load()
        #expect(base.writtenHashes.last == Hash.content(folder.bytes()!) && base.list?.items.map(\.name) == ["Milk", "Eggs"])
    }

    @Test("a base whose rename fails after the list's is removed, not left older than the file; the write's own base waits in memory")
    func failedBaseRenameInvalidatesTheOldBase() throws {
        let folder = TempFolder()
        let file = ListFile(path: folder.listPath, stateDirectory: folder.path + "/state")
        try addItem("Milk", to: file)
        let store = try #require(file.base)
        #expect(store.load().list?.items.map(\.name) == ["Milk"])
        var list = try file.load().list
        try list.apply(.insert(Item(id: ItemID.random(), name: "Eggs", section: "A", sortOrder: 9)),
                       stamp: Stamp(millis: SystemTime().nowMillis(), counter: 0, replica: "test"))
        let bytes = ListCodec.encode(list)
        let prepared = try store.prepare(list, written: bytes)
        // The state folder loses the prepared file before its rename (it went away, or another
        // program cleared it): the rename fails.
        for name in Sys.directoryEntries(store.folder) where name.hasPrefix("base.json.tmp.") { unlink(store.folder + "/" + name) }
        #expect(prepared.commit() != nil)
        #expect(store.load().list == nil, "no base: a stampless write is taken as it is, never merged against an older base")
        #expect(!Sys.directoryEntries(store.folder).contains { $0.contains(".tmp.") }, "no temp file left")
    }
}

@Suite struct DecoderHardeningTests {
    @Test("section names read in linear time: ten times the names cost about ten times as long, not a hundred; duplicates dropped in order")
    func manySections() throws {
        func file(_ count: Int) -> [UInt8] {
            let names = (0..<count).map { "\"s\($0 % (count / 2))\"" }
            return Array((#"{"sections": ["# + names.joined(separator: ",") + #"], "items": []}"#).utf8)
        }
        let small = file(20_000), large = file(200_000)
        let decoded = try ListCodec.decode(large)
        #expect(decoded.list.sections.count == 100_000)
        #expect(decoded.list.sections.prefix(3) == ["s0", "s1", "s2"])
        // No wall-clock bound (a loaded machine makes any slow): the two sizes compared in the
        // same run, each the fastest of a few tries, so a pause in one try does not count.
        // Quadratic reading took 17 s for 100,000 names: a ratio of about 100; linear reads
        // give 10 to 25 (the larger list misses the caches more).
        let ratio = try Self.fastest(large, tries: 3) / Self.fastest(small, tries: 7)
        print("sections: 200,000 names read \(ratio) times as long as 20,000")
        #expect(ratio < 50, "\(ratio): reading sections is not linear")
    }

    /// The fastest of `tries` decodes of `bytes`: two sizes compared in one run, a pause in one
    /// try not counted.
    static func fastest(_ bytes: [UInt8], tries: Int) throws -> Duration {
        var best = Duration.seconds(1_000)
        for _ in 0..<tries {
            let start = ContinuousClock.now
            _ = try ListCodec.decode(bytes)
            best = min(best, ContinuousClock.now - start)
        }
        return best
    }

    /// Issue 39, item 7: a file of a million conflict records cost every later step (18 s and
    /// 1.6 GB for `status`). The writer's bound now applies as a file is read.
    static func conflictFile(records: Int, rows: Int, reviewed: Bool = false) -> [UInt8] {
        let ids = (0..<rows).map { String(format: "%08d-0000-4000-8000-000000000000", $0) }
        let items = ids.map { #"{"id": "\#($0)", "name": "Item \#($0)", "amount": "", "section": "Other", "checked": false, "optional": false}"# }
        let records = (0..<records).map { i in
            #"{"field": "amount", "item": "\#(ids[i % rows])", "lost": "v\#(i)", "lostStamp": "\#(String(format: "%016d", 1_795_800_000_000 + i))-000000-aaaaaaaaaaaa""#
                + (reviewed ? #", "resolved": "\#(String(format: "%016d", 1_795_900_000_000 + i))-000000-bbbbbbbbbbbb", "resolution": "dismissed", "firstSeen": \#(1_795_900_000_000 + i)"# : "") + "}"
        }
        return Array((#"{"schemaVersion": 3, "sections": ["Other"], "items": ["# + items.joined(separator: ",")
            + #"], "sync": {"conflicts": ["# + records.joined(separator: ",") + "]}}").utf8)
    }

    @Test("conflict records are bounded as a file is read: values awaiting review folded per field and counted, never dropped",
          arguments: [(records: 30_000, rows: 1), (records: 30_000, rows: 3_000)])
    func conflictsBoundedOnRead(records: Int, rows: Int) throws {
        let list = try ListCodec.decode(Self.conflictFile(records: records, rows: rows)).list
        #expect(list.conflicts.count <= max(ShoppingList.conflictCapacity, rows), "\(list.conflicts.count) records kept")
        #expect(list.conflictFolds.count == rows)
        let counted = list.conflicts.count + list.conflictFolds.values.reduce(0) { $0 + $1.awaitingCount }
        #expect(counted == records, "every value awaiting review is listed or counted in its field's fold")
        #expect(list.conflictFolds.values.allSatisfy { $0.firstSeen == 0 }, "nothing dated on read")
    }

    @Test("records bounded as they stream in end as the whole set bounded at once (fixed seeds)", arguments: [1, 2, 3, 4])
    func streamedBoundIsTheWholeBound(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let rows = Int.random(in: 1...40, using: &rng), count = Int.random(in: 900...4_000, using: &rng)
        let ids = (0..<rows).map { String(format: "%08d-0000-4000-8000-000000000000", $0) }
        var records: [String] = []
        for i in 0..<count {
            let field = ["amount", "name", "checked"].randomElement(using: &rng)!
            let lost = field == "checked" ? (Bool.random(using: &rng) ? "true" : "false") : #""v\#(Int.random(in: 0..<50, using: &rng))""#
            // Each record its own value (a file bananas wrote never repeats one; a repeated
            // one, reviewed in one copy only, may end folded where the whole set keeps it).
            let stamp = String(format: "%016d-%06d-aaaaaaaaaaaa", 1_795_800_000_000 + Int.random(in: 0..<5_000, using: &rng), i)
            let reviewed = Int.random(in: 0..<4, using: &rng) == 0
                ? #", "resolved": "\#(String(format: "%016d", 1_795_900_000_000 + i))-000000-bbbbbbbbbbbb", "resolution": "dismissed", "firstSeen": \#(1_795_900_000_000 + Int.random(in: 0..<300, using: &rng))"# : ""
            records.append(#"{"field": "\#(field)", "item": "\#(ids.randomElement(using: &rng)!)", "lost": \#(lost), "lostStamp": "\#(stamp)"\#(reviewed)}"#)
        }
        let file = Array((#"{"schemaVersion": 3, "sections": ["Other"], "items": [], "sync": {"conflicts": ["# + records.joined(separator: ",") + "]}}").utf8)
        let streamed = try ListCodec.decode(file).list
        let all = records.compactMap { try? JSONText.parse(Array($0.utf8)) }.compactMap(ListCodec.decodeConflict)
        var whole = ShoppingList(sectionEntries: [:], rows: [], conflicts: all)
        whole.boundConflicts()
        #expect(streamed.conflicts == whole.conflicts, "\(streamed.conflicts.count) records streamed, \(whole.conflicts.count) whole")
        #expect(streamed.conflictFolds == whole.conflictFolds, "\(streamed.conflictFolds.count) folds streamed, \(whole.conflictFolds.count) whole")
    }

    @Test("reviewed conflict records beyond the capacity are not kept as a file is read, the oldest going first")
    func reviewedBoundedOnRead() throws {
        let list = try ListCodec.decode(Self.conflictFile(records: 5_000, rows: 5_000, reviewed: true)).list
        #expect(list.conflicts.count == ShoppingList.conflictCapacity)
        #expect(list.conflicts.values.map(\.firstSeen).min() == 1_795_900_000_000 + 5_000 - Int64(ShoppingList.conflictCapacity))
    }

    @Test("conflict records read in linear time: ten times the records cost about ten times as long")
    func conflictsReadLinearly() throws {
        let small = Self.conflictFile(records: 20_000, rows: 1), large = Self.conflictFile(records: 200_000, rows: 1)
        let ratio = try Self.fastest(large, tries: 2) / Self.fastest(small, tries: 5)
        print("conflicts: 200,000 records read \(ratio) times as long as 20,000")
        #expect(ratio < 50, "\(ratio): reading conflict records is not linear")
    }

    @Test("schemaVersion 2.0 is 2; other fractions and forms are still refused")
    func schemaVersionAsADouble() throws {
        for literal in ["2.0", "2.00", "1.0"] {
            let version = try ListCodec.decode(Array(#"{"schemaVersion": \#(literal), "items": []}"#.utf8)).schemaVersion
            #expect(version == Int(Double(literal)!))
        }
        for literal in ["2.5", "2e0", "2.", "0.0", "-2.0"] {
            #expect(throws: ListCodec.DecodeError.self) { try ListCodec.decode(Array(#"{"schemaVersion": \#(literal), "items": []}"#.utf8)) }
        }
    }
}

@Suite struct LockHardeningTests {
    @Test("a writer frozen past the stale window, whose lock was broken and file rewritten, renames nothing")
    func frozenWriterLosesNothing() throws {
        let folder = TempFolder()
        let file = ListFile(path: folder.listPath)
        try addItem("Milk", to: file)
        var theirs: [UInt8] = []
        #expect(throws: ListFileError.lockLost(lockPath: file.lockPath, fileChanged: false)) {
            _ = try file.update { list, _ in
                // Meanwhile (we were stopped for more than 5 s) another writer breaks the lock
                // as stale, takes it, and writes the file.
                unlink(file.lockPath)
                folder.write(String(getppid()), to: "BananaList.json.lock")
                theirs = Array(NeighbourTests.listWithMilk.utf8)
                folder.write(NeighbourTests.listWithMilk)
                try list.apply(.insert(Item(id: ItemID.random(), name: "Eggs", section: "A", sortOrder: 9)),
                               stamp: Stamp(millis: SystemTime().nowMillis(), counter: 0, replica: "test"))
            }
        }
        #expect(folder.bytes() == theirs, "their write is still the file")
        #expect(folder.bytes("BananaList.json.lock") == Array(String(getppid()).utf8), "their lock is left alone")
        #expect(folder.entries == ["BananaList.json", "BananaList.json.lock"], "no temp file left")
    }

    @Test("a writer that ignores the lock and changes the file under it: our rename is refused, the merge runs again")
    func fileChangedUnderTheLock() throws {
        let folder = TempFolder()
        let file = ListFile(path: folder.listPath)
        try addItem("Milk", to: file)
        #expect(throws: ListFileError.lockLost(lockPath: file.lockPath, fileChanged: true)) {
            _ = try file.update { list, _ in
                folder.write(NeighbourTests.listWithMilk)
                try list.apply(.insert(Item(id: ItemID.random(), name: "Eggs", section: "A", sortOrder: 9)),
                               stamp: Stamp(millis: SystemTime().nowMillis(), counter: 0, replica: "test"))
            }
        }
        #expect(folder.bytes() == Array(NeighbourTests.listWithMilk.utf8))
        try addItem("Eggs", to: file)  // merged again: both are there
        #expect(Set(try file.load().list.items.map(\.name)) == ["Milk", "Eggs"])
    }

    @Test("the window between the last look and the rename is measured (figures in docs/reliability.md)")
    func checkToRenameWindow() throws {
        let folder = TempFolder()
        let file = ListFile(path: folder.listPath)
        var windows: [Int64] = []
        for n in 0..<200 {
            try addItem("item \(n)", to: file)
            windows.append(AtomicWrite.lastCheckToRenameNanos.load(ordering: .relaxed))
        }
        windows.sort()
        print("check-to-rename window: median \(windows[100] / 1000) µs, p99 \(windows[198] / 1000) µs, max \(windows[199] / 1000) µs")
        #expect(windows[100] > 0)
    }

    @Test("a writer that let go of a lock others wait for waits its turn: a polling waiter gets in")
    func fairness() throws {
        let folder = TempFolder()
        let lockPath = folder.listPath + ".lock"
        struct Shared { var stop = false, got = 0 }
        let shared = Mutex(Shared())
        // Another program's waiter: tries every 20 ms, marks the lock as a bananas waiter
        // does, and holds it briefly when it gets it.
        let waiter = Thread {
            while !shared.withLock({ $0.stop }) {
                let fd = open(lockPath, O_WRONLY | O_CREAT | O_EXCL, 0o644)
                if fd >= 0 {
                    _ = String(getppid()).withCString { write(fd, $0, strlen($0)) }
                    close(fd)
                    shared.withLock { $0.got += 1 }
                    usleep(5_000)
                    unlink(lockPath)
                } else {
                    FileLock.markWaiting(lockPath)
                }
                usleep(20_000)
            }
        }
        waiter.start()
        // A hog: holds for 30 ms, lets go, and comes straight back, a fixed number of times
        // (not for a time: a loaded machine slows both sides alike). Waiting its turn, it
        // lets the waiter in about once per hold; without the turn, it let go for
        // microseconds and the waiter almost never got in.
        let holds = 50
        for _ in 0..<holds {
            let lock = try FileLock.acquire(path: lockPath, timeoutMillis: 30_000)
            usleep(30_000)
            lock.release()
        }
        shared.withLock { $0.stop = true }
        usleep(50_000)
        let got = shared.withLock { $0.got }
        print("fairness: the hog took the lock \(holds) times, the waiter \(got) times meanwhile")
        #expect(got >= holds / 5)
    }

    @Test func theTurnIsAboutAsLongAsTheHold() {
        #expect(FileLock.turn(heldMillis: 5, millisAgo: 0) == FileLock.minimumTurnMillis)
        #expect(FileLock.turn(heldMillis: 300, millisAgo: 100) == 200)
        #expect(FileLock.turn(heldMillis: 60_000, millisAgo: 0) == FileLock.maximumTurnMillis)
        #expect(FileLock.turn(heldMillis: 300, millisAgo: 5_000) == 0)
    }
}

@Suite struct CopyRetirementTests {
    @Test("a copy its sync engine is still pulling is merged but not removed until the engine is done")
    func notRemovedWhilePulled() throws {
        let folder = TempFolder()
        let name = "BananaList.sync-conflict-20261121-101530-ABCDEF7.json"
        folder.write(#"{"items":[]}"#, to: name)
        let copy = try #require(ConflictCopy.find(beside: folder.listPath).first)
        for temp in [".syncthing.\(name).tmp", "~syncthing~\(name).tmp"] {
            folder.write("partial", to: temp)
            #expect(!copy.retire(merged: Array(#"{"items":[]}"#.utf8), archive: nil, now: SystemTime().nowMillis()))
            #expect(folder.bytes(name) != nil)
            unlink(folder.path + "/" + temp)
        }
        #expect(copy.retire(merged: Array(#"{"items":[]}"#.utf8), archive: nil, now: SystemTime().nowMillis()))
        #expect(folder.bytes(name) == nil)
    }

    @Test("the archive of merged copies is bounded by bytes as well as by count")
    func archiveBoundedByBytes() throws {
        let folder = TempFolder()
        let archive = folder.path + "/archive"
        try FileManager.default.createDirectory(atPath: archive, withIntermediateDirectories: true)
        let now: Int64 = 10_000_000
        let size = 5 * 1024 * 1024
        for n in 0..<10 {
            let fd = open(archive + "/\(now - 1000 + Int64(n))-BananaList 2.json", O_WRONLY | O_CREAT, 0o600)
            ftruncate(fd, off_t(size))
            close(fd)
        }
        ConflictCopy.pruneArchive(archive, now: now)
        let left = try FileManager.default.contentsOfDirectory(atPath: archive).sorted()
        #expect(left.count * size <= ConflictCopy.archiveByteLimit)
        #expect(left.count == ConflictCopy.archiveByteLimit / size)
        #expect(left.last == "\(now - 1000 + 9)-BananaList 2.json", "the newest are kept")
    }
}
