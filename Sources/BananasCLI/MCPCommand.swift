import ArgumentParser
import BananasFile
import BananasMCP
import BananasSync
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// `bananas mcp`: serves the list to AI agents over stdio (see docs/mcp.md when it lands).
struct MCPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp", abstract: "Serve the list to AI agents (Model Context Protocol, stdio). Work in progress.")

    @OptionGroup var options: FileOptions

    func run() throws {
        let file = options.listFile
        MainActor.assumeIsolated {
            let store = ListStore(file: file, mode: .live)
            let server = BananasMCPServer(store: store)
            Task { @MainActor in
                var status: Int32 = 0
                do { try await server.run() } catch { status = ExitCodes.failure }
                let left = store.close()
                Glibc.exit(left == 0 ? status : ExitCodes.cannotWrite)
            }
        }
        dispatchMain()
    }
}
