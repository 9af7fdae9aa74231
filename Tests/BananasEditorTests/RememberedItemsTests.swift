import BananasCore
import BananasEditor
import BananasFile
import BananasSync
import BananasTerminal
import BananasTestSupport
import Testing

/// The sample list, after shopping: Milk (Dairy, 1 l) bought three times, Eggs (Dairy, 12)
/// twice, Carrots (Produce) and Coffee (Pantry) once each, then cleared from the list.
func shoppedList() -> ShoppingList {
    var list = sampleList()
    var counter = 0
    func stamp() -> Stamp {
        counter += 1
        return Stamp(millis: now - 3 * 86_400_000, counter: counter, replica: "past")
    }
    for (name, section, amount, times) in [("Milk", "Dairy", "1 l", 3), ("Eggs", "Dairy", "12", 2),
                                           ("Carrots", "Produce", "", 1), ("Coffee", "Pantry", "", 1)] {
        for k in 0..<times {
            let id = "\(name)\(k)"
            let edits: [ListEdit] = [
                .insert(Item(id: id, name: name, amount: amount, section: section, sortOrder: 90_000 + Double(counter))),
                .update(id: id, changes: [.checked: .flag(true)]),
                .delete(id: id),
            ]
            for edit in edits { try! list.apply(edit, stamp: stamp()) }
        }
    }
    return list
}

/// The add prompt suggests remembered names as you type, Tab and the arrows pick one, and an
/// add goes through the core's add rule (a remembered name is filed as last time); the usual
/// items view (U) adds back several at once.
@Suite("Remembered items in the editor")
struct RememberedItemsTests {
    func suggestionNames(_ s: Session) -> [String] { s.state.suggestions(for: s.list).map(\.name) }

    func pick(_ s: Session) -> Int? {
        if case .prompt(let prompt) = s.state.mode { return prompt.pick }
        return nil
    }

    @Test("a typo finds the remembered name; Tab picks it, Enter fills section and usual amount, Enter adds it as last time")
    func tabPicksASuggestion() throws {
        var s = Session(list: shoppedList())
        s.press(.char("j"))  // on Bananas, in Produce
        s.press(.char("a"))
        s.type("mlik")
        #expect(suggestionNames(s).first == "Milk")
        #expect(pick(s) == nil)
        s.press(.tab)
        #expect(pick(s) == 0)
        s.press(.enter)
        guard case .prompt(let amount) = s.state.mode, case .addAmount("Dairy", "Milk", false, "as last time", "Produce") = amount.kind else {
            Issue.record("expected the amount prompt for Milk in Dairy, was \(s.state.mode)")
            return
        }
        #expect(amount.line.text == "1 l" && amount.line.selected, "the usual amount, selected so typing replaces it")
        #expect(amount.label == "Amount for Milk (Dairy):")
        #expect(s.state.message?.text.hasPrefix("in Dairy (as last time)") == true)
        s.press(.enter)
        let milk = try #require(s.named("Milk"))
        #expect(milk.section == "Dairy" && milk.amount == "1 l")
        #expect(s.state.message?.text.hasPrefix("Milk added to Dairy (as last time) (1 l)") == true, "\(String(describing: s.state.message))")
        #expect(s.state.selection == .item(milk.id))
        guard case .prompt(let next) = s.state.mode, case .addName("Produce") = next.kind else {
            Issue.record("the add prompt should stay open on its own section")
            return
        }
    }

    @Test("the usual amount can be changed before it is added")
    func amountCanBeChanged() throws {
        var s = Session(list: shoppedList())
        s.press(.char("a"))
        s.type("egg")
        s.press(.tab, .enter)
        s.type("6")
        s.press(.enter)
        let eggs = try #require(s.named("Eggs"))
        #expect(eggs.section == "Dairy" && eggs.amount == "6")
    }

