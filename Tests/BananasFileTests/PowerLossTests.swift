import Foundation
import Testing
@testable import BananasCore
@testable import BananasFile

/// A disk that forgets at a power cut whatever was not fsynced: file data written since the
/// file's last fsync, and folder entries (create, rename, unlink) made since the folder's
/// last fsync. It runs `AtomicWrite.replace` through `FileCalls`, cuts the power at a chosen
/// call, and then says every state the file can be found in after the restart.
///
/// What a real disk may keep of unsynced work is modelled generously: of a file's unsynced
/// data, nothing, all of it, or a torn half; of the folder's unsynced changes, any prefix of
/// them in order (the journal of ext4 and xfs keeps metadata in order).
final class SimulatedDisk: FileCalls {
    struct Inode {
        var durable: [UInt8] = []
        var volatile: [UInt8] = []
        var mode: mode_t
        var synced: Bool { durable == volatile }
    }

    /// How the disk may misbehave (to show the checker catches a wrong write order).
    struct Faults {
        /// fsync of a file returns success but syncs nothing (a lying disk, or a missing fsync).
        var fileSyncIgnored = false
        /// fsync of the folder does nothing.
        var folderSyncIgnored = false
    }

    private var inodes: [Int: Inode] = [:]
    private var nextInode = 1
    /// The folder: name → inode. `folderStates[0]` is what is durable; each later entry is
    /// the folder after one more unsynced change, the last being what programs see.
    private var folderStates: [[String: Int]]
    private var open: [Int32: Int] = [:]
    private var nextFD: Int32 = 100
    let faults: Faults

    /// Calls that change the disk, counted; the power goes at call number `cutAt`.
    private(set) var steps = 0
    var cutAt: Int?
    private(set) var poweredOff = false
    private(set) var trace: [String] = []

    init(files: [String: [UInt8]], faults: Faults = Faults()) {
        self.faults = faults
        var folder: [String: Int] = [:]
        for (name, bytes) in files {
            inodes[nextInode] = Inode(durable: bytes, volatile: bytes, mode: 0o644)
            folder[name] = nextInode
            nextInode += 1
        }
        folderStates = [folder]
    }

    private var folder: [String: Int] { folderStates.last! }

    /// Counts a disk-changing call; false (errno EIO, no effect) once the power is off.
    private func step(_ what: String) -> Bool {
        if poweredOff { errno = EIO; return false }
        steps += 1
        if steps == cutAt {
            poweredOff = true
            trace.append("power cut at \(what)")
            errno = EIO
            return false
        }
        trace.append(what)
        return true
    }

    private func changeFolder(_ change: (inout [String: Int]) -> Void) {
        var next = folder
        change(&next)
        folderStates.append(next)
    }

    // MARK: FileCalls

    func linkStatus(_ path: String) -> stat? {
        guard let inode = folder[Sys.baseName(path)] else { return nil }
        var st = stat()
        st.st_mode = S_IFREG | inodes[inode]!.mode
        st.st_ino = ino_t(inode)
        return st
    }

    func createExclusive(_ path: String, mode: mode_t) -> Int32 {
        guard step("create \(Sys.baseName(path))") else { return -1 }
        let name = Sys.baseName(path)
        if folder[name] != nil { errno = EEXIST; return -1 }
        inodes[nextInode] = Inode(mode: mode)
        changeFolder { $0[name] = nextInode }
        nextFD += 1
        open[nextFD] = nextInode
        nextInode += 1
        return nextFD
    }

