import BananasCore
import BananasEditor
import BananasFile
import BananasSync
import BananasTerminal
import Foundation
import Testing

/// A small list with fixed ids, so snapshots are stable.
func sampleList() -> ShoppingList {
    var order = 0.0
    func item(_ id: String, _ name: String, _ section: String, amount: String = "", checked: Bool = false, optional: Bool = false) -> Item {
        order += 1024
        return Item(id: id, name: name, amount: amount, section: section, checked: checked, optional: optional, sortOrder: order)
    }
    return ShoppingList(
        sections: ["Produce", "Dairy", "Bakery"],
        rows: [
            item("A1", "Bananas", "Produce", amount: "6"),
            item("A2", "Apples", "Produce", amount: "1 kg", checked: true),
            item("A3", "Spinach", "Produce", optional: true),
            item("B1", "Oat milk", "Dairy", amount: "2 L"),
            item("B2", "Butter", "Dairy", checked: true),
            item("C1", "Sourdough bread", "Bakery"),
        ])
}

/// A status that says synced 4 s before `now`.
let now: Int64 = 1_800_000_000_000
func syncedStatus() -> SyncStatus {
    var status = SyncStatus()
    status.lastSyncMillis = now - 4_000
    return status
}

/// Renders `state` over `list` at a size, as text. The key bar shows only when the state
/// asks for it or `keyBar` is `.auto` (the snapshots predate it; KeyBarTests cover it).
func render(_ list: ShoppingList = sampleList(), state: EditorState = EditorState(), status: SyncStatus = syncedStatus(),
            width: Int = 44, height: Int = 12, keyBar: EditorState.KeyBar = .off) -> Grid {
    var state = state
    if state.keyBar == .auto { state.keyBar = keyBar }
    state.viewportHeight = Screen.viewportHeight(forHeight: height, keyBar: Screen.keyBar(state, list, height: height))
    state.pinSelection(state.rows(for: list))
    return Screen.render(Frame(state: state, list: list, status: SyncView(status, now: now), fileLabel: "~/lists/BananaList.json", now: now),
                         width: width, height: height)
}

/// Presses keys on a state over a list (no store: edits are applied to the list directly,
/// the way the store would).
struct Session {
    var list: ShoppingList
    var state: EditorState
    var actions: [EditorAction] = []
    var clock = 1

    init(list: ShoppingList = sampleList(), readOnly: Bool = false, height: Int = 12) {
        self.list = list
        state = EditorState(readOnly: readOnly)
        state.keyBar = .off
        // These tests were written for a cursor starting on the first row and staying where
        // Space checked: the editor's own start (the first item) and Space moving on are
        // ConventionTests'.
        state.spaceMovesOn = false
        state.viewportHeight = Screen.viewportHeight(forHeight: height)
        state.selection = state.rows(for: list).first?.selection
        state.pinSelection(state.rows(for: list))
    }

    mutating func press(_ keys: Key...) { for key in keys { press(key) } }

    mutating func type(_ text: String) { for c in text { press(.char(c)) } }

    mutating func press(_ key: Key) {
        let action = state.handle(key, list: list)
        actions.append(action)
        if case .edit(let edit, _, let select, let message) = action {
            clock += 1
            try! list.apply(edit, stamp: Stamp(millis: Int64(clock), counter: 0, replica: "test"))
            if let select { state.selection = select }
            state.message = .init(message)
            state.pinSelection(state.rows(for: list))
        }
    }

    var lastAction: EditorAction? { actions.last }

    func screen(width: Int = 44, height: Int = 12) -> String {
        render(list, state: state, width: width, height: height).text
    }

    func named(_ name: String) -> Item? { list.items.first { $0.name == name } }
}