    @Test("a remembered name typed in full is filed as last time without picking; a new name the catalogue does not know goes to the prompt's section")
    func typedNameUsesTheAddRule() throws {
        var s = Session(list: shoppedList())
        s.press(.char("a"))  // Add to Produce
        s.type("coffee")
        s.press(.enter, .enter)
        let coffee = try #require(s.named("Coffee"), "the remembered spelling")
        #expect(coffee.section == "Pantry")
        #expect(s.list.displaySections.contains("Pantry"))
        #expect(s.state.message?.text.hasPrefix("Coffee added to Pantry (as last time)") == true)
        s.type("Zorblax")
        s.press(.enter, .enter)
        #expect(s.named("Zorblax")?.section == "Produce")
        #expect(s.state.message?.text.hasPrefix("Added Zorblax") == true)
    }

    @Test("Tab and ↓ move the highlight down (round), ↑ up; typing drops it; Esc drops it, then closes the prompt")
    func highlightMoves() {
        var s = Session(list: shoppedList())
        s.press(.char("a"))
        s.type("e")  // Eggs, Coffee ("inside" needs two letters: only names starting with e)
        s.type("g")
        #expect(suggestionNames(s) == ["Eggs"])
        s.press(.backspace, .backspace)
        s.type("c")
        let names = suggestionNames(s)
        #expect(names.count >= 2, "\(names)")
        s.press(.down)
        #expect(pick(s) == 0)
        s.press(.tab)
        #expect(pick(s) == 1)
        s.press(.up)
        #expect(pick(s) == 0)
        s.press(.up)
        #expect(pick(s) == names.count - 1, "round to the last")
        s.type("a")
        #expect(pick(s) == nil)
        s.press(.tab)
        #expect(pick(s) == 0)
        s.press(.escape)
        #expect(pick(s) == nil)
        if case .prompt = s.state.mode {} else { Issue.record("the first Esc only drops the highlight") }
        s.press(.escape)
        #expect(s.state.mode == .normal)
        #expect(s.list.items.count == 6)
    }

    @Test("names on the list are not suggested; a checked one is, and taking it unchecks it")
    func onTheList() {
        var s = Session(list: shoppedList())
        s.press(.char("a"))
        s.type("ban")
        #expect(!suggestionNames(s).contains("Bananas"))
        s.press(.ctrl("u"))
        s.type("butt")
        #expect(suggestionNames(s) == ["Butter"])
        s.press(.tab, .enter)
        #expect(s.named("Butter")?.checked == false)
        #expect(s.list.items.count == 6)
    }

    @Test("the prompt shows up to five suggestions above it, best first, with section and times bought; the highlight shows")
    func promptSnapshot() {
        var s = Session(list: shoppedList())
        s.press(.char("a"))
        s.type("mi")
        expectScreen(render(s.list, state: s.state), """
             bananas                        2/6 checked
            ▾ Produce  1/3 checked
              [ ] Bananas  6
              [x] Apples  1 kg
              [ ] Spinach  optional
            ▾ Dairy  1/2 checked
              [ ] Oat milk  2 L
              [x] Butter
            ▾ Bakery  0/1 checked
             Milk                             Dairy  3×
            Add to Produce: mi  adds new "mi" · Tab: Mi…
             synced 4s ago  BananaList.json      ? help
            """)
        s.press(.ctrl("u"))
        s.type("c")
        s.press(.tab, .tab)
        let grid = render(s.list, state: s.state)
        expectScreen(grid, """
             bananas                        2/6 checked
            ▾ Produce  1/3 checked
              [ ] Bananas  6
              [x] Apples  1 kg
              [ ] Spinach  optional
            ▾ Dairy  1/2 checked
              [ ] Oat milk  2 L
              [x] Butter
             Carrots                        Produce  1×
             Coffee                          Pantry  1×
            Add to Produce: c  adds Coffee · under Pant…
             synced 4s ago  BananaList.json      ? help
            """)
        let highlighted = (8...9).filter { grid[0, $0].highlighted }
        #expect(highlighted == [9], "the second suggestion, Coffee")
        #expect(grid.roleMap([.dim: "d"])[9].hasSuffix("dddddddddd#"), "the section and count dimmed, on the highlighted line")
    }

