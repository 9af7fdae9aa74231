import BananasCore

/// Everything the editor shows besides the list itself: where the cursor is, what is
/// collapsed, filtered or hidden, which prompt or overlay is open. A value: keys change it
/// through `handle(_:list:conflicts:)`, which also says what to do to the list.
public struct EditorState: Equatable, Sendable {
    /// What the cursor is on. Kept by identity, so a change from another writer that moves
    /// rows around leaves the cursor on the same item.
    public enum Selection: Hashable, Sendable {
        case section(String)
        case item(String)
    }

    public enum Mode: Equatable, Sendable {
        case normal
        case prompt(Prompt)
        case confirm(Confirm)
        case help
        case conflicts
        /// The messages shown so far, newest first (a narrow status line cuts them short).
        case messages
        /// The usual items: bought before, not on the list now (`usualIndex`, `usualMarked`).
        case usual
    }

    public struct Prompt: Equatable, Sendable {
        public enum Kind: Equatable, Sendable {
            case addName(section: String)
            /// `section` is where the item goes, for the reason `why` ("as last time", "usual for
            /// tortillas"; nil: it is `adding`, the add prompt's own section, which the next
            /// name is added to).
            case addAmount(section: String, name: String, optional: Bool, why: String?, adding: String)
            /// `original` is the name when the prompt opened: only what the user changed is
            /// sent, so a concurrent edit to the other field (or this one, untouched) stands.
            /// `seen`: the stamps of the name and amount shown when it opened, so a value another
            /// writer put there meanwhile is recorded for review when the save overwrites it.
            case editName(id: String, original: String, seen: [ItemField: Stamp] = [:])
            case editAmount(id: String, originalName: String, name: String, originalAmount: String, seen: [ItemField: Stamp] = [:])
            /// `seen`: the stamp of the item's section when it opened (as `editName`'s).
            case moveTo(id: String, seen: Stamp? = nil)
            case addSection(at: Int)
            /// `seen`: the section as it was when the prompt opened (as `editName`'s).
            case renameSection(String, seen: SeenSection? = nil)
            case filter(previous: String)
        }
        public var kind: Kind
        public var label: String
        public var line: LineEditor
        /// The highlighted suggestion of the add prompt (an index into `suggestions`), if any.
        public var pick: Int? = nil
        /// The text it opened on: anything else was typed, and is not dropped without asking.
        public var initial = ""

        public var holdsTypedText: Bool { !line.text.isEmpty && line.text != initial }
    }

    /// A question, with exactly what a yes acts on (ids taken when it was asked, so a change
    /// made meanwhile by another writer is not swept in).
    public enum Confirm: Equatable, Sendable {
        case clearChecked(ids: [String])
        case removeSection(String, ids: [String])
        /// Ctrl-C in a prompt with typed text: quit and drop it? A no goes back to the prompt.
        case quit(dropping: Prompt)

        var question: String {
            switch self {
            case .quit(let prompt): "Quit and drop \"\(TextWidth.truncate(prompt.line.text.displaySafe, to: 30))\"? (y/n)"
            case .clearChecked(let ids): "Remove \(ids.count) checked item\(ids.count == 1 ? "" : "s")? (y/n)"
            case .removeSection(let name, let ids):
                "Remove section \(name.displaySafe) and its \(ids.count) item\(ids.count == 1 ? "" : "s")? (y/n)"
            }
        }
    }

    public struct Message: Equatable, Sendable {
        public enum Kind: Sendable { case info, error, readOnly }
        public var text: String
        public var kind: Kind
        public init(_ text: String, kind: Kind = .info) {
            self.text = text
            self.kind = kind
        }
    }

    public var selection: Selection?
    /// The row the cursor was on, for when the selected row disappears.
    public var selectionIndex = 0
    public var scrollTop = 0
    /// Rows of list the screen has room for (set by whoever knows the terminal size).
    public var viewportHeight = 20
    /// The terminal's width (set with `viewportHeight`): the message history wraps to it.
    public var screenWidth = 80
    public var collapsed: Set<String> = []
    public var hideChecked = false
    /// The filter in force (typing one shows it live; see `activeFilter`).
    public var filter = ""
    /// Items added here while a filter was on: shown whether they match or not, so what was
    /// just typed stays in view (and the next item goes below it). Cleared with the filter.
    public var shownAnyway: Set<String> = []
    public var mode: Mode = .normal
    public var message: Message?
    public let readOnly: Bool
    /// Why edits are refused now although this is the editor (a file from a newer bananas,
    /// which this one cannot write): said instead of making an edit that would never land.
    public var editsRefused: String?
    public var helpScroll = 0
    /// Messages shown so far, oldest first, at most `historyLimit`.
    public var history: [String] = []
    /// A count being typed before a key (`5j`); 0 when none.
    public var countPrefix = 0

