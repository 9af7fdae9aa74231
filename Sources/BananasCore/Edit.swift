/// An edit to the list. Applying one returns its inverse, so undo and redo are just more
/// edits (stamped anew when applied, so they merge like any other edit).
public indirect enum ListEdit: Hashable, Sendable {
    /// Adds a row, or brings back a deleted one; every field takes the edit's stamp.
    case insert(Item)
    /// Changes the given fields of a visible item. `seen` names, for fields whose value the
    /// author saw in a prompt opened earlier, the stamp of that value: a value that changed
    /// since is overwritten knowingly, and recorded as a conflict for review (rule 7).
    case update(id: String, changes: [ItemField: FieldValue], seen: [ItemField: Stamp] = [:])
    /// Undo of an update: sets the fields back only if each still holds the value the undone
    /// edit wrote, by stamp (`expecting`), never by equal text; otherwise changes nothing and
    /// throws `EditError.changedSince` (rule 7). `restoring` names the stamps the values it
    /// sets back had: once it is applied, the new stamps stand for those in the steps before
    /// it (`EditHistory`), so undoing further back still compares stamps.
    case revert(id: String, changes: [ItemField: FieldValue], expecting: [ItemField: Stamp], restoring: [ItemField: Stamp] = [:])
    /// Deletes a visible item (a tombstone that remembers what it saw; the row is kept hidden).
    case delete(id: String)
    /// Undo of a delete: brings the item back as it was deleted only if no field changed since
    /// (`expecting` the stamps the delete saw, by stamp); otherwise throws
    /// `EditError.changedSince` (rule 7).
    case undelete(Item, expecting: ItemStamps)
    /// Undo of an insert: deletes the item only if no field changed since (`expecting` its
    /// stamps); otherwise throws `EditError.changedSince`.
    case retract(id: String, expecting: ItemStamps)
    /// Makes the sections not removed these names, in this order: new names are added, names
    /// left out are removed, the others keep their identity and move as little as it takes.
    case setSections([String])
    /// Changes fields of one section (by key): a rename, a move, a removal. Items are untouched.
    /// `seen` as `update`'s: a prompt's rename records a name given meanwhile (rule 7).
    case updateSection(key: String, changes: [SectionField: FieldValue], seen: [SectionField: Stamp] = [:])
    /// Undo of a section update: as `revert`, for the fields of section `key` (a rename, a
    /// move, a removal, an addition): only if each still holds, by stamp, what the undone edit
    /// wrote; otherwise `EditError.changedSince`, and nothing changes (rule 7).
    case revertSection(key: String, changes: [SectionField: FieldValue], expecting: [SectionField: Stamp], restoring: [SectionField: Stamp] = [:])
    /// Marks a conflict record reviewed ("restored" or "dismissed").
    case review(ConflictRecord.Key, resolution: String)
    /// Forgets a remembered name (case aside), or every name (nil): what was known of it is
    /// not remembered, and items on the list stay. Not undone (its inverse is empty).
    case forget(String?)
    /// Several edits as one (one undo step).
    case batch([ListEdit])
}

public enum EditError: Error, Equatable, CustomStringConvertible {
    case noSuchItem(String)
    case itemExists(String)
    /// Undo met a value written since by someone else: nothing was changed.
    case changedSince(id: String, field: String)
    case noSuchConflict
    case notRemembered(String)

    public var description: String {
        switch self {
        case .noSuchItem(let id): "no item with id \(id) on the list"
        case .itemExists(let id): "an item with id \(id) is already on the list"
        case .changedSince(_, let field): "its \(field) was changed since by another edit, which undo does not overwrite"
        case .noSuchConflict: "no such conflict"
        case .notRemembered(let name): "\(name) is not remembered"
        }
    }
}

