import BananasCore

extension EditorState {
    // MARK: - The usual items view

    /// A key in the usual items view (`KeyMap.usual`).
    mutating func handleUsual(_ key: Key, list: ShoppingList, memo: RowsMemo?) -> Reaction {
        // The view follows the list: what was added meanwhile (here or elsewhere) is gone from it.
        let items = usualItems(for: list, memo: memo)
        let before = (usualIndex, usualSelection)
        usualIndex = usualCursor(in: items)
        defer { usualSelection = items.indices.contains(usualIndex) ? items[usualIndex].folded : nil }
        let reaction: Reaction = switch KeyMap.usualCommand(for: key) {
        case .down: moveUsual(to: min(max(0, items.count - 1), usualIndex + 1))
        case .up: moveUsual(to: max(0, usualIndex - 1))
        case .top: moveUsual(to: 0)
        case .bottom: moveUsual(to: max(0, items.count - 1))
        case .mark: markUsual(items)
        case .add: addUsual(items, list: list)
        case .close: closeUsual()
        case nil: .nothing
        }
        let moved = before != (usualIndex, items.indices.contains(usualIndex) ? items[usualIndex].folded : nil)
        return reaction.adding(moved ? .overlay : [])
    }

    private mutating func moveUsual(to index: Int) -> Reaction {
        usualIndex = index
        return .changed(.overlay)
    }

    private mutating func markUsual(_ items: [RememberedItem]) -> Reaction {
        guard items.indices.contains(usualIndex) else { return .nothing }
        let name = items[usualIndex].folded
        if usualMarked.remove(name) == nil { usualMarked.insert(name) }
        usualIndex = min(items.count - 1, usualIndex + 1)
        return .changed(.overlay)
    }

    private mutating func closeUsual() -> Reaction {
        mode = .normal
        usualMarked = []
        return .changed(.overlay)
    }

    /// Enter: the marked items (else the highlighted one) added as one step, each where it
    /// was last.
    private mutating func addUsual(_ items: [RememberedItem], list: ShoppingList) -> Reaction {
        let marked = items.filter { usualMarked.contains($0.folded) }
        let chosen = marked.isEmpty ? (items.indices.contains(usualIndex) ? [items[usualIndex]] : []) : marked
        _ = closeUsual()
        guard !chosen.isEmpty else { return .changed(.overlay) }
        // Through the add rule, with no section: each goes where it was last, as one step.
        let (edit, outcomes) = list.addEdit(chosen.map(\.name))
        let added = outcomes.map { outcome -> Item in
            switch outcome {
            case .added(let item, _), .unchecked(let item), .alreadyOnList(let item): item
            }
        }
        guard let first = added.first else { return .changed(.overlay) }
        if added.count == 1, case .added(let item, let placement)? = outcomes.first {
            return .edit(edit, label: StepLabel.make("add", item), select: .item(item.id),
                         message: "\(item.name.displaySafe) added to \(item.section.displaySafe)\(placement.why(\.displaySafe).map { " (\($0))" } ?? "") — u undoes")
                .adding(.overlay)
        }
        let label = added.count == 1 ? StepLabel.make("add", first) : "add \(added.count) usual items"
        return .edit(edit, label: label, select: .item(first.id),
                     message: added.count == 1 ? "Added \(first.name.displaySafe) — u undoes"
                        : "Added \(added.count) usual items, each as last time — u undoes").adding(.overlay)
    }

    // MARK: - Questions

    /// The answer to a question (`KeyMap.confirm`): yes, or any other key for no.
    mutating func handleConfirm(_ confirm: Confirm, _ key: Key, list: ShoppingList) -> Reaction {
        mode = .normal
        if case .quit(let prompt) = confirm {
            if KeyMap.confirmCommand(for: key) == .yes { return Reaction(.quit, changed: .overlay) }
            mode = .prompt(prompt)
            return .changed(say("Kept what you typed").union(.overlay))
        }
        guard KeyMap.confirmCommand(for: key) == .yes else { return .changed(say("Cancelled").union(.overlay)) }
        switch confirm {
        case .clearChecked(let ids):
            // The items asked about that are still there (and still checked).
            let checked = ids.compactMap { list.item($0) }.filter(\.checked)
            guard !checked.isEmpty else { return .changed(say("Nothing left to clear").union(.overlay)) }
            return .edit(.batch(checked.map { .delete(id: $0.id) }), label: "clear \(checked.count) checked", select: nil,
                         message: "Removed \(checked.count) checked item\(checked.count == 1 ? "" : "s") — u brings them back")
                .adding(.overlay)
        case .removeSection(let name, let ids):
            // The items asked about; one added meanwhile by another writer keeps the section.
            let edit = ListEdit.batch([.setSections(list.sections.filter { $0 != name })]
                + ids.filter { list.item($0) != nil }.map { .delete(id: $0) })
            return .edit(edit, label: "remove section \(name)", select: nil, message: "Removed section \(name.displaySafe) — u brings it back")
                .adding(.overlay)
        case .quit:
            return .changed(.overlay)
        }
    }

    // MARK: - Help, messages and the conflict review

    /// A key in help or the messages (`KeyMap.overlay`): scrolls, or closes them.
    mutating func handleHelp(_ key: Key) -> Reaction {
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
        return .changed(.overlay)
    }

    /// A key in the conflict review (`KeyMap.overlay`): moves, restores, dismisses, or closes it.
    mutating func handleConflicts(_ key: Key, conflicts: [Conflict]) -> Reaction {
        guard !conflicts.isEmpty else {
            mode = .normal
            return .changed(.overlay)
        }
        conflictIndex = min(conflictIndex, conflicts.count - 1)
        switch KeyMap.overlayCommand(for: key) {
        case .down: conflictIndex = min(conflicts.count - 1, conflictIndex + 1)
        case .up: conflictIndex = max(0, conflictIndex - 1)
        case .pageDown, .pageUp, .top: break
        case .restore:
            guard !refusesEdit() else { return .changed(.message) }
            return Reaction(.restoreConflict(conflicts[conflictIndex]), changed: .list)
        case .dismiss:
            guard !refusesEdit() else { return .changed(.message) }
            return Reaction(.dismissConflicts([conflicts[conflictIndex]]), changed: .list)
        case .dismissAll:
            guard !refusesEdit() else { return .changed(.message) }
            return Reaction(.dismissConflicts(conflicts), changed: .list)
        case nil:
            mode = .normal
        }
        return .changed(.overlay)
    }
}
