#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import BananasCLI
import Dispatch

/// `bananas-test crashing-editor [ARGS…]`: `bananas ARGS…` (the editor), which dies of a Swift
/// trap on the main queue when it gets SIGUSR1, for the test that proves a crash restores the
/// terminal (the editor's fatal-signal handlers, installed by `bananas` itself).
struct CrashingEditorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crashing-editor", abstract: "The editor, crashing on SIGUSR1.")

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws {
        signal(SIGUSR1, SIG_IGN)
        let crash = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .main)
        crash.setEventHandler { fatalError("crash requested with SIGUSR1") }
        crash.resume()
        withExtendedLifetime(crash) { BananasCommand.main(arguments) }
    }
}
