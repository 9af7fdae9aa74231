import ArgumentParser
import BananasCore
import BananasFile
import BananasSync

/// `bananas undo` and `bananas redo`: the last command-line edits made on this device, kept
/// in the list's state folder (`cli-history.json`) as the core's `EditHistory`, and replayed
/// by its rule: a step sets a value back only while the field still holds, by stamp, the
/// value the command wrote (DESIGN rule 7); otherwise it says why and changes nothing.
struct UndoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Undo the last edit made by a bananas command on this device.",
        discussion: """
            Each command that changes the list (add, check, uncheck, edit, remove, \
            clear-checked, sections …, restore, recover) is one step. Undo never overwrites a \
            value another writer (the editor, a phone, an agent, another machine) changed \
            since: it says so and changes nothing. bananas redo does the step again.
            """)
    @OptionGroup var options: FileOptions

    func run() throws { try CommandHistory.replay(.undo, options) }
}

struct RedoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redo", abstract: "Redo the last command-line edit undone on this device.")
    @OptionGroup var options: FileOptions

    func run() throws { try CommandHistory.replay(.redo, options) }
}

/// The command line's undo history on this device: an `EditHistory` kept as JSON in the
/// state folder between commands. Only edits whose inverse it can write down are kept
/// (items and sections); at most `limit` steps.
enum CommandHistory {
    static let fileName = "cli-history.json"
    static let limit = 100

    static func path(_ file: ListFile) -> String? { file.state.map { $0.path + "/" + fileName } }

    /// Adds the step that undoes a command's edit (`inverse`), labelled by its command line.
    static func record(_ inverse: ListEdit, file: ListFile) {
        guard !inverse.isEmpty, let path = path(file), encode(inverse) != nil else { return }
        var history = load(file)
        history.record(inverse: inverse, label: label)
        save(history, file: file, path: path)
    }

