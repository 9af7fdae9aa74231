import BananasCore

/// What a normal-mode handler works on: the list, the rows shown and the cursor's row.
struct NormalContext {
    let list: ShoppingList
    let conflicts: [Conflict]
    let memo: RowsMemo?
    let rows: [Row]
    /// The cursor's row in `rows` (nil: no rows).
    let index: Int?

    var row: Row? { index.map { rows[$0] } }
    var item: Item? { if case .item(let item)? = row { item } else { nil } }
}

extension EditorState {
    /// A key in normal mode: a count (`5j`), Esc, or a command of the key table, run by its
    /// handler (`run`).
    mutating func handleNormal(_ key: Key, list: ShoppingList, conflicts: [Conflict], memo: RowsMemo?) -> Reaction {
        // A count whose "5…" expired is dropped unseen; said as a message change all the same.
        let cleared = clearMessage().union(countPrefix > 0 ? .message : [])
        if case .char(let c) = key, let digit = c.wholeNumberValue, c.isASCII, digit > 0 || countPrefix > 0 {
            countPrefix = min(countPrefix * 10 + digit, 9_999)
            return .changed(say("\(countPrefix)…"))
        }
        let count = max(1, countPrefix)
        countPrefix = 0
        if key == .escape { return .changed(cleared.union(clearFilter())) }
        guard let binding = KeyMap.binding(for: key) else {
            guard case .char(let c) = key else { return .changed(cleared) }
            return .changed(say("\(c.description.displaySafe) does nothing here — press ? for help"))
        }
        if binding.edits && refusesEdit() { return .changed(.message) }
        if count > 1, KeyMap.countable.contains(binding.command) {
            // `5j`: the key five times (each step from where the last one left the cursor).
            var reaction = Reaction.changed(cleared)
            for _ in 0..<count {
                let step = handleNormal(key, list: list, conflicts: conflicts, memo: memo)
                reaction = Reaction(step.action, changed: reaction.changed.union(step.changed))
            }
            return reaction
        }
        let rows = rows(for: list, memo: memo)
        let context = NormalContext(list: list, conflicts: conflicts, memo: memo, rows: rows, index: cursorIndex(in: rows))
        return run(binding.command, context).adding(cleared)
    }

    /// The handler of each command of the normal key table (`KeyMap.bindings`).
    mutating func run(_ command: Command, _ at: NormalContext) -> Reaction {
        switch command {
        case .moveDown: .changed(move(to: (at.index ?? -1) + 1, at.rows))
        case .moveUp: .changed(move(to: (at.index ?? 1) - 1, at.rows))
        case .top: .changed(move(to: 0, at.rows))
        case .bottom: .changed(move(to: at.rows.count - 1, at.rows))
        case .pageDown: .changed(move(to: (at.index ?? 0) + max(1, viewportHeight - 1), at.rows))
        case .pageUp: .changed(move(to: (at.index ?? 0) - max(1, viewportHeight - 1), at.rows))
        case .nextSection: nextSection(at)
        case .previousSection: previousSection(at)
        case .nextMatch: match(at, forward: true)
        case .previousMatch: match(at, forward: false)
        case .toggleChecked: toggleChecked(at)
        case .addItem: addItem(at)
        case .usualItems: openUsual(at)
        case .editItem: editItem(at)
        case .changeAmount: changeAmount(at)
        case .deleteRow: deleteRow(at)
        case .toggleOptional: toggleOptional(at)
        case .moveRowDown: moveRow(at, down: true)
        case .moveRowUp: moveRow(at, down: false)
        case .moveToSection: moveToSection(at)
        case .clearChecked: clearChecked(at)
        case .addSection: addSection(at)
        case .renameSection: renameSection(at)
        case .toggleCollapse: .changed(at.row.map { toggleCollapse($0.section) } ?? [])
        case .collapseAll: collapseAll(at)
        case .toggleKeyBar: toggleKeyBar(at)
        case .toggleHideChecked: toggleHideChecked(at)
        case .filter: openFilter()
        case .conflicts: openConflicts(at)
        case .messages: openOverlay(.messages)
        case .undo: Reaction(.undo, changed: .list)
        case .redo: Reaction(.redo, changed: .list)
        case .help: openOverlay(.help)
        case .redraw: Reaction(.redraw, changed: .terminal)
        case .quit: Reaction(.quit)
        }
    }

    // MARK: - Moving

    private mutating func nextSection(_ at: NormalContext) -> Reaction {
        guard let next = at.rows.indices.first(where: { $0 > (at.index ?? -1) && Self.isHeader(at.rows[$0]) }) else { return .nothing }
        return .changed(move(to: next, at.rows))
    }

