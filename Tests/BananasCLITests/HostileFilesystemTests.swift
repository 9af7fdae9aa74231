import Foundation
import Testing
import BananasTestSupport

/// A small tmpfs mounted over a test's folder, for a full disk and a read-only mount. Needs
/// root and the right to mount (true in the session and in CI's container; tests skip with
/// a message where it is not).
final class TmpfsMount {
    let path: String

    init?(at path: String, kilobytes: Int) {
        self.path = path
        guard getuid() == 0, mount("tmpfs", path, "tmpfs", 0, "size=\(kilobytes)k,mode=0755") == 0 else { return nil }
    }

    @discardableResult
    func remount(readOnly: Bool) -> Bool {
        mount("tmpfs", path, "tmpfs", UInt(MS_REMOUNT) | (readOnly ? UInt(MS_RDONLY) : 0), nil) == 0
    }

    /// Fills the disk with a file `name`; its size.
    func fill(_ name: String = "filler") -> Int {
        let fd = open(path + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0x2E, count: 4096)
        var total = 0
        while true {
            let n = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            total += n
        }
        // The last partial page too.
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, 1) }) == 1 { total += 1 }
        return total
    }

    /// Unmounts (before the test's folder is removed).
    func unmount() {
        remount(readOnly: false)
        umount2(path, Int32(MNT_DETACH))
    }
}

/// The file system turns hostile under the list: a lock or temp path that is a symbolic link,
/// a full disk, a read-only mount, the folder removed. Nothing is lost or written through a
/// link, the state says `paused` with the reason, and it recovers by itself. (A folder
/// without write permission: BadInputTests.aFolderWeMayNotWriteIsReported and
/// SyncProcessTests.pausedByPermission.)
@Suite("Hostile file system")
struct HostileFilesystemTests {
    static func names(_ cli: CLI) async throws -> Set<String> { Set(try await cli.items().map { $0["name"] as! String }) }

    @Test("a lock path that is a symlink: never followed or removed, the state says why, and it recovers once it is gone")
    func symlinkedLock() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        let victim = cli.home + "-victim"
        createTestFile(atPath: victim, contents: Data("precious".utf8))
        defer { try? FileManager.default.removeItem(atPath: victim) }
        symlink(victim, cli.listPath + ".lock")
        let before = cli.fileBytes

        let add = await cli.run(["add", "Eggs", "--lock-timeout", "300"])
        #expect(add.status == 7 && add.stderr.contains("cannot be used: it is a symbolic link"), "\(add.stderr)")
        let status = await cli("status").stdout
        #expect(status.contains("lock unusable: it is a symbolic link"), "\(status)")
        let session = try SessionProcess(cli)
        try session.send("add", "Bread")
        try session.waitForState("paused", reason: "lock unusable")
        #expect(cli.fileBytes == before)
        #expect(FileManager.default.contents(atPath: victim) == Data("precious".utf8), "nothing written through the link")

