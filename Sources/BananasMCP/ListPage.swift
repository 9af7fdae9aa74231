import BananasCore
import BananasFile
import BananasSync
import Foundation
import MCP

/// The list as the store holds it, in list order, with its revision: computed once per change
/// of the store (`ListStore.revision`), not at every read: on a large list the order and the
/// hash cost more than a page itself (docs/mcp.md).
@MainActor
final class ListSnapshot {
    let items: [Item]
    let sections: [String]
    let revision: String
    let list: ShoppingList
    private weak var store: ListStore?
    private let storeRevision: Int

    private init(store: ListStore) {
        self.store = store
        storeRevision = store.revision
        list = store.list
        items = list.items
        sections = list.displaySections(of: items)
        revision = Revision.of(list, items: items)
    }

    private static var last: ListSnapshot?

    /// The snapshot of `store` as it is now.
    static func of(_ store: ListStore) -> ListSnapshot {
        if let last, last.store === store, last.storeRevision == store.revision { return last }
        let next = ListSnapshot(store: store)
        last = next
        History.record(next)
        return next
    }

    /// Lists recently shown to agents, by revision: what changed since a stale
    /// `expected_revision` is told from them. A few dozen values share their storage with
    /// the store's list (copy on write), so they cost little.
    @MainActor
    enum History {
        static let capacity = 32
        private static var lists: [(revision: String, list: ShoppingList)] = []

        static func record(_ snapshot: ListSnapshot) {
            if lists.last?.revision == snapshot.revision { return }
            lists.removeAll { $0.revision == snapshot.revision }
            lists.append((snapshot.revision, snapshot.list))
            if lists.count > capacity { lists.removeFirst(lists.count - capacity) }
        }

        static func list(at revision: String) -> ShoppingList? {
            lists.last { $0.revision == revision }?.list
        }
    }
}

/// One page of the list, for `get_shopping_list` and the `bananas://list` resource.
///
/// A page holds at most `limit` items (default `defaultLimit`) and ends early once its answer
/// reaches `budgetCharacters`, so the default answer stays within about 25,000 tokens at any
/// size of list and any length of names. `next_cursor` continues after the place in the list
/// order (sortOrder, then id) of the page's last item, whether that item is still there or not:
/// an item that stays on the list throughout a read is in exactly one page, whatever else is
/// added or removed meanwhile.
struct ListPage {
    enum Mode: String, CaseIterable { case full, compact, summary }

    /// About 8,000 tokens for names of everyday length: under the 10,000 at which Claude Code
    /// starts warning about a tool's answer.
    static let defaultLimit = 150
    static let maxLimit = 1_000
    /// About 20,000 tokens at 4 characters a token (the text and the structured answer both
    /// count): well under the 25,000-token cap some clients put on a tool result.
    static let budgetCharacters = 80_000

    var mode = Mode.full
    var section: String?
    var uncheckedOnly = false
    var text: String?
    var limit = defaultLimit
    var cursor: String?

    struct Failure: Error {
        let message: String
        var suggestions: [String] = []
    }

    /// The query from tool arguments (already checked against the schema).
    init(arguments: [String: Value]) throws(Failure) {
        if let raw = arguments["mode"]?.stringValue {
            guard let mode = Mode(rawValue: raw) else { throw Failure(message: "mode must be full, compact or summary") }
            self.mode = mode
        }
        section = arguments["section"]?.stringValue
        uncheckedOnly = arguments["unchecked_only"]?.boolValue == true
        text = arguments["text"]?.stringValue
        if let limit = arguments["limit"]?.intValue { self.limit = limit }
        cursor = arguments["cursor"]?.stringValue
    }

