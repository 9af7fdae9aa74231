import Foundation
import Testing
@testable import BananasFile
import BananasTestSupport

@Suite("Conflict copies: names")
struct ConflictCopyNameTests {
    @Test("each sync engine's conflict copy is recognised, by its engine", arguments: [
        ("BananaList.sync-conflict-20261121-101530-ABCDEF7.json", ConflictCopy.Engine.syncthing),
        ("BananaList.sync-conflict-20261121-101530-ABCDEF7.sync-conflict-20261122-080000-Q2RST3U.json", .syncthing),
        ("BananaList (Ann's conflicted copy 2026-11-21).json", .dropbox),
        ("BananaList (Ann Lee's conflicted copy 2026-11-21 (1)).json", .dropbox),
        ("BananaList (Ann\u{2019}s conflicted copy 2026-11-21).json", .dropbox),
        ("BananaList (conflicted copy 2026-11-21 101530).json", .nextcloud),
        ("BananaList 2.json", .icloud),
        ("BananaList 17.json", .icloud),
    ])
    func recognised(name: String, engine: ConflictCopy.Engine) {
        #expect(ConflictCopy.engine(of: name, listName: "BananaList.json") == engine)
    }

    @Test("temp files, the lock, the list itself and look-alikes are not conflict copies", arguments: [
        "BananaList.json",
        "BananaList.json.lock",
        "BananaList.json.tmp.4242",
        "BananaList.json.tmp.4242.1f3a",
        ".syncthing.BananaList.json.tmp",
        "~syncthing~BananaList.json.tmp",
        ".syncthing.BananaList.sync-conflict-20261121-101530-ABCDEF7.json.tmp",
        "BananaList.sync-conflict-20261121-101530-ABCDEF7.json.tmp.4242",
        "BananaList.sync-conflict-2026112-101530-ABCDEF7.json",   // a digit short
        "BananaList.sync-conflict-20261121-101530-.json",         // no device
        "BananaList.sync-conflict-20261121-101530-abcdef7.json",  // not Syncthing's alphabet
        "BananaList (conflicted copy 2026-11-21).json",           // Nextcloud without the time
        "BananaList ('s conflicted copy 2026-11-21).json",        // Dropbox without a name
        "BananaList (Ann's copy 2026-11-21).json",
        "BananaList 1.json", "BananaList 02.json", "BananaList 2.json.tmp.1", "BananaList 2.JSON",
        "BananaList2.json", "BananaList .json", "Other.sync-conflict-20261121-101530-ABCDEF7.json",
        "bananalist 2.json", "BananaList.sync-conflict-20261121-101530-ABCDEF7.txt",
    ])
    func notRecognised(name: String) {
        #expect(ConflictCopy.engine(of: name, listName: "BananaList.json") == nil)
    }

    @Test("any list name works: another name, and one without an extension")
    func otherListNames() {
        #expect(ConflictCopy.engine(of: "shop.sync-conflict-20261121-101530-ABCDEF7.json", listName: "shop.json") == .syncthing)
        #expect(ConflictCopy.engine(of: "shop 2.json", listName: "shop.json") == .icloud)
        #expect(ConflictCopy.engine(of: "list.sync-conflict-20261121-101530-ABCDEF7", listName: "list") == .syncthing)
        #expect(ConflictCopy.engine(of: "list (conflicted copy 2026-11-21 101530)", listName: "list") == .nextcloud)
        #expect(ConflictCopy.engine(of: "BananaList 2.json", listName: "shop.json") == nil)
    }

    @Test("find lists only regular files with a copy's name beside the list")
    func find() throws {
        let folder = TempFolder()
        folder.write("{}")
        folder.write("{}", to: "BananaList.sync-conflict-20261121-101530-ABCDEF7.json")
        folder.write("{}", to: ".syncthing.BananaList.json.tmp")
        folder.write("{}", to: "BananaList.json.tmp.1.ab")
        try FileManager.default.createDirectory(atPath: folder.path + "/BananaList (Ann's conflicted copy 2026-11-21).json", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(
            atPath: folder.path + "/BananaList (conflicted copy 2026-11-21 101530).json", withDestinationPath: folder.listPath)
        #expect(ConflictCopy.find(beside: folder.listPath).map(\.name) == ["BananaList.sync-conflict-20261121-101530-ABCDEF7.json"])
    }

    @Test("retire keeps the merged bytes in the state folder, then removes the copy; a changed copy stays")
    func retire() throws {
        let folder = TempFolder()
        let name = "BananaList.sync-conflict-20261121-101530-ABCDEF7.json"
        folder.write(#"{"items":[]}"#, to: name)
        let state = StateFolder(listPath: folder.listPath, stateDirectory: folder.path + "/state")
        let copy = try #require(ConflictCopy.find(beside: folder.listPath).first)
        #expect(!copy.retire(merged: Array(#"{"items":[1]}"#.utf8), archive: state, now: SystemTime().nowMillis()), "bytes changed since they were merged")
        #expect(folder.bytes(name) != nil)
        #expect(copy.retire(merged: Array(#"{"items":[]}"#.utf8), archive: state, now: 1_000))
        #expect(folder.bytes(name) == nil)
        let archived = try FileManager.default.contentsOfDirectory(atPath: state.mergedCopiesPath)
        #expect(archived == ["1000-" + name])
        #expect(copy.retire(merged: [], archive: state, now: SystemTime().nowMillis()), "a copy already gone is fine")
    }

    @Test("the archive drops copies past their lifetime, and the oldest beyond the limit")
    func archiveRetention() throws {
        let folder = TempFolder()
        let archive = folder.path + "/archive"
        try FileManager.default.createDirectory(atPath: archive, withIntermediateDirectories: true)
        let now: Int64 = 100 * 86_400_000
        let old = now - ConflictCopy.archiveLifetimeMillis - 1
        createTestFile(atPath: archive + "/\(old)-BananaList 2.json", contents: Data())
        for n in 0..<(ConflictCopy.archiveLimit + 1) {
            createTestFile(atPath: archive + "/\(now - 1000 + Int64(n))-BananaList 2.json", contents: Data())
        }
        ConflictCopy.pruneArchive(archive, now: now)
        let left = try FileManager.default.contentsOfDirectory(atPath: archive)
        #expect(left.count == ConflictCopy.archiveLimit)
        #expect(!left.contains("\(old)-BananaList 2.json"))
        #expect(!left.contains("\(now - 1000)-BananaList 2.json"), "the oldest beyond the limit goes")
    }
}
