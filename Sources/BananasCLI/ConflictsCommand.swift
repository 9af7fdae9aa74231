import ArgumentParser
import BananasCore
import BananasEditor
import BananasFile
import BananasSync

/// `bananas conflicts`: the values that lost to a concurrent edit, kept in the list file itself
/// (so every device shows the same ones); review them, restore one, or dismiss them.
struct ConflictsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "Review values that lost to a concurrent edit, and restore them.",
        discussion: """
            When two writers change the same field (or section) while neither has seen the
            other's change, the value with the later stamp wins and the other is kept here, in
            the list file, on every device. Restoring one makes it the current value again;
            dismissing marks it reviewed. Both are edits that reach every device. The list
            keeps up to \(ShoppingList.conflictsKeptPerField) lost values of one field for review;
            older ones are folded into one entry that says how many it holds, and restoring or
            dismissing it reviews them all. Reviewed ones go after 30 days.
            """,
        subcommands: [ListConflicts.self, RestoreConflict.self, DismissConflicts.self],
        defaultSubcommand: ListConflicts.self
    )
}

extension ConflictsCommand {
    static func find(_ id: String, in conflicts: [Conflict]) throws -> Conflict {
        let matches = conflicts.filter { $0.id.hasPrefix(id.lowercased()) }
        guard matches.count == 1 else {
            throw CLIError(
                message: matches.isEmpty
                    ? "no conflict \(Output.safe(id)) (see bananas conflicts --all)"
                    : "\(Output.safe(id)) matches several conflicts; give more of the id",
                code: matches.isEmpty ? ExitCodes.notFound : ExitCodes.ambiguous)
        }
        return matches[0]
    }

    static func shown(_ value: FieldValue, _ field: String) -> String {
        switch value {
        case .text(let s): "\"" + Output.safe(s) + "\""
        case .flag(let b): field == "checked" ? (b ? "checked" : "unchecked") : (b ? "yes" : "no")
        case .order(let d): String(d)
        }
    }

    static func line(_ c: Conflict) -> String {
        var text = "\(c.id)  \(c.isSection ? "section " : "")\(Output.safe(c.name)) · \(c.field): kept \(shown(c.kept, c.field)), lost \(shown(c.lost, c.field))"
        if c.folded > 0 { text += " " + foldedNote(c.folded) }
        text += "  (" + String(Timestamp.iso8601(millis: c.lostStamp.millis).prefix(19).map { $0 == "T" ? " " : $0 }) + ")"
        if let how = c.resolution { text += " — " + how }
        return text
    }

    /// What a folded entry says of the older values it holds (ConflictBound.swift).
    static func foldedNote(_ count: Int) -> String {
        "(and \(count) older lost value\(count == 1 ? "" : "s") of this field)"
    }

    static func json(_ c: Conflict) -> JSONValue {
        .object([
            "id": .string(c.id), (c.isSection ? "section" : "item"): .string(c.subjectID), "name": .string(c.name),
            "field": .string(c.field), "kept": ListCodec.fieldJSON(c.kept), "lost": ListCodec.fieldJSON(c.lost),
            "lostStamp": .string(c.lostStamp.encoded),
            "resolution": c.resolution.map(JSONValue.string) ?? .null,
            "folded": .number(String(c.folded)),
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
            let conflicts = try openList(options.listFile, lockTimeoutMillis: options.lockTimeout).list.conflictList(all: all)
            if json {
                Output.printJSON(.array(conflicts.map(ConflictsCommand.json)))
                return
            }
            if conflicts.isEmpty {
                Output.line(all ? "No conflicts recorded." : "No conflicts await review.")
                return
            }
            conflicts.forEach { Output.line(ConflictsCommand.line($0)) }
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
            let said: String = try mutate(options) { list in
                let conflict = try ConflictsCommand.find(id, in: list.conflictList(all: true))
                do {
                    return (try list.restoreEdit(conflict), conflict.restoredMessage(in: list))
                } catch EditError.noSuchItem {
                    throw CLIError(message: "\(Output.safe(conflict.name)) is no longer on the list; bring it back with bananas restore first", code: ExitCodes.notFound)
                }
            }
            Output.line(said)
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
            let count: Int = try mutate(options) { list in
                let waiting = list.conflictList()
                let chosen = all ? waiting : try ids.map { try ConflictsCommand.find($0, in: list.conflictList(all: true)) }
                return (list.dismissEdit(chosen), chosen.count)
            }
            Output.line(count == 1 ? "Dismissed 1 conflict." : "Dismissed \(count) conflicts.")
        }
    }
}

/// `bananas deleted`: the items deleted recently (from any device), which `bananas restore`
/// brings back. The safety net when a writer deletes what it should not.
struct DeletedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deleted",
        abstract: "List recently deleted items (bring one back with bananas restore).",
        discussion: "Deleted items are kept hidden for 180 days, on every device that shares the list.")

    @OptionGroup var options: FileOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        try perform {
            let deleted = try openList(options.listFile, lockTimeoutMillis: options.lockTimeout).list.recentlyDeleted
            if json {
                Output.printJSON(.array(deleted.map { entry in
                    var object = Output.json(entry.item)
                    if case .object(var fields) = object {
                        fields["deletedAt"] = .string(Timestamp.iso8601(millis: entry.deleted.stamp.millis))
                        object = .object(fields)
                    }
                    return object
                }))
                return
            }
            if deleted.isEmpty {
                Output.line("Nothing was deleted recently.")
                return
            }
            for (item, tombstone) in deleted {
                let when = String(Timestamp.iso8601(millis: tombstone.stamp.millis).prefix(16).map { $0 == "T" ? " " : $0 })
                Output.line("\(item.id.prefix(8))  \(Output.safe(item.name))\(item.amount.isEmpty ? "" : " (" + Output.safe(item.amount) + ")") · \(Output.sectionTitle(item.section)) · deleted \(when)")
            }
            Output.line("Bring one back: bananas restore NAME-OR-ID")
        }
    }
}

struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Bring back recently deleted items (a new edit that reaches every device).")

    @OptionGroup var options: FileOptions
    @Argument(help: "Items: id, id prefix, or name, as `bananas deleted` shows them.") var items: [String]

    func run() throws {
        try perform {
            let restored: [Item] = try mutate(options) { list in
                let deleted = ShoppingList(rows: list.recentlyDeleted.map(\.item))
                var found: [Item] = []
                for query in items {
                    do {
                        let item = try Addressing.resolve(query, in: deleted, allowNamePrefix: true)
                        if !found.contains(where: { $0.id == item.id }) { found.append(item) }
                    } catch let error as AddressError {
                        if list.item(query) != nil || list.firstItem(named: query) != nil {
                            throw CLIError(message: "\(Output.safe(query)) is on the list (not deleted)", code: ExitCodes.notFound)
                        }
                        throw error
                    }
                }
                var steps: [ListEdit] = []
                for item in found {
                    if let ensure = list.ensureSectionEdit(item.section), !steps.contains(ensure) { steps.append(ensure) }
                    steps.append(.insert(item))
                }
                return (.batch(steps), found)
            }
            for item in restored { Output.line("Restored \(Output.safe(item.name)) to \(Output.sectionTitle(item.section))") }
        }
    }
}
