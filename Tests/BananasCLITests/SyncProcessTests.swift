import Foundation
import Synchronization
import Testing

/// The sync engine with real processes: long-running `bananas-test session` instances (the
/// editor's store without a screen), the CLI, kill -9, a held lock, a broken file.
@Suite("Sync between real processes")
struct SyncProcessTests {
    @Test("an edit in one instance, or the CLI, reaches the others, including a polling one")
    func propagation() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let a = try SessionProcess(cli)
        let b = try SessionProcess(cli)
        let polling = try SessionProcess(cli, arguments: ["--poll"])
        let viewer = try SessionProcess(cli, arguments: ["--read-only"])
        try a.send("add", "Milk", "Dairy")
        for other in [b, polling, viewer] {
            _ = try other.wait(for: "Milk to arrive") { $0["event"] as? String == "merged" }
            #expect(try other.names() == ["Milk"])
        }
        #expect(await cli("add", "Eggs").status == 0)
        for instance in [a, b, polling, viewer] {
            _ = try instance.wait(for: "Eggs to arrive") { _ in (try? instance.names()) == ["Milk", "Eggs"] }
        }
        #expect((try viewer.send("add", "Bread"))["error"] as? String == "this is the read-only viewer; open the editor to change the list")
    }

    @Test("a session refuses what every surface refuses: a NaN or infinite sort order, blank names and sections")
    func sessionInputIsValidated() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let session = try SessionProcess(cli)
        try session.send("add", "Milk")
        let refused: [[String]] = [
            ["set", "Milk", "sortOrder", "nan"], ["set", "Milk", "sortOrder", "inf"], ["set", "Milk", "sortOrder", "-infinity"],
            ["set", "Milk", "name", "   "], ["set", "Milk", "section", ""], ["set", "Milk", "name", "a\u{1B}[2Jb"],
            ["set", "Milk", "checked", "maybe"], ["add", " "], ["add", "Eggs", " "], ["burst", "2", "\u{7}"],
        ]
        for line in refused {
            let answer = try session.send(line[0], Array(line.dropFirst()))
            #expect(answer["ack"] == nil && answer["error"] != nil, "\(line) was taken: \(answer)")
        }
        #expect(try session.send("wait")["flushed"] as? Bool == true)
        let list = await cli("list", "--json")
        #expect(list.status == 0, "the file is unreadable: \(list.stderr)")
        #expect(try await cli.items().map { $0["name"] as? String } == ["Milk"])
        try session.send("set", "Milk", "sortOrder", "-3")
        #expect(try session.send("wait")["flushed"] as? Bool == true)
        #expect(await cli("list").status == 0)
    }

    @Test("kill -9 after an acknowledged edit: the next instance replays the journal")
    func killedInstanceIsReplayed() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        let holder = try LockHolder(cli)  // the file cannot be written: edits stay in the journal
        let a = try SessionProcess(cli)
        for n in 0..<20 { try a.send("add", "Item \(n)") }
        try a.waitForState("paused", reason: "lock held by pid \(holder.pid)")
        #expect(try a.status()["pending"] as? Int == 20)
        a.kill()
        holder.release()
        #expect(try await cli.items().count == 1, "not in the file yet")
        #expect(await cli("status").stdout.contains("pending: 20 edits from a stopped bananas"))

        let b = try SessionProcess(cli)
        try b.waitForState("synced")
        #expect(try await cli.items().count == 21)
        #expect(try b.names().count == 21)
    }

    @Test("a dead instance's journal is replayed by the next CLI command too")
    func killedInstanceReplayedByCLI() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let holder = try LockHolder(cli)
        let a = try SessionProcess(cli)
        try a.send("add", "Milk")
        try a.send("add", "Eggs")
        a.kill()
        holder.release()
        #expect(await cli("add", "Bread").status == 0)
        #expect(Set(try await cli.items().map { $0["name"] as! String }) == ["Milk", "Eggs", "Bread"])
    }

    @Test("kill -9 at random moments, many times: every acknowledged edit survives")
    func randomKills() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        var acknowledged: Set<String> = []
        var lastKill = Date()
        for round in 0..<25 {
            let session = try SessionProcess(cli)
            for n in 0..<Int.random(in: 1...6) {
                let name = "R\(round)-\(n)"
                try session.send("add", name)
                acknowledged.insert(name)
            }
            usleep(UInt32.random(in: 0...8_000))  // before, during or after the flush
            session.kill()
            lastKill = Date()
        }
        let final = try SessionProcess(cli)
        try final.waitForState("synced", timeout: 15)
        let names = Set(try await cli.items().map { $0["name"] as! String })
        #expect(acknowledged.isSubset(of: names), "lost: \(acknowledged.subtracting(names).sorted())")
        try final.quit()
        // Temp files of writers killed mid-write are cleared once they are past the stale window.
        let wait = 5.5 - Date().timeIntervalSince(lastKill)
        if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
        #expect(await cli("add", "Final").status == 0)
        #expect(cli.entries == ["BananaList.json"])
    }

    @Test("two idle instances write nothing, ever; a burst ends in one write and a quiet file")
    func idleAndBurst() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        let writes = RenameCounter(folder: cli.folder, name: "BananaList.json")
        let a = try SessionProcess(cli)
        let b = try SessionProcess(cli)
        usleep(2_500_000)
        #expect(writes.total == 0)

        try a.send("burst", "200")
        _ = try b.wait(for: "the burst") { _ in (try? b.items().count) == 201 }
        // The watcher thread may lag on a loaded machine: wait for the write to be counted,
        // then long enough for any further (unwanted) write to show.
        let deadline = Date().addingTimeInterval(10)
        while writes.total == 0 && Date() < deadline { usleep(50_000) }
        usleep(1_500_000)
        #expect(writes.byProcess == [a.process.processIdentifier: 1], "one write, by the editing instance")
        #expect(try await cli.items().count == 201)
    }

    @Test("paused by a lock held by a live process; the edit lands when it is released")
    func pausedByLock() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        let a = try SessionProcess(cli)
        let holder = try LockHolder(cli)
        try a.send("add", "Eggs")
        try a.waitForState("paused", reason: "lock held by pid \(holder.pid)")
        #expect(try a.status()["summary"] as? String == "paused: lock held by pid \(holder.pid) (1 waiting)")
        holder.release()
        try a.waitForState("synced")
        #expect(try await cli.items().count == 2)
    }

    @Test("edits made while a flush waits for the lock are not taken for conflicts")
    func ownBurstIsNoConflict() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let a = try SessionProcess(cli)
        let holder = try LockHolder(cli)
        try a.send("add", "Milk")
        usleep(100_000)  // the flush now waits for the lock
        try a.send("set", "Milk", "amount", "2 L")
        holder.release()
        try a.waitForState("synced")
        #expect(try await cli.items().first?["amount"] as? String == "2 L")
        usleep(200_000)
        #expect(try a.status()["conflicts"] as? Int == 0)
    }

    @Test("paused by a newer schema: shown, never written; edits land when the file is ours again")
    func pausedByNewerSchema() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let newer = #"{"schemaVersion": 99, "sections": ["A"], "items": [{"id": "1", "name": "Milk", "section": "A"}], "future": true}"#
        cli.writeFile(newer)
        let a = try SessionProcess(cli)
        try a.waitForState("paused", reason: "newer schema (99)")
        #expect(try a.names() == ["Milk"], "a newer file is still shown")
        try a.send("add", "Eggs")
        usleep(300_000)
        #expect(String(decoding: cli.fileBytes!, as: UTF8.self) == newer)
        cli.writeFile(#"{"schemaVersion": 2, "sections": ["A"], "items": [{"id": "1", "name": "Milk", "section": "A"}]}"#)
        try a.waitForState("synced")
        #expect(Set(try await cli.items().map { $0["name"] as! String }) == ["Milk", "Eggs"])
    }

    @Test("paused by a corrupt file; the edit lands once it is repaired")
    func pausedByCorruptFile() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        let a = try SessionProcess(cli)
        cli.writeFile("{\"items\": [")
        try a.waitForState("paused", reason: "unparseable file")
        #expect(try a.names() == ["Milk"], "what was read before stays on screen")
        try a.send("add", "Eggs")
        usleep(300_000)
        #expect(String(decoding: cli.fileBytes!, as: UTF8.self) == "{\"items\": [")
        cli.writeFile(#"{"items": []}"#)
        try a.waitForState("synced")
        // The repaired file had no Milk: whoever emptied it deleted Milk. Eggs, queued, lands.
        #expect(Set(try await cli.items().map { $0["name"] as! String }).contains("Eggs"))
    }

    @Test("paused by a missing folder (an unmounted drive); edits land when it is back")
    func pausedByMissingFolder() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        let a = try SessionProcess(cli)
        try cli.removeFolder()
        try a.waitForState("paused", reason: "missing folder")
        try a.send("add", "Eggs")
        try FileManager.default.createDirectory(atPath: cli.folder, withIntermediateDirectories: true)
        try a.waitForState("synced")
        #expect(Set(try await cli.items().map { $0["name"] as! String }) == ["Milk", "Eggs"])
    }

    @Test("paused by permissions; edits land when access comes back")
    func pausedByPermission() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), getuid() == 0 else { return }
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        chmod(cli.home, 0o777)
        chmod(cli.folder, 0o755)
        chmod(cli.listPath, 0o644)
        // Its own state folder: one it cannot write would pause it for that (StateFolderCLITests).
        let state = cli.folder + ".nobody-state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: state) }
        chmod(state, 0o777)
        let asNobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        let a = try SessionProcess(cli, prefix: asNobody, environment: ["XDG_STATE_HOME": state])
        try a.send("add", "Eggs")
        try a.waitForState("paused", reason: "permission denied")
        chmod(cli.folder, 0o777)
        chmod(cli.listPath, 0o666)
        try a.waitForState("synced")
        #expect(Set(try await cli.items().map { $0["name"] as! String }) == ["Milk", "Eggs"])
    }

    @Test("concurrent edits to one field: the later wins, bananas conflicts lists the other and restores it")
    func conflictsCommand() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Oat milk")
        let a = try SessionProcess(cli)
        let b = try SessionProcess(cli)
        let holder = try LockHolder(cli)  // neither can write: both edits are concurrent
        try a.send("set", "Oat milk", "amount", "1 L")
        usleep(5_000)
        try b.send("set", "Oat milk", "amount", "2 L")
        holder.release()
        try a.waitForState("conflict")
        try b.waitForState("conflict")
        #expect(try await cli.items().first?["amount"] as? String == "2 L")
        let listed = await cli("conflicts")
        #expect(listed.stdout.contains(#"Oat milk · amount: kept "2 L", lost "1 L""#))
        let id = String(listed.stdout.prefix(8))
        let restored = await cli("conflicts", "restore", id)
        #expect(restored.status == 0)
        // The same words as the editor: the value set and the one it replaced.
        #expect(restored.stdout == "Set amount of \"Oat milk\" to \"1 L\" (was \"2 L\")\n")
        #expect(try await cli.items().first?["amount"] as? String == "1 L")
        try a.waitForState("synced")
        _ = try b.wait(for: "the restore") { _ in (try? b.items().first?["amount"] as? String) == "1 L" }
        #expect(await cli("conflicts").stdout.contains("No conflicts await review."))
        #expect(await cli("conflicts", "--all").stdout.contains("restored"))
    }

    @Test("a device that only ever received the list takes a Get Bananas save's edits, not its own old values")
    func receiveOnlyDeviceKeepsStamplessEdits() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk", "--section", "Dairy")
        await cli("add", "Eggs", "--section", "Dairy")
        // Written on another device: this one has no base of its own.
        try? FileManager.default.removeItem(atPath: cli.home + "/.local/state/bananas")
        let a = try SessionProcess(cli)
        let ids = Dictionary(uniqueKeysWithValues: try await cli.items().map { ($0["name"] as! String, $0["id"] as! String) })
        // The phone: renames Milk, checks Eggs, version-1 shape, no stamps.
        cli.writeFile("""
            {"sections":["Dairy"],"items":[{"id":"\(ids["Milk"]!)","name":"Whole milk","amount":"2","section":"Dairy","checked":false,"optional":false},{"id":"\(ids["Eggs"]!)","name":"Eggs","amount":"","section":"Dairy","checked":true,"optional":false}]}
            """)
        _ = try a.wait(for: "the phone's edits") { _ in (try? a.names()) == ["Whole milk", "Eggs"] }
        // Nothing proves which state the phone read (this device's history began with the file
        // it received): its edits saw nothing, so what they replaced is kept for review (rule 5).
        try a.waitForState("conflict")
        let review = await cli("conflicts")
        #expect(review.stdout.contains(#"lost "Milk""#) && review.stdout.contains("checked"), "\(review.stdout)")
        #expect(await cli("conflicts", "dismiss", "--all").status == 0)
        try a.send("add", "Tea")  // a write of this device's own
        try a.waitForState("synced")
        let items = try await cli.items()
        #expect(Set(items.map { $0["name"] as! String }) == ["Whole milk", "Eggs", "Tea"], "the rename is not reverted")
        #expect(items.first { $0["name"] as? String == "Eggs" }?["checked"] as? Bool == true, "the check is not reverted")
        try a.quit()
    }

    @Test("a stampless writer (Get Bananas) edits under a running instance: taken in, and written back judged (rule 5)")
    func stamplessWriterUnderARunningInstance() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk", "--section", "Dairy")
        await cli("add", "Eggs", "--section", "Dairy")
        let a = try SessionProcess(cli)
        let ids = Dictionary(uniqueKeysWithValues: try await cli.items().map { ($0["name"] as! String, $0["id"] as! String) })
        // Exactly what Get Bananas writes: version-1 shape, no stamps. First it saves what it
        // read (so it holds both rows), then renames Milk and removes Eggs outright.
        let held = """
            {"sections":["Dairy"],"items":[{"id":"\(ids["Milk"]!)","name":"Milk","amount":"","section":"Dairy","checked":false,"optional":false,"sortOrder":1},{"id":"\(ids["Eggs"]!)","name":"Eggs","amount":"","section":"Dairy","checked":false,"optional":false,"sortOrder":2}]}
            """
        cli.writeFile(held)
        usleep(300_000)
        let foreign = """
            {"sections":["Dairy"],"items":[{"id":"\(ids["Milk"]!)","name":"Whole milk","amount":"2","section":"Dairy","checked":false,"optional":false,"sortOrder":1}]}
            """
        cli.writeFile(foreign)
        _ = try a.wait(for: "the foreign edit") { _ in (try? a.names()) == ["Whole milk"] }
        // Taken in: the save is written back with its stamps and its delete, so every device
        // judges it alike; the file then shows the same items.
        _ = try a.wait(for: "the write-back") { _ in cli.fileBytes.map { String(decoding: $0, as: UTF8.self).contains("\"sync\"") } ?? false }
        #expect(try await cli.items().map { $0["name"] as! String } == ["Whole milk"])
        #expect(await cli("deleted").stdout.contains("Eggs"), "Eggs is in recently deleted")
        try a.send("check", "Whole milk")
        try a.waitForState("synced")
        let items = try await cli.items()
        #expect(items.count == 1 && items[0]["name"] as? String == "Whole milk" && items[0]["checked"] as? Bool == true)
    }
}