extension ShoppingList {
    // Long because one case per kind of edit, each the few lines of that edit's rule; the cases read together are the list of what an edit can do.
    /// Applies `edit` with the clock's `stamp` and returns the edit that undoes it. Every field
    /// it changes is stamped `Stamp.edit(stamp, replacing:)` the value's stamp, so the edit
    /// beats the value its author saw whatever the clocks say (rule 1). `modifiedAt` is
    /// written to the changed rows' `lastModified`. A change to a value it already has is no
    /// change: no stamp, nothing in the inverse.
    @discardableResult
    public mutating func apply(_ edit: ListEdit, stamp: Stamp, modifiedAt: String? = nil) throws -> ListEdit {
        switch edit {
        case .insert(let given):
            if isVisible(given.id) { throw EditError.itemExists(given.id) }
            var item = given
            item.section = sectionKey(filing: given.section, stamp: stamp)
            let hidden = rows[given.id]
            // Past what a delete of this id saw of our replica: an edit it had not seen.
            let ceiling = tombstone(for: given.id)?.seen.ceiling(for: stamp.replica) ?? .zero
            var stamps = hidden?.stamps ?? ItemStamps()
            for field in ItemField.allCases {
                let replaced = max(hidden?.stamps[field] ?? .zero, ceiling)
                stamps.supersede(field, with: Stamp.edit(stamp, replacing: replaced))
                if hidden == nil { stamps.setSeen(field, []) }
            }
            item.stamps = stamps
            item.lastModified = modifiedAt ?? item.lastModified
            rows[item.id] = item
            return .retract(id: item.id, expecting: stamps)

        case .update(let id, let changes, let seen):
            guard isVisible(id), var item = rows[id] else { throw EditError.noSuchItem(id) }
            var undo: [ItemField: FieldValue] = [:]
            var wrote: [ItemField: Stamp] = [:]
            var replaced: [ItemField: Stamp] = [:]
            for (field, given) in changes.sorted(by: { $0.key < $1.key }) {
                let value = field == .section ? .text(sectionKey(filing: given.text, stamp: stamp)) : given
                guard item[field] != value else { continue }
                let fieldStamp = Stamp.edit(stamp, replacing: item.stamps[field])
                let current = item.stamps[field]
                let overwritten = item[field]  // a section as its key, as every record holds it
                undo[field] = shown(item)[field]
                item[field] = value
                item.stamps.supersede(field, with: fieldStamp)
                if let saw = seen[field], saw != current, !current.isZero {
                    // The author saw an older value: the one overwritten was not replaced
                    // knowingly, so it stays out of the history and goes to review.
                    item.stamps.setSeen(field, [saw] + item.stamps.seen(field).filter { $0 != current })
                    let record = ConflictRecord(subject: .item(id, field), lost: overwritten, lostStamp: current)
                    conflicts[record.key] = conflicts[record.key].map { $0.merged(with: record) } ?? record
                }
                wrote[field] = fieldStamp
                replaced[field] = current
            }
            if !undo.isEmpty {
                item.lastModified = modifiedAt ?? item.lastModified
                rows[id] = item
                // The value the author saw is in the history now: a record of it is dropped,
                // as a merge would find (merging the list with itself changes nothing).
                if !seen.isEmpty, !conflicts.isEmpty { dropConflictsSeenSince() }
            }
            return .revert(id: id, changes: undo, expecting: wrote, restoring: replaced)

        case .revert(let id, let changes, let expecting, _):
            guard let item = rows[id], isVisible(id) else { throw EditError.noSuchItem(id) }
            for field in changes.keys.sorted() where item.stamps[field] != expecting[field] {
                throw EditError.changedSince(id: id, field: field.rawValue)
            }
            return try apply(.update(id: id, changes: changes), stamp: stamp, modifiedAt: modifiedAt)

        case .delete(let id):
            guard isVisible(id), let row = rows[id] else { throw EditError.noSuchItem(id) }
            // What its author saw: the row, and the values recorded as lost to it.
            var seen = Knowledge(of: row.stamps)
            for key in conflicts.keys { if case .item(id, _) = key.subject { seen.add(key.lostStamp) } }
            let tombstone = Tombstone(stamp: Stamp.edit(stamp, replacing: row.stamps.newest), seen: seen)
            addTombstone(tombstone, for: id)
            return .undelete(shown(row), expecting: row.stamps)

        case .undelete(let item, let expecting):
            if isVisible(item.id) { throw EditError.itemExists(item.id) }
            if let row = rows[item.id] {
                for field in ItemField.allCases where row.stamps[field] != expecting[field] {
                    throw EditError.changedSince(id: item.id, field: field.rawValue)
                }
            }
            return try apply(.insert(item), stamp: stamp, modifiedAt: modifiedAt)

        case .retract(let id, let expecting):
            guard let row = rows[id], isVisible(id) else { throw EditError.noSuchItem(id) }
            for field in ItemField.allCases where row.stamps[field] != expecting[field] {
                throw EditError.changedSince(id: id, field: field.rawValue)
            }
            return try apply(.delete(id: id), stamp: stamp, modifiedAt: modifiedAt)

        case .setSections(let names):
            guard sections != names else { return .batch([]) }
            // Undone section by section, by stamp: setting the old names back by name would
            // undo a rename another writer made meanwhile (rule 7).
            var inverses: [ListEdit] = []
            for step in sectionSteps(toShow: names, stamp: stamp) {
                inverses.append(try apply(step, stamp: stamp, modifiedAt: modifiedAt))
            }
            return .batch(inverses.reversed())

        case .updateSection(let key, let changes, let seen):
            let existing = sectionEntries[key]
            // A new section given its position needs no look at every other section's.
            let placed: Double? = if case .order(let position)? = changes[.position] { position } else { nil }
            var entry = existing ?? SectionEntry(key: key, position: placed ?? nextSectionPosition)
            var undo: [SectionField: FieldValue] = [:]
            var replaced: [SectionField: Stamp] = [:]
            for (field, value) in changes.sorted(by: { $0.key.stampIndex < $1.key.stampIndex }) where entry[field] != value {
                let current = entry.stamps[field]
                undo[field] = entry[field]
                replaced[field] = current
                entry[field] = value
                entry.stamps.supersede(field, with: Stamp.edit(stamp, replacing: current))
                if let saw = seen[field], saw != current, !current.isZero {
                    // As an item prompt's: the value overwritten was not seen; it goes to review.
                    entry.stamps.setSeen(field, [saw] + entry.stamps.seen(field).filter { $0 != current })
                    let record = ConflictRecord(subject: .section(key, field), lost: undo[field]!, lostStamp: current)
                    conflicts[record.key] = conflicts[record.key].map { $0.merged(with: record) } ?? record
                }
            }
            if existing == nil {
                // A new section: every field is this edit's (a later edit of one beats it).
                for field in SectionField.allCases where entry.stamps[field].isZero { entry.stamps[field] = stamp }
                undo = [.removed: .flag(true)]
                replaced = [:]
            }
            if sectionEntries[key] != entry { sectionEntries[key] = entry }
            if !seen.isEmpty, !conflicts.isEmpty { dropConflictsSeenSince() }
            let wrote = Dictionary(uniqueKeysWithValues: undo.keys.map { ($0, entry.stamps[$0]) })
            return .revertSection(key: key, changes: undo, expecting: wrote, restoring: replaced)

        case .revertSection(let key, let changes, let expecting, _):
            guard let entry = sectionEntries[key] else { throw EditError.noSuchItem(key) }
            for field in changes.keys.sorted(by: { $0.stampIndex < $1.stampIndex }) where entry.stamps[field] != expecting[field] {
                throw EditError.changedSince(id: key, field: "section " + field.rawValue)
            }
            return try apply(.updateSection(key: key, changes: changes), stamp: stamp, modifiedAt: modifiedAt)

        case .review(let key, let resolution):
            // No record: the key may be a fold's newest value (ConflictBound.swift).
            guard var record = conflicts[key] else { return try reviewFold(key, resolution: resolution, stamp: stamp) }
            let previous = (record.resolved, record.resolution)
            record.resolved = Stamp.edit(stamp, replacing: max(record.resolved, record.lostStamp))
            record.resolution = resolution
            conflicts[key] = record
            return previous.0.isZero ? .review(key, resolution: "") : .review(key, resolution: previous.1)

        case .forget(let name):
            let folded = name.map(ItemMemory.fold)
            if let folded, let name, remembered(named: name, now: stamp.millis) == nil, memory.entries[folded] == nil {
                throw EditError.notRemembered(name)
            }
            let forget = Stamp.edit(stamp, replacing: newestRemembered(folded))
            if let folded { memory.forgotten[folded] = forget } else { memory.cleared = forget }
            memory.dropForgotten()
            return .batch([])

        case .batch:
            // All or nothing: a failing step leaves the list as it was. One copy of the list,
            // however deep batches nest (a copy is a copy of every row).
            var copy = self
            let inverse = try copy.applyInPlace(edit, stamp: stamp, modifiedAt: modifiedAt)
            copy.shareKnowledge(ofDeletes: edit.deletedIDs, before: self)
            self = copy
            return inverse
        }
    }

