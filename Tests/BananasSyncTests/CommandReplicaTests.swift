import Foundation
import Testing
@testable import BananasCore
@testable import BananasFile
@testable import BananasSync
import BananasTestSupport

/// Every command on a device stamps with the device's one replica (docs/sync.md, rule 3), so
/// what a clear saw is one stamp, not one per command that added an item.
@Suite struct CommandReplicaTests {
    static func add(_ name: String, to file: ListFile) throws {
        let session = try CommandSession(file: file)
        _ = try session.commit(lockTimeoutMillis: 2_000) { list in
            (.insert(Item(id: ItemID.random(), name: name, section: "Other", sortOrder: list.nextSortOrder)), ())
        }
    }

    static func replicas(_ box: Sandbox) throws -> Set<String> {
        Set(try box.decoded().items.map { $0.stamps[.name].replica })
    }

    @Test func commandsOnOneDeviceShareOneReplica() throws {
        let box = Sandbox()
        for name in ["Milk", "Eggs", "Bread"] { try Self.add(name, to: box.file()) }
        let replicas = try Self.replicas(box)
        #expect(replicas.count == 1)
        let folder = StateFolder(listPath: box.file().path, stateDirectory: box.stateDirectory)
        let kept = try #require(FileManager.default.contents(atPath: folder.path + "/replica"))
        #expect(String(decoding: kept, as: UTF8.self).hasPrefix(replicas.first! + " "))
    }

    @Test("a state folder copied from another machine makes a replica of its own")
    func aCopiedStateFolderMakesItsOwnReplica() throws {
        let box = Sandbox()
        try Self.add("Milk", to: box.file())
        let folder = StateFolder(listPath: box.file().path, stateDirectory: box.stateDirectory)
        let first = try #require(try Self.replicas(box).first)
        #expect(FileManager.default.createFile(atPath: folder.path + "/replica", contents: Data("\(first) another-machine\n".utf8)))
        try Self.add("Eggs", to: box.file())
        let replicas = try Self.replicas(box)
        #expect(replicas.count == 2 && replicas.contains(first))
    }
}
