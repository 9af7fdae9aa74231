import BananasCore

/// What a key asks of the list, for the editor to carry out through the store.
public enum EditorAction: Equatable, Sendable {
    case none
    /// Apply `edit` (one undo step named `label`), then select `select` and say `message`.
    case edit(ListEdit, label: String, select: EditorState.Selection?, message: String)
    case undo
    case redo
    case restoreConflict(Conflict)
    case dismissConflicts([Conflict])
    /// Repaint the whole terminal (something else wrote over it).
    case redraw
    case quit
}

extension EditorState {
    /// Handles one key: changes the state and returns what to do to the list.
    /// `conflicts` are the entries awaiting review (for the conflicts overlay); `memo` keeps
    /// the rows between calls (see `RowsMemo`).
    public mutating func handle(_ key: Key, list: ShoppingList, conflicts: [Conflict] = [],
                                memo: RowsMemo? = nil) -> EditorAction {
        defer { settle(rows(for: list, memo: memo)) }
        // Quitting works in every mode, and comes in order with the keys before it (the
        // terminal delivers Ctrl-C as a key, not a signal that would skip them).
        if KeyMap.quitKeys.contains(key) {
            // Typed text is not dropped without asking (a second Ctrl-C is the yes).
            if !tooSmall, case .prompt(let prompt) = mode, prompt.holdsTypedText {
                mode = .confirm(.quit(dropping: prompt))
                return .none
            }
            return .quit
        }
        if tooSmall {
            // Nothing of the list is visible: only what cannot act blind.
            if KeyMap.binding(for: key)?.command == .redraw { return .redraw }
            if mode == .normal, KeyMap.binding(for: key)?.command == .quit { return .quit }
            return .none
        }
        switch mode {
        case .normal: return handleNormal(key, list: list, conflicts: conflicts, memo: memo)
        case .prompt(let prompt): return handlePrompt(prompt, key, list: list, memo: memo)
        case .confirm(let confirm): return handleConfirm(confirm, key, list: list)
        case .help, .messages: return handleHelp(key)
        case .conflicts: return handleConflicts(key, conflicts: conflicts)
        case .usual: return handleUsual(key, list: list, memo: memo)
        }
    }

    // MARK: - Normal mode