    /// The rows one edit deleted were deleted by one author who saw them all: each delete
    /// records what all of them saw, so they share one `Knowledge` (written once in the file).
    private mutating func shareKnowledge(ofDeletes ids: [String], before: ShoppingList) {
        guard ids.count > 1 else { return }
        let keys = Set(ids.map(Tombstone.key(for:))).filter { tombstones[$0] != before.tombstones[$0] }
        var shared = Knowledge()
        for key in keys { shared.formUnion(tombstones[key]!.seen) }
        for key in keys { tombstones[key]!.seen = shared }
    }

    /// `apply`, a batch's steps (and theirs) applied in place: a failing step leaves the steps
    /// before it applied.
    private mutating func applyInPlace(_ edit: ListEdit, stamp: Stamp, modifiedAt: String?) throws -> ListEdit {
        guard case .batch(let edits) = edit else { return try apply(edit, stamp: stamp, modifiedAt: modifiedAt) }
        var inverses: [ListEdit] = []
        for step in edits {
            inverses.append(try applyInPlace(step, stamp: stamp, modifiedAt: modifiedAt))
        }
        return .batch(inverses.reversed())
    }

    /// `apply` without its all-or-nothing copy: a batch's steps are applied one by one, in
    /// place, and a step that throws leaves the steps before it applied. For a scratch copy
    /// that is made again on failure: the copy `apply` makes of a batch's list is a copy of
    /// every row.
    public mutating func applyStepByStep(_ edit: ListEdit, stamp: Stamp) throws {
        _ = try applyInPlace(edit, stamp: stamp, modifiedAt: nil)
    }

