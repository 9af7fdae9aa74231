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

/// Where an added name goes, and why: the one placement rule of every surface
/// (`ShoppingList.placement`), said the same way everywhere ("under Bakery (usual for
/// tortillas)").
public struct Placement: Hashable, Sendable {
    public enum Reason: Hashable, Sendable {
        /// The section asked for.
        case asked
        /// Bought before (checked, then cleared): where it was last time.
        case lastTime
        /// On the list before but never bought: where it was then (the name as remembered).
        case before(String)
        /// The catalogue's section for it (the catalogue's name it matched).
        case catalogue(String)
        /// The section being added to (the editor's add prompt), the catalogue not knowing it.
        case adding
        /// Nothing better known: the default section.
        case unknown
    }

    public var section: String
    public var reason: Reason
    /// What the memory holds of the name, when it decided.
    public var recalled: RememberedItem?

    public init(section: String, reason: Reason, recalled: RememberedItem? = nil) {
        self.section = section
        self.reason = reason
        self.recalled = recalled
    }

    /// Why, in words ("usual for tortillas"); nil for a section asked for. `shown` shows a
    /// name from the list on the surface's terms (escaped).
    public func why(_ shown: (String) -> String = { $0 }) -> String? {
        switch reason {
        case .asked: nil
        case .lastTime: "as last time"
        case .before(let name): "where \(shown(name)) went before"
        case .catalogue(let name): "usual for \(name.lowercased())"
        case .adding: "the section you are adding to"
        case .unknown: "not in the catalogue"
        }
    }

    /// "under Bakery (usual for tortillas)".
    public func phrase(_ shown: (String) -> String = { $0 }) -> String {
        "under \(shown(section))" + (why(shown).map { " (\($0))" } ?? "")
    }

    /// True when the memory decided (the section, and the amount when none was given).
    public var isRemembered: Bool {
        switch reason {
        case .lastTime, .before: true
        default: false
        }
    }
}

extension ShoppingList {
    /// The placement rule, on every surface: a section asked for; else a name the list
    /// remembers goes where it was (a person's choice always wins: "as last time" when it was
    /// bought, never for a name only added); else the catalogue's section, as this list names
    /// it (`Catalogue.section(_:in:)`); else `fallbackSection` (the editor's add prompt), else
    /// `defaultSection`. A remembered name never bought that the catalogue would put in the
    /// same section is said to be placed by the catalogue: an add undone and made again is no
    /// "last time".
    public func placement(of name: String, section asked: String? = nil, fallbackSection: String? = nil,
                          remembering: Bool = true, catalogue: Catalogue = .builtIn) -> Placement {
        if let asked { return Placement(section: self.section(named: asked) ?? asked, reason: .asked) }
        let automatic: Placement
        if let match = catalogue.lookUp(name) {
            automatic = Placement(section: catalogue.section(match.section, in: self) ?? match.section, reason: .catalogue(match.name))
        } else if let fallbackSection {
            automatic = Placement(section: self.section(named: fallbackSection) ?? fallbackSection, reason: .adding)
        } else {
            automatic = Placement(section: Self.defaultSection, reason: .unknown)
        }
        guard remembering, let recalled = remembered(named: name, now: 0), !recalled.section.isEmpty else { return automatic }
        if recalled.timesBought > 0 { return Placement(section: recalled.section, reason: .lastTime, recalled: recalled) }
        if recalled.section.lowercased() == automatic.section.lowercased() {
            var same = automatic
            same.recalled = recalled
            return same
        }
        return Placement(section: recalled.section, reason: .before(recalled.name), recalled: recalled)
    }
}

/// What adding a name did (`ShoppingList.addEdit`).
public enum AddOutcome: Hashable, Sendable {
    /// A new item, in its section, placed by the placement rule (`placement` says where and
    /// why; from the memory, its amount too when none was given).
    case added(Item, placement: Placement)
    /// The name was on the list, checked: it is unchecked instead (and given the amount and
    /// optional flag asked for).
    case unchecked(Item)
    /// The name is on the list already, unchecked: nothing done.
    case alreadyOnList(Item)
}

extension ShoppingList {
    /// The one rule for adding items, on every surface: each name (in the order given) is
    /// added at the end of the section `placement` gives it (created if new) unless an item
    /// of that name (any case) is on the list, which is unchecked if checked, or left alone;
    /// `duplicate` adds it anyway. A remembered name also brings its usual amount when none
    /// is given (and its remembered spelling when typed all in lower case). Returns one edit
    /// (one undo step) and what became of each name.
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
            var placement = given.map { Placement(section: $0, reason: .asked) }
                ?? self.placement(of: typed, fallbackSection: fallbackSection, remembering: remembering)
            // A section added by an earlier name of this call is the one meant.
            if placement.reason != .asked, !sections.contains(placement.section),
               let made = newSections.first(where: { $0.lowercased() == placement.section.lowercased() }) {
                placement.section = made
            }
            let recalled = placement.recalled
            var name = typed
            if let recalled, typed == typed.lowercased(), ItemMemory.fold(typed) == recalled.folded { name = recalled.name }
            let target = placement.section
            let item = Item(id: makeID(), name: name, amount: amount ?? recalled?.amount ?? "", section: target,
                            optional: optional, sortOrder: order)
            order += 1024
            // A section is created only when an item goes into it.
            if !sections.contains(target), !newSections.contains(target) { newSections.append(target) }
            steps.append(.insert(item))
            outcomes.append(.added(item, placement: placement))
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
