import ArgumentParser
import BananasFile
import BananasMCP
import BananasSync
import Dispatch
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `bananas-mcp`: serves the list to AI agents over stdio (docs/mcp.md). `bananas mcp` execs
/// this binary (installed next to `bananas`), so `bananas` itself carries no MCP SDK and no
/// networking runtime and starts fast. stdout carries the protocol only; logs go to stderr
/// through swift-log, at `BANANAS_LOG_LEVEL` (default info).
struct MCPServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bananas mcp",
        abstract: MCPCommandText.abstract,
        discussion: MCPCommandText.discussion,
        version: "0.1.0")

    @Option(name: .long, help: ArgumentHelp("The list file (default: $BANANAS_FILE, else ~/.local/share/bananas/BananaList.json).", valueName: "path"))
    var file: String?

    /// Accepted like every `bananas` command's (FileOptions); the server waits for the lock on
    /// its own schedule.
    @Option(name: .long, help: .hidden)
    var lockTimeout: Int64 = 7_000

    func run() throws {
        let given = LaunchSettings.cleaned(explicit: file, environment: Environment.current())
        let file = Locations.listFile(explicit: given.explicit, environment: given.environment)
        let (level, problem) = MCPLogging.level(ProcessInfo.processInfo.environment[MCPLogging.environmentKey])
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "bananas.mcp")
        if let problem { logger.warning("\(problem)") }
        for line in given.dropped { logger.notice("\(line)") }
        if given.environment["BANANAS_FILE"] == nil { unsetenv("BANANAS_FILE") }
        MainActor.assumeIsolated {
            let store = ListStore(file: file, mode: .live)
            let server = BananasMCPServer(store: store, logger: logger)
            Task { @MainActor in
                var status: Int32 = 0
                do { try await server.run() } catch {
                    logger.error("stopped: \(error)")
                    status = ExitCodes.failure
                }
                let left = store.close()
                if left > 0 {
                    logger.warning("\(left) edits could not be written to \(file.path); they stay in the journal and the next instance writes them")
                }
                logger.info("exiting", metadata: ["status": "\(left == 0 ? status : ExitCodes.cannotWrite)"])
                terminate(left == 0 ? status : ExitCodes.cannotWrite)
            }
        }
        dispatchMain()
    }
}

/// The C library's `exit` (inside a command, `exit` names ArgumentParser's).
func terminate(_ status: Int32) -> Never { exit(status) }

MCPServerCommand.main()
