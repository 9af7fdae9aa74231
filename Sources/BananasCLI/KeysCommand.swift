import ArgumentParser
import BananasEditor

/// `bananas keys`: the editor's keys, from the same table as its help overlay.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "List the editor's keys (the same table as its ? help).")

    @Flag(help: "Print docs/keys.md (Markdown).") var markdown = false

    func run() {
        if markdown {
            print(KeyMap.markdown(), terminator: "")
            return
        }
        // The help overlay's lines: every mode's table, then the status bar's states.
        for line in Screen.helpLines(readOnly: false) {
            print(line.help.isEmpty ? line.keys : "  " + line.keys.padding(to: 14) + line.help)
        }
    }
}

extension String {
    func padding(to columns: Int) -> String {
        TextWidth.padded(self, to: max(columns, TextWidth.of(self) + 1))
    }
}
