/// Placing an item at a position within a section, as one edit.
extension ShoppingList {
    /// The visible items of `section`, in list order.
    public func items(in section: String) -> [Item] {
        items.filter { $0.section == section }
    }

    /// The edit that moves item `id` into `section` (when it is elsewhere) at 0-based
    /// `index` among that section's other items (clamped; nil means the end). It changes
    /// only the item's sortOrder and section, unless the neighbours' orders are too close to
    /// fit a value between them (after many moves), when the section is renumbered.
    public func placeEdit(_ id: String, inSection section: String, at index: Int?) throws -> ListEdit {
        guard let item = item(id) else { throw EditError.noSuchItem(id) }
        let others = items(in: section).filter { $0.id != id }
        let place = min(max(0, index ?? others.count), others.count)
        var changes: [ItemField: FieldValue] = [:]
        if item.section != section { changes[.section] = .text(section) }

        let before = place > 0 ? others[place - 1].sortOrder : nil
        let after = place < others.count ? others[place].sortOrder : nil
        let order: Double? = switch (before, after) {
        case (nil, nil): item.section == section ? item.sortOrder : nextSortOrder
        case (let b?, nil): b + 1024
        case (nil, let a?): a - 1024
        case (let b?, let a?): b < a && (b + a) / 2 > b && (b + a) / 2 < a ? (b + a) / 2 : nil
        }
        if let order {
            changes[.sortOrder] = .order(order)
            return .update(id: id, changes: changes)
        }
        // No room between the neighbours: renumber the whole section in the new order.
        var ordered = others
        ordered.insert(item, at: place)
        let start = (ordered.map(\.sortOrder).min() ?? 0).rounded(.down)
        var steps: [ListEdit] = []
        for (k, member) in ordered.enumerated() {
            var memberChanges: [ItemField: FieldValue] = [.sortOrder: .order(start + Double(k) * 1024)]
            if member.id == id { memberChanges.merge(changes) { new, _ in new } }
            steps.append(.update(id: member.id, changes: memberChanges))
        }
        return .batch(steps)
    }
}

/// What adding a name did (`ShoppingList.addEdit`).
public enum AddOutcome: Hashable, Sendable {
    /// A new item, in its section (by name). `remembered`: its section (and amount, when none
    /// was given) came from the memory, as last time.
    case added(Item, remembered: Bool)
    /// The name was on the list, checked: it is unchecked instead (and given the amount and
    /// optional flag asked for).
    case unchecked(Item)
    /// The name is on the list already, unchecked: nothing done.
    case alreadyOnList(Item)
}

extension ShoppingList {
    /// The one rule for adding items, on every surface: each name (in the order given) is
    /// added at the end of `section` (the section a person means by it, created if new) unless
    /// an item of that name (any case) is on the list, which is unchecked if checked, or left
    /// alone; `duplicate` adds it anyway. With no `section`, a remembered name goes where it
    /// was last, with its usual amount when none is given (and its remembered spelling when
    /// typed all in lower case); any other goes to `fallbackSection` (the editor's: the section
    /// under the cursor), else `defaultSection`. Returns one edit (one undo step) and what
    /// became of each name.
    public func addEdit(
        _ names: [String], amount: String? = nil, section: String? = nil, fallbackSection: String? = nil, optional: Bool = false,
        duplicate: Bool = false, remembering: Bool = true, makeID: () -> String = ItemID.random
    ) -> (edit: ListEdit, outcomes: [AddOutcome]) {
        var lookups = AddLookups()
        return addEdit(names, amount: amount, section: section, fallbackSection: fallbackSection, optional: optional,
                       duplicate: duplicate, remembering: remembering, makeID: makeID, lookups: &lookups)
    }

