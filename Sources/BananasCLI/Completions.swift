import ArgumentParser
import BananasCore
import BananasFile
import BananasThemes

/// Shell completion of what the list holds, through swift-argument-parser's custom
/// completions (bash, zsh and fish alike): item names for the commands that take items,
/// section names for `--section`, theme names for `--theme`. Each reads the list the
/// command line names (`--file`, else `$BANANAS_FILE`, else the default) once, without the
/// lock, and is silent on any failure: a completion never errs.
enum Completions {
    /// The list file named on the command line being completed.
    static func listFile(_ words: [String]) -> ListFile {
        var file: String?
        for (position, word) in words.enumerated() {
            if word == "--file", position + 1 < words.count { file = words[position + 1] }
            if word.hasPrefix("--file=") { file = String(word.dropFirst("--file=".count)) }
        }
        return Locations.listFile(explicit: file)
    }

    static func list(_ words: [String]) -> ShoppingList? {
        try? openList(listFile(words), lockTimeoutMillis: 0).list
    }

    /// Names that start with `prefix` (any case), each once, in list order.
    static func matching(_ names: [String], _ prefix: String) -> [String] {
        let typed = prefix.lowercased()
        var seen = Set<String>()
        return names.filter { name in
            let folded = name.lowercased()
            return folded.hasPrefix(typed) && seen.insert(folded).inserted
        }
    }
}

/// Item names on the list (for check, uncheck, remove, edit).
@Sendable func itemNames(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
    guard let list = Completions.list(words) else { return [] }
    return Completions.matching(list.items.map(\.name), prefix)
}

/// Section names of the list (for --section).
@Sendable func sectionNames(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
    guard let list = Completions.list(words) else { return [] }
    return Completions.matching(list.displaySections, prefix)
}

/// Theme names, shipped and the user's (for --theme).
@Sendable func themeNames(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
    Completions.matching(ThemeCatalog().names().map(\.name), prefix)
}