    /// The one-line key bar above the status bar: shown unless `b` turned it off (`auto`:
    /// nobody chose yet). It stays however long the list grows, as htop's and mc's do.
    public enum KeyBar: String, Equatable, Sendable { case auto, on, off }
    public var keyBar: KeyBar = .auto
    /// Space checks the item and moves on to the next one (checking neighbours in a row);
    /// false (config.yaml `space-moves-on: false`) keeps the cursor where it is.
    public var spaceMovesOn = true
    /// Whether the screen last laid out showed the key bar (it takes a row from the list).
    public var keyBarShown = false
    /// Lines an overlay box (help, messages) shows at once: the screen less the title and
    /// status bars and the box's borders.
    public var overlayLines: Int { max(1, viewportHeight + (keyBarShown ? 1 : 0) - 1) }
    /// Whether the key bar shows over `list`.
    public func showsKeyBar(_ list: ShoppingList, memo: RowsMemo? = nil) -> Bool {
        switch keyBar {
        case .on: true
        case .off: false
        case .auto: true
        }
    }
    public static let historyLimit = 100
    /// The terminal is too small to show the list: keys that would act on what cannot be
    /// seen do nothing (see `handle`).
    public var tooSmall = false
    public var conflictIndex = 0
    /// The usual items view: the highlighted name (folded; kept by name, so the view
    /// following the list leaves the highlight on its item), the line it was on, and the
    /// names marked (folded).
    public var usualSelection: String?
    public var usualIndex = 0
    public var usualMarked: Set<String> = []
    public init(readOnly: Bool = false) {
        self.readOnly = readOnly
    }

    /// The filter the rows are built with: the text being typed while the filter prompt is
    /// open, else the one in force.
    public var activeFilter: String {
        if case .prompt(let prompt) = mode, case .filter = prompt.kind { return prompt.line.text }
        return filter
    }

    /// Suggestions shown under the add prompt at most.
    public static let suggestionLimit = 5

    /// The remembered names the add prompt suggests for what is typed (a trailing `?`, which
    /// marks an item optional, aside), best first; none in any other mode.
    public func suggestions(for list: ShoppingList, memo: RowsMemo? = nil) -> [RememberedItem] {
        guard case .prompt(let prompt) = mode, case .addName = prompt.kind else { return [] }
        var typed = prompt.line.text.trimmingWhitespace()
        if typed.hasSuffix("?") { typed.removeLast() }
        guard !typed.isEmpty else { return [] }
        guard let memo else { return Suggestions(list.rememberedItems(now: 0)).matching(typed, limit: Self.suggestionLimit) }
        return memo.matching(typed, limit: Self.suggestionLimit, in: list)
    }

    /// The usual items view's lines: bought before, not on the list now, most useful first.
    public func usualItems(for list: ShoppingList, memo: RowsMemo? = nil) -> [RememberedItem] {
        memo?.usualItems(for: list) ?? list.usualItems(now: 0)
    }

    /// The highlighted line of the usual items view: the selected name's, else the line it
    /// was on (clamped).
    public func usualCursor(in items: [RememberedItem]) -> Int {
        if let usualSelection, let index = items.firstIndex(where: { $0.folded == usualSelection }) { return index }
        return min(max(0, usualIndex), max(0, items.count - 1))
    }
}

/// A row of the list as shown.
public enum Row: Equatable, Sendable {
    case section(name: String, open: Int, total: Int, collapsed: Bool)
    case item(Item)

    public var selection: EditorState.Selection {
        switch self {
        case .section(let name, _, _, _): .section(name)
        case .item(let item): .item(item.id)
        }
    }

    /// The section the row belongs to.
    public var section: String {
        switch self {
        case .section(let name, _, _, _): name
        case .item(let item): item.section
        }
    }
}

