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
