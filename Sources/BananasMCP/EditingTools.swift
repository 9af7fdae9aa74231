import BananasCore
import BananasFile
import BananasSync
import MCP

/// The shape every mutating tool shares: check, take the entries one by one against a scratch
/// copy (so later entries see earlier ones), answer each entry on its own, and apply everything
/// that worked as one edit in the store (one undo step, one write). Then wait (briefly) for the
/// file, so the answer can say honestly whether the change is in it.
@MainActor
enum Batch {
    /// Stamps a scratch copy's edits so later entries of a batch see earlier ones (newer than
    /// any real stamp; the real edit gets a real stamp from the store).
    static let scratch = Stamp(millis: 9_999_999_999_999_999, counter: 0, replica: "scratch")

    /// How long an answer waits for the file write that follows an edit. The store waits up
    /// to a second for a lock held by another writer before it calls the list paused.
    static let flushWaitMillis = 1_500

    /// What one entry did: the edits it makes (none for `already_on_list` and the like or an
    /// error) and what the agent is told about it.
    struct Entry {
        var edits: [ListEdit] = []
        var fields: [String: Value]
        var line: String
        var failed = false
        /// Names this entry puts on the list on the ground that no other item bears them (an
        /// add, a rename), lowercased, with the item allowed to bear it (a rename's own): checked
        /// again against the file under its lock, so two writers cannot both add "Tea".
        var claims: [(name: String, except: String?)] = []
    }

    /// How often a batch is planned again when another writer took one of its names between
    /// the plan and the lock.
    static let attempts = 5

    /// Refuses when the list cannot take edits (its content stops writing).
    static func precheck(_ store: ListStore) -> CallTool.Result? {
        if let paused = store.status.pausedBy, paused.isContentProblem {
            return failure("""
                The list is paused (\(paused.pausedReason)): \(TextRules.escaped(paused.description)). Nothing was changed: \
                an edit could not be written until someone fixes or replaces the file. Reading it \
                still works.
                """)
        }
        return nil
    }

    /// With `expected_revision`: when this instance's list is not at that revision, the file
    /// may be ahead of it or behind: the file is read under the lock and taken in. A stale
    /// revision is answered (nil when the list is at `expected` now).
    static func confirm(_ store: ListStore, _ expected: String?) async -> CallTool.Result? {
        if let expected, !Revision.isWellFormed(expected) {
            // Answered as stale, it would read as a revision this list once had.
            return failure("expected_revision \"\(TextRules.escaped(String(expected.prefix(80))))\" is not a revision: pass the `revision` that get_shopping_list (or an edit's answer) gave, 1 to 16 hex digits. Nothing was changed.")
        }
        guard let expected, ListSnapshot.of(store).revision != expected else { return nil }
        do {
            switch try await store.perform(nil, label: "check", if: { Revision.of($0) == expected }) {
            case .refused: return stale(store, expected: expected)
            case .done: return ListSnapshot.of(store).revision == expected ? nil : stale(store, expected: expected)
            }
        } catch {
            return uncheckable(error)
        }
    }

    static func uncheckable(_ error: any Error) -> CallTool.Result {
        failure("Nothing was changed: expected_revision could not be checked against the list file (\(describe(error))). Retry in a moment, or leave out expected_revision to have the edit saved and written when the file can be.")
    }

    /// The answer to a stale `expected_revision`: nothing changed, the current revision, and
    /// what changed since the agent's (when this server showed that revision).
    static func stale(_ store: ListStore, expected: String) -> CallTool.Result {
        let snapshot = ListSnapshot.of(store)
        let changes = ListChanges(from: ListSnapshot.History.list(at: expected), to: snapshot.list)
        var text = "The list changed since revision \(TextRules.escaped(expected)); it is now at revision \(snapshot.revision). Nothing was changed."
        text += "\n" + changes.text
        text += "\nCheck that the edit still makes sense (call get_shopping_list again for more), then retry with expected_revision \(snapshot.revision)."
        var structured: [String: Value] = [
            "results": .array([]), "revision": .string(snapshot.revision), "written": .bool(false),
            "stale": .bool(true), "changed_since": changes.value,
        ]
        if let paused = store.status.pausedBy { structured["paused"] = .string(paused.pausedReason) }
        return .init(content: [.text(text: text, annotations: nil, _meta: nil)],
                     structuredContent: Optional<Value>.some(.object(structured)), isError: true)
    }

