import BananasCore

extension EditorState {
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

    /// A key in a prompt: a command of the prompt's key table (`KeyMap.prompt`), run by its
    /// handler, or text typed.
    mutating func handlePrompt(_ prompt: Prompt, _ key: Key, list: ShoppingList, memo: RowsMemo?) -> Reaction {
        var prompt = prompt
        switch KeyMap.promptCommand(for: key) {
        case .cancel: return cancelPrompt(&prompt)
        case .accept: return accept(prompt, list: list, memo: memo)
        case .complete: return completeOrSuggest(&prompt, list: list, memo: memo)
        case .nextSuggestion: return moveSuggestion(&prompt, by: 1, list: list, memo: memo)
        case .previousSuggestion: return moveSuggestion(&prompt, by: -1, list: list, memo: memo)
        default: return editLine(&prompt, with: key, list: list, memo: memo)
        }
    }

    /// Esc: first drops a suggestion's highlight, then closes the prompt (a filter's clears).
    private mutating func cancelPrompt(_ prompt: inout Prompt) -> Reaction {
        if prompt.pick != nil {
            prompt.pick = nil
            mode = .prompt(prompt)
            return .changed(.overlay)
        }
        mode = .normal
        if case .filter = prompt.kind {
            filter = ""
            shownAnyway = []
            return .changed(clearMessage().union([.overlay, .rows]))
        }
        return .changed(say("Cancelled").union(.overlay))
    }

    /// Tab: completes a section's name; in the add prompt, the next suggestion.
    private mutating func completeOrSuggest(_ prompt: inout Prompt, list: ShoppingList, memo: RowsMemo?) -> Reaction {
        if case .moveTo = prompt.kind { complete(&prompt, sections: list.displaySections) }
        if case .addName = prompt.kind { movePick(&prompt, by: 1, list: list, memo: memo) }
        if case .addSection = prompt.kind { return .nothing }
        mode = .prompt(prompt)
        return .changed(.overlay)
    }

    private mutating func moveSuggestion(_ prompt: inout Prompt, by step: Int, list: ShoppingList, memo: RowsMemo?) -> Reaction {
        movePick(&prompt, by: step, list: list, memo: memo)
        mode = .prompt(prompt)
        return .changed(.overlay)
    }