    /// A position after every section.
    var nextSectionPosition: Double {
        (sectionEntries.values.map(\.position).max() ?? 0).rounded(.down) + 1024
    }

    /// The section edits that make the sections shown `names`, in order: known names keep
    /// their section (a removed one comes back), new names get a section keyed by the name
    /// (or by the name and the stamp when a renamed section holds that key), the ones left
    /// out are removed, and only sections out of order move (the others keep their
    /// positions, so a concurrent move of another section survives).
    func sectionSteps(toShow names: [String], stamp: Stamp) -> [ListEdit] {
        var steps: [ListEdit] = []
        var keys: [String] = []
        var taken = Set<String>()
        for name in names {
            let key = sectionKey(named: name)
            var chosen = key
            if let entry = sectionEntries[key], entry.name != name || taken.contains(key) {
                chosen = name + "@" + (stamp.compact ?? stamp.encoded)
            }
            taken.insert(chosen)
            keys.append(chosen)
        }
        for (key, entry) in sectionEntries where !entry.removed && !taken.contains(key) {
            steps.append(.updateSection(key: key, changes: [.removed: .flag(true)]))
        }
        // Keep the positions of the longest run already in order; place the others between.
        let current = keys.map { sectionEntries[$0].flatMap { $0.removed ? nil : $0.position } }
        let keep = Set(Self.longestIncreasingRun(current))
        // The next kept index after each index, found in one pass from the end.
        var nextKept = [Int?](repeating: nil, count: keys.count + 1)
        for index in keys.indices.reversed() { nextKept[index] = keep.contains(index) ? index : nextKept[index + 1] }
        var previous = -Double.greatestFiniteMagnitude
        for (index, key) in keys.enumerated() {
            var changes: [SectionField: FieldValue] = [:]
            if let entry = sectionEntries[key] {
                if entry.removed { changes[.removed] = .flag(false) }
                if entry.name != names[index] { changes[.name] = .text(names[index]) }
            } else {
                changes[.name] = .text(names[index])
            }
            var position = current[index] ?? previous
            if !keep.contains(index) {
                let next = nextKept[index + 1].flatMap { current[$0] }
                position = switch (previous == -Double.greatestFiniteMagnitude ? nil : previous, next) {
                case (nil, nil): 1024
                case (let p?, nil): p.rounded(.down) + 1024
                case (nil, let n?): n - 1024
                case (let p?, let n?): (p + n) / 2
                }
                changes[.position] = .order(position)
            }
            previous = position
            if !changes.isEmpty || sectionEntries[key] == nil { steps.append(.updateSection(key: key, changes: changes)) }
        }
        return steps
    }

    /// The indices of a longest strictly increasing run of the known values (nil: unknown).
    /// In n log n (patience sorting): a list of 2,000 sections made n² chains.
    static func longestIncreasingRun(_ values: [Double?]) -> [Int] {
        // ends[k]: the index ending the run of length k + 1 whose last value is the least.
        var ends: [Int] = []
        var before = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            guard let value else { continue }
            var low = 0, high = ends.count
            while low < high {
                let middle = (low + high) / 2
                if values[ends[middle]]! < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { before[index] = ends[low - 1] }
            if low == ends.count { ends.append(index) } else { ends[low] = index }
        }
        var run: [Int] = []
        var at = ends.last ?? -1
        while at >= 0 {
            run.append(at)
            at = before[at]
        }
        return run.reversed()
    }
}

extension FieldValue {
    /// The text of a text value ("" otherwise).
    var text: String {
        if case .text(let text) = self { return text }
        return ""
    }
}

extension ListEdit {
    /// True when applying this edit changes nothing (an update with no changes, an empty batch).
    public var isEmpty: Bool {
        switch self {
        case .update(_, let changes, _), .revert(_, let changes, _, _): changes.isEmpty
        case .updateSection(_, let changes, _), .revertSection(_, let changes, _, _): changes.isEmpty
        case .batch(let edits): edits.allSatisfy(\.isEmpty)
        default: false
        }
    }
}

extension ListEdit {
    /// The ids this edit deletes (its batch's steps too).
    var deletedIDs: [String] {
        switch self {
        case .delete(let id), .retract(let id, _): [id]
        case .batch(let edits): edits.flatMap(\.deletedIDs)
        default: []
        }
    }
}