    nonisolated static func failure(_ text: String) -> CallTool.Result {
        .init(content: [.text(text: text, annotations: nil, _meta: nil)], isError: true)
    }

    /// Plans the batch against the list as this server has it, entry by entry, and makes it one
    /// edit. When entries claim names (`Entry.claims`), the claims are checked again under the
    /// file's lock; if another writer took a name meanwhile, the store has taken in the file and
    /// the batch is planned again (`begin` resets what `each` keeps between entries).
    static func run(
        _ store: ListStore, _ arguments: [String: Value], key: String, label: String, usage: String,
        begin: () -> Void = {},
        _ each: (_ index: Int, _ entry: [String: Value], _ working: ShoppingList) throws -> Entry,
        failed: (_ index: Int, _ entry: [String: Value], _ error: any Error) -> Entry
    ) async -> CallTool.Result {
        if let refused = precheck(store) { return refused }
        guard let entries = arguments[key]?.arrayValue?.compactMap(\.objectValue), !entries.isEmpty else { return failure(usage) }
        let expected = arguments["expected_revision"]?.stringValue
        if let answer = await confirm(store, expected) { return answer }
        for _ in 0..<attempts {
            begin()
            let (steps, done) = plan(store, entries, each, failed: failed)
            let claims = done.flatMap(\.claims)
            if let answer = await finish(store, label: label, steps: steps, entries: done, empty: "Nothing to do.", expected: expected,
                                         claims: claims) {
                return answer
            }
        }
        return failure("Nothing was changed: other writers kept adding the names of this batch while it was being made (\(attempts) tries). Read the list again and retry.")
    }

    static func plan(
        _ store: ListStore, _ entries: [[String: Value]],
        _ each: (_ index: Int, _ entry: [String: Value], _ working: ShoppingList) throws -> Entry,
        failed: (_ index: Int, _ entry: [String: Value], _ error: any Error) -> Entry
    ) -> (steps: [ListEdit], entries: [Entry]) {
        var working = store.list
        var steps: [ListEdit] = []
        var done: [Entry] = []
        for (index, entry) in entries.enumerated() {
            do {
                let outcome = try each(index, entry, working)
                if !outcome.edits.isEmpty {
                    // Step by step (all or nothing copied every row for each entry); after a
                    // step that fails, the scratch copy is made again.
                    do {
                        for edit in outcome.edits { try working.applyStepByStep(edit, stamp: scratch) }
                    } catch {
                        working = store.list
                        try working.apply(.batch(steps), stamp: scratch)
                        throw error
                    }
                    steps += outcome.edits
                }
                done.append(outcome)
            } catch {
                done.append(failed(index, entry, error))
            }
        }
        return (steps, done)
    }

    /// Whether no item of `list` bears a claimed name, but the one each claim allows.
    nonisolated static func claimsHold(_ claims: [String: String?], in list: ShoppingList) -> Bool {
        guard !claims.isEmpty else { return true }
        for item in list.items {
            if let allowed = claims[item.name.lowercased()], allowed != item.id { return false }
        }
        return true
    }

