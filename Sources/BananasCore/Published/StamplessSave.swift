/// Rule 5 of the merge contract: a whole-list save by a writer that keeps no stamps (the Get
/// Bananas app, its Node server, a hand edit) judged against the published history.
extension ShoppingList {
    /// What judging a save gives.
    public struct Judgment: Sendable {
        /// The save as its writer holds it, stamped: what the history publishes for it.
        public var held: ShoppingList
        /// The save merged into the list it was judged against.
        public var merged: ShoppingList
        /// The state it was judged against, if any.
        public var anchor: Int?
    }

    // Long because rule 5's judgment of a save, its steps in DESIGN's order (anchor, each field, each row), so it can be read against the contract in one place.
    /// `save` (a stampless save, or one that kept the mark of the bananas write it was made
    /// from), judged against `history` and merged into `head`, the list as this device now
    /// holds it (the base: the last state published here, with its deletes and records).
    ///
    /// - The anchor is the newest published state the save provably comes from
    ///   (`PublishedHistory.anchor`); without one, the save deletes nothing and each value
    ///   that differs is an edit that saw nothing.
    /// - Per field: the anchor's value or the current one is no edit; a value some state
    ///   published earlier, while a value newer than the anchor's is current, stays out and is
    ///   recorded for review; any other value is the writer's edit, stamped `stamp`, having
    ///   seen the anchor's. A field the writer does not write (`unwritten`) is never its edit.
    /// - Per row: a row the anchor showed that the save lacks is the writer's delete, having
    ///   seen the anchor's stamps. A row first published after the anchor stays.
    ///
    /// Pure: every device holding the same history and head judges the same save the same way.
    public static func judging(save: ShoppingList, hash: UInt64, stamp: Stamp, history: PublishedHistory, head: ShoppingList,
                               unwritten: (String, ItemField) -> Bool = { _, _ in false }) -> Judgment {
        let stampless = save.isStampless
        let anchorNumber = history.anchor(of: save, hash: hash)
        let anchor = anchorNumber.map(history.list(at:))
        var result = save
        var held: [String: Item] = [:]  // rows whose writer holds values other than the judged ones

        // Sections first: a stampless save's items name their sections by name.
        if stampless {
            var sections = anchor ?? head
            if anchor != nil {
                // A section the save lists by the name it bears now (renamed since the anchor;
                // the save came from a later state) is that section: its current name is no
                // edit. Its other fields stay as the anchor had them (what the writer saw).
                let listed = Set(save.sections)
                var entries = sections.sectionEntries
                for (key, entry) in entries where !listed.contains(entry.name) {
                    guard let now = head.sectionEntries[key], now.name != entry.name, listed.contains(now.name),
                          !entries.values.contains(where: { $0.name == now.name }) else { continue }
                    var named = entry
                    named.name = now.name
                    named.stamps[.name] = now.stamps[.name]
                    named.stamps.setSeen(.name, now.stamps.seen(.name))
                    entries[key] = named
                }
                if entries != sections.sectionEntries { sections.setSectionEntries(entries) }
            }
            for step in sections.sectionSteps(toShow: save.sections, stamp: stamp) {
                // Without an anchor nothing is known to have been seen: nothing is removed.
                if anchor == nil, case .updateSection(_, let changes, _) = step, changes[.removed] == .flag(true) { continue }
                _ = try? sections.apply(step, stamp: stamp)
            }
            var entries = sections.sectionEntries
            if let anchor {
                // A name new to the anchor whose key a section made here since holds (by another
                // name) is a section of its own: a twin, never that one renamed back.
                for (key, entry) in entries where anchor.sectionEntries[key] == nil {
                    guard let other = head.sectionEntries[key], other.name != entry.name else { continue }
                    var own = entry
                    own.key = entry.name + "@" + (stamp.compact ?? stamp.encoded)
                    entries[key] = nil
                    entries[own.key] = own
                }
            } else {
                // The save holds the sections it lists, no others (those stay, from `head`).
                let listed = Set(save.sections)
                entries = entries.filter { !$0.value.removed && listed.contains($0.value.name) }
                // Edits that saw nothing: concurrent with what they replace, which is recorded if it loses.
                for (key, entry) in entries {
                    for field in SectionField.allCases where entry.stamps[field] == stamp { entries[key]!.stamps.setSeen(field, []) }
                }
            }
            result.setSectionEntries(entries)
        }

        // Items are filed by name among the sections as they are here now (the names current
        // here, and the save's own new sections): an item filed under a name shows under that
        // name (rule 1), never under a section that bore it once and was renamed since.
        var filing = result
        if stampless { filing.setSectionEntries(result.sectionEntries.merging(head.sectionEntries) { _, current in current }) }

        // Unstamped values are a writer's edits only in a save (stampless, or marked by a write
        // published here); in any other file bananas wrote they are values never stamped.
        let judgesUnstamped = stampless || history.state(marked: save.writeMark) != nil
        // Rows the save itself hides (a file with deletes) are taken as they are.
        for row in save.rows.values where save.isVisible(row.id) {
            guard var judged = result.rows[row.id] else { continue }
            if stampless { judged.section = filing.sectionKey(filing: row.section, stamp: stamp) }
            let was = anchor?.rows[row.id]
            let now = head.isVisible(row.id) ? head.rows[row.id] : nil
            let current = head.rows[row.id]  // shown or hidden by a delete
            if was == nil, current == nil, history.publishedValues(row.id, .name).isEmpty, row.newestStamp.isZero {
                // A new row: its insert is the writer's edit of every field it did not stamp,
                // a position it did not write included (the one its place in the save gives):
                // a field left unstamped would be taken for a foreign edit by every device
                // that receives the row, each stamping it apart.
                for field in ItemField.allCases where row.stamps[field].isZero { judged.stamps[field] = stamp }
                result.rows[row.id] = judged
                continue
            }
            var reviewed: [ItemField: (value: FieldValue, stamp: Stamp)] = [:]
            for field in ItemField.allCases {
                let written = row.stamps[field]
                let value = judged[field]
                if written.isZero, !judgesUnstamped { continue }
                if !written.isZero {
                    // A stamp the file kept with the value it carries is no edit: as it is. Only
                    // a value changed under a kept stamp (the Get Bananas server) is judged.
                    guard let carrier = written == was?.stamps[field] ? was : written == current?.stamps[field] ? current : nil,
                          carrier[field] != value else { continue }
                }
                // A stampless save names an item's section; it is the value it saw when the name
                // is the one that section had then (keys may have changed hands by renames).
                func same(_ other: Item, in list: ShoppingList) -> Bool {
                    field == .section && stampless ? list.sectionName(other.section) == row.section : other[field] == value
                }
                if unwritten(row.id, field), let kept = current ?? was {
                    judged.set(field, from: kept)
                } else if let was, let anchor, same(was, in: anchor) {
                    judged.set(field, from: was)
                } else if let now, same(now, in: head) {
                    judged.set(field, from: now)
                } else if let current, now == nil || current.stamps[field] != was?.stamps[field],
                          history.publishedValues(row.id, field).contains(where: { $0.value == value }) {
                    // Set back, or never saw the newer value (or the delete): the current one
                    // stays, this one is kept for review.
                    let record = ConflictRecord(subject: .item(row.id, field), lost: value, lostStamp: stamp)
                    result.conflicts[record.key] = result.conflicts[record.key].map { $0.merged(with: record) } ?? record
                    reviewed[field] = (value, history.publishedValues(row.id, field).last { $0.value == value }?.stamp ?? stamp)
                    judged.set(field, from: current)
                } else {
                    judged[field] = value
                    judged.stamps[field] = stamp
                    // It saw the anchor's value; a stamp it kept says which value it saw.
                    judged.stamps.setSeen(field, was.map { [$0.stamps[field]] } ?? (written.isZero ? [] : [written]))
                }
            }
            if !reviewed.isEmpty {
                var holds = judged
                for (field, kept) in reviewed {
                    holds[field] = kept.value
                    holds.stamps[field] = kept.stamp
                }
                held[row.id] = holds
            }
            result.rows[row.id] = judged
        }

        if stampless {
            // Sections made while filing (a name of its own, unlisted).
            var entries = result.sectionEntries
            for (key, entry) in filing.sectionEntries where entries[key] == nil && head.sectionEntries[key] == nil { entries[key] = entry }
            if entries.count != result.sectionEntries.count { result.setSectionEntries(entries) }
        }
        if let anchor {
            for (id, known) in anchor.rows where result.rows[id] == nil {
                result.addTombstone(Tombstone(stamp: stamp, seen: known.stamps), for: id)
            }
        }
        var holds = result
        for (id, row) in held { holds.rows[id] = row }
        result.merge(head)
        return Judgment(held: holds, merged: result, anchor: anchorNumber)
    }
}

extension Item {
    /// `field` with `other`'s value, stamp and what that stamp superseded.
    mutating func set(_ field: ItemField, from other: Item) {
        self[field] = other[field]
        stamps[field] = other.stamps[field]
        stamps.setSeen(field, other.stamps.seen(field))
    }
}
