import BananasCore
import BananasFile
@testable import BananasSync
import Foundation
import Testing

/// A temp folder holding a list file and a private state folder.
final class Sandbox: @unchecked Sendable {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "bananas-sync-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path + "/list", withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    var listPath: String { path + "/list/BananaList.json" }
    var stateDirectory: String { path + "/state" }
    func file() -> ListFile { ListFile(path: listPath, stateDirectory: stateDirectory) }

    func write(_ text: String) {
        FileManager.default.createFile(atPath: listPath, contents: Data(text.utf8))
    }

    var bytes: [UInt8]? { FileManager.default.contents(atPath: listPath).map { [UInt8]($0) } }

    func decoded() throws -> ShoppingList { try ListCodec.decode(bytes ?? []).list }

    var journals: [String] {
        let folder = StateFolder(listPath: file().path, stateDirectory: stateDirectory).journalsPath
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).map { folder + "/" + $0 }
    }
}

/// Waits (letting the main actor run) until `condition` holds; false after `timeout` seconds.
@MainActor
func eventually(timeout: Double = 5, _ condition: @MainActor () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return true
}

func item(_ name: String, section: String = "Other", order: Double = 1) -> Item {
    Item(id: ItemID.random(), name: name, section: section, sortOrder: order)
}

extension ShoppingList {
    func named(_ name: String) -> Item? { items.first { $0.name == name } }
}
