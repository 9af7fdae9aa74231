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

    /// The glossary's third column names where each word lives: each name is declared in Sources.
    @Test("every type or member the glossary names is declared in Sources")
    func glossaryNamesExist() throws {
        let text = try Self.doc("architecture.md")
        let glossary = try #require(text.firstRange(of: "## Glossary").map { text[$0.upperBound...] })
        let table = glossary[..<(glossary.firstRange(of: "\n## ")?.lowerBound ?? glossary.endIndex)]
        var sources = ""
        let folder = Self.root.appendingPathComponent("Sources").path
        for path in FileManager.default.enumerator(atPath: folder)!.compactMap({ $0 as? String }) where path.hasSuffix(".swift") {
            sources += try String(contentsOfFile: folder + "/" + path, encoding: .utf8)
        }
        var checked = 0
        for line in table.split(separator: "\n") where line.hasPrefix("| **") {
            let columns = line.split(separator: "|", omittingEmptySubsequences: false)
            guard columns.count >= 4 else { continue }
            for match in columns[3].matches(of: /`([A-Za-z]+)(?:\.([A-Za-z]+))?`/) {
                let name = String(match.output.2 ?? match.output.1)
                let declared = sources.contains(try Regex("(struct|class|enum|protocol|func|var|let|case|typealias) \(name)\\b"))
                #expect(declared, "glossary: \(match.output.0) is declared nowhere in Sources")
                checked += 1
            }
        }
        #expect(checked >= 15)
    }

    /// docs/architecture.md's row for `ListEdit` names every case of the enum, and no other.
    @Test("the edits docs/architecture.md lists are ListEdit's cases")
    func editsListed() throws {
        let source = try String(contentsOf: Self.root.appendingPathComponent("Sources/BananasCore/Edit.swift"), encoding: .utf8)
        let body = try #require(source.firstRange(of: "public indirect enum ListEdit").map { source[$0.upperBound...] })
        let enumBody = body[..<(body.firstRange(of: "\n}")?.lowerBound ?? body.endIndex)]
        let cases = Set(enumBody.matches(of: /\n    case ([a-zA-Z]+)/).map { String($0.output.1) })
        let text = try Self.doc("architecture.md")
        let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| `ListEdit` |") })
        let columns = row.split(separator: "|")
        // The cases come first in the row, before what `ShoppingList.apply` does with them.
        let named = columns[2].split(separator: "`ShoppingList.apply`").first ?? columns[2]
        let listed = Set(named.matches(of: /`([a-zA-Z]+)`/).map { String($0.output.1) })
        #expect(cases.count >= 11)
        #expect(listed == cases)
    }
}