    func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        guard step("write"), let inode = open[fd] else { return false }
        inodes[inode]!.volatile += bytes
        return true
    }

    func sync(_ fd: Int32) -> Bool {
        guard step("fsync file"), let inode = open[fd] else { return false }
        if !faults.fileSyncIgnored { inodes[inode]!.durable = inodes[inode]!.volatile }
        return true
    }

    func readBack(_ fd: Int32, sizeHint: Int) -> [UInt8]? {
        if poweredOff { errno = EIO; return nil }
        return open[fd].map { inodes[$0]!.volatile }
    }

    func close(_ fd: Int32) {
        open[fd] = nil
    }

    func rename(_ from: String, _ to: String) -> Bool {
        guard step("rename"), let inode = folder[Sys.baseName(from)] else { return false }
        changeFolder {
            $0[Sys.baseName(from)] = nil
            $0[Sys.baseName(to)] = inode
        }
        return true
    }

    func unlink(_ path: String) {
        guard step("unlink"), folder[Sys.baseName(path)] != nil else { return }
        changeFolder { $0[Sys.baseName(path)] = nil }
    }

    func syncDirectory(of path: String) {
        guard step("fsync folder") else { return }
        if !faults.folderSyncIgnored { folderStates = [folder] }
    }

    // MARK: After the power cut

    /// Every content `name` can have after a restart (nil: no such file).
    func possibleContents(of name: String) -> Set<[UInt8]?> {
        var outcomes: Set<[UInt8]?> = []
        for state in folderStates {
            guard let number = state[name], let inode = inodes[number] else {
                outcomes.insert(nil)
                continue
            }
            outcomes.insert(inode.durable)
            if !inode.synced {
                outcomes.insert(inode.volatile)
                outcomes.insert(Array(inode.volatile.prefix(inode.volatile.count / 2)))
            }
        }
        return outcomes
    }

    /// Every set of names the folder can hold after a restart.
    func possibleNames() -> Set<Set<String>> { Set(folderStates.map { Set($0.keys) }) }
}

@Suite("Power loss: the atomic replace against a disk that drops unsynced writes")
struct PowerLossTests {
    static let name = "BananaList.json"
    static let path = "/simulated/" + name

    static func listBytes(_ names: [String]) -> [UInt8] {
        var list = ShoppingList()
        let stamp = Stamp(millis: 1_700_000_000_000, counter: 0, replica: "aaaaaaaaaaaa")
        for (n, name) in names.enumerated() {
            try! list.apply(.insert(Item(id: "id-\(n)", name: name, section: "A", sortOrder: Double(n))), stamp: stamp)
        }
        return ListCodec.encode(list)
    }

    static let old = listBytes(["Milk", "Eggs"])
    static let new = listBytes(["Milk", "Eggs", "Bread", "Jam", "Butter"])

    struct Outcome {
        var crashPoints = 0
        var statesChecked = 0
        /// Contents other than "old" or "new" seen at some power cut, with the trace.
        var bad: [(trace: [String], bytes: [UInt8]?)] = []
        /// After a replace that returned: states other than the new file.
        var lostAfterSuccess: [[UInt8]?] = []
    }

    /// Runs one replace per crash point (every disk-changing call, then none) and checks
    /// every state the file can be in after the restart.
    /// `started`: the write begun (`AtomicWrite.start`), then finished, as the list's is.
    static func explore(existing: [UInt8]?, durable: Bool = true, started: Bool = false, faults: SimulatedDisk.Faults = .init()) -> Outcome {
        var outcome = Outcome()
        let allowedBefore: Set<[UInt8]?> = [existing, new]
        func replace(_ disk: SimulatedDisk) throws(ListFileError) {
            if started {
                try AtomicWrite.start(path, with: new, calls: disk).finish { _ in true }
            } else {
                try AtomicWrite.replace(path, with: new, durable: durable, calls: disk) { _ in true }
            }
        }
        // A dry run counts the calls.
        let dry = SimulatedDisk(files: existing.map { [name: $0] } ?? [:], faults: faults)
        try? replace(dry)
        for cut in 1...(dry.steps + 1) {
            let disk = SimulatedDisk(files: existing.map { [name: $0] } ?? [:], faults: faults)
            disk.cutAt = cut
            // A cut at the last call (the folder's fsync reports nothing) still returns, but the
            // process is gone by then: nothing was acknowledged.
            var returned = false
            do {
                try replace(disk)
                returned = true
            } catch {}
            let possible = disk.possibleContents(of: name)
            outcome.statesChecked += possible.count
            if returned && !disk.poweredOff {
                // The write was acknowledged, then the power went: only the new file may remain.
                outcome.lostAfterSuccess += possible.filter { $0 != new }
            } else {
                outcome.crashPoints += 1
                for bytes in possible where !allowedBefore.contains(bytes) {
                    outcome.bad.append((disk.trace, bytes))
                }
            }
        }
        return outcome
    }