extension EditorState {
    /// The rows to show for `list`: each section header (with its counts), then its items
    /// unless collapsed; checked items left out when hidden; only matches (and their
    /// sections) while a filter is on. With a `memo`, built once per list value and view.
    public func rows(for list: ShoppingList, memo: RowsMemo? = nil) -> [Row] {
        built(for: list, memo: memo).rows
    }

    /// How many items the list has, and how many are checked (for the title bar).
    public func counts(for list: ShoppingList, memo: RowsMemo? = nil) -> (checked: Int, total: Int) {
        let built = built(for: list, memo: memo)
        return (built.checked, built.total)
    }

    /// The rows for `list` with the view as it is; with a memo, from it when it holds them
    /// (a key press that only moves the cursor costs no pass over the list) or patched from
    /// the last rows built (an edit from another instance).
    private func built(for list: ShoppingList, memo: RowsMemo?) -> RowsMemo.Built {
        let view = RowsMemo.View(filter: activeFilter, collapsed: collapsed, hideChecked: hideChecked, shownAnyway: shownAnyway)
        if let hit = memo?.lookup(list, view) { return hit }
        let query = activeFilter.trimmingWhitespace().lowercased()
        if let (old, built) = memo?.previous(view),
           let patched = Self.patched(built, from: old, to: list, query: query, collapsed: collapsed, hideChecked: hideChecked) {
            memo?.store(list, view, patched)
            return patched
        }
        var checked = 0, total = 0
        var rows: [Row] = []
        for group in list.grouped() {
            let open = group.items.count { !$0.checked }
            total += group.items.count
            checked += group.items.count - open
            var items = group.items
            if hideChecked { items = items.filter { !$0.checked } }
            if !query.isEmpty {
                // A section whose name matches shows whole; elsewhere only the matches.
                let sectionMatches = group.section.lowercased().contains(query)
                if !sectionMatches { items = items.filter { Self.matches($0, query) || shownAnyway.contains($0.id) } }
                if items.isEmpty && !sectionMatches { continue }
                // A filter looks inside collapsed sections: matches are what the user asked for.
                rows.append(.section(name: group.section, open: open, total: group.items.count, collapsed: false))
                rows += items.map(Row.item)
                continue
            }
            let isCollapsed = collapsed.contains(group.section)
            rows.append(.section(name: group.section, open: open, total: group.items.count, collapsed: isCollapsed))
            if !isCollapsed { rows += items.map(Row.item) }
        }
        let result = RowsMemo.Built(rows: rows, checked: checked, total: total)
        memo?.store(list, view, result)
        return result
    }

    /// The rows built for `old`, brought up to `list` when the two differ only in a few
    /// items' values and not in which rows show or where (an edit from another instance):
    /// nil when the rows must be built again. Sorting and grouping a large list again would
    /// be much of the time another writer's edit takes to reach this screen.
    static func patched(_ built: RowsMemo.Built, from old: ShoppingList, to list: ShoppingList, query: String,
                        collapsed: Set<String>, hideChecked: Bool) -> RowsMemo.Built? {
        guard old.sections == list.sections, old.tombstones == list.tombstones,
              let ids = ShoppingList.differingRowIDs(old.rows, list.rows), ids.count <= 64 else { return nil }
        var result = built
        for id in ids {
            switch (old.item(id), list.item(id)) {
            case (nil, nil):
                continue
            case (let before?, let after?):
                // Its place and whether it shows stay as they were.
                guard before.sortOrder == after.sortOrder, before.section == after.section,
                      query.isEmpty || matches(before, query) == matches(after, query) else { return nil }
                if before.checked != after.checked {
                    guard !hideChecked else { return nil }
                    result.checked += after.checked ? 1 : -1
                    let header = result.rows.firstIndex { if case .section(let name, _, _, _) = $0 { name == after.section } else { false } }
                    if let header, case .section(let name, let open, let total, let isCollapsed) = result.rows[header] {
                        result.rows[header] = .section(name: name, open: open + (after.checked ? -1 : 1), total: total, collapsed: isCollapsed)
                    } else if query.isEmpty {
                        return nil  // every section shows a header without a filter
                    }
                }
                if let index = result.rows.firstIndex(where: { if case .item(let item) = $0 { item.id == id } else { false } }) {
                    result.rows[index] = .item(after)
                } else if query.isEmpty, !collapsed.contains(after.section) {
                    return nil  // it should have been shown
                }
            default:
                return nil  // shown on one side only
            }
        }
        return result
    }

