#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(MachO)
import MachO
#endif
import ArgumentParser
import BananasFile
import BananasSync

/// `bananas mcp`: serves the list to AI agents over stdio (docs/mcp.md). The server is its own
/// binary, `bananas-mcp`, installed next to `bananas`: this command execs it with the same
/// arguments, stdin, stdout and process id, so `bananas` itself links no MCP SDK and no
/// networking runtime (and starts in less than half the time). `bananas mcp …` never reaches
/// ArgumentParser (`BananasCommand.mainAcceptingLeadingFileOption` execs first); this command
/// is here for `bananas --help` and `bananas help mcp`.
struct MCPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: MCPCommandText.abstract,
        discussion: MCPCommandText.discussion)

    @OptionGroup var options: FileOptions

    func run() throws {
        var arguments: [String] = []
        if let file = options.file { arguments += ["--file", file] }
        MCPServerBinary.exec(arguments)
    }
}

/// The sibling binary that runs the MCP server.
enum MCPServerBinary {
    static let name = "bananas-mcp"

    /// Replaces this process with `bananas-mcp` from the running executable's folder, with
    /// `arguments`; stdin, stdout, stderr, environment and process id stay. Exits 1 with a
    /// message when the binary is missing or cannot be run.
    static func exec(_ arguments: [String]) -> Never {
        execSibling(name, what: "the MCP server", arguments)
    }

    /// Replaces this process with the binary `name` installed next to it (`what` names it in
    /// messages): `bananas mcp` runs bananas-mcp, `bananas serve` bananas-serve.
    static func execSibling(_ name: String, what: String, _ arguments: [String]) -> Never {
        guard let folder = executableFolder() else {
            Output.error("cannot find the folder of the running bananas binary, where \(name) (\(what)) is installed")
            exit(ExitCodes.failure)
        }
        let path = folder + "/" + name
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        let problem = errno
        if problem == ENOENT || problem == ENOTDIR {
            Output.error("\(what) binary \(name) is missing: it must be installed next to bananas (\(path)); see the README, \"Install for daily use\"")
        } else {
            Output.error("cannot run \(what) \(path): \(String(cString: strerror(problem)))")
        }
        exit(ExitCodes.failure)
    }

    /// The folder of the running executable, symbolic links resolved: `/proc/self/exe` on
    /// Linux, `_NSGetExecutablePath` on macOS.
    static func executableFolder() -> String? {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #elseif canImport(Darwin)
        var size: UInt32 = 0
        _ = _NSGetExecutablePath(nil, &size)
        var raw = [CChar](repeating: 0, count: Int(size) + 1)
        guard _NSGetExecutablePath(&raw, &size) == 0, let resolved = realpath(raw, nil) else { return nil }
        let path = String(cString: resolved)
        free(resolved)
        #else
        guard let path = CommandLine.arguments.first, path.contains("/") else { return nil }
        #endif
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