    private mutating func handleNormal(_ key: Key, list: ShoppingList, conflicts: [Conflict], memo: RowsMemo?) -> EditorAction {
        message = nil
        if case .char(let c) = key, let digit = c.wholeNumberValue, c.isASCII, digit > 0 || countPrefix > 0 {
            countPrefix = min(countPrefix * 10 + digit, 9_999)
            message = Message("\(countPrefix)…")
            return .none
        }
        let count = max(1, countPrefix)
        countPrefix = 0
        if key == .escape {
            if !filter.isEmpty {
                filter = ""
                shownAnyway = []
                message = Message("Filter cleared")
            }
            return .none
        }
        guard let binding = KeyMap.binding(for: key) else {
            if case .char(let c) = key { message = Message("\(c.description.displaySafe) does nothing here — press ? for help") }
            return .none
        }
        if binding.edits && refusesEdit() { return .none }
        let rows = rows(for: list, memo: memo)
        let index = cursorIndex(in: rows)
        let row = index.map { rows[$0] }
        let item: Item? = if case .item(let item) = row { item } else { nil }

        if count > 1, KeyMap.countable.contains(binding.command) {
            // `5j`: the key five times (each step from where the last one left the cursor).
            var action = EditorAction.none
            for _ in 0..<count { action = handleNormal(key, list: list, conflicts: conflicts, memo: memo) }
            return action
        }

        switch binding.command {
        case .moveDown: move(to: (index ?? -1) + 1, rows)
        case .moveUp: move(to: (index ?? 1) - 1, rows)
        case .nextMatch, .previousMatch:
            guard !filter.isEmpty else {
                message = Message("No filter — / sets one, then n and N go from match to match")
                break
            }
            // Matches are the items shown (a filter shows only them and their headers).
            let items = rows.indices.filter { if case .item = rows[$0] { true } else { false } }
            guard !items.isEmpty else { break }
            let current = index ?? -1
            let next = binding.command == .nextMatch
                ? items.first { $0 > current } ?? items[0]
                : items.last { $0 < current } ?? items[items.count - 1]
            move(to: next, rows)
        case .top: move(to: 0, rows)
        case .bottom: move(to: rows.count - 1, rows)
        case .pageDown: move(to: (index ?? 0) + max(1, viewportHeight - 1), rows)
        case .pageUp: move(to: (index ?? 0) - max(1, viewportHeight - 1), rows)
        case .nextSection:
            if let next = rows.indices.first(where: { $0 > (index ?? -1) && isHeader(rows[$0]) }) { move(to: next, rows) }
        case .previousSection:
            let current = index ?? 0
            // From an item, the first stop is its own header.
            if let previous = rows.indices.last(where: { $0 < current && isHeader(rows[$0]) }) { move(to: previous, rows) }

        case .toggleChecked:
            if let item {
                // On to the next item (past headers), so neighbours are checked with a key each.
                let next = spaceMovesOn ? index.flatMap { at in rows[(at + 1)...].first { if case .item = $0 { true } else { false } } } : nil
                return toggleChecked(item, then: next?.selection)
            }
            if case .section(let name, _, _, _) = row { toggleCollapse(name) }

        case .addItem:
            let section = row?.section ?? list.displaySections.first ?? ShoppingList.defaultSection
            openPrompt(.addName(section: section), "Add to \(section.displaySafe):")

        case .usualItems:
            if usualItems(for: list, memo: memo).isEmpty {
                message = Message("No usual items yet: what you check, then clear, is remembered")
            } else {
                usualIndex = 0
                usualSelection = nil
                usualMarked = []
                mode = .usual
            }

        case .editItem:
            if let item {
                openPrompt(.editName(id: item.id, original: item.name, seen: Self.seen(item)), "Name:", text: item.name)
            } else if let row {
                openPrompt(.renameSection(row.section, seen: list.seenSection(row.section)), "Rename section:", text: row.section)
            }

        case .changeAmount:
            if let item {
                openPrompt(.editAmount(id: item.id, originalName: item.name, name: item.name, originalAmount: item.amount, seen: Self.seen(item)),
                           "Amount for \(item.name.displaySafe):", text: item.amount)
            }

        case .deleteRow:
            if let item {
                return .edit(.delete(id: item.id), label: StepLabel.make("delete", item), select: nil,
                             message: "Deleted \(item.name.displaySafe) — u brings it back")
            }
            if case .section(let name, _, let total, _) = row {
                if total > 0 {
                    mode = .confirm(.removeSection(name, ids: list.items(in: name).map(\.id)))
                } else if let edit = try? list.removeSectionEdit(name) {
                    return .edit(edit, label: "remove section \(name)", select: nil, message: "Removed section \(name.displaySafe)")
                }
            }

        case .toggleOptional:
            if let item {
                return .edit(.update(id: item.id, changes: [.optional: .flag(!item.optional)]),
                             label: StepLabel.make("mark", item, item.optional ? " needed" : " optional"), select: .item(item.id),
                             message: "\(item.name.displaySafe) is \(item.optional ? "needed" : "optional") now")
            }

        case .moveRowDown, .moveRowUp:
            let down = binding.command == .moveRowDown
            if let item { return moveItem(item, down: down, list: list) }
            if case .section(let name, _, _, _) = row, let at = list.displaySections.firstIndex(of: name) {
                let target = at + (down ? 1 : -1)
                guard target >= 0, target < list.displaySections.count,
                      let edit = try? list.moveSectionEdit(name, to: target) else { return .none }
                return .edit(edit, label: "move section \(name)", select: .section(name), message: "Moved section \(name.displaySafe)")
            }

        case .moveToSection:
            if let item { openPrompt(.moveTo(id: item.id, seen: item.stamps[.section]), "Move \(item.name.displaySafe) to section:") }

        case .clearChecked:
            let checked = list.items.filter(\.checked).map(\.id)
            if checked.isEmpty {
                message = Message("Nothing is checked")
            } else {
                mode = .confirm(.clearChecked(ids: checked))
            }

        case .addSection:
            // After the current section in the list's own order (`addSectionEdit` inserts there).
            let at = row.flatMap { list.sections.firstIndex(of: $0.section) }.map { $0 + 1 } ?? list.sections.count
            openPrompt(.addSection(at: at), "New section:")

        case .renameSection:
            if let row { openPrompt(.renameSection(row.section, seen: list.seenSection(row.section)), "Rename section:", text: row.section) }

        case .toggleCollapse:
            if let row { toggleCollapse(row.section) }

        case .collapseAll:
            let sections = list.displaySections
            if sections.allSatisfy(collapsed.contains) {
                collapsed = []
            } else {
                collapsed = Set(sections)
                if let row { selection = .section(row.section) }
            }

        case .toggleKeyBar:
            keyBar = showsKeyBar(list, memo: memo) ? .off : .on
            message = Message(keyBar == .on ? "Key bar on (b hides it)" : "Key bar off (b shows it)")

        case .toggleHideChecked:
            hideChecked.toggle()
            if hideChecked, let index, let item, item.checked {
                // The cursor's item goes out of view: on to the next row that stays (else the
                // one before), not to whatever row takes its place.
                func stays(_ row: Row) -> Bool { if case .item(let other) = row { !other.checked } else { true } }
                if let next = rows[(index + 1)...].first(where: stays) ?? rows[..<index].last(where: stays) {
                    selection = next.selection
                }
            }
            message = Message(hideChecked ? "Checked items hidden (h shows them)" : "Checked items shown")

        case .filter:
            shownAnyway = []
            openPrompt(.filter(previous: filter), "/", text: filter)

        case .conflicts:
            if conflicts.isEmpty {
                message = Message("No conflicts to review")
            } else {
                conflictIndex = min(conflictIndex, conflicts.count - 1)
                mode = .conflicts
            }

        case .messages:
            helpScroll = 0
            mode = .messages

        case .undo: return .undo
        case .redo: return .redo
        case .help:
            helpScroll = 0
            mode = .help
        case .redraw: return .redraw
        case .quit: return .quit
        }
        return .none
    }