    /// Applies `steps` as one edit, waits for the file, and answers. With `expected`, the edit
    /// is made only if the file, read under its lock, is still at that revision; with `claims`,
    /// only if no other item bears a claimed name there (nil: one did; plan again).
    static func finish(
        _ store: ListStore, label: String, steps: [ListEdit], entries: [Entry], empty: String, expected: String? = nil,
        claims: [(name: String, except: String?)] = []
    ) async -> CallTool.Result? {
        var changed = false
        if !steps.isEmpty {
            let wasPaused = store.status.pausedBy != nil
            // While the file cannot be written (a lock held elsewhere, a full disk), claims are
            // judged against what this server knows, and the edit waits in the journal as any
            // other: an add is never refused for want of the lock.
            let claimed = expected == nil && wasPaused ? [:] : Dictionary(claims.map { ($0.name, $0.except) }, uniquingKeysWith: { first, _ in first })
            do {
                if expected != nil || !claimed.isEmpty {
                    switch try await store.perform(.batch(steps), label: label, if: { list in
                        (expected == nil || Revision.of(list) == expected) && claimsHold(claimed, in: list)
                    }) {
                    case .refused:
                        if let expected, ListSnapshot.of(store).revision != expected { return stale(store, expected: expected) }
                        return nil
                    case .done(let did): changed = did
                    }
                } else {
                    changed = try store.perform(.batch(steps), label: label)
                }
            } catch where expected == nil && !claimed.isEmpty && error is ListFileError {
                // The lock could not be had now: as while paused, the edit is kept and written later.
                do { changed = try store.perform(.batch(steps), label: label) } catch { return failure("Nothing was changed: \(describe(error))") }
            } catch {
                return expected != nil && error is ListFileError ? uncheckable(error) : failure("Nothing was changed: \(describe(error))")
            }
            if changed && !wasPaused { await waitForFile(store) }
        }
        let written = store.status.pendingCount == 0
        let bounded = bounded(entries)
        var summary = bounded.text
        if summary.isEmpty { summary = empty }
        var structured: [String: Value] = [
            "results": .array(bounded.results),
            "revision": .string(ListSnapshot.of(store).revision),
            "written": .bool(written),
        ]
        if bounded.omitted > 0 { structured["omitted_results"] = .int(bounded.omitted) }
        if !written, store.unsaved > 0, let journal = store.status.journalProblem {
            // Neither in the file nor in a journal: an acknowledgement would be a lie.
            structured["saved"] = .bool(false)
            if let paused = store.status.pausedBy { structured["paused"] = .string(paused.pausedReason) }
            summary += "\nNOT saved: the list file could not be written"
                + (store.status.pausedBy.map { " (\(TextRules.escaped($0.description)))" } ?? " yet")
                + " and this machine's journal cannot keep the edit (\(TextRules.escaped(journal.description))). It is held only by this server: "
                + "it is written if the cause clears while the server runs, and lost if the server stops first."
        } else if let paused = store.status.pausedBy {
            structured["paused"] = .string(paused.pausedReason)
            summary += "\nSaved, but not in the list file yet: the list is paused (\(paused.pausedReason)): \(TextRules.escaped(paused.description)). It will be written when this clears; nothing needs to be repeated."
        } else if changed && !written {
            summary += "\nSaved; the list file is still being written."
        } else if changed {
            summary += "\nWritten to the list file."
        }
        return .init(
            content: [.text(text: summary, annotations: nil, _meta: nil)],
            structuredContent: Optional<Value>.some(.object(structured)),
            isError: !entries.isEmpty && entries.allSatisfy(\.failed))
    }