    /// The query from a resource URI: `bananas://list` or `bananas://list?cursor=…&mode=…`.
    init(uri: String) throws(Failure) {
        guard uri == BananasMCPServer.listURI || uri.hasPrefix(BananasMCPServer.listURI + "?"),
              let parts = URLComponents(string: uri) else {
            throw Failure(message: "unknown resource \(TextRules.escaped(uri)); the list is \(BananasMCPServer.listURI) (with ?cursor=, ?mode=, ?limit=, ?section=, ?unchecked_only=true)")
        }
        var arguments: [String: Value] = [:]
        for item in parts.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "mode", "section", "text", "cursor": arguments[item.name] = .string(value)
            case "unchecked_only": arguments[item.name] = .bool(value == "true" || value == "1")
            case "limit":
                guard let number = Int(value), (1...Self.maxLimit).contains(number) else {
                    throw Failure(message: "limit must be a whole number from 1 to \(Self.maxLimit)")
                }
                arguments["limit"] = .int(number)
            default: throw Failure(message: "unknown query parameter \(TextRules.escaped(item.name)) (known: cursor, mode, limit, section, text, unchecked_only)")
            }
        }
        try self.init(arguments: arguments)
    }

    /// What the query's cursor must belong to: the same filters and mode.
    var queryKey: String {
        let text = [mode.rawValue, section?.lowercased() ?? "", uncheckedOnly ? "1" : "0", text?.lowercased() ?? ""].joined(separator: "\u{1F}")
        return String(Hash.fnv1a(Array(text.utf8)) & 0xFFFF_FFFF, radix: 16)
    }

    struct Answer {
        var structured: [String: Value]
        var text: String
    }

    @MainActor
    func answer(_ snapshot: ListSnapshot) throws(Failure) -> Answer {
        let (matching, shownSection) = try matchingItems(snapshot)
        let structured: [String: Value] = [
            "revision": .string(snapshot.revision),
            "section_count": .int(snapshot.sections.count),
            "mode": .string(mode.rawValue),
            "total_items": .int(snapshot.items.count),
            "unchecked_items": .int(snapshot.items.reduce(0) { $0 + ($1.checked ? 0 : 1) }),
            "matching_items": .int(matching.count),
        ]
        if mode == .summary { return try summary(snapshot, matching, shownSection: shownSection, structured) }
        return try itemsPage(snapshot, matching, structured)
    }

    /// The items the query's section, `unchecked_only` and text select, and the section as
    /// the list spells it.
    @MainActor
    private func matchingItems(_ snapshot: ListSnapshot) throws(Failure) -> ([Item], shownSection: String?) {
        var matching = snapshot.items
        var shownSection: String?
        if let section {
            guard let spelled = snapshot.list.section(named: section) ?? snapshot.sections.first(where: { $0.isSameName(as: section) }) else {
                let close = Self.closeSections(section, in: snapshot.sections)
                let offered = Array((close.isEmpty ? snapshot.sections : close).prefix(AnswerBudget.shown))
                let total = close.isEmpty ? snapshot.sections.count : close.count
                let more = total > offered.count ? " (and \(total - offered.count) more: get_shopping_list with mode \"summary\" lists every section)" : ""
                throw Failure(
                    message: "No section is named \"\(TextRules.escaped(section))\". "
                        + (close.isEmpty ? "The sections are: " + Self.quoted(offered) + more : "Did you mean: " + Self.quoted(offered) + more + "?"),
                    suggestions: offered)
            }
            shownSection = spelled
            matching = matching.filter { $0.section == spelled }
        }
        if uncheckedOnly { matching = matching.filter { !$0.checked } }
        if let text = text?.lowercased(), !text.isEmpty {
            matching = matching.filter { $0.name.lowercased().contains(text) || $0.amount.lowercased().contains(text) }
        }
        return (matching, shownSection)
    }

    /// Mode "summary": the counts per section, paged like items (a list may hold thousands of
    /// sections): `limit` sections a page, ending early at the size budget.
    @MainActor
    private func summary(_ snapshot: ListSnapshot, _ matching: [Item], shownSection: String?,
                         _ structured: [String: Value]) throws(Failure) -> Answer {
        var structured = structured
        structured["items"] = .array([])
        var counts: [String: (all: Int, unchecked: Int)] = [:]
        for item in matching { counts[item.section, default: (0, 0)].all += 1; if !item.checked { counts[item.section]!.unchecked += 1 } }
        let shown = snapshot.sections.filter { shownSection == nil || $0 == shownSection }
        let start = try sectionStart(in: shown)
        var values: [Value] = []
        var text = "\(snapshot.items.count) items, \(structured["unchecked_items"]!.intValue!) still to buy, \(snapshot.sections.count) sections, revision \(snapshot.revision). By section (items, still to buy):"
        var used = 400 + text.utf8.count
        var index = start
        while index < shown.count, values.count < limit {
            let name = shown[index]
            let line = "\n\(TextRules.escaped(name)): \(counts[name]?.all ?? 0), \(counts[name]?.unchecked ?? 0)"
            // The name is in the text, in section_counts and in sections.
            let size = line.utf8.count + 2 * Self.jsonSize(TextRules.escaped(name)) + 60
            if !values.isEmpty, used + size > Self.budgetCharacters { break }
            used += size
            text += line
            values.append(.object(["section": .string(name), "items": .int(counts[name]?.all ?? 0), "unchecked": .int(counts[name]?.unchecked ?? 0)]))
            index += 1
        }
        structured["section_counts"] = .array(values)
        structured["sections"] = .array(shown[start..<index].map(Value.string))
        structured["has_more"] = .bool(index < shown.count)
        if index < shown.count, index > 0 {
            structured["next_cursor"] = .string(Self.sectionCursor(after: shown[index - 1], place: index, query: queryKey))
            text += "\nMore sections follow. To read them, call again with this cursor:\n\(structured["next_cursor"]!.stringValue!)"
        }
        return Answer(structured: structured, text: text)
    }

    /// A page of the matching items, ending early at the size budget.
    @MainActor
    private func itemsPage(_ snapshot: ListSnapshot, _ matching: [Item], _ structured: [String: Value]) throws(Failure) -> Answer {
        var structured = structured
        let start = try startIndex(in: matching)
        var page: [Value] = []
        var lines: [String] = []
        var used = 400  // the frame: revision, counts, sync
        // The sections of this page's items, in section order: all of them on every page
        // would outgrow the answer on a list of many sections (mode "summary" pages through them).
        var pageSections: Set<String> = []
        var index = start
        while index < matching.count, page.count < limit {
            let item = matching[index]
            var (value, line, size) = entry(item)
            if !pageSections.contains(item.section) { size += Self.jsonSize(TextRules.escaped(item.section)) + 1 }
            if !page.isEmpty, used + size > Self.budgetCharacters { break }
            used += size
            pageSections.insert(item.section)
            page.append(value)
            lines.append(line)
            index += 1
        }
        structured["sections"] = .array(snapshot.sections.filter { pageSections.contains($0) }.map(Value.string))
        structured["items"] = .array(page)
        structured["has_more"] = .bool(index < matching.count)
        if index < matching.count, index > 0 {
            structured["next_cursor"] = .string(Self.cursor(after: matching[index - 1], query: queryKey))
        }
        var text = matching.isEmpty ? "The list has no matching items." : "Items \(start + 1)–\(index) of \(matching.count)"
        if matching.count != snapshot.items.count { text += " matching (\(snapshot.items.count) on the list)" }
        if !matching.isEmpty { text += ", revision \(snapshot.revision):" }
        if !lines.isEmpty { text += "\n" + lines.joined(separator: "\n") }
        // The cursor ends the text: a period after it would be copied as part of it.
        if index < matching.count { text += "\nMore items follow. To read them, call again with this cursor:\n\(structured["next_cursor"]!.stringValue!)" }
        return Answer(structured: structured, text: text)
    }

    /// One item as the page shows it, its line of text, and roughly how many characters both take.
    func entry(_ item: Item) -> (Value, String, Int) {
        let name = TextRules.escaped(item.name), section = TextRules.escaped(item.section)
        switch mode {
        case .full, .summary:
            let amount = TextRules.escaped(item.amount)
            let line = (item.checked ? "[x] " : "[ ] ") + name + (amount.isEmpty ? "" : " · " + amount) + " (" + section + ")"
                + (item.optional ? " optional" : "") + " id " + TextRules.escaped(item.id)
            let value: Value = .object([
                "id": .string(item.id), "name": .string(item.name), "amount": .string(item.amount),
                "section": .string(item.section), "checked": .bool(item.checked), "optional": .bool(item.optional),
            ])
            return (value, line, line.utf8.count + Self.jsonSize(name) + Self.jsonSize(amount) + Self.jsonSize(section) + Self.jsonSize(item.id) + 100)
        case .compact:
            // The amount stays when there is one ("Bananas · 6"): without it an agent asks again.
            let amount = TextRules.escaped(item.amount)
            let line = (item.checked ? "[x] " : "[ ] ") + name + (amount.isEmpty ? "" : " · " + amount) + " (" + section + ")"
            var fields: [String: Value] = ["name": .string(item.name), "section": .string(item.section), "checked": .bool(item.checked)]
            if !item.amount.isEmpty { fields["amount"] = .string(item.amount) }
            return (.object(fields), line, line.utf8.count + Self.jsonSize(name) + Self.jsonSize(amount) + Self.jsonSize(section) + 62)
        }
    }

    /// An upper bound of a string's size in JSON (every byte escaped at worst as `\u00XX`).
    static func jsonSize(_ text: String) -> Int {
        var size = 2
        for byte in text.utf8 { size += byte < 0x20 || byte == 0x22 || byte == 0x5C ? 6 : 1 }
        return size
    }

    // MARK: Cursors

    /// `v2.<query>.<sortOrder's bits>.<id>`, base64url: opaque to the agent. The list order is
    /// (sortOrder, then id), so the item's key alone says where the next page starts, whether
    /// the item is still on the list or not. (A place counted in items shifted whenever an
    /// item before it went: the read skipped items.)
    static func cursor(after item: Item, query: String) -> String {
        base64URL("v2.\(query).\(String(item.sortOrder.bitPattern, radix: 16)).\(item.id)")
    }

    /// `s2.<query>.<place>.<section>`: a summary page's cursor goes on after that section while
    /// it exists, else from its place.
    static func sectionCursor(after section: String, place: Int, query: String) -> String {
        base64URL("s2.\(query).\(place).\(section)")
    }

    static func base64URL(_ raw: String) -> String {
        Data(raw.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The cursor's four parts, checked to be of `kind` and of this query.
    func cursorParts(_ kind: String) throws(Failure) -> [String]? {
        guard let cursor, !cursor.isEmpty else { return nil }
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let parts = Data(base64Encoded: base64).map { String(decoding: $0, as: UTF8.self) }?.split(separator: ".", maxSplits: 3).map(String.init) ?? []
        guard parts.count == 4, parts[0] == kind else {
            throw Failure(message: "The cursor \(TextRules.escaped(String(cursor.prefix(80)))) is not one this server gave. Call get_shopping_list without a cursor to start again.")
        }
        guard parts[1] == queryKey else {
            throw Failure(message: "The cursor belongs to a call with other filters or another mode. Repeat the filters and mode of the call that gave it, or start again without a cursor.")
        }
        return parts
    }

    func sectionStart(in sections: [String]) throws(Failure) -> Int {
        guard let parts = try cursorParts("s2") else { return 0 }
        guard let place = Int(parts[2]), place >= 0 else { throw Failure(message: "The cursor is not one this server gave. Call get_shopping_list without a cursor to start again.") }
        if let found = sections.firstIndex(of: parts[3]) { return found + 1 }
        return min(place, sections.count)
    }

    func startIndex(in items: [Item]) throws(Failure) -> Int {
        guard let parts = try cursorParts("v2") else { return 0 }
        guard let bits = UInt64(parts[2], radix: 16) else {
            throw Failure(message: "The cursor is not one this server gave. Call get_shopping_list without a cursor to start again.")
        }
        let (order, id) = (Double(bitPattern: bits), parts[3])
        // `items` is in list order: the first one past the key, by bisection.
        var (low, high) = (0, items.count)
        while low < high {
            let middle = (low + high) / 2
            let item = items[middle]
            if item.sortOrder > order || (item.sortOrder == order && id.precedesInTextOrder(item.id)) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    // MARK: Sections

    /// Sections close to a name that matches none: containing it, contained in it, or a
    /// few edits away.
    static func closeSections(_ name: String, in sections: [String]) -> [String] {
        let folded = name.lowercased()
        guard !folded.isEmpty else { return [] }
        return sections.filter { section in
            let other = section.lowercased()
            if other.contains(folded) || folded.contains(other) { return true }
            // Two edits from four letters on: "Diary" finds "Dairy".
            let allowed = folded.count >= 4 ? max(2, folded.count / 3) : 1
            return Addressing.editDistance(Array(other), Array(folded), limit: 3) <= allowed
        }
    }

    static func quoted(_ names: [String]) -> String {
        names.map { "\"\(TextRules.escaped($0))\"" }.joined(separator: ", ")
    }
}