    /// Any other key edits the line (typing, moving, erasing: `LineEditor`).
    private mutating func editLine(_ prompt: inout Prompt, with key: Key, list: ShoppingList, memo: RowsMemo?) -> Reaction {
        let before = prompt.line.text
        prompt.line.handle(key)
        if prompt.line.text != before { prompt.pick = nil }  // new text, new suggestions
        mode = .prompt(prompt)
        var changed = clearMessage().union(.overlay)
        if case .filter = prompt.kind, prompt.line.text != before {
            // Jump to the first match as the filter narrows.
            if let first = rows(for: list, memo: memo).first(where: { if case .item = $0 { true } else { false } }) {
                selection = first.selection
            }
            changed.formUnion([.rows, .cursor])
        }
        return .changed(changed)
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

    // MARK: - Enter: each prompt's accept

    /// Enter: the prompt's text taken, by the handler of the prompt's kind.
    private mutating func accept(_ prompt: Prompt, list: ShoppingList, memo: RowsMemo?) -> Reaction {
        let text = prompt.line.text
        switch prompt.kind {
        case .filter:
            return acceptFilter(text)
        case .addName(let section):
            return acceptAddName(prompt, section: section, list: list, memo: memo)
        case .addAmount(let section, let name, let optional, let why, let adding):
            return acceptAddAmount(prompt, section: section, name: name, optional: optional, why: why,
                                   adding: adding, list: list)
        case .editName(let id, let original, let seen):
            return acceptEditName(prompt, id: id, original: original, seen: seen, list: list)
        case .editAmount(let id, let originalName, let name, let originalAmount, let seen):
            return acceptEditAmount(prompt, id: id, originalName: originalName, name: name, originalAmount: originalAmount,
                                    seen: seen, list: list)
        case .moveTo(let id, let seen):
            return acceptMoveTo(prompt, id: id, seen: seen, list: list)
        case .addSection(let at):
            return acceptAddSection(prompt, at: at, list: list)
        case .renameSection(let old, let seen):
            return acceptRenameSection(prompt, old: old, seen: seen, list: list)
        }
    }

    /// The prompt stays open on what was typed, with the problem said.
    private mutating func reject(_ prompt: Prompt, _ problem: String) -> Reaction {
        mode = .prompt(prompt)
        return .changed(say(problem, kind: .error))
    }

    /// The item the prompt was about is gone.
    private mutating func vanished() -> Reaction {
        mode = .normal
        return .changed(say("That item was deleted meanwhile (by another writer)", kind: .error).union(.overlay))
    }

    /// An add whose name is on the list already: unchecked when it was checked, else shown.
    private mutating func onList(_ outcome: AddOutcome, edit: ListEdit) -> Reaction {
        switch outcome {
        case .unchecked(let existing):
            return .edit(edit, label: StepLabel.make("uncheck", existing), select: .item(existing.id),
                         message: "\(existing.name.displaySafe) was checked; unchecked it")
        case .alreadyOnList(let existing):
            selection = .item(existing.id)
            return .changed(say("\(existing.name.displaySafe) is already on the list (in \(existing.section.displaySafe))").union(.cursor))
        case .added:
            return .nothing
        }
    }

    private mutating func acceptFilter(_ text: String) -> Reaction {
        filter = text.trimmingWhitespace()
        mode = .normal
        message = filter.isEmpty ? nil : Message("Filtering by \"\(filter.displaySafe)\" — Esc clears")
        return .changed([.overlay, .rows, .message])
    }

    /// The name of an item to add: on to its amount (or, on the list already, said).
    private mutating func acceptAddName(_ prompt: Prompt, section: String, list: ShoppingList, memo: RowsMemo?) -> Reaction {
        let suggestions = suggestions(for: list, memo: memo)
        let picked = prompt.pick.flatMap { $0 < suggestions.count ? suggestions[$0] : nil }
        let trimmed = prompt.line.text.trimmingWhitespace()
        if trimmed.isEmpty && picked == nil {  // Enter on an empty name ends adding
            mode = .normal
            return .changed(.overlay)
        }
        // A name ending in ? is optional ("Avocados?"), the ? not part of it.
        let optional = trimmed.hasSuffix("?") && trimmed.count > 1
        let typed = picked?.name ?? (optional ? String(trimmed.dropLast()) : prompt.line.text)
        let name: String
        do { name = try TextRules.validated(typed, as: .name) } catch { return reject(prompt, error.description) }
        // The core's placement rule: a remembered name goes where it was, with its usual
        // amount; a name the catalogue knows to its section; any other to this prompt's.
        let (edit, outcomes) = list.addEdit([name], fallbackSection: section, optional: optional)
        switch outcomes.first {
        case .added(let item, let placement)?:
            let why = placement.reason == .adding ? nil : placement.why(\.displaySafe)
            let label = why != nil
                ? "Amount for \(item.name.displaySafe)\(optional ? " (optional)" : "") (\(item.section.displaySafe)):"
                : "Amount for \(item.name.displaySafe)\(optional ? " (optional)" : "") (Enter for none):"
            var changed = openPrompt(.addAmount(section: item.section, name: item.name, optional: optional, why: why,
                                                adding: section),
                                     label, text: item.amount)
            if let why { changed.formUnion(say("in \(item.section.displaySafe) (\(why)); m moves it later")) }
            return .changed(changed)
        case let outcome?:
            mode = .prompt(Prompt(kind: .addName(section: section), label: prompt.label, line: LineEditor()))
            return onList(outcome, edit: edit).adding(.overlay)
        case nil:
            return .nothing
        }
    }

    /// The amount of an item to add: added, and the add prompt open again for the next one.
    private mutating func acceptAddAmount(_ prompt: Prompt, section: String, name: String, optional: Bool, why: String?,
                                          adding: String, list: ShoppingList) -> Reaction {
        let amount: String
        do { amount = try TextRules.validated(prompt.line.text, as: .amount) } catch { return reject(prompt, error.description) }
        let id = ItemID.random()
        // The section is decided (by the placement rule, when the name was taken): the rule
        // only places it.
        let (edit, outcomes) = list.addEdit([name], amount: amount, section: section, optional: optional,
                                            remembering: false, makeID: { id })
        // Keep the prompt open for the next item: adding a shopping list is a run of items.
        let reopened = openPrompt(.addName(section: adding), "Add to \(adding.displaySafe):")
        switch outcomes.first {
        case .added(let item, _)?:
            if !filter.isEmpty { shownAnyway.insert(id) }
            let details = (amount.isEmpty ? "" : " (\(amount.displaySafe))") + (optional ? ", optional" : "")
            let said = why.map { "\(item.name.displaySafe) added to \(item.section.displaySafe) (\($0))\(details)" }
                ?? "Added \(item.name.displaySafe)\(details)"
            return .edit(placedBelowCursor(edit, item, list: list), label: StepLabel.make("add", id: id, name: item.name),
                         select: .item(id), message: said + " · next, or Enter to stop").adding(reopened.union(.rows))
        case let outcome?:  // added meanwhile by another writer
            return onList(outcome, edit: edit).adding(reopened)
        case nil:
            return .changed(reopened)
        }
    }

    /// The new name of an item: on to its amount.
    private mutating func acceptEditName(_ prompt: Prompt, id: String, original: String, seen: [ItemField: Stamp],
                                         list: ShoppingList) -> Reaction {
        let name: String
        do { name = try TextRules.validated(prompt.line.text, as: .name) } catch { return reject(prompt, error.description) }
        guard let item = list.item(id) else { return vanished() }
        if let other = list.itemBlockingRename(of: id, to: name) {
            return reject(prompt, "\(other.name.displaySafe) is already on the list")
        }
        // The amount as shown now is what the user sees next: its stamp is the one seen.
        var seen = seen
        seen[.amount] = item.stamps[.amount]
        return .changed(openPrompt(.editAmount(id: id, originalName: original, name: name, originalAmount: item.amount, seen: seen),
                                   "Amount:", text: item.amount))
    }

    /// The new amount of an item: the fields the user changed saved.
    private mutating func acceptEditAmount(_ prompt: Prompt, id: String, originalName: String, name: String, originalAmount: String,
                                           seen: [ItemField: Stamp], list: ShoppingList) -> Reaction {
        let amount: String
        do { amount = try TextRules.validated(prompt.line.text, as: .amount) } catch { return reject(prompt, error.description) }
        mode = .normal
        guard list.item(id) != nil else { return vanished() }
        // Only the fields the user changed: another writer's change to the other one
        // (made while the prompt was open) stays.
        var changes: [ItemField: FieldValue] = [:]
        if name != originalName { changes[.name] = .text(name) }
        if amount != originalAmount { changes[.amount] = .text(amount) }
        if changes.isEmpty { return .changed(say("No change").union(.overlay)) }
        let shown = list.item(id).map { changes[.name] == nil ? $0.name : name } ?? name
        return .edit(.update(id: id, changes: changes, seen: seen.filter { changes[$0.key] != nil }),
                     label: StepLabel.make("edit", id: id, name: shown), select: .item(id), message: "Saved \(shown.displaySafe)")
            .adding(.overlay)
    }

    /// The section to move an item to (made when new).
    private mutating func acceptMoveTo(_ prompt: Prompt, id: String, seen: Stamp?, list: ShoppingList) -> Reaction {
        do {
            let typed = try TextRules.validated(prompt.line.text, as: .section)
            if typed.isEmpty { return reject(prompt, "Type a section name (Tab completes)") }
            mode = .normal
            guard let item = list.item(id) else { return vanished() }
            let section = list.section(named: typed) ?? typed
            if section == item.section { return .changed(say("Already in \(section.displaySafe)").union(.overlay)) }
            var steps: [ListEdit] = []
            var working = list
            if let ensure = working.ensureSectionEdit(section) {
                steps.append(ensure)
                try working.apply(ensure, stamp: .zero)
            }
            let place = try working.placeEdit(id, inSection: section, at: nil)
            steps.append(seen.map { Self.seeing(place, section: $0, of: id) } ?? place)
            return .edit(.batch(steps), label: StepLabel.make("move", item, " to \(section)"), select: .item(id),
                         message: "Moved \(item.name.displaySafe) to \(section.displaySafe)").adding(.overlay)
        } catch let violation as TextRules.Violation {
            return reject(prompt, violation.description)
        } catch {
            return reject(prompt, "\(error)")
        }
    }

    private mutating func acceptAddSection(_ prompt: Prompt, at: Int, list: ShoppingList) -> Reaction {
        do {
            let name = try TextRules.validated(prompt.line.text, as: .section)
            if name.isEmpty { mode = .normal; return .changed(.overlay) }
            let edit = try list.addSectionEdit(name, at: at)
            mode = .normal
            return .edit(edit, label: "add section \(name)", select: .section(name),
                         message: "Added section \(name.displaySafe) — a adds items to it").adding(.overlay)
        } catch let violation as TextRules.Violation {
            return reject(prompt, violation.description)
        } catch {
            return reject(prompt, "\(error)")
        }
    }

    private mutating func acceptRenameSection(_ prompt: Prompt, old: String, seen: SeenSection?, list: ShoppingList) -> Reaction {
        do {
            let name = try TextRules.validated(prompt.line.text, as: .section)
            if name.isEmpty { return reject(prompt, "A section needs a name") }
            mode = .normal
            if name == old { return .changed(.overlay) }
            let edit = try list.renameSectionEdit(old, to: name, seen: seen)
            if collapsed.remove(old) != nil { collapsed.insert(name) }
            return .edit(edit, label: "rename section \(old)", select: .section(name),
                         message: "Renamed \(old.displaySafe) to \(name.displaySafe)").adding([.overlay, .rows])
        } catch let violation as TextRules.Violation {
            return reject(prompt, violation.description)
        } catch {
            return reject(prompt, "\(error)")
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
}