    /// The entries as the answer gives them, within `AnswerBudget.characters`: in full (text
    /// line, candidates) up to `AnswerBudget.fullEntries`, then short (the item's name clipped,
    /// the error's first clause, no candidates; the text counts them), then as little as says
    /// what became of the entry (its number, name clipped, status, id). Room for the least of
    /// every entry is kept from the start, so a batch (500 entries at most) is answered entry
    /// by entry whatever its names: 500 misspelled names fit. Past even that (`clear_checked`
    /// of thousands of items) the entries left are counted, and the text says which they are.
    static func bounded(_ entries: [Entry]) -> (results: [Value], text: String, omitted: Int) {
        var results: [Value] = []
        var lines: [String] = []
        var used = 0
        var short: [String: Int] = [:]
        var omitted: [String: Int] = [:]
        var firstOmitted: Int?
        let leastValues = entries.map(leastOf)
        let leastSizes = leastValues.map { AnswerBudget.size($0) + 1 }
        // What the least of the entries after each one takes.
        var after = Array(repeating: 0, count: entries.count + 1)
        for index in entries.indices.reversed() { after[index] = min(after[index + 1] + leastSizes[index], AnswerBudget.characters) }
        for (index, entry) in entries.enumerated() {
            let status = entry.fields["status"]?.stringValue ?? "?"
            let rest = after[index + 1]
            let full = Value.object(entry.fields)
            let fullSize = AnswerBudget.size(full) + entry.line.utf8.count + 1
            if used + fullSize <= AnswerBudget.fullEntries, used + fullSize + rest <= AnswerBudget.characters {
                used += fullSize
                results.append(full)
                lines.append(entry.line)
                continue
            }
            var fields = entry.fields
            for key in ["candidates", "close_matches", "suggestions", "previous"] { fields[key] = nil }
            for key in ["item", "section"] { if let text = fields[key]?.stringValue { fields[key] = .string(AnswerBudget.clipped(text)) } }
            if let error = fields["error"]?.stringValue {
                fields["error"] = .string(AnswerBudget.clipped(String(error.prefix { $0 != ";" }), 120) + "; retry this entry alone for the details")
            }
            if let note = fields["note"]?.stringValue { fields["note"] = .string(AnswerBudget.clipped(note, 120)) }
            let value = Value.object(fields)
            let size = AnswerBudget.size(value) + 1
            if used + size + rest <= AnswerBudget.characters {
                used += size
                results.append(value)
                short[status, default: 0] += 1
            } else if used + leastSizes[index] <= AnswerBudget.characters {
                used += leastSizes[index]
                results.append(leastValues[index])
                short[status, default: 0] += 1
            } else {
                omitted[status, default: 0] += 1
                if firstOmitted == nil { firstOmitted = index }
            }
        }
        func counts(_ tally: [String: Int]) -> String {
            tally.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key.replacingUnderscores)" }.joined(separator: ", ")
        }
        let shortened = short.values.reduce(0, +)
        if shortened > 0 {
            lines.append("Entries \(lines.count + 1) to \(lines.count + shortened) are shortened to keep this answer within about 20,000 tokens (\(counts(short))): see `results`; retry an entry alone for its details.")
        }
        let left = omitted.values.reduce(0, +)
        if left > 0, let firstOmitted {
            lines.append("Entries \(firstOmitted + 1) to \(entries.count) (\(left): \(counts(omitted))) are left out of this answer to keep it within about 20,000 tokens; `omitted_results` counts them. Each was attempted and its edit made; read the list to see them.")
        }
        return (results, lines.joined(separator: "\n"), left)
    }

    /// The least an entry's answer holds: its number, its name (clipped), its status, its id.
    static func leastOf(_ entry: Entry) -> Value {
        var fields: [String: Value] = [:]
        for key in ["entry", "status", "id"] { fields[key] = entry.fields[key] }
        for key in ["item", "section"] { if let text = entry.fields[key]?.stringValue { fields[key] = .string(AnswerBudget.clipped(text, 24)) } }
        return .object(fields)
    }

    /// Waits until the file holds every edit, the list pauses, or `flushWaitMillis` pass.
    static func waitForFile(_ store: ListStore) async {
        let deadline = ContinuousClock.now + .milliseconds(flushWaitMillis)
        while store.status.pendingCount > 0, store.status.pausedBy == nil, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    // MARK: Reading arguments

    /// Text an agent sent, checked by the rule for its kind (a section may not be blank).
    static func text(_ value: Value?, as kind: TextRules.Kind) throws -> String? {
        guard let value else { return nil }
        guard let string = value.stringValue else { throw ToolInputError("\(kind.rawValue) must be a string") }
        return switch kind {
        case .amount where string.trimmingWhitespace().isEmpty: ""
        case .section: try TextRules.validatedSection(string)
        default: try TextRules.validated(string, as: kind)
        }
    }

    /// A section name: not empty, and an existing section when one matches in any case.
    static func section(_ value: Value?, in list: ShoppingList) throws -> String? {
        guard let name = try text(value, as: .section) else { return nil }
        return list.section(named: name) ?? name
    }

    static func flag(_ value: Value?, _ name: String) throws -> Bool? {
        guard let value else { return nil }
        guard let bool = value.boolValue else { throw ToolInputError("\(name) must be true or false") }
        return bool
    }

    // MARK: Wording

    /// An item as a candidate: name, amount, section, state and its full id, to retry with.
    static func candidate(_ item: Item) -> String {
        var text = "\"\(TextRules.escaped(item.name))\""
        var details: [String] = []
        if !item.amount.isEmpty { details.append(TextRules.escaped(item.amount)) }
        details.append("in " + (item.section.isEmpty ? "no section" : TextRules.escaped(item.section)))
        if item.checked { details.append("checked") }
        text += " (" + details.joined(separator: ", ") + ")"
        return text + " id " + TextRules.escaped(item.id)
    }

    /// An item's fields as they were before an edit replaced or removed them (`previous` in an
    /// entry): what `undo` puts back, or what `add_items` needs to restore a removed item.
    static func previous(_ item: Item, _ fields: [ItemField]? = nil) -> Value {
        var values: [String: Value] = [:]
        for field in fields ?? [.name, .amount, .section, .checked, .optional] {
            switch field {
            case .name: values["name"] = .string(item.name)
            case .amount: values["amount"] = .string(item.amount)
            case .section: values["section"] = .string(item.section)
            case .checked: values["checked"] = .bool(item.checked)
            case .optional: values["optional"] = .bool(item.optional)
            default: break
            }
        }
        return .object(values)
    }

    static func candidateValue(_ item: Item) -> Value {
        .object([
            "id": .string(item.id), "name": .string(item.name), "amount": .string(item.amount),
            "section": .string(item.section), "checked": .bool(item.checked),
        ])
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case AddressError.ambiguous(let query, let candidates):
            "\"\(TextRules.escaped(query))\" matches \(candidates.count) items; retry with one of these ids: "
                + candidates.prefix(AnswerBudget.shown).map(candidate).joined(separator: "; ")
                + (candidates.count > AnswerBudget.shown
                    ? "; and \(candidates.count - AnswerBudget.shown) more: give more characters of an id, or find the one you mean with get_shopping_list (text, section, unchecked_only) and use its id"
                    : "")
        case AddressError.notFound(let query, let close):
            "no item matches \"\(TextRules.escaped(query))\""
                + (close.isEmpty ? "" : "; close matches: " + close.map(candidate).joined(separator: "; "))
        case SectionError.notEmpty(let name, let count):
            "section \"\(TextRules.escaped(name))\" still holds \(count) item\(count == 1 ? "" : "s"); give move_items_to (a section) or delete_items: true"
        case let error as SectionError: error.description
        case let error as TextRules.Violation: error.description
        case let error as ToolInputError: error.message
        case let error as ListFileError: error.description
        case let error as StoreError: error.description
        default: String(describing: error)
        }
    }
}