    static let readOnlyHint = "read-only: bananas view cannot change the list (run bananas to edit)"

    /// True, with the reason said, when no edit can be made now: the viewer, or a file this
    /// bananas cannot write.
    mutating func refusesEdit() -> Bool {
        if readOnly {
            message = Message(Self.readOnlyHint, kind: .readOnly)
            return true
        }
        if let editsRefused {
            message = Message(editsRefused, kind: .error)
            return true
        }
        return false
    }

    /// Checks or unchecks `item`; the cursor goes to `then`, else stays on it.
    func toggleChecked(_ item: Item, then next: Selection? = nil) -> EditorAction {
        let verb = item.checked ? "Unchecked" : "Checked"
        return .edit(.update(id: item.id, changes: [.checked: .flag(!item.checked)]),
                     label: StepLabel.make(verb.lowercased(), item), select: next ?? .item(item.id),
                     message: "\(verb) \(item.name.displaySafe)")
    }

    private func isHeader(_ row: Row) -> Bool {
        if case .section = row { return true }
        return false
    }

    mutating func move(to index: Int, _ rows: [Row]) {
        guard !rows.isEmpty else { return }
        let clamped = min(max(0, index), rows.count - 1)
        selection = rows[clamped].selection
        selectionIndex = clamped
    }

    mutating func toggleCollapse(_ section: String) {
        if collapsed.remove(section) == nil {
            collapsed.insert(section)
            selection = .section(section)
        }
    }

