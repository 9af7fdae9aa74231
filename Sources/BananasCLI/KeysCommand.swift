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
        for group in Binding.Group.allCases {
            print(group.rawValue)
            for binding in KeyMap.bindings where binding.group == group {
                print("  " + binding.keyLabel.padding(to: 14) + binding.help)
            }
        }
        print("In a prompt")
        for entry in KeyMap.promptHelp { print("  " + entry.keys.padding(to: 14) + entry.help) }
    }
}

extension String {
    func padding(to columns: Int) -> String {
        TextWidth.padded(self, to: max(columns, TextWidth.of(self) + 1))
    }
}
