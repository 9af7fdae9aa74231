import Foundation
import Testing
@testable import BananasCore
@testable import BananasFile

/// Issue 58, item 1: the spare state folder's root is opened once, checked on its descriptor,
/// and reached through that descriptor from then on (`SpareRoot`), so a folder swapped into its
/// name after the check (in a shared folder without the sticky bit, anyone may rename) is never
/// read or written: no window between the check and the use.
@Suite("The spare state folder is reached through the folder opened, not its name")
struct SpareRootTests {
    @Test func aFolderSwappedIntoTheSparesNameAfterItWasOpenedIsNeverReadOrWritten() throws {
        let shared = NSTemporaryDirectory() + "bananas-spare-root-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        chmod(shared, 0o777)  // no sticky bit: anyone may rename anything in it
        defer { try? FileManager.default.removeItem(atPath: shared) }
        let listPath = shared + "/list/BananaList.json"
        let spare = try #require(StateFolder(listPath: listPath, stateDirectory: shared + "/state", spareDirectory: shared + "/spare").spare)
        #expect(!FileManager.default.fileExists(atPath: shared + "/spare"), "made only when a write needs it")
        #expect(spare.make(spare.journalsPath) == nil)
        var st = stat()
        #expect(lstat(shared + "/spare", &st) == 0 && st.st_mode & 0o777 == 0o700 && st.st_uid == geteuid())
        #expect(spare.shownPath.hasPrefix(shared + "/spare/files/"))

        // Another user's folder swapped in: a dead instance's journal that adds "Injected".
        #expect(rename(shared + "/spare", shared + "/moved") == 0)
        let key = String(StateFolder(listPath: listPath, stateDirectory: shared).path.split(separator: "/").last!)
        let planted = StateFolder(listPath: listPath, stateDirectory: shared + "/spare")
        var list = ShoppingList()
        try list.apply(list.addEdit(["Injected"]).edit, stamp: Stamp(millis: 5, counter: 0, replica: "attacker"))
        var journal: Journal? = try Journal(in: planted)
        try journal!.append(list.delta(from: ShoppingList()))
        let plantedPath = journal!.path
        journal = nil
        chmod(shared + "/spare", 0o777)
        #expect(plantedPath.hasPrefix(shared + "/spare/files/" + key + "/journals/"))

        // The spare reads and writes the folder it opened (now named `moved`), nothing else.
        #expect(spare.problem() == nil)
        #expect(Journal.orphans(in: spare).allSatisfy { $0.entries.isEmpty })
        let own = try Journal(in: spare)
        try own.append(list.delta(from: ShoppingList()))
        let name = String(own.path.split(separator: "/").last!)
        #expect(FileManager.default.fileExists(atPath: shared + "/moved/files/" + key + "/journals/" + name))
        #expect(!FileManager.default.fileExists(atPath: shared + "/spare/files/" + key + "/journals/" + name))
        #expect(FileManager.default.fileExists(atPath: plantedPath), "the planted journal was taken")
    }

    @Test func aSpareRootThatIsNotTheUsersAloneIsRefusedAndReadsAsEmpty() throws {
        let shared = NSTemporaryDirectory() + "bananas-spare-root-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: shared + "/spare", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: shared) }
        chmod(shared + "/spare", 0o777)
        let spare = try #require(StateFolder(listPath: shared + "/BananaList.json", stateDirectory: shared + "/state",
                                             spareDirectory: shared + "/spare").spare)
        #expect(spare.problem() == .permissionDenied(path: shared + "/spare", action: "use (not this user's alone)"))
        #expect(!spare.path.hasPrefix(shared))
        #expect(Journal.orphans(in: spare).isEmpty)
        #expect(throws: ListFileError.self) { try Journal(in: spare) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared + "/spare").isEmpty)
    }
}
