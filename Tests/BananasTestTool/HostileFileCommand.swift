import ArgumentParser
import BananasCore
#if canImport(Glibc)
import Glibc
#endif

/// `bananas-test hostile-file PART N PATH`: a list file holding `N` entries of one part of the
/// file, as a damaged file, a buggy writer or a hostile peer could make it (issue 55). The
/// benchmark's "hostile sizes" part and `HostileSizesTests` read them.
struct HostileFileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hostile-file", abstract: "Write a list file with N entries of one part.")

    @Argument(help: "One of: \(HostileFile.Part.allCases.map(\.rawValue).joined(separator: ", ")).")
    var part: HostileFile.Part
    @Argument var count: Int
    @Argument var path: String

    func run() throws {
        let bytes = Array(HostileFile.text(part, count: count).utf8)
        guard let file = fopen(path, "wb") else { throw ValidationError("cannot write \(path)") }
        defer { fclose(file) }
        guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw ValidationError("cannot write \(path)") }
    }
}

extension HostileFile.Part: ExpressibleByArgument {}

/// The text of a hostile file, every part in the shape the reader reads fastest where bananas
/// writes one (version 4), so what is measured is the reading, not a detour.
enum HostileFile {
    enum Part: String, CaseIterable {
        /// The top-level `sections` array of a Get Bananas file (no stamps: a save to judge).
        case sections
        /// `sync.sections`, and the `sections` array derived from them, as bananas writes them.
        case sectionEntries = "section-entries"
        /// Items, each in a section of its own that the list does not list.
        case unlistedSections = "unlisted-sections"
        /// Items, all in one section.
        case items
        /// `sync.deleted`: one delete per entry.
        case deletes
        /// `sync.deletedRows`, each hidden by one delete of them all.
        case deletedRows = "deleted-rows"
        /// `sync.deletedItems`, each hidden by one delete of them all.
        case deletedItems = "deleted-items"
        /// `sync.memory.remembered`.
        case memory
        /// `sync.conflicts`: values lost on one field of one item.
        case conflicts
    }

    static let replica = "a1624511774f"
    static let written = "00mwziai0g0000" + replica

    /// A distinct compact stamp per entry: its counter in four base-36 digits, then its
    /// milliseconds past those (36^4 entries share a millisecond).
    static func stamp(_ n: Int) -> String {
        let millis = 1_795_815_684_090 + Int64(n / 1_679_616)
        return digits(Int(millis), width: 10) + digits(n % 1_679_616, width: 4) + replica
    }

    static func digits(_ value: Int, width: Int) -> String {
        let text = String(value, radix: 36)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    static func id(_ n: Int) -> String {
        let hex = String(n, radix: 16, uppercase: true)
        return "B0000000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    }

    static func row(_ n: Int, section: String, id rowID: String? = nil) -> String {
        #"{"id": "\#(rowID ?? id(n))", "name": "Item \#(n)", "amount": "", "section": "\#(section)", "checked": false, "optional": false, "sortOrder": \#(1024 * (n + 1)), "v": "\#(stamp(n))|0,0,0,0,0,0"}"#
    }

    /// One delete hiding the rows `0..<count` (their keys in ascending order, as written).
    static func deleteOfAll(_ count: Int) -> String {
        let keys = (0..<count).map { Tombstone.key(for: id($0)) }.sorted().map { digits36(UInt64($0)) }
        return #"{"at": "\#(stamp(count))", "seen": "\#(stamp(count - 1))", "rows": "\#(keys.joined(separator: " "))", "firstSeen": 1795815684090}"#
    }

    static func digits36(_ key: UInt64) -> String {
        let text = String(key, radix: 36)
        return String(repeating: "0", count: max(0, 13 - text.count)) + text
    }

    static func document(sections: [String], items: [String], sync: [String]) -> String {
        var text = "{\n  \"schemaVersion\": 4,\n  \"sections\": [" + sections.map { "\"\($0)\"" }.joined(separator: ", ") + "],\n"
        text += "  \"items\": [\n    " + items.joined(separator: ",\n    ") + "\n  ],\n"
        text += "  \"sync\": {\n    \"written\": \"\(written)\"" + sync.map { ",\n    " + $0 }.joined() + "\n  }\n}\n"
        return text
    }

    static func text(_ part: Part, count: Int) -> String {
        let names = (0..<count).map { "Section \($0)" }
        switch part {
        case .sections:
            return "{\"sections\": [" + names.map { "\"\($0)\"" }.joined(separator: ", ") + "], \"items\": []}\n"
        case .sectionEntries:
            let entries = names.enumerated().map { n, name in #"{"name": "\#(name)", "v": "\#(stamp(n))|0,0,0", "position": \#(1024 * (n + 1))}"# }
            return document(sections: names, items: [], sync: ["\"sections\": [\n      " + entries.joined(separator: ",\n      ") + "\n    ]"])
        case .unlistedSections:
            return document(sections: [], items: (0..<count).map { row($0, section: "Unlisted \($0)") }, sync: [])
        case .items:
            return document(sections: ["Dairy"], items: (0..<count).map { row($0, section: "Dairy") }, sync: [])
        case .deletes:
            let groups = (0..<count).map { n in
                #"{"at": "\#(stamp(count + n))", "seen": "\#(stamp(n))", "rows": "\#(digits36(UInt64(n) &* 0x9E37_79B9_7F4A_7C15))", "firstSeen": 1795815684090}"#
            }
            return document(sections: [], items: [], sync: ["\"deleted\": [\n      " + groups.joined(separator: ",\n      ") + "\n    ]"])
        case .deletedRows:
            let rows = (0..<count).map { #"["\#(id($0))", "Item \#($0)", "", "Dairy", false, false, \#(1024 * ($0 + 1)), "\#(stamp($0))|0,0,0,0,0,0"]"# }
            return document(sections: ["Dairy"], items: [], sync: [
                "\"deleted\": [\n      " + deleteOfAll(count) + "\n    ]",
                "\"deletedRows\": [\n      " + rows.joined(separator: ",\n      ") + "\n    ]",
            ])
        case .deletedItems:
            let items = (0..<count).map { #"["\#(id($0))", "Item \#($0)", "", "Dairy", 1]"# }
            return document(sections: ["Dairy"], items: [], sync: [
                "\"deleted\": [\n      " + deleteOfAll(count) + "\n    ]",
                "\"deletedItems\": [\n      " + items.joined(separator: ",\n      ") + "\n    ]",
            ])
        case .memory:
            let remembered = (0..<count).map { #"["Name \#($0)", "Dairy", "k3m k3f"]"# }
            return document(sections: ["Dairy"], items: [], sync: ["\"memory\": {\"remembered\": [\n      " + remembered.joined(separator: ",\n      ") + "\n    ]}"])
        case .conflicts:
            // One a line, as a runaway writer leaves them: 1,000,000 fit the list's 128 MiB.
            let records = (0..<count).map { #"{"item": "\#(id(0))", "field": "amount", "lost": "\#($0)", "lostStamp": "\#(stamp($0))"}"# }
            return document(sections: ["Dairy"], items: [row(count, section: "Dairy", id: id(0))], sync: [
                "\"conflicts\": [\n" + records.joined(separator: ",\n") + "\n    ]",
            ])
        }
    }
}
