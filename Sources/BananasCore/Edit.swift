/// An edit to the list. Applying one returns its inverse, so undo and redo are just more
/// edits (stamped anew when applied, so they merge like any other edit).
public indirect enum ListEdit: Hashable, Sendable {
    /// Adds a row, or brings back a deleted one; every field takes the edit's stamp.
    case insert(Item)
    /// Changes the given fields of a visible item.
    case update(id: String, changes: [ItemField: FieldValue])
    /// Deletes a visible item (a tombstone; the row is kept hidden).
    case delete(id: String)
    /// Replaces the ordered list of sections.
    case setSections([String])
    /// Several edits as one (one undo step).
    case batch([ListEdit])
}

public enum EditError: Error, Equatable, CustomStringConvertible {
    case noSuchItem(String)
    case itemExists(String)

    public var description: String {
        switch self {
        case .noSuchItem(let id): "no item with id \(id) on the list"
        case .itemExists(let id): "an item with id \(id) is already on the list"
        }
    }
}

extension ShoppingList {
    /// Applies `edit`, stamping every field it changes with `stamp`, and returns the edit
    /// that undoes it. `modifiedAt` is written to the changed rows' `lastModified`.
    /// A change to a value it already has is no change: no stamp, nothing in the inverse.
    @discardableResult
    public mutating func apply(_ edit: ListEdit, stamp: Stamp, modifiedAt: String? = nil) throws -> ListEdit {
        switch edit {
        case .insert(var item):
            if isVisible(item.id) { throw EditError.itemExists(item.id) }
            item.stamps = ItemStamps(all: stamp)
            item.lastModified = modifiedAt ?? item.lastModified
            rows[item.id] = item
            return .delete(id: item.id)

        case .update(let id, let changes):
            guard var item = item(id) else { throw EditError.noSuchItem(id) }
            var undo: [ItemField: FieldValue] = [:]
            for (field, value) in changes where item[field] != value {
                undo[field] = item[field]
                item[field] = value
                item.stamps[field] = stamp
            }
            if !undo.isEmpty {
                item.lastModified = modifiedAt ?? item.lastModified
                rows[id] = item
            }
            return .update(id: id, changes: undo)

        case .delete(let id):
            guard let item = item(id) else { throw EditError.noSuchItem(id) }
            tombstones[id] = max(tombstones[id] ?? .zero, stamp)
            return .insert(item)

        case .setSections(let newSections):
            let old = sections
            if old != newSections {
                sections = newSections
                sectionsStamp = stamp
            }
            return .setSections(old)

        case .batch(let edits):
            // All or nothing: a failing step leaves the list as it was.
            var copy = self
            var inverses: [ListEdit] = []
            for step in edits {
                inverses.append(try copy.apply(step, stamp: stamp, modifiedAt: modifiedAt))
            }
            self = copy
            return .batch(inverses.reversed())
        }
    }
}

extension ListEdit {
    /// True when applying this edit changes nothing (an update with no changes, an empty batch).
    public var isEmpty: Bool {
        switch self {
        case .update(_, let changes): changes.isEmpty
        case .batch(let edits): edits.allSatisfy(\.isEmpty)
        default: false
        }
    }
}