    /// Opens a prompt; a value it opens on is selected, so typing replaces it (a filter's is
    /// not: typing there narrows it).
    private mutating func openPrompt(_ kind: Prompt.Kind, _ label: String, text: String = "") {
        let selected: Bool = if case .filter = kind { false } else { true }
        mode = .prompt(Prompt(kind: kind, label: label, line: LineEditor(text, selected: selected), initial: text))
    }

    /// J/K: one place down or up within the section; past its edge, into the next or
    /// previous section.
    private func moveItem(_ item: Item, down: Bool, list: ShoppingList) -> EditorAction {
        let members = list.items(in: item.section)
        guard let at = members.firstIndex(where: { $0.id == item.id }) else { return .none }
        let sections = list.displaySections
        var edit: ListEdit?
        var target = item.section
        if down && at + 1 < members.count {
            edit = try? list.placeEdit(item.id, inSection: item.section, at: at + 1)
        } else if !down && at > 0 {
            edit = try? list.placeEdit(item.id, inSection: item.section, at: at - 1)
        } else if let s = sections.firstIndex(of: item.section) {
            let next = s + (down ? 1 : -1)
            guard next >= 0, next < sections.count else { return .none }
            target = sections[next]
            edit = try? list.placeEdit(item.id, inSection: target, at: down ? 0 : nil)
        }
        guard let edit else { return .none }
        let message = target == item.section ? "Moved \(item.name.displaySafe) \(down ? "down" : "up")"
            : "Moved \(item.name.displaySafe) to \(target.displaySafe)"
        return .edit(edit, label: StepLabel.make("move", item), select: .item(item.id), message: message)
    }

    // MARK: - Prompts

    /// The stamps of the name and amount an edit prompt shows (see `Prompt.Kind.editName`).
    static func seen(_ item: Item) -> [ItemField: Stamp] {
        [.name: item.stamps[.name], .amount: item.stamps[.amount]]
    }

    /// `edit` (a move of item `id`) with the section stamp its prompt showed as seen.
    static func seeing(_ edit: ListEdit, section saw: Stamp, of id: String) -> ListEdit {
        switch edit {
        case .update(let target, let changes, var seen) where target == id && changes[.section] != nil:
            seen[.section] = saw
            return .update(id: id, changes: changes, seen: seen)
        case .batch(let edits): return .batch(edits.map { seeing($0, section: saw, of: id) })
        default: return edit
        }
    }

    private mutating func handlePrompt(_ prompt: Prompt, _ key: Key, list: ShoppingList, memo: RowsMemo?) -> EditorAction {
        var prompt = prompt
        switch KeyMap.promptCommand(for: key) {
        case .cancel:
            if prompt.pick != nil {  // Esc first drops the highlight, then closes
                prompt.pick = nil
                mode = .prompt(prompt)
                return .none
            }
            mode = .normal
            if case .filter = prompt.kind {
                filter = ""
                shownAnyway = []
                message = nil
            } else {
                message = Message("Cancelled")
            }
            return .none
        case .accept:
            return accept(prompt, list: list, memo: memo)
        case .complete:
            if case .moveTo = prompt.kind { complete(&prompt, sections: list.displaySections) }
            if case .addName = prompt.kind { movePick(&prompt, by: 1, list: list, memo: memo) }
            if case .addSection = prompt.kind {} else { mode = .prompt(prompt) }
            return .none
        case .nextSuggestion, .previousSuggestion:
            movePick(&prompt, by: KeyMap.promptCommand(for: key) == .nextSuggestion ? 1 : -1, list: list, memo: memo)
            mode = .prompt(prompt)
            return .none
        default:
            let before = prompt.line.text
            prompt.line.handle(key)
            if prompt.line.text != before { prompt.pick = nil }  // new text, new suggestions
            mode = .prompt(prompt)
            if case .filter = prompt.kind, prompt.line.text != before {
                // Jump to the first match as the filter narrows.
                if let first = rows(for: list, memo: memo).first(where: { if case .item = $0 { true } else { false } }) {
                    selection = first.selection
                }
            }
            message = nil
            return .none
        }
    }

