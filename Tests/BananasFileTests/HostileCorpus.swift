import Foundation

/// The committed hostile files (Tests/Fixtures/hostile, described in its README.md).
enum HostileCorpus {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/hostile")

    /// Files that decode (with problems reported, or from a newer schema).
    static let readable: Set<String> = ["duplicate-id.json", "wrong-typed-rows.json", "number-overflow.json", "newer-schema.json"]

    static let committed: [(name: String, bytes: [UInt8])] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0 != "README.md" }.sorted().map { name in
            (name, [UInt8](FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) ?? Data()))
        }
    }()
}