/// The item tools: batches of item-level edits, each entry answered on its own.
@MainActor
enum EditingTools {
    nonisolated static func failure(_ text: String) -> CallTool.Result { Batch.failure(text) }

    static func entry(_ index: Int, item: String, status: String, id: String? = nil, note: String? = nil, edits: [ListEdit] = []) -> Batch.Entry {
        var fields: [String: Value] = ["entry": .int(index), "item": .string(item), "status": .string(status)]
        if let id { fields["id"] = .string(id) }
        if let note { fields["note"] = .string(note) }
        var line = "\(index + 1). \(TextRules.escaped(item)): \(status.replacingUnderscores)"
        if let id { line += ", id \(TextRules.escaped(id))" }
        if let note { line += " — " + TextRules.escaped(note) }
        return Batch.Entry(edits: edits, fields: fields, line: line)
    }

    /// An entry that failed, with candidates or close matches when an item was not found.
    static func failed(_ index: Int, _ entry: [String: Value], _ error: any Error) -> Batch.Entry {
        let shown = (entry["item"] ?? entry["name"])?.stringValue ?? ""
        let message = Batch.describe(error)
        var outcome = Batch.Entry(
            fields: ["entry": .int(index), "item": .string(shown), "status": .string("error"), "error": .string(message)],
            line: "\(index + 1). \(TextRules.escaped(shown)): error — \(TextRules.escaped(message))", failed: true)
        switch error {
        case AddressError.ambiguous(_, let candidates):
            outcome.fields["candidates"] = .array(candidates.prefix(AnswerBudget.shown).map(Batch.candidateValue))
            outcome.fields["candidates_total"] = .int(candidates.count)
        case AddressError.notFound(_, let close): outcome.fields["close_matches"] = .array(close.map(Batch.candidateValue))
        default: break
        }
        return outcome
    }