    static func matches(_ item: Item, _ query: String) -> Bool {
        item.name.lowercased().contains(query) || item.amount.lowercased().contains(query)
    }

    /// The cursor's row in `rows`: the selected row if it is shown, else the row now at the
    /// place it was (clamped), or nil when there are no rows.
    public func cursorIndex(in rows: [Row]) -> Int? {
        guard !rows.isEmpty else { return nil }
        if let selection, let index = rows.firstIndex(where: { $0.selection == selection }) { return index }
        return min(max(0, selectionIndex), rows.count - 1)
    }

    /// Pins the selection to the cursor's row and scrolls so it is visible. Call after any
    /// change to the list or to the state.
    public mutating func pinSelection(_ rows: [Row]) {
        guard var index = cursorIndex(in: rows) else {
            selection = nil
            selectionIndex = 0
            scrollTop = 0
            return
        }
        // A cursor placed for the first time goes to the first item, not its section's
        // header (where `e` would rename the section).
        if selection == nil, let first = rows.firstIndex(where: { if case .item = $0 { true } else { false } }) { index = first }
        selection = rows[index].selection
        selectionIndex = index
        let height = max(1, viewportHeight)
        let margin = height >= 5 ? 1 : 0
        if index < scrollTop + margin { scrollTop = index - margin }
        if index > scrollTop + height - 1 - margin { scrollTop = index - height + 1 + margin }
        scrollTop = min(max(0, scrollTop), max(0, rows.count - height))
    }
}

/// The last rows built, kept by the editor beside its state (not in it: the state is a plain
/// value). Comparing a list with the one the rows were built from is immediate when they
/// share storage, the usual case between two key presses. Used from one thread (the editor's
/// main actor, or a test's own).
public final class RowsMemo {
    public init() {}

    struct View: Equatable {
        var filter: String
        var collapsed: Set<String>
        var hideChecked: Bool
        var shownAnyway: Set<String>
    }

    struct Built {
        var rows: [Row]
        var checked: Int
        var total: Int
    }

    private var list: ShoppingList?
    private var view: View?
    private var built: Built?

    /// The store's revision of the list, set by the editor before each key and frame: what
    /// the list remembers is gathered once per revision, never per keystroke. Nil (a test
    /// without a store): once per list value.
    public var revision: Int?
    /// The time the remembered items are ranked at.
    public var now: () -> Int64 = { 0 }
    private var rememberedFor: (revision: Int?, list: ShoppingList?)?
    private var suggestions: Suggestions?
    private var usual: [RememberedItem]?
    /// The last query and what it matched: a key that does not change the text (Tab, a
    /// redraw of the status bar) matches nothing again.
    private var lastMatch: (query: String, limit: Int, found: [RememberedItem])?

    /// Drops what was gathered for another state of the list.
    private func rememberedOf(_ list: ShoppingList) {
        if let key = rememberedFor {
            if let revision, key.revision == revision { return }
            if revision == nil, key.revision == nil, key.list == list { return }
        }
        rememberedFor = (revision, revision == nil ? list : nil)
        suggestions = nil
        usual = nil
        lastMatch = nil
    }

    func matching(_ query: String, limit: Int, in list: ShoppingList) -> [RememberedItem] {
        let suggestions = suggestions(for: list)
        if let lastMatch, lastMatch.query == query, lastMatch.limit == limit { return lastMatch.found }
        let found = suggestions.matching(query, limit: limit)
        lastMatch = (query, limit, found)
        return found
    }

    public func suggestions(for list: ShoppingList) -> Suggestions {
        rememberedOf(list)
        if let suggestions { return suggestions }
        let built = Suggestions(list.rememberedItems(now: now()))
        suggestions = built
        return built
    }

    func usualItems(for list: ShoppingList) -> [RememberedItem] {
        rememberedOf(list)
        if let usual { return usual }
        let built = list.usualItems(now: now())
        usual = built
        return built
    }

    func lookup(_ list: ShoppingList, _ view: View) -> Built? {
        guard view == self.view, let built, let cached = self.list, cached == list else { return nil }
        return built
    }

    /// The list and rows last built, if built for this view.
    func previous(_ view: View) -> (ShoppingList, Built)? {
        guard view == self.view, let list, let built else { return nil }
        return (list, built)
    }

    func store(_ list: ShoppingList, _ view: View, _ built: Built) {
        self.list = list
        self.view = view
        self.built = built
    }
}

