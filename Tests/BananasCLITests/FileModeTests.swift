import Foundation
import Testing

/// New files are private: the list 0600 unless the file it replaces says otherwise, the state
/// folder (base, journals, conflict log) 0600 in 0700 folders, whatever the umask.
@Suite("File modes")
struct FileModeTests {
    static func mode(_ path: String) -> mode_t {
        var st = stat()
        lstat(path, &st)
        return st.st_mode & 0o7777
    }

    /// Runs the binary with umask 000, the loosest a user could have.
    static let openUmask = ["/bin/sh", "-c", "umask 000; exec \"$0\" \"$@\""]

    @Test("with umask 000: a new list is 0600, and everything in the state folder is private")
    func newFilesArePrivate() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli.run(["add", "Milk"], prefix: Self.openUmask).status == 0)
        #expect(Self.mode(cli.listPath) == 0o600)
        // A long-running instance journals; two concurrent edits leave a conflict logged.
        let a = try SessionProcess(cli, prefix: Self.openUmask)
        let b = try SessionProcess(cli, prefix: Self.openUmask)
        let holder = try LockHolder(cli)
        try a.send("set", "Milk", "amount", "1 L")
        usleep(5_000)
        try b.send("set", "Milk", "amount", "2 L")
        holder.release()
        try a.waitForState("conflict")
        try a.quit()
        try b.quit()
        #expect(Self.mode(cli.listPath) == 0o600)

        let state = cli.home + "/.local/state/bananas"
        let walker = FileManager.default.enumerator(atPath: state)
        var seen: [String: mode_t] = [:]
        while let relative = walker?.nextObject() as? String {
            seen[relative] = Self.mode(state + "/" + relative)
        }
        #expect(seen.keys.contains { $0.hasSuffix("base.json") }, "\(seen.keys.sorted())")
        for (relative, mode) in seen {
            var st = stat()
            lstat(state + "/" + relative, &st)
            let isFolder = (st.st_mode & S_IFMT) == S_IFDIR
            #expect(mode == (isFolder ? 0o700 : 0o600), "\(relative): \(String(mode, radix: 8))")
        }
        #expect(Self.mode(state) == 0o700)
    }

    @Test("an existing list keeps its mode through every rewrite", arguments: [0o600, 0o640, 0o644, 0o664, 0o666] as [mode_t])
    func existingModeIsKept(_ mode: mode_t) async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        chmod(cli.listPath, mode)
        #expect(await cli.run(["add", "Eggs"], prefix: ["/bin/sh", "-c", "umask 077; exec \"$0\" \"$@\""]).status == 0)
        #expect(await cli("check", "Milk").status == 0)
        #expect(Self.mode(cli.listPath) == mode, "\(String(Self.mode(cli.listPath), radix: 8))")
        #expect(try await cli.items().count == 2)
    }

    @Test("root editing another user's list (sudo, or through a symlink) leaves it theirs, owner and mode (issue 39, item 8)")
    func rootKeepsTheOwner() async throws {
        guard geteuid() == 0 else { return }  // only root can hand a file to another user
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        #expect(chown(cli.listPath, 65534, 65534) == 0)
        chmod(cli.listPath, 0o640)
        let link = cli.folder + "/through-a-link.json"
        #expect(symlink(cli.listPath, link) == 0)
        #expect(await cli.run(["add", "Eggs", "--file", link]).status == 0)
        #expect(await cli("check", "Milk").status == 0)
        var st = stat()
        #expect(lstat(cli.listPath, &st) == 0)
        #expect(st.st_uid == 65534 && st.st_gid == 65534, "owner \(st.st_uid):\(st.st_gid)")
        #expect(st.st_mode & 0o7777 == 0o640)
        #expect(try await cli.items().count == 2)
    }
}
