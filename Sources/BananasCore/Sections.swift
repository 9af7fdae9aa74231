/// Section operations, each built as one `ListEdit` so it is one undo step.
public enum SectionError: Error, Equatable, CustomStringConvertible {
    case exists(String)
    case noSuchSection(String, suggestions: [String])
    case notEmpty(String, count: Int)

    public var description: String {
        switch self {
        case .exists(let name): "there is already a section named \"\(TextRules.escaped(name))\""
        case .noSuchSection(let name, let suggestions):
            "no section named \"\(TextRules.escaped(name))\"" + (suggestions.isEmpty ? "" : "; did you mean " + suggestions.map { "\"\(TextRules.escaped($0))\"" }.joined(separator: ", ") + "?")
        case .notEmpty(let name, let count):
            "section \"\(TextRules.escaped(name))\" still holds \(count) item\(count == 1 ? "" : "s"); move them with --move-items-to, or remove them with --delete-items"
        }
    }
}

/// A section as a prompt showed it: its identity and the stamp of the name it showed.
public struct SeenSection: Hashable, Sendable {
    public var key: String
    public var name: Stamp

    public init(key: String, name: Stamp) {
        self.key = key
        self.name = name
    }
}

extension ShoppingList {
    /// The section named `name`, matched case-insensitively, as spelled in the list.
    public func section(named name: String) -> String? {
        // As `displaySections` would answer, without putting the whole list in order (an
        // `add --section` asks at every size of list): the list's own sections come first,
        // and only two spellings among the items' own sections need the items' order.
        if sections.contains(name) { return name }
        var lookup = SectionNamed(name)
        rows.forEachRow { lookup.consider($0, in: self) }
        return lookup.answer(in: self)
    }

    func requireSection(_ name: String) throws -> String {
        if let found = section(named: name) { return found }
        let folded = name.lowercased()
        let close = displaySections.filter { $0.lowercased().contains(folded) || folded.contains($0.lowercased()) }
        throw SectionError.noSuchSection(name, suggestions: close)
    }

    /// Adds a section at `index` (the end when nil).
    public func addSectionEdit(_ name: String, at index: Int? = nil) throws -> ListEdit {
        if sections.contains(where: { $0.isSameName(as: name) }) {
            throw SectionError.exists(name)
        }
        var updated = sections
        updated.insert(name, at: min(max(index ?? updated.count, 0), updated.count))
        return .setSections(updated)
    }

    /// Renames a section. Its items follow without being touched: they name the section by
    /// its key (rule 6), so an item deleted meanwhile on another device stays deleted.
    /// `seen`: the section a prompt showed when it opened (`seenSection`). The prompt renames
    /// that section, whatever it is called now, and a name another writer gave it meanwhile
    /// is recorded for review (rule 7); one removed meanwhile is no longer there to rename.
    public func renameSectionEdit(_ old: String, to new: String, seen: SeenSection? = nil) throws -> ListEdit {
        let current: String, key: String
        if let seen, let entry = sectionEntries[seen.key], !entry.removed {
            (current, key) = (entry.name, seen.key)
        } else {
            current = try requireSection(old)
            key = sectionKey(named: current)
        }
        if current != new, let clash = section(named: new), clash.lowercased() != current.lowercased() {
            throw SectionError.exists(clash)
        }
        // A version-1 file merged without a base names sections only: a name it lists that a
        // renamed section shows is a section of its own too, keyed by the name. A person sees
        // one section, and renames it: every section shown by that name follows.
        let twins = sectionEntries.values.filter { $0.key != key && !$0.removed && $0.name == current }.map(\.key).sorted { $0.precedesInTextOrder($1) }
        let rename = ListEdit.updateSection(key: key, changes: [.name: .text(new), .removed: .flag(false)],
                                            seen: seen.map { [.name: $0.name] } ?? [:])
        if twins.isEmpty { return rename }
        return .batch([rename] + twins.map { .updateSection(key: $0, changes: [.name: .text(new)]) })
    }

    /// The section shown as `name` as a prompt opened on it sees it, for `renameSectionEdit`.
    public func seenSection(_ name: String) -> SeenSection? {
        let key = sectionKey(named: name)
        return sectionEntries[key].map { SeenSection(key: key, name: $0.stamps[.name]) }
    }

    /// Moves a section to `index` in the section order.
    public func moveSectionEdit(_ name: String, to index: Int) throws -> ListEdit {
        let current = try requireSection(name)
        var updated = displaySections
        updated.removeAll { $0 == current }
        updated.insert(current, at: min(max(index, 0), updated.count))
        return .setSections(updated)
    }

    /// Removes a section. Its items move to `moveItemsTo`, or are deleted when
    /// `deleteItems` is set; a section that still holds items is otherwise refused.
    public func removeSectionEdit(_ name: String, moveItemsTo target: String? = nil, deleteItems: Bool = false) throws -> ListEdit {
        let current = try requireSection(name)
        let members = items.filter { $0.section == current }
        var steps: [ListEdit] = []
        var updated = displaySections.filter { $0 != current }
        if !members.isEmpty {
            if let target {
                let destination = section(named: target) ?? target
                if !updated.contains(destination) { updated.append(destination) }
                steps += members.map { .update(id: $0.id, changes: [.section: .text(destination)]) }
            } else if deleteItems {
                steps += members.map { .delete(id: $0.id) }
            } else {
                throw SectionError.notEmpty(current, count: members.count)
            }
        }
        return .batch([.setSections(updated)] + steps)
    }

    /// The edit that makes sure `name` is in the section list (appended), or nil when it is.
    public func ensureSectionEdit(_ name: String) -> ListEdit? {
        sections.contains(name) ? nil : .setSections(sections + [name])
    }

    /// The section every surface files an item under when none is given or remembered.
    public static let defaultSection = "Other"
}

/// `section(named:)` for a name that is not one of the list's own sections, one row at a time
/// (the items' own sections), so a caller with other questions about every row (`addEdit`)
/// asks them all in one walk.
struct SectionNamed {
    let name: String
    let folded: String
    /// Spellings of the name among the items' sections, in other cases.
    private var variants: Set<String> = []
    /// Sections already looked at, when names are not keys (each one's name is looked up once).
    private var looked: Set<String> = []
    /// Some item's section is spelled exactly `name`: the answer, whatever else comes.
    private(set) var isExact = false

    private let nameQuery: TextQuery
    private let foldedQuery: TextQuery

    init(_ name: String) {
        self.name = name
        folded = name.lowercased()
        nameQuery = TextQuery(name)
        foldedQuery = TextQuery(folded)
    }

    mutating func consider(_ row: RowView, in list: ShoppingList) {
        guard !isExact, list.tombstones.isEmpty || list.isVisible(row.id) else { return }
        guard list.hasRenamedSections else {
            // Keys are the names shown: compared in place, no set of them (a hash per row).
            if row.section(is: nameQuery) { isExact = true } else if row.section(lowercasedEquals: foldedQuery) { variants.insert(row.section) }
            return
        }
        guard looked.insert(row.section).inserted else { return }
        let shown = list.sectionName(row.section)
        if shown == name { isExact = true } else if shown.lowercasedEquals(folded) { variants.insert(shown) }
    }

    func answer(in list: ShoppingList) -> String? {
        if isExact || list.sections.contains(name) { return name }
        if let own = list.sections.first(where: { $0.lowercasedEquals(folded) }) { return own }
        if variants.count <= 1 { return variants.first }
        return list.displaySections.first { $0.lowercasedEquals(folded) }
    }
}
