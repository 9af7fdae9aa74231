import ArgumentParser
import BananasCore
import BananasEditor
import BananasFile
import BananasSync

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Show the list, grouped by section.")

    @OptionGroup var options: FileOptions
    @Flag(help: "Print JSON (visible items only) instead of text.") var json = false
    @Option(help: "Only this section.") var section: String?
    @Flag(help: "Only items not yet checked.") var unchecked = false
    @Flag(help: "Show each item's id prefix.") var ids = false

    func run() throws {
        try perform {
            let file = options.listFile
            let session = try openList(file)
            let snapshot = session.snapshot
            let list = session.list
            var groups = list.grouped()
            if let section {
                guard let name = list.section(named: section) else {
                    throw SectionError.noSuchSection(section, suggestions: [])
                }
                groups = groups.filter { $0.section == name }
            }
            // Counts are of the whole section, whatever --unchecked leaves out.
            var counts: [String: (checked: Int, total: Int)] = [:]
            for group in groups { counts[group.section] = (group.items.count { $0.checked }, group.items.count) }
            if unchecked { groups = groups.map { ($0.section, $0.items.filter { !$0.checked }) } }

            if json {
                Output.printJSON(.object([
                    "file": .string(file.path),
                    "sections": .array(list.displaySections.map(JSONValue.string)),
                    "items": .array(groups.flatMap(\.items).map(Output.json)),
                ]))
                return
            }
            let shown = groups.filter { !$0.items.isEmpty }
            if shown.isEmpty {
                Output.line(list.items.isEmpty ? "The list is empty. Add something: bananas add Bananas --section Produce" : "Nothing to show.")
            }
            // One write for the whole list: a line at a time was a tenth of listing 10,000 items.
            var lines: [String] = []
            lines.reserveCapacity(shown.count * 2 + shown.reduce(0) { $0 + $1.items.count })
            for (index, group) in shown.enumerated() {
                if index > 0 { lines.append("") }
                let count = counts[group.section] ?? (0, 0)
                lines.append("\(Output.sectionTitle(group.section)) (\(Screen.checkedCount(count.checked, of: count.total)))")
                for item in group.items { lines.append("  " + Output.row(item, showID: ids)) }
            }
            if !lines.isEmpty { Output.line(lines.joined(separator: "\n")) }
            for note in Output.problemNotes(snapshot.decoded.problems) { Output.note(note) }
            if !session.waitingCopies.isEmpty { Output.note(Output.waitingCopiesNote(session.waitingCopies)) }
        }
    }
}

struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add items to the list.",
        discussion: """
            Each NAME is one item. A name already on the list unchecked is not added twice
            (use --duplicate to insist); one that is checked is unchecked instead.
            Without --section, an item bought before goes to the section it was in last time,
            with its usual amount (see bananas usual); any other goes to "Other".
            """)

    @OptionGroup var options: FileOptions
    @Argument(help: "The item names.", completion: .custom(rememberedNames)) var names: [String]
    @Option(help: "How much, e.g. \"2 L\".") var amount: String?
    @Option(help: "The section (created if new).") var section: String?
    @Flag(help: "Mark the items optional.") var optional = false
    @Flag(help: "Add even when the name is already on the list.") var duplicate = false
    @Flag(help: "Print the added items as JSON.") var json = false

    func validate() throws {
        if names.isEmpty { throw ValidationError("name at least one item to add") }
    }

    func run() throws {
        try perform {
            var names: [String] = []
            for name in try self.names.map({ try TextRules.validated($0, as: .name) })
            where duplicate || !names.contains(where: { $0.isSameName(as: name) }) {
                names.append(name)
            }
            let amount = try self.amount.map { try TextRules.validated($0, as: .amount) }
            let section = try self.section.map { try TextRules.validatedSection($0) }

            let outcomes = try mutate(options) { list in
                let plan = list.addEdit(names, amount: amount, section: section, optional: optional, duplicate: duplicate)
                return (plan.edit, plan.outcomes)
            }
            Self.report(outcomes, json: json)
        }
    }

    /// What became of each name, as `add` and `usual --add` say it.
    static func report(_ outcomes: [AddOutcome], json: Bool) {
        let reports = outcomes.map { outcome -> (Item, String) in
            switch outcome {
            case .added(let item, let placement):
                (item, "added to " + Output.sectionTitle(item.section) + (placement.why(Output.safe).map { " (\($0))" } ?? ""))
            case .unchecked(let item): (item, "unchecked (it was already on the list)")
            case .alreadyOnList(let item): (item, "is already on the list (use --duplicate to add it again)")
            }
        }
        if json {
            Output.printJSON(.object(["items": .array(reports.map { Output.json($0.0) })]))
        } else {
            for (item, what) in reports { Output.line("\(Output.safe(item.name)) \(what)") }
        }
    }
}

