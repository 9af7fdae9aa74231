#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import BananasCore
import BananasFile
import BananasSync

/// `bananas usual`: what is usually bought and is not on the list now (docs/memory.md).
struct UsualCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "usual",
        abstract: "List the items you usually buy that are not on the list (add them back with --add).",
        discussion: """
            Every item that was on the list is remembered, with the section, amount and optional
            flag it last had and how often it was bought (checked, then cleared). The most useful
            come first: bought often and recently. With --add they go back on the list, each in
            its section as last time, after you confirm (or at once with --yes). Name some to add
            only those.
            """)

    @OptionGroup var options: FileOptions
    @Argument(help: ArgumentHelp("With --add: only these (names as listed).", valueName: "name"), completion: .custom(rememberedNames))
    var names: [String] = []
    @Flag(help: "Put them back on the list.") var add = false
    @Flag(help: "With --add: do not ask.") var yes = false
    @Option(help: "Show at most this many.") var limit = 30
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        if !names.isEmpty && !add { throw ValidationError("name items only with --add") }
        if yes && !add { throw ValidationError("--yes goes with --add") }
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        try perform {
            let session = try openList(options.listFile, lockTimeoutMillis: options.lockTimeout)
            let now = session.file.time.nowMillis()
            let usual = session.list.usualItems(now: now)
            var chosen = Array(usual.prefix(limit))
            if !names.isEmpty {
                chosen = try names.map { name in
                    guard let found = usual.first(where: { $0.folded == ItemMemory.fold(name) }) else {
                        throw CLIError(message: "\(Output.safe(name)) is not among the usual items (see bananas usual)", code: ExitCodes.notFound)
                    }
                    return found
                }
            }
            if !add {
                show(chosen, now: now)
                return
            }
            guard !chosen.isEmpty else {
                Output.line("Nothing to add: no usual item is missing from the list.")
                return
            }
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    throw CLIError(message: "add \(Output.count(chosen.count, "item"))? Answer on a terminal, or pass --yes", code: ExitCodes.usage)
                }
                show(chosen, now: now)
                Output.prompt("Add \(chosen.count == 1 ? "it" : "these \(chosen.count) items") to the list? [y/N] ")
                guard let answer = readLine(), ["y", "yes"].contains(answer.trimmingWhitespace().lowercased()) else {
                    Output.line("Nothing added.")
                    return
                }
            }
            let outcomes = try mutate(options) { list in
                let plan = list.addEdit(chosen.map(\.name))
                return (plan.edit, plan.outcomes)
            }
            AddCommand.report(outcomes, json: json)
        }
    }

    func show(_ items: [RememberedItem], now: Int64) {
        if json {
            Output.printJSON(.array(items.map { Output.json($0, now: now) }))
            return
        }
        if items.isEmpty {
            Output.line("No usual items missing from the list. Items are remembered once they are bought (checked, then cleared).")
            return
        }
        for item in items {
            let amount = item.amount.isEmpty ? "" : " (" + Output.safe(item.amount) + ")"
            Output.line("\(Output.safe(item.name))\(amount) · \(Output.sectionTitle(item.section)) · \(Output.bought(item, now: now))")
        }
        if !add { Output.line("Add them back: bananas usual --add [NAME...]") }
    }
}

/// `bananas forget`: removes names from the memory (not from the list).
struct ForgetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Forget remembered items (the list itself is not changed).",
        discussion: """
            The memory travels with the list to every device that shares it; a forget does too.
            An item forgotten and then added or bought again is remembered again.
            """)

    @OptionGroup var options: FileOptions
    @Argument(help: ArgumentHelp("Names to forget (any case).", valueName: "name"), completion: .custom(rememberedNames))
    var names: [String] = []
    @Flag(help: "Forget every remembered item.") var all = false

    func validate() throws {
        if names.isEmpty == !all { throw ValidationError(all ? "--all takes no names" : "name an item to forget, or pass --all") }
    }

    func run() throws {
        try perform {
            let forgotten: Int = try mutate(options) { list in
                if all { return (.forget(nil), list.rememberedItems(now: options.listFile.time.nowMillis()).count) }
                return (.batch(names.map { .forget($0) }), names.count)
            }
            if all {
                Output.line("Forgot all remembered items (\(Output.count(forgotten, "name"))).")
            } else {
                for name in names { Output.line("Forgot \(Output.safe(name)).") }
            }
        }
    }
}

/// Shell completion of item names: the remembered names not on the list that start with what
/// was typed (any case), most useful first. Silent on any failure (a completion never errs).
@Sendable func rememberedNames(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
    var file: String?
    for (position, word) in words.enumerated() {
        if word == "--file", position + 1 < words.count { file = words[position + 1] }
        if word.hasPrefix("--file=") { file = String(word.dropFirst("--file=".count)) }
    }
    guard let session = try? openList(Locations.listFile(explicit: file), lockTimeoutMillis: 200) else { return [] }
    let typed = ItemMemory.fold(prefix)
    return session.list.rememberedItems(now: session.file.time.nowMillis())
        .filter { !$0.onList && $0.folded.hasPrefix(typed) }
        .prefix(50).map(\.name)
}

extension Output {
    /// "bought 4 times, last 3 days ago" (or "not bought yet").
    static func bought(_ item: RememberedItem, now: Int64) -> String {
        guard let last = item.lastBought else { return "not bought yet" }
        let days = max(0, now - last) / 86_400_000
        let when = days == 0 ? "today" : days == 1 ? "yesterday" : "\(days) days ago"
        return "bought \(item.timesBought == 1 ? "once" : "\(item.timesBought) times"), last \(when)"
    }

    static func json(_ item: RememberedItem, now: Int64) -> JSONValue {
        var object: [String: JSONValue] = [
            "name": .string(item.name), "section": .string(item.section), "amount": .string(item.amount),
            "optional": .bool(item.optional), "timesBought": .number(String(item.timesBought)),
        ]
        if let last = item.lastBought { object["lastBought"] = .string(Timestamp.iso8601(millis: last)) }
        return .object(object)
    }

    /// "1 item", "3 items".
    static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }

    /// Text with no newline, flushed: a question whose answer is typed on the same line.
    static func prompt(_ text: String) {
        print(TextRules.escaped(text), terminator: "")
        fflush(nil)
    }
}
