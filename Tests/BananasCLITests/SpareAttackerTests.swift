import BananasCore
import BananasFile
import Foundation
import Testing

/// Issue 58, item 1: with no `$XDG_RUNTIME_DIR`, the spare state folder is a name in a shared
/// temp folder (`$TMPDIR/bananas-UID`). Another local user swapping a folder of their own in
/// and out of that name, while this user's `bananas add` runs again and again on a state
/// folder that cannot take the state, gets nothing of theirs adopted and nothing of this
/// user's written into theirs; every add bananas acknowledged is in the list.
@Suite("Another user racing for the spare state folder's name (issue 58)")
struct SpareAttackerTests {
    static let setpriv = "/usr/bin/setpriv"

    @Test func aSwappingAttackerGetsNothingAdoptedAndEveryAcknowledgedAddLands() async throws {
        // Another user is needed: root running the test makes `nobody` the attacker.
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: Self.setpriv), let nobody = getpwnam("nobody") else { return }
        let cli = CLI()
        defer { cli.cleanUp() }
        // The shared temp folder, as /tmp is: anyone may make names in it, sticky.
        let shared = NSTemporaryDirectory() + "bananas-shared-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        chmod(shared, 0o1777)
        defer { try? FileManager.default.removeItem(atPath: shared) }
        let state = cli.home + "/state"
        var environment = cli.environment(["XDG_STATE_HOME": state, "TMPDIR": shared])
        environment["XDG_RUNTIME_DIR"] = nil
        let spareName = shared + "/bananas-\(geteuid())"

        func bananas(_ arguments: String...) async throws -> CLI.Result {
            try await runProgram([CLI.binary] + arguments, environment: environment)
        }
        #expect(try await bananas("add", "Bread").status == 0)

        // The attacker's folder: a journal of a dead instance that adds "Injected", where the
        // victim's spare would keep its journals.
        let mine = shared + "/mine"
        let planted = StateFolder(listPath: cli.listPath, stateDirectory: mine, spareDirectory: nil)
        var list = ShoppingList()
        try list.apply(list.addEdit(["Injected"]).edit, stamp: Stamp(millis: 5, counter: 0, replica: "attacker"))
        var journal: Journal? = try Journal(in: planted)
        try journal!.append(list.delta(from: ShoppingList()))
        let journalPath = journal!.path
        let journalBytes = try Data(contentsOf: URL(fileURLWithPath: journalPath))
        journal = nil
        let deadJournal = planted.journalsPath + "/424242-0.journal"
        try FileManager.default.removeItem(atPath: journalPath)
        try journalBytes.write(to: URL(fileURLWithPath: deadJournal))
        _ = try await runProgram(["/bin/chmod", "-R", "a+rwX", mine])
        _ = try await runProgram(["/bin/chown", "-R", "\(nobody.pointee.pw_uid):\(nobody.pointee.pw_gid)", mine])

        // The state folder cannot take the state: the spare is where it would go.
        let files = state + "/bananas/files"
        try FileManager.default.removeItem(atPath: files)
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: files))

        // First the name already the attacker's: refused, nothing adopted.
        #expect(rename(mine, spareName) == 0)
        let refused = try await bananas("add", "Milk")
        #expect(!(try await bananas("list").stdout.contains("Injected")))
        #expect(rename(spareName, mine) == 0)
        var acknowledged = refused.status == 0 ? ["Bread", "Milk"] : ["Bread"]

        // Then the swapping, as fast as the attacker can (rename(2) in a loop), while the victim
        // adds; the victim's own spare is removed after each add (a reboot of /tmp), so the
        // name is raced again every time.
        let stop = shared + "/stop"
        let script = """
            import os
            while not os.path.exists('\(stop)'):
                for source, target in (('\(mine)', '\(spareName)'), ('\(spareName)', '\(mine)')):
                    try:
                        os.rename(source, target)
                    except OSError:
                        pass
            """
        let attacker = Task {
            try await runProgram([Self.setpriv, "--reuid=\(nobody.pointee.pw_uid)", "--regid=\(nobody.pointee.pw_gid)", "--clear-groups",
                                  "/usr/bin/python3", "-c", script])
        }
        var refusals = 0
        for round in 0..<40 {
            let name = "Item \(round)"
            let added = try await bananas("add", name)
            if added.status == 0 {
                acknowledged.append(name)
            } else {
                // Refused in words, never acknowledged (how many get through depends on how often
                // the attacker holds the name: never asserted, it is chance).
                refusals += 1
                #expect(!added.stderr.isEmpty, "add \(name) failed (exit \(added.status)) without saying why")
            }
            var st = stat()
            if lstat(spareName, &st) == 0, st.st_uid == geteuid() { try? FileManager.default.removeItem(atPath: spareName) }
        }
        FileManager.default.createFile(atPath: stop, contents: nil)
        _ = try await attacker.value
        if !FileManager.default.fileExists(atPath: mine) { _ = rename(spareName, mine) }

        // Back to a state folder that takes the state: what the list holds.
        try FileManager.default.removeItem(atPath: files)
        let listed = try await bananas("list", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let names = Set(((object["items"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String })
        #expect(!names.contains("Injected"), "the attacker's journal was adopted")
        for name in acknowledged { #expect(names.contains(name), "\(name) was acknowledged and is not in the list") }
        // Nothing of the victim's in the attacker's folder, and their journal untouched.
        #expect(FileManager.default.fileExists(atPath: mine + "/files"))
        let enumerator = FileManager.default.enumerator(atPath: mine)
        while let entry = enumerator?.nextObject() as? String {
            var st = stat()
            if lstat(mine + "/" + entry, &st) == 0 { #expect(st.st_uid != geteuid(), "the victim wrote \(entry) into the attacker's folder") }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: deadJournal)) == journalBytes)
        print("SpareAttackerTests: \(acknowledged.count) adds acknowledged, \(refusals) refused")
    }
}
