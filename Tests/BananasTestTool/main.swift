import ArgumentParser

/// `bananas-test`: what the process tests need of bananas that users must not get. Built by
/// `swift build` next to `bananas`, never installed (not a product).
struct TestTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bananas-test", abstract: "Test-only instances of bananas.",
        subcommands: [SessionCommand.self, CrashingEditorCommand.self, ShiftedCLICommand.self, HostileFileCommand.self])
}

TestTool.main()