    static func resolve(_ entry: [String: Value], in list: ShoppingList) throws -> Item {
        try Addressing.resolve(entry["item"]?.stringValue ?? "", in: list)
    }

    // MARK: add_items

    /// Through the core's one add rule (`addEdit`): a name with no section that was on the
    /// list before goes where it was last, with its usual amount.
    static func add(_ store: ListStore, _ arguments: [String: Value]) async -> CallTool.Result {
        let insist = arguments["allow_duplicates"]?.boolValue == true
        // Every entry's name looked up in one walk of the list, not one walk an entry (at
        // 100,000 items most of a 100-item call); each entry's items taken in as they come.
        let asked = arguments["items"]?.arrayValue?.compactMap { $0.objectValue?["name"]?.stringValue } ?? []
        var lookups = AddLookups()
        var previous: ListEdit?
        return await Batch.run(store, arguments, key: "items", label: "add", usage: "Give the items to add: {\"items\": [{\"name\": \"Milk\"}]}.",
                               begin: { lookups = AddLookups(); previous = nil }) { index, entry, working in
            if let previous { lookups.took(previous, in: working) } else if !insist { lookups.lookUp(names: asked, sections: [], in: working) }
            previous = nil
            guard let name = try Batch.text(entry["name"], as: .name) else { throw ToolInputError("name is required") }
            let amount = try Batch.text(entry["amount"], as: .amount)
            let section = try Batch.section(entry["section"], in: working)
            let optional = try Batch.flag(entry["optional"], "optional") ?? false
            let plan = working.addEdit([name], amount: amount, section: section, optional: optional, duplicate: insist, lookups: &lookups)
            previous = plan.edit
            switch plan.outcomes.first {
            case .added(let item, let placement)?:
                // Where it went and why, for every item ("under Bakery (usual for tortillas)").
                let usual = placement.isRemembered && amount == nil && !item.amount.isEmpty ? ", amount \(item.amount)" : ""
                var added = self.entry(index, item: item.name, status: "added", id: item.id,
                                       note: placement.phrase() + usual, edits: [plan.edit])
                added.fields["section"] = .string(item.section)
                if !insist { added.claims = [(item.name.lowercased(), nil)] }
                return added
            case .unchecked(let existing)?:
                var unchecked = self.entry(index, item: existing.name, status: "unchecked", id: existing.id, edits: [plan.edit])
                unchecked.fields["previous"] = Batch.previous(existing, [.checked, .amount, .optional])
                return unchecked
            case .alreadyOnList(let existing)?:
                return self.entry(index, item: existing.name, status: "already_on_list", id: existing.id,
                                  note: "already on the list unchecked; pass allow_duplicates: true to add it again")
            case nil:
                throw ToolInputError("name is required")
            }
        } failed: { failed($0, $1, $2) }
    }

    // MARK: update_items

