import BananasCore
import BananasFile
import Synchronization

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
    }

    public struct Prompt: Equatable, Sendable {
        public enum Kind: Equatable, Sendable {
            case addName(section: String)
            case addAmount(section: String, name: String)
            /// `original` is the name when the prompt opened: only what the user changed is
            /// sent, so a concurrent edit to the other field (or this one, untouched) stands.
            case editName(id: String, original: String)
            case editAmount(id: String, originalName: String, name: String, originalAmount: String)
            case moveTo(id: String)
            case addSection(at: Int)
            case renameSection(String)
            case filter(previous: String)
        }
        public var kind: Kind
        public var label: String
        public var line: LineEditor
    }

    /// A question, with exactly what a yes acts on (ids taken when it was asked, so a change
    /// made meanwhile by another writer is not swept in).
    public enum Confirm: Equatable, Sendable {
        case clearChecked(ids: [String])
        case removeSection(String, ids: [String])

        var question: String {
            switch self {
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
    public var collapsed: Set<String> = []
    public var hideChecked = false
    /// The filter in force (typing one shows it live; see `activeFilter`).
    public var filter = ""
    public var mode: Mode = .normal
    public var message: Message?
    public let readOnly: Bool
    public var helpScroll = 0
    public var conflictIndex = 0
    /// The last rows built, shared by copies of this state (it is a memo, not state).
    let rowsCache = RowsCache()

    public init(readOnly: Bool = false) {
        self.readOnly = readOnly
    }

    /// The filter the rows are built with: the text being typed while the filter prompt is
    /// open, else the one in force.
    public var activeFilter: String {
        if case .prompt(let prompt) = mode, case .filter = prompt.kind { return prompt.line.text }
        return filter
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
    /// sections) while a filter is on.
    public func rows(for list: ShoppingList) -> [Row] {
        built(for: list).rows
    }

    /// How many items the list has, and how many are checked (for the title bar).
    public func counts(for list: ShoppingList) -> (checked: Int, total: Int) {
        let built = built(for: list)
        return (built.checked, built.total)
    }

    /// The rows for `list` with the view as it is, built once per list value and view: a key
    /// press that only moves the cursor costs no pass over the list.
    private func built(for list: ShoppingList) -> RowsCache.Built {
        let view = RowsCache.View(filter: activeFilter, collapsed: collapsed, hideChecked: hideChecked)
        if let hit = rowsCache.lookup(list, view) { return hit }
        let query = activeFilter.trimmingWhitespace().lowercased()
        if let (old, built) = rowsCache.previous(view),
           let patched = Self.patched(built, from: old, to: list, query: query, collapsed: collapsed, hideChecked: hideChecked) {
            rowsCache.store(list, view, patched)
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
                items = items.filter { Self.matches($0, query) }
                if items.isEmpty { continue }
                // A filter looks inside collapsed sections: matches are what the user asked for.
                rows.append(.section(name: group.section, open: open, total: group.items.count, collapsed: false))
                rows += items.map(Row.item)
                continue
            }
            let isCollapsed = collapsed.contains(group.section)
            rows.append(.section(name: group.section, open: open, total: group.items.count, collapsed: isCollapsed))
            if !isCollapsed { rows += items.map(Row.item) }
        }
        let result = RowsCache.Built(rows: rows, checked: checked, total: total)
        rowsCache.store(list, view, result)
        return result
    }

    /// The rows built for `old`, brought up to `list` when the two differ only in a few
    /// items' values and not in which rows show or where (an edit from another instance):
    /// nil when the rows must be built again. At 10,000 items, sorting and grouping the whole
    /// list again was half of the time an edit took to reach this screen.
    static func patched(_ built: RowsCache.Built, from old: ShoppingList, to list: ShoppingList, query: String,
                        collapsed: Set<String>, hideChecked: Bool) -> RowsCache.Built? {
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
    public mutating func settle(_ rows: [Row]) {
        guard let index = cursorIndex(in: rows) else {
            selection = nil
            selectionIndex = 0
            scrollTop = 0
            return
        }
        selection = rows[index].selection
        selectionIndex = index
        let height = max(1, viewportHeight)
        let margin = height >= 5 ? 1 : 0
        if index < scrollTop + margin { scrollTop = index - margin }
        if index > scrollTop + height - 1 - margin { scrollTop = index - height + 1 + margin }
        scrollTop = min(max(0, scrollTop), max(0, rows.count - height))
    }
}

/// A memo of the last rows built: comparing a list with the one it was built from is
/// immediate when they share storage (the usual case between two key presses).
final class RowsCache: @unchecked Sendable {
    struct View: Equatable {
        var filter: String
        var collapsed: Set<String>
        var hideChecked: Bool
    }

    struct Built {
        var rows: [Row]
        var checked: Int
        var total: Int
    }

    private struct Memo {
        var list: ShoppingList?
        var view: View?
        var built: Built?
    }

    private let memo = Mutex(Memo())

    func lookup(_ list: ShoppingList, _ view: View) -> Built? {
        memo.withLock { memo in
            guard view == memo.view, let built = memo.built, let cached = memo.list, cached == list else { return nil }
            return built
        }
    }

    /// The list and rows last built, if built for this view.
    func previous(_ view: View) -> (ShoppingList, Built)? {
        memo.withLock { memo in
            guard view == memo.view, let list = memo.list, let built = memo.built else { return nil }
            return (list, built)
        }
    }

    func store(_ list: ShoppingList, _ view: View, _ built: Built) {
        memo.withLock { $0 = Memo(list: list, view: view, built: built) }
    }
}

extension RowsCache: Equatable {
    /// Not part of the state's value.
    static func == (a: RowsCache, b: RowsCache) -> Bool { true }
}
