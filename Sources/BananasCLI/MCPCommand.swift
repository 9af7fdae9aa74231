import ArgumentParser
import BananasFile
import BananasMCP
import BananasSync
import Dispatch
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// `bananas mcp`: serves the list to AI agents over stdio (docs/mcp.md). stdout carries the
/// protocol only; logs go to stderr through swift-log, at `BANANAS_LOG_LEVEL` (default info).
struct MCPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve the list to AI agents (Model Context Protocol over stdio).",
        discussion: """
            Add it to an MCP client as the command `bananas` with the argument `mcp` (docs/mcp.md). \
            Logs go to stderr; set BANANAS_LOG_LEVEL to trace, debug, info (default), notice, \
            warning, error or critical.
            """)

    @OptionGroup var options: FileOptions

    func run() throws {
        let file = options.listFile
        let (level, problem) = MCPLogging.level(ProcessInfo.processInfo.environment[MCPLogging.environmentKey])
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "bananas.mcp")
        if let problem { logger.warning("\(problem)") }
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
                Glibc.exit(left == 0 ? status : ExitCodes.cannotWrite)
            }
        }
        dispatchMain()
    }
}