/// Counts renames onto one file name in a folder (each is one completed write), per writing
/// process (read from the temp file's name, `<name>.tmp.<pid>.<hex>`).
final class RenameCounter: @unchecked Sendable {
    private let fd: Int32
    private let name: String
    private let seen = Mutex<(counts: [Int32: Int], lastTemp: String?)>(([:], nil))
    private var thread: Thread?

    init(folder: String, name: String) {
        self.name = name
        fd = inotify_init1(Int32(IN_CLOEXEC))
        inotify_add_watch(fd, folder, UInt32(IN_MOVED_FROM | IN_MOVED_TO))
        let thread = Thread { [weak self] in self?.run() }
        thread.start()
        self.thread = thread
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }  // a signal (SIGCHLD from another test's child)
            if n <= 0 { return }
            var offset = 0
            while offset + 16 <= n {
                let (mask, length) = buffer.withUnsafeBytes { raw in
                    (raw.load(fromByteOffset: offset + 4, as: UInt32.self), Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                let entry = String(decoding: buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }, as: UTF8.self)
                offset += 16 + length
                seen.withLock { seen in
                    if mask & UInt32(IN_MOVED_FROM) != 0 {
                        seen.lastTemp = entry
                    } else if entry == name {
                        let pid = seen.lastTemp.flatMap { Int32($0.split(separator: ".").dropFirst(3).first ?? "") } ?? -1
                        seen.counts[pid, default: 0] += 1
                    }
                }
            }
        }
    }

    var byProcess: [Int32: Int] { seen.withLock { $0.counts } }

    var total: Int { byProcess.values.reduce(0, +) }
}
