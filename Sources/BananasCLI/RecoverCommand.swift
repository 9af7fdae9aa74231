import ArgumentParser
import BananasCore
import BananasFile

/// `bananas recover`: the good copies of the list that can be brought back (`GoodCopies`),
/// and bringing one back as an ordinary merged write: its items the list lacks are added,
/// and nothing on the list now is changed or removed.
struct RecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Bring back items from an earlier good copy of the list.",
        discussion: """
            Lists the good copies bananas can bring back, newest first: the last list written \
            on this machine and the one kept when the file went missing or empty (in the \
            state folder), conflict copies merged earlier, a sync engine's backups \
            (Syncthing's .stversions) and conflict copies beside the list. With no argument \
            it brings back the newest copy that holds items the list lacks; `recover N` \
            brings back copy N of `recover --list`. Items on the list now stay as they are.
            """)

    @OptionGroup var options: FileOptions
    @Argument(help: "The copy to bring back, as numbered by --list (default: the newest with something to bring back).")
    var number: Int?
    @Flag(help: "Only list the good copies.") var list = false
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        try perform {
            let file = options.listFile
            let copies = GoodCopies.find(for: file)
            // Shown against the list as it reads now; an unreadable file brings back everything.
            let current = (try? openList(file).list) ?? ShoppingList()
            let missing = copies.map { Self.bringBack($0.list, into: current).items.count }
            if list || (number == nil && copies.isEmpty) {
                Self.show(copies, missing: missing, json: json)
                return
            }
            let index: Int
            if let number {
                guard number >= 1, number <= copies.count else {
                    throw CLIError(message: "there is no good copy \(number); bananas recover --list shows \(copies.count)", code: ExitCodes.notFound)
                }
                index = number - 1
            } else {
                guard let newest = missing.firstIndex(where: { $0 > 0 }) else {
                    if json { Output.printJSON(.object(["recovered": .array([])])) } else {
                        Output.line("Nothing to bring back: every item of the good copies is on the list (bananas recover --list shows them).")
                    }
                    return
                }
                index = newest
            }
            let copy = copies[index]
            let brought: [Item] = try mutate(options) { list in
                let plan = Self.bringBack(copy.list, into: list)
                return (plan.edit, plan.items)
            }
            if json {
                Output.printJSON(.object(["from": .string(copy.path), "recovered": .array(brought.map(Output.json))]))
                return
            }
            if brought.isEmpty {
                Output.line("Nothing to bring back from \(Output.safe(copy.path)): its items are on the list.")
                return
            }
            Output.line("Brought back \(brought.count) item\(brought.count == 1 ? "" : "s") from \(copy.kind.words) of \(Self.time(copy.modifiedMillis)):")
            for item in brought { Output.line("  " + Output.row(item, showID: false)) }
        }
    }

    /// The edit that brings back the items of `copy` that `list` does not show (by id, or by
    /// a name on the list), with their sections; the items it brings back.
    static func bringBack(_ copy: ShoppingList, into list: ShoppingList) -> (edit: ListEdit?, items: [Item]) {
        var names = Set(list.items.map { $0.name.lowercased() })
        var sections = list.sections
        var steps: [ListEdit] = []
        var items: [Item] = []
        for item in copy.items where !list.isVisible(item.id) && !names.contains(item.name.lowercased()) {
            names.insert(item.name.lowercased())
            if list.section(named: item.section) == nil, !sections.contains(item.section) {
                sections.append(item.section)
            }
            steps.append(.insert(item))
            items.append(item)
        }
        guard !steps.isEmpty else { return (nil, []) }
        if sections != list.sections { steps.insert(.setSections(sections), at: 0) }
        return (.batch(steps), items)
    }

    static func show(_ copies: [GoodCopy], missing: [Int], json: Bool) {
        if json {
            Output.printJSON(.object(["copies": .array(zip(copies, missing).enumerated().map { index, pair in
                .object([
                    "number": .number(String(index + 1)), "kind": .string(pair.0.kind.rawValue), "path": .string(pair.0.path),
                    "modified": .string(Timestamp.iso8601(millis: pair.0.modifiedMillis)),
                    "items": .number(String(pair.0.list.items.count)), "bringsBack": .number(String(pair.1)),
                ])
            })]))
            return
        }
        if copies.isEmpty {
            Output.line("No good copy of the list was found (state folder, merged conflict copies, sync backups, conflict copies).")
            return
        }
        Output.line("Good copies of the list, newest first:")
        for (index, (copy, missing)) in zip(copies, missing).enumerated() {
            let count = copy.list.items.count
            let back = missing == 0 ? "nothing the list lacks" : "brings back \(missing)"
            Output.line("  \(index + 1)  \(time(copy.modifiedMillis))  \(count) item\(count == 1 ? "" : "s") (\(back))  \(copy.kind.words)")
            Output.line("     " + Output.safe(copy.path))
        }
        Output.line("Bring one back: bananas recover N (no N: the newest that brings something back)")
    }

    /// `2026-12-06 07:15` (UTC), as `deleted` shows times.
    static func time(_ millis: Int64) -> String {
        String(Timestamp.iso8601(millis: millis).prefix(16).map { $0 == "T" ? " " : $0 })
    }
}
