import Foundation
import Testing
@testable import BananasCore
@testable import BananasFile

/// The state folder's files are read only when they are regular files: a named pipe is never
/// waited on, a device never read without end, a symlink never followed (issue 39, 3 and 4).
@Suite struct StateFileKindTests {
    /// Runs `body` on a thread and fails if it does not return within 5 seconds.
    func returnsPromptly(_ what: String, _ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 5) == .success, "\(what) hung")
    }

    @Test("a pipe or a device in place of the written hashes, the announced hash or the delete sightings: read as nothing, at once", arguments: ["pipe", "device"])
    func nonRegularStateFiles(kind: String) throws {
        let folder = TempFolder()
        let file = ListFile(path: folder.listPath, stateDirectory: folder.path + "/state")
        _ = try file.update { list, _ in try list.apply(.insert(Item(id: "M", name: "Milk")), stamp: Stamp(millis: 1, counter: 0, replica: "a")) }
        let store = try #require(file.base)
        for path in [store.hashesPath, store.incomingPath, store.sightingsPath] {
            unlink(path)
            if kind == "pipe" { #expect(mkfifo(path, 0o600) == 0) } else { #expect(symlink("/dev/zero", path) == 0) }
        }
        returnsPromptly("the glance") { #expect(store.glance().writtenHashes.isEmpty) }
        returnsPromptly("the announced hash") { #expect(store.announced() == nil) }
        returnsPromptly("the sightings") { #expect(store.deleteSightings().byKey.isEmpty) }
        returnsPromptly("a read of the list") { #expect((try? file.load().list.item("M")) != nil) }
        returnsPromptly("a write (its hash announced first)") { _ = try? file.update { _, _ in } }
    }

    @Test("a sparse journal of a terabyte: never read, and left where it is")
    func giantJournal() throws {
        let folder = TempFolder()
        let state = StateFolder(listPath: folder.path + "/BananaList.json", stateDirectory: folder.path + "/state")
        try FileManager.default.createDirectory(atPath: state.journalsPath, withIntermediateDirectories: true)
        let path = state.journalsPath + "/4242-abcd.journal"
        let fd = open(path, O_WRONLY | O_CREAT, 0o600)
        #expect(ftruncate(fd, 1 << 40) == 0)
        close(fd)
        returnsPromptly("the journals' count") { #expect(Journal.waiting(in: state) == (0, 0)) }
        returnsPromptly("adopting journals") { #expect(Journal.orphans(in: state).isEmpty) }
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test("a pipe or a device among the journals: skipped at once by a command that looks and by one that adopts", arguments: ["pipe", "device"])
    func nonRegularJournals(kind: String) throws {
        let folder = TempFolder()
        let state = StateFolder(listPath: folder.path + "/BananaList.json", stateDirectory: folder.path + "/state")
        let journals = state.journalsPath
        try FileManager.default.createDirectory(atPath: journals, withIntermediateDirectories: true)
        let path = journals + "/4242-abcd.journal"
        if kind == "pipe" { #expect(mkfifo(path, 0o600) == 0) } else { #expect(symlink("/dev/zero", path) == 0) }
        returnsPromptly("the journals' count") { #expect(Journal.waiting(in: state) == (0, 0)) }
        returnsPromptly("adopting journals") { #expect(Journal.orphans(in: state).isEmpty) }
    }
}