    private mutating func previousSection(_ at: NormalContext) -> Reaction {
        let current = at.index ?? 0
        // From an item, the first stop is its own header.
        guard let previous = at.rows.indices.last(where: { $0 < current && Self.isHeader(at.rows[$0]) }) else { return .nothing }
        return .changed(move(to: previous, at.rows))
    }

    /// n and N: the next or previous item the filter shows (round).
    private mutating func match(_ at: NormalContext, forward: Bool) -> Reaction {
        guard !filter.isEmpty else { return .changed(say("No filter — / sets one, then n and N go from match to match")) }
        // Matches are the items shown (a filter shows only them and their headers).
        let items = at.rows.indices.filter { if case .item = at.rows[$0] { true } else { false } }
        guard !items.isEmpty else { return .nothing }
        let current = at.index ?? -1
        let next = forward
            ? items.first { $0 > current } ?? items[0]
            : items.last { $0 < current } ?? items[items.count - 1]
        return .changed(move(to: next, at.rows))
    }

    private static func isHeader(_ row: Row) -> Bool {
        if case .section = row { return true }
        return false
    }

    // MARK: - Items

    private mutating func toggleChecked(_ at: NormalContext) -> Reaction {
        if let item = at.item {
            // On to the next item (past headers), so neighbours are checked with a key each.
            let next = spaceMovesOn ? at.index.flatMap { index in at.rows[(index + 1)...].first { if case .item = $0 { true } else { false } } } : nil
            return toggleChecked(item, then: next?.selection)
        }
        if case .section(let name, _, _, _)? = at.row { return .changed(toggleCollapse(name)) }
        return .nothing
    }

    private mutating func addItem(_ at: NormalContext) -> Reaction {
        let section = at.row?.section ?? at.list.displaySections.first ?? ShoppingList.defaultSection
        return .changed(openPrompt(.addName(section: section), "Add to \(section.displaySafe):"))
    }

    private mutating func openUsual(_ at: NormalContext) -> Reaction {
        if usualItems(for: at.list, memo: at.memo).isEmpty {
            return .changed(say("No usual items yet: what you check, then clear, is remembered"))
        }
        usualIndex = 0
        usualSelection = nil
        usualMarked = []
        mode = .usual
        return .changed(.overlay)
    }

    private mutating func editItem(_ at: NormalContext) -> Reaction {
        if let item = at.item {
            return .changed(openPrompt(.editName(id: item.id, original: item.name, seen: Self.seen(item)), "Name:", text: item.name))
        }
        return renameSection(at)
    }

    private mutating func changeAmount(_ at: NormalContext) -> Reaction {
        guard let item = at.item else { return .nothing }
        return .changed(openPrompt(.editAmount(id: item.id, originalName: item.name, name: item.name, originalAmount: item.amount,
                                               seen: Self.seen(item)),
                                   "Amount for \(item.name.displaySafe):", text: item.amount))
    }

    private mutating func deleteRow(_ at: NormalContext) -> Reaction {
        if let item = at.item {
            return .edit(.delete(id: item.id), label: StepLabel.make("delete", item), select: nil,
                         message: "Deleted \(item.name.displaySafe) — u brings it back")
        }
        guard case .section(let name, _, let total, _)? = at.row else { return .nothing }
        if total > 0 {
            mode = .confirm(.removeSection(name, ids: at.list.items(in: name).map(\.id)))
            return .changed(.overlay)
        }
        guard let edit = try? at.list.removeSectionEdit(name) else { return .nothing }
        return .edit(edit, label: "remove section \(name)", select: nil, message: "Removed section \(name.displaySafe)")
    }

    private func toggleOptional(_ at: NormalContext) -> Reaction {
        guard let item = at.item else { return .nothing }
        return .edit(.update(id: item.id, changes: [.optional: .flag(!item.optional)]),
                     label: StepLabel.make("mark", item, item.optional ? " needed" : " optional"), select: .item(item.id),
                     message: "\(item.name.displaySafe) is \(item.optional ? "needed" : "optional") now")
    }

    /// J/K: the item (or section) one place down or up.
    private func moveRow(_ at: NormalContext, down: Bool) -> Reaction {
        if let item = at.item { return moveItem(item, down: down, list: at.list) }
        guard case .section(let name, _, _, _)? = at.row, let index = at.list.displaySections.firstIndex(of: name) else { return .nothing }
        let target = index + (down ? 1 : -1)
        guard target >= 0, target < at.list.displaySections.count,
              let edit = try? at.list.moveSectionEdit(name, to: target) else { return .nothing }
        return .edit(edit, label: "move section \(name)", select: .section(name), message: "Moved section \(name.displaySafe)")
    }