    @Test("at 40 columns suggestions cut the section, then the name, never the count")
    func narrowPrompt() {
        var list = shoppedList()
        try! list.apply(.batch([
            .insert(Item(id: "L1", name: "Extra virgin olive oil from the corner shop", section: "Mediterranean pantry shelf", sortOrder: 95_000)),
            .update(id: "L1", changes: [.checked: .flag(true)]),
        ]), stamp: Stamp(millis: 1, counter: 100, replica: "past"))
        try! list.apply(.delete(id: "L1"), stamp: Stamp(millis: 1, counter: 101, replica: "past"))
        var s = Session(list: list)
        s.press(.char("a"))
        s.type("ex")
        s.press(.tab)
        expectScreen(render(s.list, state: s.state, width: 40, height: 8), """
             bananas                    2/6 checked
            ▾ Produce  1/3 checked
              [ ] Bananas  6
              [x] Apples  1 kg
              [ ] Spinach  optional
             Extra virgin olive…  Mediterranea…  1×
            Add to Produce: ex  adds Extra virgin o…
             synced 4s ago  BananaList.json  ? help
            """)
    }

    @Test("what the list remembers is gathered once per revision of the list, not per key or frame")
    func gatheredOncePerRevision() throws {
        var list = shoppedList()
        let memo = RowsMemo()
        var gathered = 0
        memo.now = { gathered += 1; return now }
        memo.revision = 1
        var state = EditorState()
        _ = state.handle(.char("a"), list: list, memo: memo)
        for key in [Key.char("m"), .char("i"), .tab, .backspace, .down] {
            _ = state.handle(key, list: list, memo: memo)
            _ = Screen.render(Frame(state: state, list: list, status: SyncView(syncedStatus(), now: now), fileLabel: "f", now: now), width: 44, height: 12, memo: memo)
        }
        #expect(gathered == 1)
        #expect(state.suggestions(for: list, memo: memo).map(\.name) == ["Milk"])
        try list.apply(.insert(Item(id: "M9", name: "Milk", section: "Dairy", sortOrder: 99_000)), stamp: Stamp(millis: now, counter: 0, replica: "other"))
        memo.revision = 2
        _ = state.handle(.char("l"), list: list, memo: memo)
        #expect(state.suggestions(for: list, memo: memo).isEmpty, "Milk is on the list now")
        #expect(gathered == 2)
    }

    @Test("U lists the usual items; Space marks two; Enter adds both where they were last, as one edit")
    func usualMarksAndAdds() throws {
        var s = Session(list: shoppedList())
        s.press(.char("U"))
        #expect(s.state.mode == .usual)
        #expect(s.state.usualItems(for: s.list).map(\.name) == ["Milk", "Eggs", "Carrots", "Coffee"])
        s.press(.char(" "))      // Milk, and on to Eggs
        s.press(.char("j"))      // Carrots
        s.press(.char(" "))
        let before = s.actions.count
        s.press(.enter)
        #expect(s.actions.count == before + 1)
        guard case .edit(let edit, _, _, let message)? = s.lastAction, case .batch = edit else {
            Issue.record("one edit, was \(String(describing: s.lastAction))")
            return
        }
        #expect(message.hasPrefix("Added 2 usual items"))
        #expect(s.named("Milk")?.section == "Dairy" && s.named("Milk")?.amount == "1 l")
        #expect(s.named("Carrots")?.section == "Produce")
        #expect(s.named("Eggs") == nil)
        #expect(s.state.mode == .normal)
    }

    @Test("Enter with nothing marked adds the highlighted one; Esc closes without adding; with none bought, U says so")
    func usualHighlightedAndEsc() {
        var s = Session(list: shoppedList())
        s.press(.char("U"), .char("G"), .enter)
        #expect(s.named("Coffee")?.section == "Pantry")
        #expect(s.state.message?.text.hasPrefix("Coffee added to Pantry (as last time)") == true)
        s.press(.char("U"), .char(" "), .escape)
        #expect(s.state.mode == .normal && s.list.items.count == 7)
        var fresh = Session()
        fresh.press(.char("U"))
        #expect(fresh.state.mode == .normal)
        #expect(fresh.state.message?.text.hasPrefix("No usual items yet") == true)
    }