    /// Moves the add prompt's highlight through its suggestions (round); from none, the first
    /// (or, going up, the last).
    private func movePick(_ prompt: inout Prompt, by step: Int, list: ShoppingList, memo: RowsMemo?) {
        guard case .addName = prompt.kind else { return }
        let count = suggestions(for: list, memo: memo).count  // the mode's text is the prompt's
        guard count > 0 else { prompt.pick = nil; return }
        prompt.pick = prompt.pick.map { ($0 + step % count + count) % count } ?? (step > 0 ? 0 : count - 1)
    }

    /// Tab in the section prompt: the first section starting with the typed text (case-
    /// insensitive), then the next one on each further Tab.
    private func complete(_ prompt: inout Prompt, sections: [String]) {
        let typed = prompt.line.text.lowercased()
        let candidates = sections.filter { $0.lowercased().hasPrefix(typed) || typed.isEmpty }
        guard !candidates.isEmpty else { return }
        if let current = candidates.firstIndex(where: { $0.lowercasedEquals(typed) }) {
            prompt.line.set(candidates[(current + 1) % candidates.count])
        } else {
            prompt.line.set(candidates[0])
        }
    }

    private mutating func accept(_ prompt: Prompt, list: ShoppingList, memo: RowsMemo?) -> EditorAction {
        let text = prompt.line.text
        func vanished() -> EditorAction {
            mode = .normal
            message = Message("That item was deleted meanwhile (by another writer)", kind: .error)
            return .none
        }
        func reject(_ problem: String) -> EditorAction {
            message = Message(problem, kind: .error)
            mode = .prompt(prompt)
            return .none
        }
        /// An add whose name is on the list already: unchecked when it was checked, else shown.
        func onList(_ outcome: AddOutcome, edit: ListEdit) -> EditorAction {
            switch outcome {
            case .unchecked(let existing):
                return .edit(edit, label: StepLabel.make("uncheck", existing), select: .item(existing.id),
                             message: "\(existing.name.displaySafe) was checked; unchecked it")
            case .alreadyOnList(let existing):
                selection = .item(existing.id)
                message = Message("\(existing.name.displaySafe) is already on the list (in \(existing.section.displaySafe))")
                return .none
            case .added:
                return .none
            }
        }
        switch prompt.kind {
        case .filter:
            filter = text.trimmingWhitespace()
            mode = .normal
            message = filter.isEmpty ? nil : Message("Filtering by \"\(filter.displaySafe)\" — Esc clears")
            return .none

        case .addName(let section):
            let suggestions = suggestions(for: list, memo: memo)
            let picked = prompt.pick.flatMap { $0 < suggestions.count ? suggestions[$0] : nil }
            let trimmed = text.trimmingWhitespace()
            if trimmed.isEmpty && picked == nil {  // Enter on an empty name ends adding
                mode = .normal
                return .none
            }
            do {
                // A name ending in ? is optional ("Avocados?"), the ? not part of it.
                let optional = trimmed.hasSuffix("?") && trimmed.count > 1
                let typed = picked?.name ?? (optional ? String(trimmed.dropLast()) : text)
                let name = try TextRules.validated(typed, as: .name)
                // The core's add rule: a remembered name goes where it was last, with its usual
                // amount; any other name to this prompt's section.
                let (edit, outcomes) = list.addEdit([name], fallbackSection: section, optional: optional)
                switch outcomes.first {
                case .added(let item, let remembered)?:
                    let label = remembered
                        ? "Amount for \(item.name.displaySafe)\(optional ? " (optional)" : "") (\(item.section.displaySafe)):"
                        : "Amount for \(item.name.displaySafe)\(optional ? " (optional)" : "") (Enter for none):"
                    openPrompt(.addAmount(section: item.section, name: item.name, optional: optional, remembered: remembered, adding: section),
                               label, text: item.amount)
                    if remembered { message = Message("in \(item.section.displaySafe) as last time; m moves it later") }
                    return .none
                case let outcome?:
                    mode = .prompt(Prompt(kind: .addName(section: section), label: prompt.label, line: LineEditor()))
                    return onList(outcome, edit: edit)
                case nil:
                    return .none
                }
            } catch {
                return reject(error.description)
            }

        case .addAmount(let section, let name, let optional, let remembered, let adding):
            do {
                let amount = try TextRules.validated(text, as: .amount)
                let id = ItemID.random()
                // The section is settled (as last time, or the prompt's): the rule only places it.
                let (edit, outcomes) = list.addEdit([name], amount: amount, section: section, optional: optional,
                                                    remembering: false, makeID: { id })
                // Keep the prompt open for the next item: adding a shopping list is a run of items.
                openPrompt(.addName(section: adding), "Add to \(adding.displaySafe):")
                switch outcomes.first {
                case .added(let item, _)?:
                    if !filter.isEmpty { shownAnyway.insert(id) }
                    let details = (amount.isEmpty ? "" : " (\(amount.displaySafe))") + (optional ? ", optional" : "")
                    let said = remembered
                        ? "\(item.name.displaySafe) added to \(item.section.displaySafe) (as last time)\(details)"
                        : "Added \(item.name.displaySafe)\(details)"
                    return .edit(placedBelowCursor(edit, item, list: list), label: StepLabel.make("add", id: id, name: item.name),
                                 select: .item(id), message: said + " · next, or Enter to stop")
                case let outcome?:  // added meanwhile by another writer
                    return onList(outcome, edit: edit)
                case nil:
                    return .none
                }
            } catch {
                return reject(error.description)
            }

        case .editName(let id, let original, let seen):
            do {
                let name = try TextRules.validated(text, as: .name)
                guard let item = list.item(id) else { return vanished() }
                // The amount as shown now is what the user sees next: its stamp is the one seen.
                var seen = seen
                seen[.amount] = item.stamps[.amount]
                openPrompt(.editAmount(id: id, originalName: original, name: name, originalAmount: item.amount, seen: seen), "Amount:", text: item.amount)
                return .none
            } catch {
                return reject(error.description)
            }

        case .editAmount(let id, let originalName, let name, let originalAmount, let seen):
            do {
                let amount = try TextRules.validated(text, as: .amount)
                mode = .normal
                guard list.item(id) != nil else { return vanished() }
                // Only the fields the user changed: another writer's change to the other one
                // (made while the prompt was open) stays.
                var changes: [ItemField: FieldValue] = [:]
                if name != originalName { changes[.name] = .text(name) }
                if amount != originalAmount { changes[.amount] = .text(amount) }
                if changes.isEmpty { message = Message("No change"); return .none }
                let shown = list.item(id).map { changes[.name] == nil ? $0.name : name } ?? name
                return .edit(.update(id: id, changes: changes, seen: seen.filter { changes[$0.key] != nil }),
                             label: StepLabel.make("edit", id: id, name: shown), select: .item(id), message: "Saved \(shown.displaySafe)")
            } catch {
                return reject(error.description)
            }

        case .moveTo(let id, let seen):
            do {
                let typed = try TextRules.validated(text, as: .section)
                if typed.isEmpty { return reject("Type a section name (Tab completes)") }
                mode = .normal
                guard let item = list.item(id) else { return vanished() }
                let section = list.section(named: typed) ?? typed
                if section == item.section { message = Message("Already in \(section.displaySafe)"); return .none }
                var steps: [ListEdit] = []
                var working = list
                if let ensure = working.ensureSectionEdit(section) {
                    steps.append(ensure)
                    try working.apply(ensure, stamp: .zero)
                }
                let place = try working.placeEdit(id, inSection: section, at: nil)
                steps.append(seen.map { Self.seeing(place, section: $0, of: id) } ?? place)
                return .edit(.batch(steps), label: StepLabel.make("move", item, " to \(section)"), select: .item(id),
                             message: "Moved \(item.name.displaySafe) to \(section.displaySafe)")
            } catch let violation as TextRules.Violation {
                return reject(violation.description)
            } catch {
                return reject("\(error)")
            }

        case .addSection(let at):
            do {
                let name = try TextRules.validated(text, as: .section)
                if name.isEmpty { mode = .normal; return .none }
                let edit = try list.addSectionEdit(name, at: at)
                mode = .normal
                return .edit(edit, label: "add section \(name)", select: .section(name), message: "Added section \(name.displaySafe) — a adds items to it")
            } catch let violation as TextRules.Violation {
                return reject(violation.description)
            } catch {
                return reject("\(error)")
            }

        case .renameSection(let old, let seen):
            do {
                let name = try TextRules.validated(text, as: .section)
                if name.isEmpty { return reject("A section needs a name") }
                mode = .normal
                if name == old { return .none }
                let edit = try list.renameSectionEdit(old, to: name, seen: seen)
                if collapsed.remove(old) != nil { collapsed.insert(name) }
                return .edit(edit, label: "rename section \(old)", select: .section(name), message: "Renamed \(old.displaySafe) to \(name.displaySafe)")
            } catch let violation as TextRules.Violation {
                return reject(violation.description)
            } catch {
                return reject("\(error)")
            }
        }
    }

