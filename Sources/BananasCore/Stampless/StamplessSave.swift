/// Rule 5 of the merge contract: a whole-list save by a writer that keeps no stamps (the Get
/// Bananas apps, their Node server, a hand edit) judged by the causal context it proves,
/// computed from the save and the list it replaces alone (docs/sync.md, "Saves without stamps").
extension ShoppingList {
    /// What judging a save gives.
    public struct Judgment: Sendable {
        /// The save's edits, stamped: its rows as judged, its deletes and the records it leaves.
        public var claims: ShoppingList
        /// `claims` merged into the list the save was judged against.
        public var merged: ShoppingList
        /// What the save proves its writer had seen.
        public var context: Knowledge
        /// The stamp of the save's edits.
        public var stamp: Stamp
        /// The rows the save deletes, each with its delete.
        public var deletes: [String: Tombstone]
        /// The rows the save lacks that it cannot be told to have seen, asked about once.
        public var asked: [String]
    }

    /// The causal context of `save` in `head`: every stamp the save kept (a writer that keeps
    /// the file's `sync`, such as the Node server), and, per replica, the newest stamp that
    /// created a row the save holds. A replica's writes are cumulative, so a save holding a row
    /// created at stamp s has seen every event of that replica up to s. Equal values prove
    /// nothing (two people check the same item); ids do.
    public static func context(of save: ShoppingList, in head: ShoppingList) -> Knowledge {
        var context = Knowledge()
        for row in save.rows.values {
            if !row.newestStamp.isZero {
                for field in ItemField.allCases {
                    context.add(row.stamps[field])
                    for stamp in row.stamps.seen(field) { context.add(stamp) }
                }
            }
            // A row a save held when it was new here proves nothing: it may have come from elsewhere.
            if let created = head.rows[row.id]?.stamps.created, !created.isSaveInsert { context.add(created) }
        }
        return context
    }