    static func update(_ store: ListStore, _ arguments: [String: Value]) async -> CallTool.Result {
        let insist = arguments["allow_duplicates"]?.boolValue == true
        return await Batch.run(store, arguments, key: "items", label: "update", usage: "Give the changes: {\"items\": [{\"item\": \"Milk\", \"checked\": true}]}.") { index, entry, working in
            let item = try resolve(entry, in: working)
            var changes: [ItemField: FieldValue] = [:]
            var edits: [ListEdit] = []
            if let name = try Batch.text(entry["name"], as: .name) {
                // As add_items refuses a second "Milk": a rename onto another item's name.
                if !insist, let other = working.itemBlockingRename(of: item.id, to: name) {
                    return self.entry(index, item: item.name, status: "already_on_list", id: other.id,
                                      note: "another item is named \(other.name) already (\(other.checked ? "checked" : "unchecked"), id \(other.id)); nothing was changed in this entry; pass allow_duplicates: true to rename anyway")
                }
                changes[.name] = .text(name)
            }
            if let amount = try Batch.text(entry["amount"], as: .amount) { changes[.amount] = .text(amount) }
            var section = item.section
            if let target = try Batch.section(entry["section"], in: working) {
                section = target
                changes[.section] = .text(target)
                if let ensure = working.ensureSectionEdit(target) { edits.append(ensure) }
            }
            if let checked = try Batch.flag(entry["checked"], "checked") { changes[.checked] = .flag(checked) }
            if let optional = try Batch.flag(entry["optional"], "optional") { changes[.optional] = .flag(optional) }
            if let position = entry["position"] {
                guard let place = position.intValue, place >= 1 else { throw ToolInputError("position must be a whole number from 1") }
                changes[.sortOrder] = .order(sortOrder(for: item.id, at: place, in: section, working))
            }
            guard !changes.isEmpty else { throw ToolInputError("nothing to change: give name, amount, section, checked, optional or position") }
            edits.append(.update(id: item.id, changes: changes))
            var updated = self.entry(index, item: item.name, status: "updated", id: item.id, edits: edits)
            updated.fields["previous"] = Batch.previous(item, Array(changes.keys))
            if !insist, case .text(let name)? = changes[.name] { updated.claims = [(name.lowercased(), item.id)] }
            return updated
        } failed: { failed($0, $1, $2) }
    }

    /// A sortOrder that puts the item at 1-based `place` among its section's other items.
    static func sortOrder(for id: String, at place: Int, in section: String, _ list: ShoppingList) -> Double {
        let others = list.items.filter { $0.section == section && $0.id != id }
        let index = min(place - 1, others.count)
        let before = index > 0 ? others[index - 1].sortOrder : nil
        let after = index < others.count ? others[index].sortOrder : nil
        switch (before, after) {
        case (nil, nil): return list.nextSortOrder
        case (let b?, nil): return b + 1024
        case (nil, let a?): return a - 1024
        case (let b?, let a?): return (a + b) / 2
        }
    }

    // MARK: undo

