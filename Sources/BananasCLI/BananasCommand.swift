#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import BananasCore
import BananasFile

/// `bananas`: the command-line surface. Every command reads or edits the list through the
/// sync engine (`CommandSession`: lock, read, merge, atomic write); none touches the file itself.
public struct BananasCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "bananas",
        abstract: "A terminal-first, local-first shopping list.",
        discussion: """
            The list is one JSON file, shared with the Get Bananas apps and their MCP server.
            It is --file PATH, else $BANANAS_FILE, else $XDG_DATA_HOME/bananas/BananaList.json
            (~/.local/share/bananas/BananaList.json), created on first use.

            Items are named by id, a unique id prefix (4+ characters), their exact name
            (any case), or a unique start of their name.

            EXIT CODES
              0  success
              1  unexpected failure
              2  no such item or section
              3  the name matches several items (they are listed; use an id)
              4  invalid input (empty or over-long text, control characters)
              5  the file cannot be read (not JSON, not a list, too large, a directory)
              6  the file is from a newer bananas: it can be read, not changed
              7  the list is locked by another program that did not let go
              8  the file cannot be written (permissions, read-only or full disk, missing folder)
              9  undo or redo refused: another writer changed the value since
              64 bad command-line usage
            """,
        version: "0.1.0",
        subcommands: [
            EditorCommand.self, ViewCommand.self, ListCommand.self, AddCommand.self, CheckCommand.self, UncheckCommand.self, EditCommand.self,
            RemoveCommand.self, ClearCheckedCommand.self, SectionsCommand.self, StatusCommand.self,
            ConflictsCommand.self, DeletedCommand.self, RestoreCommand.self, RecoverCommand.self, UndoCommand.self, RedoCommand.self, UsualCommand.self, ForgetCommand.self, KeysCommand.self, ThemesCommand.self, MCPCommand.self,
            DoctorCommand.self, ServeCommand.self, PairCommand.self, DevicesCommand.self,
        ],
        defaultSubcommand: EditorCommand.self
    )

    public init() {}

    /// The time commands stamp with: the system's. Set once, before any command runs, by the
    /// test tool, which plays a device whose clock is off (`bananas-test cli --clock-offset`).
    public nonisolated(unsafe) static var time: any TimeSource = SystemTime()

    /// `bananas --file X add milk` works like `bananas add milk --file X`: a leading
    /// `--file` is handed to the subcommand through BANANAS_FILE (a subcommand's own
    /// `--file` still wins). `bananas mcp …` execs the sibling binary `bananas-mcp` with the
    /// rest of the arguments (MCPCommand.swift).
    public static func mainAcceptingLeadingFileOption() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        while let first = arguments.first, first == "--file" || first.hasPrefix("--file=") {
            let value: String
            if first == "--file" {
                guard arguments.count > 1 else { break }
                value = arguments[1]
                arguments.removeFirst(2)
            } else {
                value = String(first.dropFirst("--file=".count))
                arguments.removeFirst()
            }
            setenv("BANANAS_FILE", value.isEmpty ? "" : Locations.absolute(value), 1)
        }
        // The MCP server is its own binary; its arguments are its own (`--help` too).
        if arguments.first == "mcp" {
            MCPServerBinary.exec(Array(arguments.dropFirst()))
        }
        // So is the web server (ServeCommand.swift).
        if let first = arguments.first, ServeBinary.commands.contains(first) {
            ServeBinary.exec(arguments)
        }
        // `bananas chek milk`: a first word that names no command is a typo, not the editor's.
        if let first = arguments.first, let message = DidYouMean.unknownCommand(first) {
            Output.error(message)
            Self.exit(withError: ExitCode(ExitCodes.notFound))
        }
        // `list`, `add`, `check` and `uncheck` in their plain forms skip the parser's start-up
        // cost (FastPath.swift); the same command runs either way.
        if FastPath.run(arguments) { return }
        main(arguments)
    }
}

/// Options every command takes.
struct FileOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The list file (default: $BANANAS_FILE, else ~/.local/share/bananas/BananaList.json).", valueName: "path"))
    var file: String?

    @Option(name: .long, help: .hidden)
    var lockTimeout: Int64 = FileOptions.defaultLockTimeout

    /// Past the 5 s after which a dead holder's lock is broken.
    static let defaultLockTimeout: Int64 = 7_000

    var listFile: ListFile { Locations.listFile(explicit: file, time: BananasCommand.time) }

}

/// A failure with a message for the user and an exit code.
struct CLIError: Error {
    let message: String
    let code: Int32
}

/// Runs a command body, turning every failure into a message on stderr and an exit code.
func perform(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as ExitCode {
        throw error
    } catch {
        let (message, code) = describe(error)
        Output.error(message)
        throw ExitCode(code)
    }
}

/// The message and exit code for a failure (public for the test tool's session, which answers
/// with the same words).
public func describe(_ error: Error) -> (String, Int32) {
    switch error {
    case let error as ListFileError: (error.description, error.exitCode)
    case let error as AddressError:
        if case .ambiguous = error { (error.description, ExitCodes.ambiguous) } else { (error.description, ExitCodes.notFound) }
    case let error as TextRules.Violation: (error.description, ExitCodes.invalidInput)
    case let error as SectionError:
        if case .noSuchSection = error { (error.description, ExitCodes.notFound) } else { (error.description, ExitCodes.invalidInput) }
    case let error as CLIError: (error.message, error.code)
    case EditError.notRemembered(let name): ("\(Output.safe(name)) is not remembered", ExitCodes.notFound)
    default: (String(describing: error), ExitCodes.failure)
    }
}
