import Foundation
import Testing
@testable import BananasFile
import BananasTestSupport

/// A fresh temporary folder per test, removed afterwards.
final class TempFolder {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "bananas-test-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    var listPath: String { path + "/BananaList.json" }

    func write(_ text: String, to name: String = "BananaList.json") {
        createTestFile(atPath: path + "/" + name, contents: Data(text.utf8))
    }

    func bytes(_ name: String = "BananaList.json") -> [UInt8]? {
        FileManager.default.contents(atPath: path + "/" + name).map { [UInt8]($0) }
    }

    var entries: [String] { (try? FileManager.default.contentsOfDirectory(atPath: path).sorted()) ?? [] }
}

/// The test fixtures folder (copies of ../shared/fixtures; see Tests/Fixtures/README.md).
func fixture(_ name: String) -> [UInt8] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").appendingPathComponent(name)
    return [UInt8](try! Data(contentsOf: url))
}