    @Test("the usual view follows the list: an item added elsewhere leaves it, marks and all")
    func usualFollowsTheList() throws {
        var s = Session(list: shoppedList())
        s.press(.char("U"), .char(" "))  // Milk marked
        try s.list.apply(.insert(Item(id: "M9", name: "Milk", section: "Dairy", sortOrder: 99_000)), stamp: Stamp(millis: 50, counter: 0, replica: "other"))
        #expect(!render(s.list, state: s.state).text.contains("Milk  "))
        s.press(.enter)  // nothing marked is left: the highlighted one
        #expect(s.list.items.filter { $0.name == "Milk" }.count == 1)
        #expect(s.named("Eggs") != nil)
    }

    @Test("the usual view: marks, counts, when last bought; at 40 columns without the time")
    func usualSnapshot() {
        var s = Session(list: shoppedList())
        s.press(.char("U"), .char(" "), .char("j"))
        expectScreen(render(s.list, state: s.state, width: 64, height: 12), """
             bananas                                            2/6 checked
            ▾ Produce  1/3 checked
              [ ] Bananas  6
             ┌─ Usual items, 1 marked ────────────────────────────────────┐
             │ [x] Milk                                 Dairy  3×  3d ago │
            ▾│ [ ] Eggs                                 Dairy  2×  3d ago │
             │ [ ] Carrots                            Produce  1×  3d ago │
             │ [ ] Coffee                              Pantry  1×  3d ago │
            ▾└─ Space marks · Enter adds · Esc closes ────────────────────┘
              [ ] Sourdough bread

             synced 4s ago  ~/lists/BananaList.json                  ? help
            """)
        expectScreen(render(s.list, state: s.state, width: 40, height: 12), """
             bananas                    2/6 checked
            ▾ Produce  1/3 checked
              [ ] Bananas  6
             ┌─ Usual items, 1 marked ────────────┐
             │ [x] Milk                 Dairy  3× │
            ▾│ [ ] Eggs                 Dairy  2× │
             │ [ ] Carrots            Produce  1× │
             │ [ ] Coffee              Pantry  1× │
            ▾└─ Space mark · Enter add · Esc ─────┘
              [ ] Sourdough bread

             synced 4s ago  BananaList.json  ? help
            """)
    }
}

/// The same over a real store: one undo step takes back every item the view added.
@MainActor
@Suite("Usual items over a store")
struct UsualItemsStoreTests {
    @Test("several usual items added at once are one undo step")
    func oneUndoStep() async throws {
        let box = Sandbox()
        let store = ListStore(file: box.file(), mode: .live)
        for (name, section) in [("Milk", "Dairy"), ("Bread", "Bakery"), ("Coffee", "Pantry")] {
            let id = ItemID.random()
            try store.perform(.insert(Item(id: id, name: name, section: section, sortOrder: 1024)), label: "add")
            try store.perform(.update(id: id, changes: [.checked: .flag(true)]), label: "check")
            try store.perform(.delete(id: id), label: "clear")
        }
        let editor = Editor(store: store, fileLabel: "test")
        editor.handle(.char("U"))
        #expect(editor.render(width: 60, height: 12).text.contains("Coffee"))
        editor.handle(.char(" "))
        editor.handle(.char(" "))
        editor.handle(.char(" "))
        editor.handle(.enter)
        #expect(Set(store.list.items.map(\.name)) == ["Milk", "Bread", "Coffee"])
        #expect(store.list.items.first { $0.name == "Bread" }?.section == "Bakery")
        editor.handle(.char("u"))
        #expect(store.list.items.isEmpty)
        #expect(editor.state.message?.text.hasPrefix("Undid add 3 usual items") == true)
        #expect(await eventually { (try? box.decoded().items.isEmpty) == true })
        #expect(store.close() == 0)
    }
}
