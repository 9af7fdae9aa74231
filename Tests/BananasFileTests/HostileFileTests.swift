import Foundation
import Testing
@testable import BananasCore
@testable import BananasFile
import BananasTestSupport

/// The hostile corpus through the file layer: every unreadable file is refused with a
/// message that says what is wrong, and never written; readable oddities lose no row.
/// (Tests/BananasCLITests/HostileSurfaceTests runs the same files through every surface.)
@Suite("Hostile files: the file layer")
struct HostileFileTests {
    @Test("every unreadable file in the corpus is refused, with a reason, and never written", arguments: HostileCorpus.committed.filter { !HostileCorpus.readable.contains($0.name) }.map(\.name))
    func unreadable(_ name: String) throws {
        let bytes = HostileCorpus.committed.first { $0.name == name }!.bytes
        let folder = TempFolder()
        createTestFile(atPath: folder.listPath, contents: Data(bytes))
        let file = ListFile(path: folder.listPath)
        do {
            _ = try file.load()
            Issue.record("\(name) was read")
        } catch {
            guard case .unparseable(_, let detail) = error else { Issue.record("\(name): \(error)"); return }
            #expect(!detail.isEmpty && error.description.contains("left untouched"), "\(name): \(error)")
        }
        #expect(throws: ListFileError.self) { try addItem("Eggs", to: file) }
        #expect(folder.bytes() == bytes, "\(name) was changed")
        #expect(folder.entries == ["BananaList.json"], "no temp file or lock is left")
    }

    @Test("duplicate ids, wrong-typed rows and overflowing numbers: shown, reported, and no row is lost on a write")
    func readableOddities() throws {
        for name in ["duplicate-id.json", "wrong-typed-rows.json", "number-overflow.json"] {
            let bytes = HostileCorpus.committed.first { $0.name == name }!.bytes
            let folder = TempFolder()
            createTestFile(atPath: folder.listPath, contents: Data(bytes))
            let file = ListFile(path: folder.listPath)
            let before = try file.load()
            #expect(!before.decoded.problems.isEmpty, "\(name) reports its problems")
            try addItem("Eggs", to: file)
            let after = try file.load()
            #expect(Set(after.list.items.map(\.name)) == Set(before.list.items.map(\.name) + ["Eggs"]), "\(name)")
            #expect(after.list.unreadableRows == before.list.unreadableRows, "\(name): rows not understood are kept verbatim")
        }
    }

    @Test("a file over the size limit is refused before it is read")
    func oversized() throws {
        let folder = TempFolder()
        let fd = open(folder.listPath, O_WRONLY | O_CREAT, 0o600)
        ftruncate(fd, off_t(ListCodec.maxFileSize + 1))  // sparse: nothing is really written
        close(fd)
        let file = ListFile(path: folder.listPath)
        #expect(throws: ListFileError.tooLarge(path: file.path, size: ListCodec.maxFileSize + 1, limit: ListCodec.maxFileSize)) { try file.load() }
        #expect(throws: ListFileError.self) { try addItem("Eggs", to: file) }
        var st = stat()
        stat(folder.listPath, &st)
        #expect(Int(st.st_size) == ListCodec.maxFileSize + 1)
        #expect(folder.entries == ["BananaList.json"])
    }

    @Test("a named pipe, a device, a folder, a dangling link, a link loop: refused at once, nothing written")
    func specialFiles() throws {
        let folder = TempFolder()
        let cases: [(String, () -> Void)] = [
            ("a named pipe", { mkfifo(folder.listPath, 0o600) }),
            ("a device", { symlink("/dev/zero", folder.listPath) }),
            ("a directory", { mkdir(folder.listPath, 0o700) }),
            ("a dangling link", { symlink(folder.path + "/nowhere.json", folder.listPath) }),
            ("a link loop", { symlink(folder.listPath, folder.listPath) }),
        ]
        for (what, make) in cases {
            make()
            defer { _ = unlink(folder.listPath); _ = rmdir(folder.listPath) }
            let file = ListFile(path: folder.listPath)
            let start = ContinuousClock.now
            #expect(throws: ListFileError.self, "\(what)") { try file.load() }
            #expect(throws: ListFileError.self, "\(what)") { try addItem("Eggs", to: file) }
            #expect(ContinuousClock.now - start < .seconds(3), "\(what) answered at once, without waiting on a reader")
            #expect(Set(folder.entries).isSubset(of: ["BananaList.json"]), "\(what): \(folder.entries)")
            #expect(!FileManager.default.fileExists(atPath: folder.path + "/nowhere.json"), "nothing is written through a link")
        }
    }
}
