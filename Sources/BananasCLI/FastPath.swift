import ArgumentParser

/// The everyday commands (`list`, `add`, `check`, `uncheck`) in their plain forms, parsed
/// without swift-argument-parser's machinery.
///
/// Why: the parser reflects over every command's properties and casts each to its own
/// protocols, and each first cast makes the Swift runtime scan all of the binary's
/// conformance records: more work than the whole of what `bananas list` does with a small
/// list (docs/decisions.md, "Numbers behind the code"). These forms are cheap to recognise exactly:
/// the subcommand, `--file`, the command's own options each followed by a value, its flags,
/// and names. They build the very same command value the parser would (`FastPathTests`
/// compares the two on many argument lists) and run it the same way. Anything else (help,
/// `--`, `--opt=value`, a repeated option, a value or name that starts with `-`, an unknown
/// option, a missing value) is left to swift-argument-parser, which parses it and reports
/// errors as before.
enum FastPath {
    /// Runs `arguments` (after the program name and any leading `--file`) when they are one
    /// of the plain forms; false, having done nothing, when they are not.
    static func run(_ arguments: [String]) -> Bool {
        guard var command = parse(arguments) else { return false }
        do {
            try command.validate()
        } catch {
            return false  // the parser reports it, worded as usual
        }
        do {
            try command.run()
        } catch {
            BananasCommand.exit(withError: error)
        }
        return true
    }

    /// The command value for a plain form, or nil.
    static func parse(_ arguments: [String]) -> ParsableCommand? {
        guard let name = arguments.first else { return nil }
        let rest = arguments.dropFirst()
        switch name {
        case "list":
            guard let parsed = Parsed(rest, options: ["--section"], flags: ["--json", "--unchecked", "--ids"]),
                  parsed.names.isEmpty else { return nil }
            var command = ListCommand()
            command.options = parsed.fileOptions
            command.json = parsed.flags.contains("--json")
            command.section = parsed.values["--section"]
            command.unchecked = parsed.flags.contains("--unchecked")
            command.ids = parsed.flags.contains("--ids")
            return command
        case "add":
            guard let parsed = Parsed(rest, options: ["--amount", "--section"], flags: ["--optional", "--duplicate", "--json"]),
                  !parsed.names.isEmpty else { return nil }
            var command = AddCommand()
            command.options = parsed.fileOptions
            command.names = parsed.names
            command.amount = parsed.values["--amount"]
            command.section = parsed.values["--section"]
            command.optional = parsed.flags.contains("--optional")
            command.duplicate = parsed.flags.contains("--duplicate")
            command.json = parsed.flags.contains("--json")
            return command
        case "check", "uncheck":
            guard let parsed = Parsed(rest, options: [], flags: []), !parsed.names.isEmpty else { return nil }
            if name == "check" {
                var command = CheckCommand()
                command.options = parsed.fileOptions
                command.items = parsed.names
                command.section = nil
                return command
            }
            var command = UncheckCommand()
            command.options = parsed.fileOptions
            command.items = parsed.names
            command.section = nil
            return command
        default:
            return nil
        }
    }

    /// `--file` and the command's options with their values, its flags, and the names, in a
    /// form with nothing the fast path leaves to the parser.
    struct Parsed {
        var values: [String: String] = [:]
        var flags: Set<String> = []
        var names: [String] = []

        init?(_ arguments: ArraySlice<String>, options: Set<String>, flags allowed: Set<String>) {
            var index = arguments.startIndex
            while index < arguments.endIndex {
                let argument = arguments[index]
                index += 1
                guard argument.hasPrefix("-") else {
                    names.append(argument)
                    continue
                }
                if argument == "--file" || options.contains(argument) {
                    guard index < arguments.endIndex, !arguments[index].hasPrefix("-"), values[argument] == nil else { return nil }
                    values[argument] = arguments[index]
                    index += 1
                } else if allowed.contains(argument), !flags.contains(argument) {
                    flags.insert(argument)
                } else {
                    return nil
                }
            }
        }

        var fileOptions: FileOptions {
            var options = FileOptions()
            options.file = values["--file"]
            options.lockTimeout = FileOptions.defaultLockTimeout
            return options
        }
    }
}