    // Long because rule 5's judgment of a save, its steps in DESIGN's order (context, sections, each field, each row), so it can be read against the contract in one place.
    /// `save`, judged against `head` (the list this device holds: the file the save replaced,
    /// with its deletes and records) and merged into it. Pure: the same save and head give the
    /// same edits and stamps on every device and in every process.
    ///
    /// - The save's edits are stamped from its bytes and time (`writtenAtNanos`, `hash`), past
    ///   every stamp of its context: an edit beats what its author saw.
    /// - Per field: a value equal to the current one is no edit. Where the current value's
    ///   stamp is inside the context, a different value is the writer's edit. Outside it, the
    ///   writer never saw the current value: the value it did see is no edit; an earlier value
    ///   is kept for review; any other is a concurrent edit (the greater stamp wins, the loser
    ///   is recorded). A field the writer does not write (`unwritten`) is never its edit.
    /// - Per row (`deletes`: the save is a whole list): a row the save lacks whose creation lies
    ///   inside the context is the writer's delete, having seen the context and the edits of
    ///   earlier stampless saves (rule 3: an unseen edit keeps it); one created after the save
    ///   was never seen and stays; any other stays and its omission is asked about, once.
    public static func judging(save: ShoppingList, writtenAtNanos: Int64?, hash: UInt64, head: ShoppingList, deletes: Bool,
                               unwritten: (String, ItemField) -> Bool = { _, _ in false }) -> Judgment {
        let context = context(of: save, in: head)
        let stamp = Stamp.foreignEdit(writtenAtNanos: writtenAtNanos, after: context.newestStamp, content: hash)
        let stampless = save.isStampless
        var result = save
        var recorded: [ConflictRecord] = []

        // Sections first: a stampless save's items name their sections by name.
        if stampless {
            let names = save.sections.map { head.sectionName(saved: $0, context: context, listed: save.sections) }
            var sections = head
            for step in head.sectionSteps(toShow: names, stamp: stamp) {
                guard case .updateSection(let key, var changes, let seen) = step, let entry = head.sectionEntries[key] else {
                    _ = try? sections.apply(step, stamp: stamp)
                    continue
                }
                // What the writer never saw, it did not change: a section renamed, moved, removed
                // or brought back since stays so (a save names sections only, with nothing to
                // tell its stale copy from an edit); one made since is not removed.
                for field in SectionField.allCases where !context.covers(entry.stamps[field]) { changes[field] = nil }
                if changes[.removed] == .flag(true), !entry.stamps.isCovered(by: context) { changes[.removed] = nil }
                if changes.isEmpty { continue }
                _ = try? sections.apply(.updateSection(key: key, changes: changes, seen: seen), stamp: stamp)
            }
            result.setSectionEntries(sections.sectionEntries)
        }

        for row in save.rows.values where save.isVisible(row.id) {
            guard var judged = result.rows[row.id] else { continue }
            if stampless {
                judged.section = result.sectionKey(filing: head.sectionName(saved: row.section, context: context, listed: save.sections), stamp: stamp)
            }
            guard let current = head.rows[row.id] else {
                if head.tombstone(for: row.id) != nil {
                    // A copy of a row deleted here and let go of: nothing shows an edit to it.
                    result.rows[row.id] = nil
                    continue
                }
                // A row new here: in a save, its insert is the writer's edit of every field it did
                // not stamp (a row another device made and this one has not seen yet is taken so
                // too: the save's values may be edits). A position it did not write stays
                // unstamped: any stamped one wins, and the row keeps its place.
                // Its insert carries a replica of its own: whether the save made the row or carried
                // it from elsewhere cannot be told here, so holding it proves only this insert seen.
                if deletes {
                    let insert = stamp.insertStamp
                    for field in ItemField.allCases where row.stamps[field].isZero && !unwritten(row.id, field) { judged.stamps[field] = insert }
                }
                result.rows[row.id] = judged
                continue
            }
            for field in ItemField.allCases {
                let value = judged[field]
                let kept = row.stamps[field]
                let now = current.stamps[field]
                if kept.isZero, unwritten(row.id, field) || value == current[field] {
                    judged.set(field, from: current)
                    continue
                }
                if !kept.isZero {
                    // A stamp kept with its value is no edit; a value changed under a kept stamp
                    // (the Node server) is the writer's edit, having seen that stamp.
                    if let carried = current.value(field, stampedAt: kept), carried != value, !unwritten(row.id, field) {
                        judged.stamps[field] = stamp
                        judged.stamps.setSeen(field, [kept])
                    }
                    continue
                }
                // In another device's bananas write, an unstamped value is one never stamped.
                if !deletes { continue }
                if context.covers(now) {
                    judged.stamps[field] = stamp
                    judged.stamps.setSeen(field, [now] + current.stamps.seen(field))
                    judged.setPriors(current.priors)
                    judged.remember(field, held: current[field], at: now)
                    continue
                }
                // The writer never saw the current value.
                let saw = current.stamps.seen(field).first(where: context.covers)
                let flag = if case .flag = value { true } else { false }
                if current.priors[field]?.values.contains(value) == true || flag && !current.stamps.seen(field).isEmpty {
                    // A value the field had before: the writer's stale copy, or its setting it
                    // back. The current value stays and this one is kept for review (once: a later
                    // save holding it again adds no second record).
                    if !head.awaitsReview(.item(row.id, field), lost: value) {
                        recorded.append(ConflictRecord(subject: .item(row.id, field), lost: value, lostStamp: stamp))
                    }
                    judged.set(field, from: current)
                } else {
                    // Concurrent with the current value: the merge keeps the greater stamp and
                    // records the loser.
                    judged.stamps[field] = stamp
                    judged.stamps.setSeen(field, saw.map { [$0] } ?? [])
                }
            }
            result.rows[row.id] = judged
        }

        var removed: [String: Tombstone] = [:]
        var asked: [String] = []
        if deletes {
            // The edits of earlier stampless saves do not hold a delete back: the app's devices
            // share one file, and a clear after a check on the phone is the common case.
            var seen = context
            let absent = head.rows.values.filter { head.isVisible($0.id) && save.rows[$0.id] == nil }
            for row in absent {
                for field in ItemField.allCases where row.stamps[field].isForeignEdit && row.stamps[field].millis < stamp.millis {
                    seen.add(row.stamps[field])
                }
            }
            for row in absent {
                let created = row.stamps.created
                if context.covers(created) && !created.isSaveInsert {
                    let tombstone = Tombstone(stamp: stamp, seen: seen)
                    result.addTombstone(tombstone, for: row.id)
                    removed[row.id] = tombstone
                } else if created.millis <= stamp.millis {
                    asked.append(row.id)
                    if !head.conflicts.keys.contains(where: { $0.subject == .missing(row.id) }) {
                        recorded.append(ConflictRecord.omission(of: row, lostStamp: stamp))
                    }
                }
            }
        }
        // A save that holds a row asked about answers the question: it stays.
        for (key, record) in head.conflicts where record.awaitsReview {
            guard case .missing(let id) = key.subject, save.rows[id] != nil else { continue }
            var answered = record
            answered.resolved = stamp
            answered.resolution = ConflictRecord.dismissed
            recorded.append(answered)
        }
        for record in recorded {
            result.conflicts[record.key] = result.conflicts[record.key].map { $0.merged(with: record) } ?? record
        }
        var merged = head
        merged.merge(result)
        return Judgment(claims: result, merged: merged, context: context, stamp: stamp, deletes: removed, asked: asked)
    }

