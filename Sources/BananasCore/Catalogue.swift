/// The built-in catalogue: common grocery and household names and the section of a shop each
/// is usually found in (Catalogue/catalogue.txt, compiled in as `CatalogueText`). It places a
/// name the list has never seen (`ShoppingList.placement`); what the list remembers wins.
public struct Catalogue: Sendable {
    /// A section of the catalogue, and the other names a list may give it ("Fruit & Veg").
    public struct Section: Hashable, Sendable {
        public let name: String
        public let aliases: [String]
    }

    /// One item: its names (the first is its name; then plurals and other spellings).
    public struct Entry: Hashable, Sendable {
        public let names: [String]
        public let section: String
    }

    /// What a name was found as: the catalogue's name it matched, and its section.
    public struct Match: Hashable, Sendable {
        public let name: String
        public let section: String
    }

    public let sections: [Section]
    public let entries: [Entry]
    /// Lines of the text that are neither a section, an entry, a comment nor blank.
    public let problems: [String]
    /// Folded name to (entry, the name as written).
    private let index: [String: (entry: Int, name: String)]
    /// Every name's letters, by length: a typo is looked for among names of about its length.
    private let byLength: [Int: [(letters: Suggestions.Letters, entry: Int, name: String)]]

    /// The catalogue bananas ships.
    public static let builtIn = Catalogue(text: CatalogueText.text)

    /// Reads the catalogue's text: `[Section | other name | …]` starts a section; every other
    /// line that is not blank or a `#` comment is one entry, its names separated by commas.
    public init(text: String) {
        var sections: [Section] = []
        var entries: [Entry] = []
        var problems: [String] = []
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw).trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                let names = line.dropFirst().prefix { $0 != "]" }.split(separator: "|").map { String($0).trimmingWhitespace() }
                guard line.hasSuffix("]"), let name = names.first, !name.isEmpty else { problems.append(line); continue }
                sections.append(Section(name: name, aliases: Array(names.dropFirst())))
                continue
            }
            let names = line.split(separator: ",").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
            guard let section = sections.last, !names.isEmpty else { problems.append(line); continue }
            entries.append(Entry(names: names, section: section.name))
        }
        var index: [String: (entry: Int, name: String)] = [:]
        var byLength: [Int: [(letters: Suggestions.Letters, entry: Int, name: String)]] = [:]
        for (number, entry) in entries.enumerated() {
            for name in entry.names {
                let folded = ItemMemory.fold(name)
                guard index[folded] == nil else { continue }  // the first entry of a name wins
                index[folded] = (number, name)
                let letters = Suggestions.letters(folded)
                byLength[letters.count, default: []].append((letters, number, name))
            }
        }
        self.sections = sections
        self.entries = entries
        self.problems = problems
        self.index = index
        self.byLength = byLength
    }

    /// Every name the catalogue knows.
    public var nameCount: Int { index.count }

    /// The entry for `name`: the name itself (any case); else its last words ("sharp
    /// cheddar" is cheddar); else a name it is a typo of, by the add prompt's rule for typos
    /// (`Suggestions.typosAllowed`: "tortila" is tortilla, "chedar" cheddar). Nil: unknown.
    public func lookUp(_ name: String) -> Match? {
        let folded = ItemMemory.fold(name)
        guard !folded.isEmpty else { return nil }
        if let found = index[folded] { return match(found) }
        let words = folded.split(separator: " ")
        if words.count > 1 {
            for start in 1..<words.count {
                if let found = index[words[start...].joined(separator: " ")] { return match(found) }
            }
        }
        let typed = Suggestions.letters(folded)
        let allowed = Suggestions.typosAllowed(typed.count)
        guard allowed > 0 else { return nil }
        var best: (distance: Int, entry: Int, name: String)?
        var rows = Suggestions.DistanceRows(width: typed.count + allowed)
        for length in max(1, typed.count - allowed)...(typed.count + allowed) {
            for candidate in byLength[length] ?? [] {
                let distance = Suggestions.prefixDistance(typed, candidate.letters, limit: allowed, rows: &rows)
                // A typo of the whole name, not the start of a longer one.
                guard distance <= allowed, candidate.letters.count - typed.count <= distance else { continue }
                if best.map({ (distance, candidate.entry) < ($0.distance, $0.entry) }) ?? true {
                    best = (distance, candidate.entry, candidate.name)
                }
            }
        }
        return best.map { match(($0.entry, $0.name)) }
    }

    private func match(_ found: (entry: Int, name: String)) -> Match {
        Match(name: found.name, section: entries[found.entry].section)
    }

    /// The section of `list` that means the catalogue's `section`: one of that name in any
    /// case, or of one of its other names, or a typo of either; nil when the list has none.
    public func section(_ section: String, in list: ShoppingList) -> String? {
        if let own = list.section(named: section) { return own }
        let names = [section] + (sections.first { $0.name == section }?.aliases ?? [])
        let folded = names.map { Suggestions.letters(ItemMemory.fold($0)) }
        for candidate in list.sections {
            let letters = Suggestions.letters(ItemMemory.fold(candidate))
            if folded.contains(letters) { return candidate }
        }
        var rows = Suggestions.DistanceRows(width: 8)
        for candidate in list.sections {
            let letters = Suggestions.letters(ItemMemory.fold(candidate))
            let allowed = Suggestions.typosAllowed(letters.count)
            guard allowed > 0 else { continue }
            for name in folded where abs(name.count - letters.count) <= allowed {
                if Suggestions.prefixDistance(letters, name, limit: allowed, rows: &rows) <= allowed { return candidate }
            }
        }
        return nil
    }
}
