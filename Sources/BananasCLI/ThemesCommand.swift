#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import BananasEditor
import BananasFile
import BananasTerminal
import BananasThemes

/// `bananas themes`: every theme, with a one-line preview.
struct ThemesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "themes",
        abstract: "List the colour themes, with a preview of each.",
        discussion: """
            Choose one with `bananas --theme NAME`, BANANAS_THEME, or `theme: NAME` in
            $XDG_CONFIG_HOME/bananas/config.yaml. Your own themes go in
            $XDG_CONFIG_HOME/bananas/themes/NAME.yaml (docs/themes.md).
            """)

    @Flag(help: "Print the previews without colour even on a terminal.") var plain = false

    func run() throws {
        let environment = Environment.current()
        let catalog = ThemeCatalog(environment: environment)
        let colored = !plain && isatty(STDOUT_FILENO) == 1
        let level = colored ? ThemePreview.level(environment: environment) : .none
        let current = ThemeCatalog.load(flag: nil, environment: environment,
                                        background: colored && isatty(STDIN_FILENO) == 1 ? BackgroundProbe.query() : nil).theme.name
        let width = catalog.names().map(\.name.count).max() ?? 8
        for (name, source) in catalog.names() {
            let marker = name == current ? "*" : " "
            let label = TextWidth.padded(name, to: width)
            do {
                let file = try catalog.file(named: name)
                let theme = try catalog.theme(named: name)
                let preview = colored ? ThemePreview.line(theme, level: level) : ""
                let about = (file.description ?? "") + (source == .user ? " (yours)" : "")
                // Names and descriptions come from theme files: escaped. The preview alone is
                // our own colour codes, printed as they are.
                Output.line("\(marker) \(Output.safe(label))  \(Output.safe(about))")
                if colored { print("    " + preview) }
            } catch {
                Output.line("\(marker) \(Output.safe(label))  problem: \(Output.safe(String(describing: error)))")
            }
        }
        if colored { print("\nShown at \(level); * is the theme in use.") }
    }
}
