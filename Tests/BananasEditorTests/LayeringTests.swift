import Foundation
import Testing

/// docs/architecture.md's "Who may import whom", checked against the `import` lines of every
/// module's sources: each module imports only what its row allows and nothing its row forbids
/// (SwiftPM would let a stray import of a sibling module build). The pure editor (state, keys,
/// screen, grid) knows no store, file or terminal: everything it shows comes in as values.
@Suite("Layering")
struct LayeringTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    /// The modules a folder's Swift sources import (`import X`, `@testable import X`, `public import X`).
    static func imports(of folder: String) throws -> Set<String> {
        let base = root.appendingPathComponent(folder)
        var found: Set<String> = []
        for case let file as String in FileManager.default.enumerator(atPath: base.path) ?? NSEnumerator() where file.hasSuffix(".swift") {
            let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let k = words.firstIndex(of: "import"), k + 1 < words.count,
                      words[..<k].allSatisfy({ $0.hasPrefix("@") || ["public", "internal", "private", "package"].contains($0) })
                else { continue }
                found.insert(String(words[k + 1]))
            }
        }
        return found
    }

    /// The table's rows: module names (a row may name two) with the words of "may import" and
    /// "must not import".
    static func table() throws -> [(modules: [String], may: Set<String>, mustNot: Set<String>)] {
        let doc = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let section = try #require(doc.components(separatedBy: "### Who may import whom").dropFirst().first)
        func words(_ cell: Substring) -> Set<String> {
            Set(cell.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }).map(String.init))
        }
        var rows: [(modules: [String], may: Set<String>, mustNot: Set<String>)] = []
        for line in section.split(separator: "\n") {
            guard line.hasPrefix("| `") else {
                if !rows.isEmpty && !line.hasPrefix("|") { break }
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { continue }
            let modules = cells[1].matches(of: /`([^`]+)`/).map { String($0.output.1) }
            rows.append((modules, words(Substring(cells[2])), words(Substring(cells[3]))))
        }
        return rows
    }

    static let folders = [
        "BananasCore": "Sources/BananasCore", "BananasFile": "Sources/BananasFile", "BananasSync": "Sources/BananasSync",
        "BananasMCP": "Sources/BananasMCP", "BananasEditor": "Sources/BananasEditor", "BananasTerminal": "Sources/BananasTerminal",
        "BananasThemes": "Sources/BananasThemes", "BananasCLI": "Sources/BananasCLI", "bananas": "Sources/bananas",
        "bananas-mcp": "Sources/bananas-mcp", "bananas-test": "Tests/BananasTestTool",
    ]

    @Test("every module imports what docs/architecture.md allows it, and nothing it forbids")
    func importTable() throws {
        let rows = try Self.table()
        var checked: Set<String> = []
        for row in rows {
            for module in row.modules {
                guard let folder = Self.folders[module] ?? (FileManager.default.fileExists(atPath: Self.root.path + "/Sources/" + module) ? "Sources/" + module : nil)
                else { continue }
                let imports = try Self.imports(of: folder)
                checked.insert(module)
                let allowed = row.may
                #expect(imports.subtracting(allowed).isEmpty, "\(module) imports \(imports.subtracting(allowed).sorted()), which its row does not allow")
                #expect(imports.intersection(row.mustNot).isEmpty, "\(module) imports \(imports.intersection(row.mustNot).sorted()), which its row forbids")
            }
        }
        #expect(checked.isSuperset(of: Self.folders.keys), "every module has a row: \(Set(Self.folders.keys).subtracting(checked).sorted()) have none")
    }

    @Test("BananasEditor imports BananasCore only")
    func editorImportsCoreOnly() throws {
        #expect(try Self.imports(of: "Sources/BananasEditor") == ["BananasCore"])
    }
}
