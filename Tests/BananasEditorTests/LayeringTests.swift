import Foundation
import Testing

/// The pure editor (state, keys, screen, grid) knows no store, file or terminal: everything it
/// shows comes in as values, so it is tested without a disk (docs/architecture.md, "Who may
/// import whom"). SwiftPM would let a stray import of a sibling module build.
@Suite("Layering")
struct LayeringTests {
    @Test("BananasEditor imports BananasCore only")
    func editorImportsCoreOnly() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/BananasEditor").standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        var imports: Set<String> = []
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let k = words.firstIndex(of: "import"), k + 1 < words.count,
                      words[..<k].allSatisfy({ $0.hasPrefix("@") || ["public", "internal", "private"].contains($0) })
                else { continue }
                imports.insert(String(words[k + 1]))
            }
        }
        #expect(imports == ["BananasCore"])
    }
}