/// check / uncheck share everything but the value.
protocol CheckingCommand: ParsableCommand {
    var options: FileOptions { get }
    var items: [String] { get }
    static var value: Bool { get }
}

extension CheckingCommand {
    func run() throws {
        try perform {
            let changed: [Item] = try mutate(options) { list in
                let found = try resolveAll(items, in: list)
                return (.batch(found.map { .update(id: $0.id, changes: [.checked: .flag(Self.value)]) }), found)
            }
            for item in changed { Output.line((Self.value ? "Checked " : "Unchecked ") + Output.safe(item.name)) }
        }
    }
}

struct CheckCommand: CheckingCommand {
    static let configuration = CommandConfiguration(commandName: "check", abstract: "Check items off.")
    static let value = true
    @OptionGroup var options: FileOptions
    @Argument(help: "Items: id, id prefix, or name.") var items: [String]
}

struct UncheckCommand: CheckingCommand {
    static let configuration = CommandConfiguration(commandName: "uncheck", abstract: "Uncheck items.")
    static let value = false
    @OptionGroup var options: FileOptions
    @Argument(help: "Items: id, id prefix, or name.") var items: [String]
}

struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit", abstract: "Change an item's name, amount, section or optional flag.")

    @OptionGroup var options: FileOptions
    @Argument(help: "The item: id, id prefix, or name.") var item: String?
    @Option(help: "A new name.") var name: String?
    @Option(help: "A new amount (\"\" clears it).") var amount: String?
    @Option(help: "Move it to this section (created if new).") var section: String?
    @Flag(inversion: .prefixedNo, help: "Mark it optional, or not.") var optional: Bool?
    @Flag(help: "Rename even when another item has the name.") var duplicate = false

    func run() throws {
        try perform {
            guard let query = item else {
                throw CLIError(message: "name the item to edit, e.g. bananas edit Bananas --amount 6", code: ExitCodes.usage)
            }
            var changes: [ItemField: FieldValue] = [:]
            if let name { changes[.name] = .text(try TextRules.validated(name, as: .name)) }
            if let amount { changes[.amount] = .text(try TextRules.validated(amount, as: .amount)) }
            let section = try self.section.map { try TextRules.validatedSection($0) }
            if let optional { changes[.optional] = .flag(optional) }
            if changes.isEmpty && section == nil {
                throw CLIError(message: "nothing to change: give --name, --amount, --section or --optional", code: ExitCodes.usage)
            }
            let edited: Item = try mutate(options) { list in
                let item = try Addressing.resolve(query, in: list, allowNamePrefix: true)
                if !duplicate, case .text(let name)? = changes[.name], let other = list.itemBlockingRename(of: item.id, to: name) {
                    throw CLIError(message: "another item is named \(Output.safe(other.name)) already; nothing was changed (use --duplicate to rename anyway)",
                                   code: ExitCodes.invalidInput)
                }
                var steps: [ListEdit] = []
                var changes = changes
                if let section {
                    let target = list.section(named: section) ?? section
                    if let ensure = list.ensureSectionEdit(target) { steps.append(ensure) }
                    changes[.section] = .text(target)
                }
                steps.append(.update(id: item.id, changes: changes))
                return (.batch(steps), item)
            }
            Output.line("Changed " + Output.safe(edited.name))
        }
    }
}

struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove items from the list.")

    @OptionGroup var options: FileOptions
    @Argument(help: "Items: id, id prefix, or name.") var items: [String]

    func run() throws {
        try perform {
            let removed: [Item] = try mutate(options) { list in
                let found = try resolveAll(items, in: list)
                return (.batch(found.map { .delete(id: $0.id) }), found)
            }
            for item in removed { Output.line("Removed " + Output.safe(item.name)) }
        }
    }
}

struct ClearCheckedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "clear-checked", abstract: "Remove every checked item.")

    @OptionGroup var options: FileOptions

    func run() throws {
        try perform {
            let removed: [Item] = try mutate(options) { list in
                let checked = list.items.filter(\.checked)
                return (.batch(checked.map { .delete(id: $0.id) }), checked)
            }
            Output.line(removed.isEmpty ? "No checked items." : "Removed \(removed.count) checked item\(removed.count == 1 ? "" : "s").")
        }
    }
}
