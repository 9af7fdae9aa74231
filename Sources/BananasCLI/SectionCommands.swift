import ArgumentParser
import BananasCore
import BananasEditor
import BananasFile
import BananasSync

struct SectionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sections",
        abstract: "List, add, rename, move or remove sections.",
        subcommands: [SectionsList.self, SectionsAdd.self, SectionsRename.self, SectionsMove.self, SectionsRemove.self],
        defaultSubcommand: SectionsList.self)
}

struct SectionsList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List sections in order, with item counts.")
    @OptionGroup var options: FileOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        try perform {
            let list = try openList(options.listFile).list
            let groups = list.grouped()
            if json {
                Output.printJSON(.object(["sections": .array(groups.map { group in
                    .object(["name": .string(group.section), "items": .number(Double(group.items.count)),
                             "unchecked": .number(Double(group.items.filter { !$0.checked }.count))])
                })]))
                return
            }
            if groups.isEmpty { Output.line("No sections yet. Add one: bananas sections add Produce") }
            for group in groups {
                // The one meaning of a section's count, as in `bananas list` and the editor.
                let count = Screen.checkedCount(group.items.count { $0.checked }, of: group.items.count)
                Output.line("\(Output.sectionTitle(group.section)) (\(count))")
            }
        }
    }
}

struct SectionsAdd: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a section.")
    @OptionGroup var options: FileOptions
    @Argument(help: "The new section's name.") var name: String
    @Option(help: "Put it after this section (default: at the end).", completion: .custom(sectionNames)) var after: String?

    func run() throws {
        try perform {
            let name = try TextRules.validatedSection(self.name)
            try mutate(options) { list in
                var index: Int?
                if let after {
                    guard let anchor = list.section(named: after) else { throw SectionError.noSuchSection(after, suggestions: []) }
                    index = list.sections.firstIndex(of: anchor).map { $0 + 1 }
                }
                return (try list.addSectionEdit(name, at: index), ())
            }
            Output.line("Added section " + Output.safe(name))
        }
    }
}

struct SectionsRename: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a section (its items follow).")
    @OptionGroup var options: FileOptions
    @Argument(help: "The section now.", completion: .custom(sectionNames)) var old: String
    @Argument(help: "Its new name.") var new: String

    func run() throws {
        try perform {
            let new = try TextRules.validatedSection(self.new)
            try mutate(options) { list in (try list.renameSectionEdit(old, to: new), ()) }
            Output.line("Renamed \(Output.safe(old)) to \(Output.safe(new))")
        }
    }
}

struct SectionsMove: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "move", abstract: "Move a section in the order.")
    @OptionGroup var options: FileOptions
    @Argument(help: "The section.", completion: .custom(sectionNames)) var name: String
    @Option(help: "New position, 1 = first.") var to: Int?
    @Option(help: "Put it before this section.", completion: .custom(sectionNames)) var before: String?
    @Option(help: "Put it after this section.", completion: .custom(sectionNames)) var after: String?

    func validate() throws {
        if [to != nil, before != nil, after != nil].filter({ $0 }).count != 1 {
            throw ValidationError("give exactly one of --to, --before, --after")
        }
    }

    func run() throws {
        try perform {
            try mutate(options) { list in
                let others = list.displaySections.filter { $0 != list.section(named: name) }
                var index: Int
                if let to {
                    index = to - 1
                } else {
                    let anchorName = before ?? after!
                    guard let anchor = list.section(named: anchorName), let position = others.firstIndex(of: anchor) else {
                        throw SectionError.noSuchSection(anchorName, suggestions: [])
                    }
                    index = before != nil ? position : position + 1
                }
                return (try list.moveSectionEdit(name, to: index), ())
            }
            Output.line("Moved " + Output.safe(name))
        }
    }
}

struct SectionsRemove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a section; one that holds items needs --move-items-to or --delete-items.")
    @OptionGroup var options: FileOptions
    @Argument(help: "The section.", completion: .custom(sectionNames)) var name: String
    @Option(help: "Move its items to this section.", completion: .custom(sectionNames)) var moveItemsTo: String?
    @Flag(help: "Remove its items too.") var deleteItems = false

    func run() throws {
        try perform {
            let target = try moveItemsTo.map(TextRules.validatedSection)
            try mutate(options) { list in
                (try list.removeSectionEdit(name, moveItemsTo: target, deleteItems: deleteItems), ())
            }
            Output.line("Removed section " + Output.safe(name))
        }
    }
}