    /// J/K on an item: one place down or up within the section; past its edge, into the next
    /// or previous section.
    private func moveItem(_ item: Item, down: Bool, list: ShoppingList) -> Reaction {
        let members = list.items(in: item.section)
        guard let at = members.firstIndex(where: { $0.id == item.id }) else { return .nothing }
        let sections = list.displaySections
        var edit: ListEdit?
        var target = item.section
        if down && at + 1 < members.count {
            edit = try? list.placeEdit(item.id, inSection: item.section, at: at + 1)
        } else if !down && at > 0 {
            edit = try? list.placeEdit(item.id, inSection: item.section, at: at - 1)
        } else if let s = sections.firstIndex(of: item.section) {
            let next = s + (down ? 1 : -1)
            guard next >= 0, next < sections.count else { return .nothing }
            target = sections[next]
            edit = try? list.placeEdit(item.id, inSection: target, at: down ? 0 : nil)
        }
        guard let edit else { return .nothing }
        let message = target == item.section ? "Moved \(item.name.displaySafe) \(down ? "down" : "up")"
            : "Moved \(item.name.displaySafe) to \(target.displaySafe)"
        return .edit(edit, label: StepLabel.make("move", item), select: .item(item.id), message: message)
    }

    private mutating func moveToSection(_ at: NormalContext) -> Reaction {
        guard let item = at.item else { return .nothing }
        return .changed(openPrompt(.moveTo(id: item.id, seen: item.stamps[.section]), "Move \(item.name.displaySafe) to section:"))
    }

    private mutating func clearChecked(_ at: NormalContext) -> Reaction {
        let checked = at.list.items.filter(\.checked).map(\.id)
        if checked.isEmpty { return .changed(say("Nothing is checked")) }
        mode = .confirm(.clearChecked(ids: checked))
        return .changed(.overlay)
    }

    // MARK: - Sections

    private mutating func addSection(_ at: NormalContext) -> Reaction {
        // After the current section in the list's own order (`addSectionEdit` inserts there).
        let index = at.row.flatMap { at.list.sections.firstIndex(of: $0.section) }.map { $0 + 1 } ?? at.list.sections.count
        return .changed(openPrompt(.addSection(at: index), "New section:"))
    }

    private mutating func renameSection(_ at: NormalContext) -> Reaction {
        guard let row = at.row else { return .nothing }
        return .changed(openPrompt(.renameSection(row.section, seen: at.list.seenSection(row.section)), "Rename section:", text: row.section))
    }

    private mutating func collapseAll(_ at: NormalContext) -> Reaction {
        let sections = at.list.displaySections
        if sections.allSatisfy(collapsed.contains) {
            collapsed = []
            return .changed(.rows)
        }
        collapsed = Set(sections)
        if let row = at.row { selection = .section(row.section) }
        return .changed([.rows, .cursor])
    }

    // MARK: - The view

    private mutating func toggleKeyBar(_ at: NormalContext) -> Reaction {
        keyBar = showsKeyBar(at.list, memo: at.memo) ? .off : .on
        return .changed(say(keyBar == .on ? "Key bar on (b hides it)" : "Key bar off (b shows it)").union(.rows))
    }

    private mutating func toggleHideChecked(_ at: NormalContext) -> Reaction {
        hideChecked.toggle()
        if hideChecked, let index = at.index, let item = at.item, item.checked {
            // The cursor's item goes out of view: on to the next row that stays (else the
            // one before), not to whatever row takes its place.
            func stays(_ row: Row) -> Bool { if case .item(let other) = row { !other.checked } else { true } }
            if let next = at.rows[(index + 1)...].first(where: stays) ?? at.rows[..<index].last(where: stays) {
                selection = next.selection
            }
        }
        return .changed(say(hideChecked ? "Checked items hidden (h shows them)" : "Checked items shown").union([.rows, .cursor]))
    }

    private mutating func openFilter() -> Reaction {
        shownAnyway = []
        return .changed(openPrompt(.filter(previous: filter), "/", text: filter).union(.rows))
    }

    /// Esc: the filter in force cleared.
    private mutating func clearFilter() -> Changed {
        guard !filter.isEmpty else { return [] }
        filter = ""
        shownAnyway = []
        return say("Filter cleared").union(.rows)
    }

    private mutating func openConflicts(_ at: NormalContext) -> Reaction {
        if at.conflicts.isEmpty { return .changed(say("No conflicts to review")) }
        conflictIndex = min(conflictIndex, at.conflicts.count - 1)
        mode = .conflicts
        return .changed(.overlay)
    }

    /// Help or the messages, from the top.
    private mutating func openOverlay(_ overlay: Mode) -> Reaction {
        helpScroll = 0
        mode = overlay
        return .changed(.overlay)
    }
}