    @Test("a power cut at every step of replacing a list leaves the old or the new file, whole")
    func everyCrashPointReplacing() {
        let outcome = Self.explore(existing: Self.old)
        #expect(outcome.crashPoints == 5, "create, write, fsync, rename, fsync folder: each cut")
        #expect(outcome.bad.isEmpty, "\(outcome.bad.map { "\($0.trace): \($0.bytes.map { "\($0.count) bytes" } ?? "missing")" })")
        #expect(outcome.lostAfterSuccess.isEmpty, "a write that returned survives a power cut")
        print("power loss (replace): \(outcome.crashPoints) crash points, \(outcome.statesChecked) after-restart states, 0 empty or torn")
    }

    @Test("a write begun and finished later (the list's, around the base's save) is the same replace, cut anywhere")
    func everyCrashPointOfABegunWrite() throws {
        for existing in [Self.old, nil] {
            let outcome = Self.explore(existing: existing, started: true)
            #expect(outcome.crashPoints == 5)
            #expect(outcome.bad.isEmpty, "\(outcome.bad.map(\.trace))")
            #expect(outcome.lostAfterSuccess.isEmpty)
        }
        let disk = SimulatedDisk(files: [Self.name: Self.old])
        try AtomicWrite.start(Self.path, with: Self.new, calls: disk).finish { _ in true }
        #expect(disk.trace.map { $0.hasPrefix("create") ? "create" : $0 } == ["create", "write", "fsync file", "rename", "fsync folder"])
        // Given up (the base could not be saved): the old list, and no temp file.
        let abandoned = SimulatedDisk(files: [Self.name: Self.old])
        try AtomicWrite.start(Self.path, with: Self.new, calls: abandoned).abandon()
        #expect(abandoned.possibleContents(of: Self.name) == [Self.old])
        #expect(abandoned.trace.last == "unlink")
    }

    @Test("a power cut while the first list is created leaves no file or the whole one")
    func everyCrashPointCreating() {
        let outcome = Self.explore(existing: nil)
        #expect(outcome.crashPoints == 5)
        #expect(outcome.bad.isEmpty, "\(outcome.bad.map(\.trace))")
        #expect(outcome.lostAfterSuccess.isEmpty)
    }

    @Test("the checker catches a missing file fsync: an empty or torn list appears")
    func withoutFileSyncTheListCanBeEmpty() {
        let outcome = Self.explore(existing: Self.old, faults: .init(fileSyncIgnored: true))
        #expect(outcome.bad.contains { $0.bytes == [] }, "renamed before its data was on disk: an empty file")
        #expect(outcome.lostAfterSuccess.contains { $0 == [] })
    }

    @Test("the checker catches a missing folder fsync: an acknowledged write can vanish")
    func withoutFolderSyncTheWriteCanBeLost() {
        let outcome = Self.explore(existing: Self.old, faults: .init(folderSyncIgnored: true))
        #expect(outcome.bad.isEmpty, "still never a torn file")
        #expect(outcome.lostAfterSuccess.contains { $0 == Self.old }, "the rename was not durable")
    }

    @Test("the fsync order is file, rename, folder")
    func order() throws {
        let disk = SimulatedDisk(files: [Self.name: Self.old])
        try AtomicWrite.replace(Self.path, with: Self.new, calls: disk) { _ in true }
        #expect(disk.trace.map { $0.hasPrefix("create") ? "create" : $0 } == ["create", "write", "fsync file", "rename", "fsync folder"])
        #expect(disk.possibleContents(of: Self.name) == [Self.new])
        #expect(disk.possibleNames() == [[Self.name]], "no temp file is left")
    }

    @Test("a failed or cut replace leaves no temp file behind once it can clean up")
    func failureRemovesTheTemp() {
        // A verify that fails (the read-back differs) is not a power cut: the temp is unlinked.
        let disk = SimulatedDisk(files: [Self.name: Self.old])
        #expect(throws: ListFileError.self) { try AtomicWrite.replace(Self.path, with: Self.new, calls: disk) { _ in false } }
        #expect(disk.possibleContents(of: Self.name) == [Self.old])
        #expect(Set(disk.possibleNames().map(\.count)).contains(1))
        #expect(disk.trace.last == "unlink")
    }
}