    /// An added item goes below the item the cursor is on when that is in its section (a run
    /// of adds goes down the list), else where the add rule put it (the end of its section).
    private func placedBelowCursor(_ edit: ListEdit, _ item: Item, list: ShoppingList) -> ListEdit {
        guard case .item(let current)? = selection, let after = list.item(current), after.section == item.section,
              case .batch(let steps) = edit else { return edit }
        var working = list
        guard (try? working.apply(edit, stamp: .zero)) != nil,
              let place = working.items(in: item.section).filter({ $0.id != item.id }).firstIndex(where: { $0.id == after.id }),
              case .update(_, let changes, _)? = try? working.placeEdit(item.id, inSection: item.section, at: place + 1),
              case .order(let order)? = changes[.sortOrder] else { return edit }
        return .batch(steps.map { step in
            guard case .insert(var inserted) = step, inserted.id == item.id else { return step }
            inserted.sortOrder = order
            return .insert(inserted)
        })
    }

    // MARK: - The usual items view

    private mutating func handleUsual(_ key: Key, list: ShoppingList, memo: RowsMemo?) -> EditorAction {
        // The view follows the list: what was added meanwhile (here or elsewhere) is gone from it.
        let items = usualItems(for: list, memo: memo)
        usualIndex = usualCursor(in: items)
        defer { usualSelection = items.indices.contains(usualIndex) ? items[usualIndex].folded : nil }
        switch KeyMap.usualCommand(for: key) {
        case .down: usualIndex = min(max(0, items.count - 1), usualIndex + 1)
        case .up: usualIndex = max(0, usualIndex - 1)
        case .top: usualIndex = 0
        case .bottom: usualIndex = max(0, items.count - 1)
        case .mark:
            guard items.indices.contains(usualIndex) else { break }
            let name = items[usualIndex].folded
            if usualMarked.remove(name) == nil { usualMarked.insert(name) }
            usualIndex = min(items.count - 1, usualIndex + 1)
        case .add:
            let marked = items.filter { usualMarked.contains($0.folded) }
            let chosen = marked.isEmpty ? (items.indices.contains(usualIndex) ? [items[usualIndex]] : []) : marked
            mode = .normal
            usualMarked = []
            guard !chosen.isEmpty else { return .none }
            // Through the add rule, with no section: each goes where it was last, as one step.
            let (edit, outcomes) = list.addEdit(chosen.map(\.name))
            let added = outcomes.map { outcome -> Item in
                switch outcome {
                case .added(let item, _), .unchecked(let item), .alreadyOnList(let item): item
                }
            }
            guard let first = added.first else { return .none }
            if added.count == 1, case .added(let item, true)? = outcomes.first {
                return .edit(edit, label: StepLabel.make("add", item), select: .item(item.id),
                             message: "\(item.name.displaySafe) added to \(item.section.displaySafe) (as last time) — u undoes")
            }
            let label = added.count == 1 ? StepLabel.make("add", first) : "add \(added.count) usual items"
            return .edit(edit, label: label, select: .item(first.id),
                         message: added.count == 1 ? "Added \(first.name.displaySafe) — u undoes"
                            : "Added \(added.count) usual items, each as last time — u undoes")
        case .close:
            mode = .normal
            usualMarked = []
        case nil:
            break
        }
        return .none
    }