    /// `addEdit`, asking what it needs of every row of `lookups`, which walks the rows only for
    /// names and sections it has not been asked before: a batch of adds (an agent's
    /// `add_items`) walks the list once, not once per entry. `lookups` must be told of the
    /// items each add puts on the list (`AddLookups.took`) before the next add.
    public func addEdit(
        _ names: [String], amount: String? = nil, section: String? = nil, fallbackSection: String? = nil, optional: Bool = false,
        duplicate: Bool = false, remembering: Bool = true, makeID: () -> String = ItemID.random, lookups: inout AddLookups
    ) -> (edit: ListEdit, outcomes: [AddOutcome]) {
        var steps: [ListEdit] = []
        var outcomes: [AddOutcome] = []
        lookups.lookUp(names: duplicate ? [] : names, sections: section.map { [$0] } ?? [], in: self)
        let highest = lookups.highest
        let given = section.map { lookups.sectionNamed($0, in: self) ?? $0 }
        var order = Self.sortOrder(after: highest)
        var newSections: [String] = []
        for typed in names {
            if !duplicate, let existing = lookups.firstItem(named: typed, in: self) {
                if existing.checked {
                    var changes: [ItemField: FieldValue] = [.checked: .flag(false)]
                    if let amount { changes[.amount] = .text(amount) }
                    if optional { changes[.optional] = .flag(true) }
                    steps.append(.update(id: existing.id, changes: changes))
                    outcomes.append(.unchecked(existing))
                } else {
                    outcomes.append(.alreadyOnList(existing))
                }
                continue
            }
            let memory = given == nil && remembering ? remembered(named: typed, now: 0) : nil
            let recalled = memory.flatMap { $0.section.isEmpty ? nil : $0 }
            var name = typed
            if let recalled, typed == typed.lowercased(), ItemMemory.fold(typed) == recalled.folded { name = recalled.name }
            let target = given ?? recalled?.section ?? fallbackSection.map { self.section(named: $0) ?? $0 } ?? Self.defaultSection
            let item = Item(id: makeID(), name: name, amount: amount ?? recalled?.amount ?? "", section: target,
                            optional: optional, sortOrder: order)
            order += 1024
            // A section is created only when an item goes into it.
            if !sections.contains(target), !newSections.contains(target) { newSections.append(target) }
            steps.append(.insert(item))
            outcomes.append(.added(item, remembered: recalled != nil))
        }
        if !newSections.isEmpty { steps.insert(.setSections(sections + newSections), at: 0) }
        return (.batch(steps), outcomes)
    }
}

/// What the add rule asks of every row (the highest order, the first item of each name, the
/// section a name means; `ShoppingList.addEdit`), kept across adds: the rows are walked once
/// for the names and sections not asked before, and the items each add puts on the list are
/// taken in one by one (`took`).
public struct AddLookups {
    fileprivate private(set) var highest: Double?
    private var walked = false
    private var names: [String: FirstItemNamed] = [:]
    private var sections: [String: SectionNamed] = [:]

    public init() {}

    /// Walks the rows once for what adds of `names` into `sections` need that is not known
    /// yet (a batch asks for all of its names first).
    public mutating func lookUp(names asked: [String], sections askedSections: [String], in list: ShoppingList) {
        var newNames: [FirstItemNamed] = []
        for name in asked where names[name.lowercased()] == nil && !newNames.contains(where: { $0.folded.text == name.lowercased() }) {
            newNames.append(FirstItemNamed(name))
        }
        var newSections: [SectionNamed] = []
        for name in askedSections where !list.sections.contains(name) && sections[name] == nil && !newSections.contains(where: { $0.name == name }) {
            newSections.append(SectionNamed(name))
        }
        guard !walked || !newNames.isEmpty || !newSections.isEmpty else { return }
        var top: Double?
        list.rows.forEachRow { row in
            let order = row.sortOrder
            if top.map({ order > $0 }) ?? true { top = order }
            for i in newSections.indices { newSections[i].consider(row, in: list) }
            for i in newNames.indices { newNames[i].consider(row, in: list) }
        }
        if !walked { highest = top }
        walked = true
        for lookup in newNames { names[lookup.folded.text] = lookup }
        for lookup in newSections { sections[lookup.name] = lookup }
    }

    /// Takes in the items `edit` (one an add made, now applied) put on `list`.
    public mutating func took(_ edit: ListEdit, in list: ShoppingList) {
        switch edit {
        case .batch(let steps): for step in steps { took(step, in: list) }
        case .insert(let item):
            guard let row = list.rows[item.id] else { return }
            if highest.map({ row.sortOrder > $0 }) ?? true { highest = row.sortOrder }
            for key in names.keys { names[key]!.consider(RowView(row), in: list) }
            for key in sections.keys { sections[key]!.consider(RowView(row), in: list) }
        default: break
        }
    }

    /// The first visible item of this name, as `list` holds it now.
    fileprivate func firstItem(named name: String, in list: ShoppingList) -> Item? {
        names[name.lowercased()]?.found.flatMap { list.isVisible($0.id) ? list.rows[$0.id].map(list.shown) : nil }
    }

    /// The section `name` means, when it is not one of `list`'s own.
    fileprivate func sectionNamed(_ name: String, in list: ShoppingList) -> String? {
        sections[name]?.answer(in: list)
    }
}