        unlink(cli.listPath + ".lock")
        try session.waitForState("synced", timeout: 15)
        #expect(try await Self.names(cli) == ["Milk", "Bread"])
        try session.quit()
        #expect(FileManager.default.contents(atPath: victim) == Data("precious".utf8))
    }

    @Test("a symlink planted at a temp file's name is neither followed, written through, nor removed")
    func symlinkedTemp() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        let victim = cli.home + "-victim"
        createTestFile(atPath: victim, contents: Data("precious".utf8))
        defer { try? FileManager.default.removeItem(atPath: victim) }
        // Named like a temp file of a dead Get Bananas server (`.tmp.<pid>`), old enough to clear.
        let planted = cli.listPath + ".tmp.999999"
        symlink(victim, planted)
        var old = [timespec(tv_sec: time(nil) - 60, tv_nsec: 0), timespec(tv_sec: time(nil) - 60, tv_nsec: 0)]
        utimensat(AT_FDCWD, planted, &old, AT_SYMLINK_NOFOLLOW)
        for n in 0..<5 { #expect(await cli("add", "Item \(n)").status == 0) }
        #expect(FileManager.default.contents(atPath: victim) == Data("precious".utf8))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: planted)) == victim, "another user's link is left alone")
        #expect(try await Self.names(cli).count == 6)
    }

    @Test("a full disk: the CLI says so and changes nothing; an instance pauses, keeps the edit, and writes it once there is room")
    func fullDisk() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        guard let disk = TmpfsMount(at: cli.folder, kilobytes: 64) else {
            print("skipped: cannot mount a tmpfs here (needs root and mount rights)")
            return
        }
        defer { disk.unmount() }
        await cli("add", "Milk")
        let session = try SessionProcess(cli)
        let filled = disk.fill()
        let before = cli.fileBytes
        let add = await cli("add", "Eggs")
        #expect(add.status == 8 && add.stderr.contains("the disk is full"), "\(add.stderr)")
        #expect(cli.fileBytes == before)
        #expect(cli.entries == ["BananaList.json", "filler"], "no temp file or lock is left")

        try session.send("add", "Bread")
        try session.waitForState("paused", reason: "disk full")
        #expect(cli.fileBytes == before)
        #expect(cli.entries == ["BananaList.json", "filler"])
        unlink(cli.folder + "/filler")
        try session.waitForState("synced", timeout: 15)
        #expect(try await Self.names(cli) == ["Milk", "Bread"])
        try session.quit()
        print("full disk: \(filled) bytes of filler on a 64 KiB tmpfs")
    }

    @Test("a read-only mount: the CLI says so; an instance pauses, and writes the edit once it is writable again")
    func readOnlyMount() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        guard let disk = TmpfsMount(at: cli.folder, kilobytes: 256) else {
            print("skipped: cannot mount a tmpfs here (needs root and mount rights)")
            return
        }
        defer { disk.unmount() }
        await cli("add", "Milk")
        let session = try SessionProcess(cli)
        #expect(disk.remount(readOnly: true))
        let before = cli.fileBytes
        let add = await cli("add", "Eggs")
        #expect(add.status == 8 && add.stderr.contains("read-only"), "\(add.stderr)")
        #expect(await cli("list").stdout.contains("Milk"), "reading still works")
        try session.send("add", "Bread")
        try session.waitForState("paused", reason: "read-only file system")
        #expect(cli.fileBytes == before)
        #expect(disk.remount(readOnly: false))
        try session.waitForState("synced", timeout: 15)
        #expect(try await Self.names(cli) == ["Milk", "Bread"])
        try session.quit()
        #expect(cli.entries == ["BananaList.json"])
    }

    @Test("the folder removed under the MCP server and the CLI: edits are kept, said to wait, and written when it is back")
    func folderRemovedUnderMCP() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        let server = try MCPProcess(cli)
        try cli.removeFolder()
        let add = await cli("add", "Eggs")
        #expect(add.status == 8 && add.stderr.contains("does not exist"), "\(add.stderr)")
        var answer: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(10)
        repeat {
            answer = try server.call("add_items", ["items": [["name": "Bread \(Int(Date().timeIntervalSince1970 * 1000) % 100_000)"]]])
            if answer.structured["paused"] as? String == "missing folder" { break }
            usleep(100_000)
        } while Date() < deadline
        #expect(!answer.isError && answer.structured["paused"] as? String == "missing folder", "\(answer.text)")
        #expect(answer.structured["written"] as? Bool == false)
        let queued = Set((try server.call("get_shopping_list").structured["items"] as? [[String: Any]] ?? []).map { $0["name"] as! String })
        try FileManager.default.createDirectory(atPath: cli.folder, withIntermediateDirectories: true)
        let back = Date().addingTimeInterval(15)
        var names: Set<String> = []
        while Date() < back {
            names = await (try? Self.names(cli)) ?? []
            if names == queued { break }
            usleep(100_000)
        }
        #expect(names == queued && names.contains("Milk"), "every edit made while it was gone is written: \(names) vs \(queued)")
        #expect(server.finish() == 0)
    }
}
