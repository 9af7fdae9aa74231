import ArgumentParser
import BananasCore
import BananasEditor
import BananasFile
import BananasSync

/// `bananas conflicts`: the values that lost to a concurrent edit, kept in this machine's
/// conflict log; review them, restore one, or dismiss them.
struct ConflictsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "Review values that lost to a concurrent edit, and restore them.",
        discussion: """
            When two writers change the same field of the same item at about the same time,
            the later edit wins and the other value is logged here. Restoring one makes it the
            current value again (a new edit, so it reaches every device); dismissing marks it
            reviewed. The log keeps the newest \(ConflictLog.capacity) entries.
            """,
        subcommands: [ListConflicts.self, RestoreConflict.self, DismissConflicts.self],
        defaultSubcommand: ListConflicts.self
    )
}

extension ConflictsCommand {
    static func log(_ options: FileOptions) throws -> ConflictLog {
        guard let log = options.listFile.state.map(ConflictLog.init(folder:)) else {
            throw CLIError(message: "there is no state folder for this list", code: ExitCodes.failure)
        }
        return log
    }

    static func find(_ id: String, in entries: [ConflictLog.Entry]) throws -> ConflictLog.Entry {
        let matches = entries.filter { $0.id.hasPrefix(id.lowercased()) }
        guard matches.count == 1 else {
            throw CLIError(
                message: matches.isEmpty
                    ? "no conflict \(Output.safe(id)) in the log (see bananas conflicts --all)"
                    : "\(Output.safe(id)) matches several conflicts; give more of the id",
                code: matches.isEmpty ? ExitCodes.notFound : ExitCodes.ambiguous)
        }
        return matches[0]
    }

    static func shown(_ value: FieldValue, _ field: ItemField) -> String {
        switch value {
        case .text(let s): "\"" + Output.safe(s) + "\""
        case .flag(let b): field == .checked ? (b ? "checked" : "unchecked") : (b ? "yes" : "no")
        case .order(let d): String(d)
        }
    }

    static func line(_ entry: ConflictLog.Entry) -> String {
        let c = entry.conflict
        var text = "\(entry.id)  \(Output.safe(c.itemName)) · \(c.field.rawValue): kept \(shown(c.kept, c.field)), lost \(shown(c.lost, c.field))"
        text += "  (" + String(Timestamp.iso8601(millis: entry.loggedAt).prefix(19).map { $0 == "T" ? " " : $0 }) + ")"
        if let how = entry.resolution { text += " — " + how }
        return text
    }

    static func json(_ entry: ConflictLog.Entry) -> JSONValue {
        let c = entry.conflict
        return .object([
            "id": .string(entry.id), "item": .string(c.itemID), "name": .string(c.itemName),
            "field": .string(c.field.rawValue), "kept": ConflictLog.json(c.kept), "lost": ConflictLog.json(c.lost),
            "keptStamp": .string(c.keptStamp.encoded), "lostStamp": .string(c.lostStamp.encoded),
            "loggedAt": .string(Timestamp.iso8601(millis: entry.loggedAt)),
            "resolution": entry.resolution.map(JSONValue.string) ?? .null,
        ])
    }
}

struct ListConflicts: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List conflicts awaiting review.")

    @OptionGroup var options: FileOptions
    @Flag(help: "Include reviewed conflicts.") var all = false
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        try perform {
            let entries = try ConflictsCommand.log(options).entries().filter { all || $0.awaitsReview }
            if json {
                Output.printJSON(.array(entries.map(ConflictsCommand.json)))
                return
            }
            if entries.isEmpty {
                Output.line(all ? "The conflict log is empty." : "No conflicts await review.")
                return
            }
            entries.forEach { Output.line(ConflictsCommand.line($0)) }
            if !all { Output.line("Restore a value: bananas conflicts restore ID · mark reviewed: bananas conflicts dismiss ID") }
        }
    }
}

struct RestoreConflict: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Make a lost value current again (a new edit).")

    @OptionGroup var options: FileOptions
    @Argument(help: "The conflict's id (or a unique start of it).") var id: String

    func run() throws {
        try perform {
            let log = try ConflictsCommand.log(options)
            let entry = try ConflictsCommand.find(id, in: log.entries())
            let c = entry.conflict
            // The item as it was, for saying what the restore replaced.
            let before: Item = try mutate(options) { list in
                guard let item = list.item(c.itemID) else {
                    throw CLIError(message: "\(Output.safe(c.itemName)) is no longer on the list; add it again instead", code: ExitCodes.notFound)
                }
                return (ListEdit.update(id: c.itemID, changes: [c.field: c.lost]), item)
            }
            try log.resolve(entry.id, as: "restored", at: Clock.nowMillis())
            Output.line(c.restoredMessage(item: before))
        }
    }
}

struct DismissConflicts: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dismiss", abstract: "Mark conflicts reviewed, keeping the current values.")

    @OptionGroup var options: FileOptions
    @Argument(help: "Conflict ids (or unique starts of them).") var ids: [String] = []
    @Flag(help: "Every conflict awaiting review.") var all = false

    func validate() throws {
        if ids.isEmpty && !all { throw ValidationError("name the conflicts to dismiss, or use --all") }
    }

    func run() throws {
        try perform {
            let log = try ConflictsCommand.log(options)
            let waiting = log.awaitingReview()
            let chosen = all ? waiting : try ids.map { try ConflictsCommand.find($0, in: log.entries()) }
            let now = Clock.nowMillis()
            for entry in chosen { try log.resolve(entry.id, as: "dismissed", at: now) }
            Output.line(chosen.count == 1 ? "Dismissed 1 conflict." : "Dismissed \(chosen.count) conflicts.")
        }
    }
}
