#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import BananasEditor
import BananasFile
import BananasSync
import BananasTerminal
import BananasThemes
import Dispatch

/// `bananas` (and `bananas open`): the full-screen editor.
struct EditorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open the full-screen editor (what `bananas` alone does).",
        discussion: """
            Press ? in the editor for every key. Changes from other editors, the CLI and agents
            show up as they happen. When stdout is not a terminal, prints the list instead.
            """)

    @OptionGroup var options: FileOptions
    @Option(help: ArgumentHelp("The colour theme (see bananas themes; default: $BANANAS_THEME, config.yaml, else default).", valueName: "name"), completion: .custom(themeNames))
    var theme: String?
    @Flag(help: "Leave the mouse to the terminal (default: clicks and the wheel act; config.yaml: mouse: false).")
    var noMouse = false

    func run() throws {
        try runEditor(file: options.listFile, mode: .live, theme: theme, noMouse: noMouse)
    }
}

/// `bananas view`: the same screen, read-only. It writes nothing at all: no file, no lock,
/// no journal.
struct ViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Watch the list read-only, full-screen (writes nothing).")

    @OptionGroup var options: FileOptions
    @Option(help: ArgumentHelp("The colour theme (see bananas themes).", valueName: "name"), completion: .custom(themeNames))
    var theme: String?
    @Flag(help: "Leave the mouse to the terminal (config.yaml: mouse: false).")
    var noMouse = false

    func run() throws {
        try runEditor(file: options.listFile, mode: .viewer, theme: theme, noMouse: noMouse)
    }
}

func runEditor(file: ListFile, mode: ListStore.Mode, theme themeName: String?, noMouse: Bool = false) throws {
    guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
        // Not a terminal (a pipe, a script): print the list the way `bananas list` does.
        let list = try ListCommand.parse(["--file", file.path])
        try list.run()
        return
    }
    try perform {
        try MainActor.assumeIsolated {
            let store = ListStore(file: file, mode: mode)
            let editor = Editor(store: store)
            // Asked before curses starts (its reply must not reach the editor as keys); not
            // when no colour will be shown.
            let colour = (Environment.value("NO_COLOR") ?? "").isEmpty
            let (theme, problem) = ThemeCatalog.load(flag: themeName, background: colour ? BackgroundProbe.query() : nil)
            var mouse = !noMouse
            if mouse {
                do throws(ThemeError) {
                    mouse = try Config.mouse(in: Config.path()) ?? true
                } catch {
                    editor.show(error.description, isError: true)
                }
            }
            do throws(ThemeError) {
                editor.spaceMovesOn = try Config.spaceMovesOn(in: Config.path()) ?? true
            } catch {
                editor.show(error.description, isError: true)
            }
            if let problem { editor.show(problem, isError: true) }
            let runner = EditorRunner(editor: editor, theme: theme, mouse: mouse)
            EditorHolder.runner = runner
            do {
                try runner.start()
            } catch {
                _ = store.close()
                throw CLIError(message: "\(error)", code: ExitCodes.failure)
            }
        }
    }
    dispatchMain()
}

@MainActor
enum EditorHolder {
    /// Keeps the runner alive while the main queue runs it.
    static var runner: EditorRunner?
}