    // MARK: - Confirmations and overlays

    private mutating func handleConfirm(_ confirm: Confirm, _ key: Key, list: ShoppingList) -> EditorAction {
        mode = .normal
        if case .quit(let prompt) = confirm {
            if KeyMap.confirmCommand(for: key) == .yes { return .quit }
            mode = .prompt(prompt)
            message = Message("Kept what you typed")
            return .none
        }
        guard KeyMap.confirmCommand(for: key) == .yes else {
            message = Message("Cancelled")
            return .none
        }
        switch confirm {
        case .clearChecked(let ids):
            // The items asked about that are still there (and still checked).
            let checked = ids.compactMap { list.item($0) }.filter(\.checked)
            guard !checked.isEmpty else { message = Message("Nothing left to clear"); return .none }
            return .edit(.batch(checked.map { .delete(id: $0.id) }), label: "clear \(checked.count) checked",
                         select: nil, message: "Removed \(checked.count) checked item\(checked.count == 1 ? "" : "s") — u brings them back")
        case .removeSection(let name, let ids):
            // The items asked about; one added meanwhile by another writer keeps the section.
            let edit = ListEdit.batch([.setSections(list.sections.filter { $0 != name })]
                + ids.filter { list.item($0) != nil }.map { .delete(id: $0) })
            return .edit(edit, label: "remove section \(name)", select: nil, message: "Removed section \(name.displaySafe) — u brings it back")
        case .quit:
            return .none
        }
    }