    /// `undo`: the last `steps` edits made through this server, newest first, by the store's
    /// one undo (rule 7): a field is set back only if it still holds, by stamp, the value this
    /// server wrote; otherwise that step changes nothing, and the answer says so.
    static func undo(_ store: ListStore, _ arguments: [String: Value]) async -> CallTool.Result {
        if let refused = Batch.precheck(store) { return refused }
        let steps = arguments["steps"]?.intValue ?? 1
        // The file as it is now, so "changed since" counts every writer, not only those this
        // server has heard of.
        _ = try? await store.perform(nil, label: "check", if: { _ in true })
        let before = store.list
        var undone: [String] = []
        var refusal: String?
        for _ in 0..<steps {
            do {
                guard let label = try store.undo() else { break }
                undone.append(label)
            } catch let refused as ListStore.UndoRefused {
                refusal = "Not undone: \(refused.label), because \(refused.reason). Nothing of that edit was changed; "
                    + "undo never overwrites what someone else wrote. Read the list and make the change you want with the edit tools."
                break
            } catch {
                refusal = "Not undone: \(Batch.describe(error))."
                break
            }
        }
        if !undone.isEmpty { await Batch.waitForFile(store) }
        let changes = ListChanges(from: before, to: store.list)
        var text = undone.isEmpty ? (refusal == nil ? "Nothing to undo: no edit was made through this connection (or all were undone)." : "")
            : "Undid \(undone.count) edit\(undone.count == 1 ? "" : "s") (newest first: \(undone.joined(separator: ", "))). " + changes.text.replacingOccurrences(of: "Since then: ", with: "Now: ")
        if let refusal { text += (text.isEmpty ? "" : "\n") + refusal }
        var structured: [String: Value] = [
            "undone": .array(undone.map(Value.string)), "changed": changes.value,
            "revision": .string(ListSnapshot.of(store).revision), "written": .bool(store.status.pendingCount == 0),
        ]
        if let refusal { structured["refused"] = .string(refusal) }
        return .init(content: [.text(text: text, annotations: nil, _meta: nil)], structuredContent: .object(structured),
                     isError: undone.isEmpty && refusal != nil)
    }

    // MARK: remove_items, clear_checked

    static func remove(_ store: ListStore, _ arguments: [String: Value]) async -> CallTool.Result {
        await Batch.run(store, arguments, key: "items", label: "remove", usage: "Give the items to remove: {\"items\": [{\"item\": \"Milk\"}]}.") { index, entry, working in
            let item = try resolve(entry, in: working)
            var removed = self.entry(index, item: item.name, status: "removed", id: item.id, edits: [.delete(id: item.id)])
            removed.fields["previous"] = Batch.previous(item)
            return removed
        } failed: { failed($0, $1, $2) }
    }

    static func clearChecked(_ store: ListStore, _ arguments: [String: Value]) async -> CallTool.Result {
        if let refused = Batch.precheck(store) { return refused }
        let expected = arguments["expected_revision"]?.stringValue
        if let answer = await Batch.confirm(store, expected) { return answer }
        let checked = ListSnapshot.of(store).items.filter(\.checked)
        let entries = checked.enumerated().map { pair in
            var removed = entry(pair.offset, item: pair.element.name, status: "removed", id: pair.element.id)
            removed.fields["previous"] = Batch.previous(pair.element)
            return removed
        }
        // Without claims the answer always comes (a refusal is a stale revision).
        return await Batch.finish(store, label: "clear checked", steps: checked.map { .delete(id: $0.id) }, entries: entries,
                                  empty: "Nothing to clear: no item is checked.", expected: expected)
            ?? Batch.stale(store, expected: expected ?? "")
    }
}

struct ToolInputError: Error {
    let message: String
    var suggestions: [String] = []
    var total = 0
    init(_ message: String, suggestions: [String] = [], total: Int = 0) {
        self.message = message
        self.suggestions = suggestions
        self.total = total
    }
}

extension String {
    var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}

/// A revision token for the list's visible content: the same content gives the same token in
/// any process, so an agent's `expected_revision` means "the list as I read it".
enum Revision {
    static func of(_ list: ShoppingList) -> String { of(list, items: list.items) }

    /// `items`: the list's visible items in list order (`list.items`), when already at hand.
    static func of(_ list: ShoppingList, items: [Item]) -> String {
        var text = list.sections.joined(separator: "\u{1F}")
        for item in items {
            text += "\u{1E}" + item.id + "\u{1F}" + item.name + "\u{1F}" + item.amount + "\u{1F}" + item.section
                + (item.checked ? "\u{1F}1" : "\u{1F}0") + (item.optional ? "1" : "0") + String(item.sortOrder)
        }
        return String(Hash.fnv1a(Array(text.utf8)), radix: 16)
    }

    /// What `of` can give: 1 to 16 lowercase hex digits.
    static func isWellFormed(_ text: String) -> Bool {
        (1...16).contains(text.utf8.count) && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
