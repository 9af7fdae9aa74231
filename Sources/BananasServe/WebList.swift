import BananasCore
import BananasFile
import BananasSync

/// What the page sees of the list and how its edits reach the store: the list as JSON, and one
/// function per edit the page can make. No HTTP here (Server.swift is the thin layer on top),
/// and no rule of its own: adds go through the core's one add rule (`addEdit`), every change is
/// a `ListEdit` with the values the page saw (`seen:`), restores and reviews are the CLI's.
@MainActor
public final class WebList {
    public let store: ListStore
    /// Answers already given, by idempotency key: a request sent again (the page lost the
    /// answer, went offline, reloaded, the server restarted) gets the first answer and changes
    /// nothing. On disk when given a file (`AnswerLog`).
    let answers: AnswerLog

    /// `answersFile`: where the answers are kept across restarts (`answersPath`); nil keeps
    /// them in memory only.
    public init(store: ListStore, answersFile: String? = nil) {
        self.store = store
        answers = AnswerLog(path: answersFile, now: store.time.nowMillis())
    }

    /// The file of the answers by key of the list at `listPath` (in the state folder).
    public nonisolated static func answersPath(listPath: String, stateDirectory: String) -> String {
        AnswerLog.path(listPath: listPath, stateDirectory: stateDirectory)
    }

    public struct Answer: Sendable, Equatable {
        public var status: Int
        public var body: JSONValue
        public init(_ status: Int, _ body: JSONValue) {
            self.status = status
            self.body = body
        }
        static func ok(_ outcome: String, _ message: String, _ extra: [String: JSONValue] = [:]) -> Answer {
            var fields: [String: JSONValue] = ["ok": .bool(true), "outcome": .string(outcome), "message": .string(message)]
            fields.merge(extra) { $1 }
            return Answer(200, .object(fields))
        }
        static func refused(_ status: Int, _ code: String, _ message: String) -> Answer {
            Answer(status, .object(["ok": .bool(false), "error": .string(code), "message": .string(message)]))
        }
    }

    // MARK: Reading

    /// The list as the page shows it. Text is escaped by the one rule every surface uses
    /// (`TextRules.escaped`: control characters, bidi overrides and invisible characters shown
    /// as `\u{…}`), and the page puts it in the document as text, never as HTML.
    public func snapshot() -> JSONValue {
        let list = store.list
        let items = list.items
        let status = store.status
        var itemValues: [JSONValue] = []
        itemValues.reserveCapacity(items.count)
        for item in items {
            itemValues.append(.object([
                "id": .string(item.id), "name": .string(TextRules.escaped(item.name)), "amount": .string(TextRules.escaped(item.amount)),
                "section": .string(TextRules.escaped(item.section)), "checked": .bool(item.checked), "optional": .bool(item.optional),
                "seen": Self.stampsValue(item.stamps),
            ]))
        }
        let conflicts = list.conflictList().map { conflict -> JSONValue in
            .object([
                "id": .string(conflict.id), "name": .string(TextRules.escaped(conflict.name)), "field": .string(conflict.field),
                "kept": .string(Self.shown(conflict.kept, conflict.field)), "lost": .string(Self.shown(conflict.lost, conflict.field)),
                "folded": .number(String(conflict.folded)), "section": .bool(conflict.isSection),
            ])
        }
        let deleted = list.recentlyDeleted.prefix(50).map { entry -> JSONValue in
            .object([
                "id": .string(entry.item.id), "name": .string(TextRules.escaped(entry.item.name)),
                "amount": .string(TextRules.escaped(entry.item.amount)), "section": .string(TextRules.escaped(entry.item.section)),
                "deletedAt": .number(String(entry.deleted.stamp.millis)),
            ])
        }
        return .object([
            "revision": .number(String(store.revision)),
            "sections": .array(list.displaySections(of: items).map { .string(TextRules.escaped($0)) }),
            "items": .array(itemValues),
            "conflicts": .array(conflicts),
            "deleted": .array(Array(deleted)),
            "state": stateValue(status),
        ])
    }

    /// The sync state in the words every surface uses (DESIGN.md, "honest state"); the page
    /// adds its own (`offline — N edits waiting`) on top.
    func stateValue(_ status: SyncStatus) -> JSONValue {
        var fields: [String: JSONValue] = [
            "state": .string(status.state.rawValue),
            "pending": .number(String(status.pendingCount)),
            "conflicts": .number(String(status.conflicts.count + status.unmergedCopies.count)),
            "summary": .string(status.summary(now: store.time.nowMillis())),
        ]
        if let paused = status.pausedBy { fields["paused"] = .string(TextRules.escaped(paused.description)) }
        if store.unsaved > 0 { fields["unsaved"] = .number(String(store.unsaved)) }
        return .object(fields)
    }

