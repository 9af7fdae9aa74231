import ArgumentParser
import BananasCLI
import BananasFile

/// `bananas-test cli --clock-offset MS -- ARGUMENTS`: a `bananas` command on a device whose
/// clock runs ahead (positive) or behind; locks and file times keep the real clock.
struct ShiftedCLICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cli", abstract: "A bananas command on a device whose clock is off (for the process tests).")

    @Option(help: "Milliseconds this device's clock runs ahead (negative: behind).") var clockOffset: Int64 = 0
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws {
        BananasCommand.time = SystemTime(offsetMillis: clockOffset)
        BananasCommand.main(arguments.first == "--" ? Array(arguments.dropFirst()) : arguments)
    }
}