    private mutating func handleHelp(_ key: Key) -> EditorAction {
        switch KeyMap.overlayCommand(for: key) {
        case .down: helpScroll += 1
        case .up: helpScroll -= 1
        // A page, less a line kept for context (as the list pages).
        case .pageDown: helpScroll += max(1, overlayLines - 1)
        case .pageUp: helpScroll -= max(1, overlayLines - 1)
        case .top: helpScroll = 0
        case .restore, .dismiss, .dismissAll, nil: mode = .normal
        }
        // No further than the last page.
        let lines = mode == .messages ? Screen.messageLines(history, width: screenWidth).count : Screen.helpRows(readOnly: readOnly, width: screenWidth).count
        helpScroll = min(max(0, helpScroll), max(0, lines - overlayLines))
        return .none
    }

    private mutating func handleConflicts(_ key: Key, conflicts: [Conflict]) -> EditorAction {
        guard !conflicts.isEmpty else {
            mode = .normal
            return .none
        }
        conflictIndex = min(conflictIndex, conflicts.count - 1)
        switch KeyMap.overlayCommand(for: key) {
        case .down: conflictIndex = min(conflicts.count - 1, conflictIndex + 1)
        case .up: conflictIndex = max(0, conflictIndex - 1)
        case .pageDown, .pageUp, .top: break
        case .restore:
            guard !refusesEdit() else { return .none }
            return .restoreConflict(conflicts[conflictIndex])
        case .dismiss:
            guard !refusesEdit() else { return .none }
            return .dismissConflicts([conflicts[conflictIndex]])
        case .dismissAll:
            guard !refusesEdit() else { return .none }
            return .dismissConflicts(conflicts)
        case nil:
            mode = .normal
        }
        return .none
    }
}