    /// Remembered items matching what is typed (the editor's add prompt's suggestions).
    public func suggestions(_ query: String) -> JSONValue {
        let list = store.list
        let found = Suggestions(list.rememberedItems(now: store.time.nowMillis())).matching(String(query.prefix(200)), limit: 8)
        return .array(found.map { (item: RememberedItem) -> JSONValue in
            .object(["name": .string(TextRules.escaped(item.name)), "section": .string(TextRules.escaped(item.section)),
                     "amount": .string(TextRules.escaped(item.amount))])
        })
    }

    /// Where an item of this name would go if added now, and why (the core's placement rule,
    /// as the add itself places it): `{"section", "why"?, "text": "under Bakery (usual for
    /// tortillas)"}`; `{}` for a blank name. The page shows it under its add field.
    public func placement(_ name: String) -> JSONValue {
        let typed = String(name.prefix(TextRules.maxName)).trimmingWhitespace()
        guard !typed.isEmpty else { return .object([:]) }
        let placement = store.list.placement(of: typed)
        var fields: [String: JSONValue] = [
            "section": .string(TextRules.escaped(placement.section)), "text": .string(placement.phrase { TextRules.escaped($0) }),
        ]
        if let why = placement.why { TextRules.escaped($0) } { fields["why"] = .string(why) }
        return .object(fields)
    }

    /// The stamps of an item's values: one stamp when every field has it (an item added and not
    /// edited since, most of a list: half the size of the list's JSON), else one per field.
    static func stampsValue(_ stamps: ItemStamps) -> JSONValue {
        let first = stamps[.name]
        if ItemField.allCases.allSatisfy({ stamps[$0] == first }) { return .string(first.encoded) }
        var fields: [String: JSONValue] = [:]
        for field in ItemField.allCases { fields[field.rawValue] = .string(stamps[field].encoded) }
        return .object(fields)
    }

    static func shown(_ value: FieldValue, _ field: String) -> String {
        switch value {
        case .text(let s): TextRules.escaped(s)
        case .flag(let b): field == "checked" ? (b ? "checked" : "not checked") : (b ? "yes" : "no")
        case .order(let d): String(d)
        }
    }

    // MARK: Editing

    /// Carries out one edit the page sent: `{"key": "…", "op": "…", …}`. `key` makes it
    /// idempotent: the same key again gets the first answer and changes nothing.
    public func edit(_ request: JSONValue) -> Answer {
        guard let fields = request.objectValue else { return .refused(400, "bad_request", "send a JSON object") }
        guard let key = fields["key"]?.stringValue, Self.isKey(key) else {
            return .refused(400, "bad_request", "key is required: 8 to 64 letters, digits or dashes, new for every edit (it makes a repeated request harmless)")
        }
        if let answer = answers.answer(key, now: store.time.nowMillis()) {
            var replayed = answer
            if case .object(var body) = replayed.body {
                body["replayed"] = .bool(true)
                replayed.body = .object(body)
            }
            return replayed
        }
        if let paused = store.status.pausedBy, paused.isContentProblem {
            return .refused(409, "paused", "The list is paused (\(paused.pausedReason)): \(TextRules.escaped(paused.description)). Nothing was changed.")
        }
        let done: Answer
        do {
            done = try perform(fields, key: key)
        } catch let error as RequestError {
            done = .refused(error.status, error.code, error.message)
        } catch let violation as TextRules.Violation {
            done = .refused(400, "invalid_text", violation.description)
        } catch let error as EditError {
            done = .refused(409, "changed", TextRules.escaped(error.description))
        } catch {
            done = .refused(500, "failed", "Nothing was changed: " + TextRules.escaped(String(describing: error)))
        }
        var answer = done
        if case .object(var body) = answer.body {
            body["revision"] = .number(String(store.revision))
            answer.body = .object(body)
        }
        // A refusal for bad input is remembered too: sent again, it is refused again, the same
        // way. A failure of the server's (500) is not: the page sends the edit again later.
        if answer.status < 500 { answers.remember(key, answer, now: store.time.nowMillis()) }
        return answer
    }

    struct RequestError: Error {
        var status = 400
        var code = "bad_request"
        var message: String
    }