    /// `add Milk`, `check --section Dairy`: the words of the command as typed.
    static var label: String {
        var words = Array(CommandLine.arguments.dropFirst())
        if let file = words.firstIndex(of: "--file"), file + 1 < words.count { words.removeSubrange(file...(file + 1)) }
        return words.map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " ")
    }

    /// Undoes or redoes the newest step through the core's `EditHistory.replay`, under the
    /// list's lock, with the list as the file holds it now.
    static func replay(_ direction: EditHistory.Direction, _ options: FileOptions) throws {
        try perform {
            let file = options.listFile
            guard let path = path(file) else { throw CLIError(message: "this list keeps no state folder, so no history", code: ExitCodes.failure) }
            var history = load(file)
            guard direction == .undo ? history.canUndo : history.canRedo else {
                Output.line("Nothing to \(direction.rawValue): no command-line edit on this device \(direction == .undo ? "to take back" : "was undone").")
                return
            }
            let session = try openList(file, lockTimeoutMillis: options.lockTimeout, writing: true)
            var refused: EditHistory.Refused?
            let label: String? = try session.commitApplying(lockTimeoutMillis: options.lockTimeout) { list, stamp, modifiedAt in
                do {
                    return try history.replay(direction) { edit in
                        let inverse = try list.apply(edit.withHiddenRows(of: list), stamp: stamp(), modifiedAt: modifiedAt)
                        return inverse.isEmpty ? nil : inverse
                    }
                } catch let error as EditHistory.Refused {
                    refused = error
                    return nil
                }
            }
            // A refused step is dropped, as the editor drops it: the history is saved either way.
            save(history, file: file, path: path)
            if let refused {
                throw CLIError(message: refused.description + "; nothing was changed", code: ExitCodes.refused)
            }
            guard let label else {
                Output.line("Nothing to \(direction.rawValue): the items of those edits are gone.")
                return
            }
            Output.line("\(direction == .undo ? "Undid" : "Redid"): \(Output.safe(label))")
        }
    }

    static func load(_ file: ListFile) -> EditHistory {
        guard let path = path(file), let bytes = FileSystem.contents(atPath: path), bytes.count < 4 << 20,
              case .object(let top)? = try? JSONText.parse(bytes) else { return EditHistory() }
        func steps(_ key: String) -> [EditHistory.Step] {
            guard case .array(let values)? = top[key] else { return [] }
            return values.compactMap { value in
                guard case .object(let step) = value, case .string(let label)? = step["label"],
                      let edit = step["edit"].flatMap(decode) else { return nil }
                return EditHistory.Step(edit: edit, label: label)
            }
        }
        return EditHistory(undoSteps: steps("undo"), redoSteps: steps("redo"))
    }

    static func save(_ history: EditHistory, file: ListFile, path: String) {
        guard let state = file.state, state.make(state.path) == nil else { return }
        func steps(_ steps: [EditHistory.Step]) -> JSONValue {
            .array(steps.suffix(limit).compactMap { step in
                encode(step.edit).map { .object(["label": .string(step.label), "edit": $0]) }
            })
        }
        try? AtomicWrite.replace(path, with: JSONText.serialize(.object(["undo": steps(history.undoSteps), "redo": steps(history.redoSteps)])))
    }

    // MARK: Edits as JSON

    /// The steps an undo or redo can be: what `apply` returns for the edits commands make.
    /// Nil for any other kind (the step is not kept).
    static func encode(_ edit: ListEdit) -> JSONValue? {
        switch edit {
        case .batch(let steps):
            var encoded: [JSONValue] = []
            for step in steps { guard let value = encode(step) else { return nil }; encoded.append(value) }
            return .object(["batch": .array(encoded)])
        case .revert(let id, let changes, let expecting, let restoring):
            return .object(["revert": .string(id), "changes": values(changes), "expecting": stamps(expecting), "restoring": stamps(restoring)])
        case .revertSection(let key, let changes, let expecting, let restoring):
            return .object(["revertSection": .string(key), "changes": values(changes), "expecting": stamps(expecting), "restoring": stamps(restoring)])
        case .retract(let id, let expecting):
            return .object(["retract": .string(id), "expecting": table(expecting)])
        case .undelete(let item, let expecting):
            return .object(["undelete": .string(item.id), "expecting": table(expecting), "item": .object([
                "name": .string(item.name), "amount": .string(item.amount), "section": .string(item.section),
                "checked": .bool(item.checked), "optional": .bool(item.optional), "sortOrder": .string(String(item.sortOrder)),
            ])])
        default:
            return nil
        }
    }

    static func decode(_ value: JSONValue) -> ListEdit? {
        guard case .object(let object) = value else { return nil }
        if case .array(let steps)? = object["batch"] {
            var decoded: [ListEdit] = []
            for step in steps { guard let edit = decode(step) else { return nil }; decoded.append(edit) }
            return .batch(decoded)
        }
        if case .string(let id)? = object["revert"], let changes: [ItemField: FieldValue] = values(object["changes"]),
           let expecting: [ItemField: Stamp] = stamps(object["expecting"]), let restoring: [ItemField: Stamp] = stamps(object["restoring"]) {
            return .revert(id: id, changes: changes, expecting: expecting, restoring: restoring)
        }
        if case .string(let key)? = object["revertSection"], let changes: [SectionField: FieldValue] = values(object["changes"]),
           let expecting: [SectionField: Stamp] = stamps(object["expecting"]), let restoring: [SectionField: Stamp] = stamps(object["restoring"]) {
            return .revertSection(key: key, changes: changes, expecting: expecting, restoring: restoring)
        }
        if case .string(let id)? = object["retract"], let expecting = table(object["expecting"]) {
            return .retract(id: id, expecting: expecting)
        }
        if case .string(let id)? = object["undelete"], let expecting = table(object["expecting"]), case .object(let item)? = object["item"],
           case .string(let name)? = item["name"], case .string(let amount)? = item["amount"], case .string(let section)? = item["section"],
           case .bool(let checked)? = item["checked"], case .bool(let optional)? = item["optional"],
           case .string(let order)? = item["sortOrder"], let sortOrder = Double(order) {
            let shown = Item(id: id, name: name, amount: amount, section: section, checked: checked, optional: optional, sortOrder: sortOrder)
            return .undelete(shown, expecting: expecting)
        }
        return nil
    }

    static func values<Field: RawRepresentable>(_ changes: [Field: FieldValue]) -> JSONValue where Field.RawValue == String {
        .object(Dictionary(uniqueKeysWithValues: changes.map { field, value in
            let encoded: JSONValue = switch value {
            case .text(let text): .object(["text": .string(text)])
            case .flag(let flag): .object(["flag": .bool(flag)])
            case .order(let order): .object(["order": .string(String(order))])
            }
            return (field.rawValue, encoded)
        }))
    }

    static func values<Field: RawRepresentable & Hashable>(_ value: JSONValue?) -> [Field: FieldValue]? where Field.RawValue == String {
        guard case .object(let object)? = value else { return nil }
        var result: [Field: FieldValue] = [:]
        for (name, encoded) in object {
            guard let field = Field(rawValue: name), case .object(let kind) = encoded else { return nil }
            if case .string(let text)? = kind["text"] { result[field] = .text(text) }
            else if case .bool(let flag)? = kind["flag"] { result[field] = .flag(flag) }
            else if case .string(let order)? = kind["order"], let number = Double(order) { result[field] = .order(number) }
            else { return nil }
        }
        return result
    }

    static func stamps<Field: RawRepresentable>(_ table: [Field: Stamp]) -> JSONValue where Field.RawValue == String {
        .object(Dictionary(uniqueKeysWithValues: table.map { ($0.key.rawValue, .string($0.value.encoded)) }))
    }

    static func stamps<Field: RawRepresentable & Hashable>(_ value: JSONValue?) -> [Field: Stamp]? where Field.RawValue == String {
        guard case .object(let object)? = value else { return nil }
        var result: [Field: Stamp] = [:]
        for (name, encoded) in object {
            guard let field = Field(rawValue: name), case .string(let text) = encoded, let stamp = Stamp(encoded: text) else { return nil }
            result[field] = stamp
        }
        return result
    }

    /// Every field's stamp, in `ItemField.allCases` order (what `retract` and `undelete` compare).
    static func table(_ stamps: ItemStamps) -> JSONValue {
        .array(ItemField.allCases.map { .string(stamps[$0].encoded) })
    }

    static func table(_ value: JSONValue?) -> ItemStamps? {
        guard case .array(let values)? = value, values.count == ItemField.allCases.count else { return nil }
        var stamps: [Stamp] = []
        for value in values {
            guard case .string(let text) = value, let stamp = Stamp(encoded: text) else { return nil }
            stamps.append(stamp)
        }
        return ItemStamps(stamps: stamps)
    }
}

extension ListEdit {
    /// An undo of a delete brings back the row the list keeps hidden, with every key it has
    /// (what the history file holds of it is the fallback).
    func withHiddenRows(of list: ShoppingList) -> ListEdit {
        switch self {
        case .undelete(let item, let expecting):
            guard let row = list.rows[item.id] else { return self }
            return .undelete(list.shown(row), expecting: expecting)
        case .batch(let steps):
            return .batch(steps.map { $0.withHiddenRows(of: list) })
        default:
            return self
        }
    }
}
