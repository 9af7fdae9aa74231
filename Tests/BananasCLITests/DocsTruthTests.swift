import Foundation
import Testing
@testable import BananasCLI
import BananasFile

/// Figures docs/ gives for the code, checked against the code (issue 39, item 9: the lock
/// timeout was 5 s in one place and 7 s in another).
@Suite("What docs/ says the code does")
struct DocsTruthTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func doc(_ name: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent("docs/" + name), encoding: .utf8)
    }

    /// Every `N s` or `MS` figure named beside `--lock-timeout` in docs/.
    @Test("the lock timeout: every figure docs/ gives beside --lock-timeout is the default the commands use")
    func lockTimeout() throws {
        let millis = FileOptions.defaultLockTimeout
        var found = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.root.path + "/docs") where name.hasSuffix(".md") {
            let text = try Self.doc(name)
            for match in text.matches(of: /--lock-timeout`?( MS`)? \((default )?(\d+)( s|)\)/) {
                found += 1
                let value = Int64(match.output.3)!
                #expect(match.output.4 == " s" ? value * 1000 == millis : value == millis, "\(name): \(match.output.0)")
            }
        }
        #expect(found >= 2, "docs/cli.md names the default twice")
    }

    @Test("the stale window of the lock: every `older than N s` in docs/ is FileLock's")
    func staleWindow() throws {
        let seconds = FileLock.staleAfterMillis / 1000
        var found = 0
        for name in ["cli.md", "reliability.md", "architecture.md", "decisions.md"] {
            for match in try Self.doc(name).matches(of: /lock (whose mtime is |)older than (\d+) s/) {
                found += 1
                #expect(Int64(match.output.2) == seconds, "\(name): \(match.output.0)")
            }
        }
        #expect(found >= 2)
    }

    @Test("the schema version docs/ says bananas writes is the codec's")
    func schemaWritten() throws {
        let version = ListCodec.currentSchemaVersion
        for name in ["cli.md", "file-format.md", "architecture.md"] {
            for match in try Self.doc(name).matches(of: /(writes|encodes) (schema )?version (\d+)/) {
                #expect(Int(match.output.3) == version, "\(name): \(match.output.0)")
            }
        }
    }
}
