import BananasCore
import BananasFile
import Foundation

/// For tests only: a temp folder holding a list file and a private state folder, so nothing
/// touches the user's XDG_STATE_HOME. Removed when released.
public final class Sandbox: @unchecked Sendable {
    public let path: String

    public init() {
        path = NSTemporaryDirectory() + "bananas-test-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path + "/list", withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public var listPath: String { path + "/list/BananaList.json" }
    public var stateDirectory: String { path + "/state" }
    /// The spare state folder (`Locations.spareStateDirectory`) of a file made with `spare`.
    public var spareDirectory: String { path + "/run/bananas" }
    /// The list, with its state folder; with `spare`, a spare for it too (a user's run has one).
    public func file(time: any TimeSource = SystemTime(), spare: Bool = false) -> ListFile {
        ListFile(path: listPath, stateDirectory: stateDirectory, spareDirectory: spare ? spareDirectory : nil, time: time)
    }

    public func write(_ text: String) {
        createTestFile(atPath: listPath, contents: Data(text.utf8))
    }

    public var bytes: [UInt8]? { FileManager.default.contents(atPath: listPath).map { [UInt8]($0) } }
    public var text: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    /// The list as the file holds it now.
    public func decoded() throws -> ShoppingList { try ListCodec.decode(bytes ?? []).list }

    /// The running instances' journal files.
    public var journals: [String] {
        let folder = StateFolder(listPath: file().path, stateDirectory: stateDirectory).journalsPath
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).map { folder + "/" + $0 }
    }

    /// Every file under the sandbox with its size and modification time.
    public func snapshot() -> [String: String] {
        var result: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: path)
        while let entry = enumerator?.nextObject() as? String {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + entry)
            result[entry] = "\(attributes?[.size] ?? 0) \(attributes?[.modificationDate] ?? "")"
        }
        return result
    }
}

/// Waits (letting the main actor run) until `condition` holds; false after `timeout` seconds.
@MainActor
public func eventually(timeout: Double = 5, _ condition: @MainActor () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return true
}

/// Writes a file a test sets up. A setup that cannot write its file stops the run there, with
/// the path, instead of letting the test go on against a file that is not there.
public func createTestFile(atPath path: String, contents: Data?) {
    guard FileManager.default.createFile(atPath: path, contents: contents) else {
        preconditionFailure("could not write the test's file \(path) (errno \(errno))")
    }
}
