#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import BananasFile

/// `bananas serve`, `bananas pair`, `bananas devices`: the web page for phones (docs/serve.md).
/// The server is its own binary, `bananas-serve`, installed next to `bananas` (as `bananas-mcp`
/// is): `bananas` execs it with the command and its arguments, so `bananas` links no HTTP
/// server. These commands never reach ArgumentParser (`mainAcceptingLeadingFileOption` execs
/// first); they are here for `bananas --help`.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the list as a web page for your phone (runs bananas-serve; docs/serve.md).",
        discussion: "Its options (--listen, --port, --tls-cert, --tls-key, --public-url, --host, --no-pair): bananas serve --help.")

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws { ServeBinary.exec(["serve"] + arguments) }
}

struct PairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Show a new pairing code for bananas serve (a QR code for a phone).")

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws { ServeBinary.exec(["pair"] + arguments) }
}

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the phones paired with bananas serve; devices revoke NAME ends one.")

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws { ServeBinary.exec(["devices"] + arguments) }
}

/// The sibling binary that runs the web server.
enum ServeBinary {
    static let name = "bananas-serve"
    static let commands: Set<String> = ["serve", "pair", "devices"]

    /// Replaces this process with `bananas-serve` from the running executable's folder.
    static func exec(_ arguments: [String]) -> Never {
        MCPServerBinary.execSibling(name, what: "the web server", arguments)
    }
}