    /// The section a saved name means here: the name, or, when no section bears it now, the
    /// section that was created with it and renamed since the writer saw it (unless the save
    /// also lists that section's current name: then the name is another section).
    func sectionName(saved name: String, context: Knowledge, listed: [String]) -> String {
        if sections.contains(name) { return name }
        guard let entry = sectionEntries[name], !entry.removed, entry.name != name, !context.covers(entry.stamps[.name]),
              !listed.contains(entry.name) else { return name }
        return entry.name
    }
}

extension StampTable {
    /// True when every stamp of the record, and its creation, is one the context has seen.
    func isCovered(by context: Knowledge) -> Bool {
        Field.allCases.allSatisfy { context.covers(self[$0]) } && context.covers(created)
    }
}

extension ShoppingList {
    /// True when a record of `lost` for `subject` awaits review.
    func awaitsReview(_ subject: ConflictRecord.Subject, lost: FieldValue) -> Bool {
        conflicts.values.contains { $0.subject == subject && $0.lost == lost && $0.awaitsReview }
    }
}

extension Stamp {
    /// Made by a bananas instance for a change in a save that keeps no stamps (`foreignEdit`),
    /// or for a row such a save held that was new here (`insertStamp`).
    public var isForeignEdit: Bool {
        let first = replica.utf8.first
        return (first == UInt8(ascii: "f") || first == UInt8(ascii: "g")) && replica.utf8.count == 17
    }

    /// The stamp of the insert of a row new here that a save held: this stamp's time, a replica
    /// of its own (`g` and the content hash).
    var insertStamp: Stamp { Stamp(millis: millis, counter: counter, replica: "g" + replica.dropFirst()) }

    /// An `insertStamp`.
    var isSaveInsert: Bool { replica.utf8.first == UInt8(ascii: "g") && replica.utf8.count == 17 }
}

extension Item {
    /// `field` with `other`'s value, stamp and what that stamp superseded.
    mutating func set(_ field: ItemField, from other: Item) {
        self[field] = other[field]
        stamps[field] = other.stamps[field]
        stamps.setSeen(field, other.stamps.seen(field))
        if !other.priors.isEmpty || !priors.isEmpty { setPriors(Item.mergedPriors(self, other)) }
    }
}