    static func isKey(_ key: String) -> Bool {
        (8...64).contains(key.utf8.count) && key.utf8.allSatisfy { $0 == 0x2D || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }

    /// A UUID as Get Bananas writes them: 8-4-4-4-12 hex digits.
    static func isItemID(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return parts.map(\.count) == [8, 4, 4, 4, 12] && parts.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }

    private func perform(_ fields: [String: JSONValue], key: String) throws -> Answer {
        switch fields["op"]?.stringValue {
        case "add": return try add(fields, key: key)
        case "check": return try check(fields)
        case "amount": return try amount(fields)
        case "move": return try move(fields)
        case "place": return try place(fields)
        case "delete": return try delete(fields)
        case "restore": return try restore(fields)
        case "clear_checked": return try clearChecked(fields)
        case "conflict": return try review(fields)
        default:
            throw RequestError(message: "op must be one of add, check, amount, move, place, delete, restore, clear_checked, conflict")
        }
    }

    /// Through the core's one add rule: a name bought before goes where it was last, a checked
    /// one is unchecked, one already on the list is left alone. The new item's id comes from
    /// the request's key, so the same add sent again after its answer was forgotten (a day
    /// later, or with the answers file lost) still adds nothing twice.
    private func add(_ fields: [String: JSONValue], key: String) throws -> Answer {
        let name = try TextRules.validated(try text(fields, "name", required: true) ?? "", as: .name)
        let amount = try text(fields, "amount").map { $0.trimmingWhitespace().isEmpty ? "" : try TextRules.validated($0, as: .amount) }
        var section: String?
        if let given = try text(fields, "section"), !given.trimmingWhitespace().isEmpty {
            let valid = try TextRules.validatedSection(given)
            section = store.list.section(named: valid) ?? valid
        }
        // The page names the new item (so it can check or delete it before the server
        // answers); without an id, one comes from the key.
        let id = try fields["id"].map { value -> String in
            guard let given = value.stringValue, Self.isItemID(given) else { throw RequestError(message: "id must be a UUID") }
            return given
        } ?? ItemID.derived(from: "bananas-serve:" + key)
        let list = store.list
        if list.rows[id] != nil {
            return .ok("already_added", "Already added.", ["id": .string(id)])
        }
        let plan = list.addEdit([name], amount: amount, section: section, makeID: { id })
        _ = try store.perform(plan.edit, label: "add")
        switch plan.outcomes.first {
        case .added(let item, let placement)?:
            return .ok("added", "Added \(TextRules.escaped(item.name)) \(placement.phrase { TextRules.escaped($0) }).",
                       ["id": .string(item.id), "section": .string(item.section)])
        case .unchecked(let item)?:
            return .ok("unchecked", "\(TextRules.escaped(item.name)) was checked: it is unchecked again.", ["id": .string(item.id)])
        case .alreadyOnList(let item)?:
            return .ok("already_on_list", "\(TextRules.escaped(item.name)) is already on the list.", ["id": .string(item.id)])
        case nil:
            throw RequestError(message: "name is required")
        }
    }

    /// Check or uncheck, with the stamp of the value the page showed: a value someone else
    /// gave since is overwritten knowingly and kept for review (rule 7).
    private func check(_ fields: [String: JSONValue]) throws -> Answer {
        let item = try visibleItem(fields)
        guard let checked = fields["checked"]?.boolValue else { throw RequestError(message: "checked must be true or false") }
        try update(item, [.checked: .flag(checked)], fields)
        return .ok(checked ? "checked" : "unchecked", "\(TextRules.escaped(item.name)) \(checked ? "checked" : "unchecked").")
    }

    private func amount(_ fields: [String: JSONValue]) throws -> Answer {
        let item = try visibleItem(fields)
        guard let given = try text(fields, "amount") else { throw RequestError(message: "amount is required (empty clears it)") }
        let amount = given.trimmingWhitespace().isEmpty ? "" : try TextRules.validated(given, as: .amount)
        try update(item, [.amount: .text(amount)], fields)
        return .ok("updated", amount.isEmpty ? "\(TextRules.escaped(item.name)): no amount." : "\(TextRules.escaped(item.name)): \(TextRules.escaped(amount)).")
    }

    private func move(_ fields: [String: JSONValue]) throws -> Answer {
        let item = try visibleItem(fields)
        guard let given = try text(fields, "section") else { throw RequestError(message: "section is required") }
        let list = store.list
        var section = ""
        if !given.trimmingWhitespace().isEmpty {
            let valid = try TextRules.validatedSection(given)
            section = list.section(named: valid) ?? valid
        }
        var steps: [ListEdit] = []
        if !section.isEmpty, let ensure = list.ensureSectionEdit(section) { steps.append(ensure) }
        steps.append(.update(id: item.id, changes: [.section: .text(section)], seen: try seen(fields, [.section])))
        _ = try store.perform(.batch(steps), label: "move")
        return .ok("moved", "\(TextRules.escaped(item.name)) moved to \(section.isEmpty ? "no section" : TextRules.escaped(section)).")
    }

    /// Moves an item within its section: right after `after` (an item of the same section), or
    /// first with `after` null. The editor's move (J/K): the core's `placeEdit`, which changes
    /// the item's sortOrder (or, with no room left between its neighbours, renumbers the
    /// section). As there, an order is not reviewed: the last move wins.
    private func place(_ fields: [String: JSONValue]) throws -> Answer {
        let item = try visibleItem(fields)
        let list = store.list
        let others = list.items(in: item.section).filter { $0.id != item.id }
        var index = 0
        switch fields["after"] {
        case nil, .null?:
            index = 0
        case .string(let after)?:
            guard after != item.id else { throw RequestError(message: "after must be another item of the section") }
            guard let at = others.firstIndex(where: { $0.id == after }) else {
                let name = list.item(after).map { TextRules.escaped($0.name) } ?? "the item it was to follow"
                throw RequestError(status: 409, code: "changed",
                                   message: "\(TextRules.escaped(item.name)) was not moved: \(name) is no longer in \(item.section.isEmpty ? "no section" : TextRules.escaped(item.section)). Look again and move it if you still mean to.")
            }
            index = at + 1
        default:
            throw RequestError(message: "after must be an item's id, or null for the first place")
        }
        let current = list.items(in: item.section).firstIndex { $0.id == item.id }
        if current == index { return .ok("placed", "\(TextRules.escaped(item.name)) is there already.") }
        _ = try store.perform(try list.placeEdit(item.id, inSection: item.section, at: index), label: "move")
        let place = index == 0 ? "first in \(item.section.isEmpty ? "no section" : TextRules.escaped(item.section))"
            : "after \(TextRules.escaped(others[index - 1].name))"
        return .ok("placed", "\(TextRules.escaped(item.name)) moved \(place).")
    }

    private func update(_ item: Item, _ changes: [ItemField: FieldValue], _ fields: [String: JSONValue]) throws {
        _ = try store.perform(.update(id: item.id, changes: changes, seen: try seen(fields, Array(changes.keys))), label: "edit")
    }

    /// A delete hides the version of the item its author saw (rule 3): when any field changed
    /// since the page showed it, the item is not deleted and the page is told why (a lost
    /// delete can be done again; a lost edit cannot).
    private func delete(_ fields: [String: JSONValue]) throws -> Answer {
        guard let id = fields["id"]?.stringValue else { throw RequestError(message: "id is required") }
        let list = store.list
        guard let item = list.item(id) else {
            if list.recentlyDeleted.contains(where: { $0.item.id == id }) { return .ok("already_deleted", "Already deleted.") }
            throw RequestError(status: 404, code: "not_found", message: "no item with id \(TextRules.escaped(id)) on the list")
        }
        if let changed = try changedSince(item, fields) {
            throw RequestError(status: 409, code: "changed",
                               message: "\(TextRules.escaped(item.name)) was not deleted: its \(changed) was changed on another device since this page showed it. Look again and delete it if you still mean to.")
        }
        _ = try store.perform(.delete(id: id), label: "remove")
        return .ok("deleted", "Deleted \(TextRules.escaped(item.name)).")
    }

    /// The first field whose stamp differs from what the page saw (`seen`: every field's).
    private func changedSince(_ item: Item, _ fields: [String: JSONValue]) throws -> String? {
        let seen = try seen(fields, ItemField.allCases)
        // No `seen`: an item the page added itself and has not seen back from the server.
        guard !seen.isEmpty else { return nil }
        for field in ItemField.allCases where seen[field] != item.stamps[field] { return field.rawValue }
        return nil
    }

    /// Brings back a recently deleted item (as `bananas restore`).
    private func restore(_ fields: [String: JSONValue]) throws -> Answer {
        guard let id = fields["id"]?.stringValue else { throw RequestError(message: "id is required") }
        let list = store.list
        if let item = list.item(id) { return .ok("already_on_list", "\(TextRules.escaped(item.name)) is on the list.") }
        guard let entry = list.recentlyDeleted.first(where: { $0.item.id == id }) else {
            throw RequestError(status: 404, code: "not_found", message: "no recently deleted item has id \(TextRules.escaped(id))")
        }
        var steps: [ListEdit] = []
        if let ensure = list.ensureSectionEdit(entry.item.section) { steps.append(ensure) }
        steps.append(.insert(entry.item))
        _ = try store.perform(.batch(steps), label: "restore")
        return .ok("restored", "Restored \(TextRules.escaped(entry.item.name)).")
    }

    /// Deletes the checked items the page showed, each only if it is as the page saw it.
    private func clearChecked(_ fields: [String: JSONValue]) throws -> Answer {
        guard let entries = fields["items"]?.arrayValue else { throw RequestError(message: "items is required: [{\"id\", \"seen\"}] of the checked items shown") }
        let list = store.list
        var steps: [ListEdit] = []
        var kept = 0
        for entry in entries {
            guard let object = entry.objectValue, let id = object["id"]?.stringValue else { throw RequestError(message: "each item needs an id and seen") }
            guard let item = list.item(id) else { continue }
            if try !item.checked || changedSince(item, object) != nil {
                kept += 1
                continue
            }
            steps.append(.delete(id: id))
        }
        if !steps.isEmpty { _ = try store.perform(.batch(steps), label: "clear checked") }
        var message = steps.count == 1 ? "Cleared 1 checked item." : "Cleared \(steps.count) checked items."
        if kept > 0 { message += " \(kept) changed on another device since and stay\(kept == 1 ? "s" : "")." }
        return .ok("cleared", message, ["cleared": .number(String(steps.count)), "kept": .number(String(kept))])
    }

    /// Restore or dismiss a conflict (as `bananas conflicts restore/dismiss`).
    private func review(_ fields: [String: JSONValue]) throws -> Answer {
        guard let id = fields["id"]?.stringValue else { throw RequestError(message: "id is required") }
        let list = store.list
        guard let conflict = list.conflictList(all: true).first(where: { $0.id == id }) else {
            throw RequestError(status: 404, code: "not_found", message: "no conflict has id \(TextRules.escaped(id))")
        }
        switch fields["action"]?.stringValue {
        case "restore":
            do {
                _ = try store.perform(try list.restoreEdit(conflict), label: "restore value")
            } catch EditError.noSuchItem {
                throw RequestError(status: 409, code: "deleted", message: "\(TextRules.escaped(conflict.name)) is no longer on the list; restore it from Recently deleted first")
            }
            return .ok("restored", "Restored \(TextRules.escaped(conflict.name))'s \(conflict.field).")
        case "dismiss":
            _ = try store.perform(list.dismissEdit([conflict]), label: "dismiss")
            return .ok("dismissed", "Kept the current \(conflict.field) of \(TextRules.escaped(conflict.name)).")
        default:
            throw RequestError(message: "action must be restore or dismiss")
        }
    }

    // MARK: Reading requests

    private func visibleItem(_ fields: [String: JSONValue]) throws -> Item {
        guard let id = fields["id"]?.stringValue else { throw RequestError(message: "id is required") }
        guard let item = store.list.item(id) else {
            throw RequestError(status: 404, code: "not_found", message: "no item with id \(TextRules.escaped(String(id.prefix(80)))) on the list (deleted on another device?)")
        }
        return item
    }

    private func text(_ fields: [String: JSONValue], _ name: String, required: Bool = false) throws -> String? {
        guard let value = fields[name], value != .null else {
            if required { throw RequestError(message: "\(name) is required") }
            return nil
        }
        guard let text = value.stringValue else { throw RequestError(message: "\(name) must be a string") }
        return text
    }

    /// `seen`: the stamps the page showed, as `snapshot` gives them: `{"checked": "<stamp>", …}`,
    /// or one stamp for every field.
    private func seen(_ fields: [String: JSONValue], _ wanted: [ItemField]) throws -> [ItemField: Stamp] {
        if let text = fields["seen"]?.stringValue {
            guard let stamp = Stamp(encoded: text) else { throw RequestError(message: "seen is not a stamp") }
            return Dictionary(uniqueKeysWithValues: wanted.map { ($0, stamp) })
        }
        guard let object = fields["seen"]?.objectValue else { return [:] }
        var seen: [ItemField: Stamp] = [:]
        for field in wanted {
            guard let text = object[field.rawValue]?.stringValue else { continue }
            guard let stamp = Stamp(encoded: text) else { throw RequestError(message: "seen.\(field.rawValue) is not a stamp") }
            seen[field] = stamp
        }
        return seen
    }
}
