import CTestProcess
import Foundation
import Testing

/// A private tmux server running the real binary in panes, for end-to-end tests of the
/// editor: keys go in with `send-keys`, the screen comes back with `capture-pane`.
final class Tmux {
    let socket = "bananas-test-" + UUID().uuidString.prefix(8)
    let cli: CLI
    /// What the panes run: `bananas`, or the test tool's `crashing-editor`.
    let program: [String]
    private(set) var firstPane = ""

    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") || which("tmux") != nil }

    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Starts a server with one window of `width` x `height` running `program arguments`.
    init(_ cli: CLI, width: Int = 60, height: Int = 16, program: [String] = [CLI.binary], arguments: [String] = [],
         environment extra: [String: String] = [:]) throws {
        self.cli = cli
        self.program = program
        let statusPath = cli.folder + ".tmux-status-" + UUID().uuidString
        run(["-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "\(width)", "-y", "\(height)", command(arguments, extra, statusPath: statusPath)])
        run(["set-option", "-g", "remain-on-exit", "on"])
        run(["set-option", "-g", "status", "off"])
        firstPane = run(["display-message", "-p", "-t", "main", "#{pane_id}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        statusFiles[firstPane] = statusPath
    }

    deinit {
        // The panes' shells trap SIGHUP, so bananas is told to quit first; the editor also
        // quits by itself once its terminal is gone.
        for pane in statusFiles.keys {
            if let pid = bananasPID(pane) { kill(pid, SIGTERM) }
        }
        run(["kill-server"])
        for path in statusFiles.values { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Where each pane's wrapper writes the exit status of bananas.
    private var statusFiles: [String: String] = [:]

    /// The shell command for a pane. A small shell waits for bananas and writes its exit
    /// status to `statusPath` (tmux itself sometimes never learns it: seen with tmux 3.3a,
    /// the process left a zombie). The trap keeps the shell alive through Ctrl-C; handlers,
    /// unlike ignored signals, are reset when bananas starts.
    private func command(_ arguments: [String], _ extra: [String: String], statusPath: String) -> String {
        var environment = cli.environment(extra)
        if extra["TERM"] == nil { environment["TERM"] = nil }  // tmux's own, unless a test sets one
        let keep = ["BANANAS_FILE", "HOME", "XDG_RUNTIME_DIR", "PATH", "LANG", "LC_ALL", "TERM", "COLORTERM",
                    "NO_COLOR", "BANANAS_THEME", "XDG_CONFIG_HOME", "COLORFGBG"]
        // Colour and theme settings come only from the test (swift test itself sets NO_COLOR).
        for key in ["COLORTERM", "NO_COLOR", "BANANAS_THEME", "XDG_CONFIG_HOME", "COLORFGBG"] where extra[key] == nil { environment[key] = nil }
        // A state folder of the test's own (a laptop sharing one with its commands) is kept.
        let kept = keep + (extra["XDG_STATE_HOME"] == nil ? [] : ["XDG_STATE_HOME"])
        let assignments = kept.compactMap { key in environment[key].map { "\(key)=\(quote($0))" } }
        let unset = ["XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "COLORTERM", "NO_COLOR", "BANANAS_THEME", "COLORFGBG"]
            .filter { extra[$0] == nil }.map { "-u \($0)" }.joined(separator: " ")
        let run = "env \(unset) \(assignments.joined(separator: " ")) " + (program + arguments).map(quote).joined(separator: " ")
        return "trap true INT TERM HUP; \(run); echo $? > \(quote(statusPath))"
    }

    private func newStatusPath() -> String {
        cli.folder + ".tmux-status-" + UUID().uuidString
    }

    /// The pid of bananas in a pane (the child of the pane's shell).
    func bananasPID(_ pane: String? = nil) -> pid_t? {
        guard let shell = Int32(info("#{pane_pid}", pane: pane)) else { return nil }
        let children = (try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { pid_t($0) }
    }

    private func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Splits the window side by side; the new pane runs `bananas arguments`. Returns its id.
    func splitRight(arguments: [String] = []) -> String {
        let statusPath = newStatusPath()
        let pane = run(["split-window", "-h", "-t", firstPane, "-P", "-F", "#{pane_id}", command(arguments, [:], statusPath: statusPath)])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        statusFiles[pane] = statusPath
        return pane
    }

    @discardableResult
    func run(_ arguments: [String]) -> String {
        // Not Foundation's Process: its wait never returns once tmux has forked its server
        // (seen on Linux), and the server must not inherit other tests' pipes.
        let outputPath = NSTemporaryDirectory() + "tmux-out-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let argv = [Tmux.which("tmux") ?? "/usr/bin/tmux", "-u", "-L", socket] + arguments
        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        _ = bananas_run_closing_descriptors(&cArguments, outputPath)
        return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    /// Sends keys by tmux name (`Enter`, `Escape`, `Space`, `C-r`, `Up`, `j`).
    func keys(_ keys: String..., pane: String? = nil) {
        run(["send-keys", "-t", pane ?? firstPane] + keys)
    }

    /// Types text literally (UTF-8 included).
    func type(_ text: String, pane: String? = nil) {
        run(["send-keys", "-t", pane ?? firstPane, "-l", text])
    }

    func screen(_ pane: String? = nil) -> String {
        run(["capture-pane", "-p", "-t", pane ?? firstPane])
    }

    /// The screen with its colours and attributes as escape sequences.
    func styledScreen(_ pane: String? = nil) -> String {
        run(["capture-pane", "-p", "-e", "-t", pane ?? firstPane])
    }

    func info(_ format: String, pane: String? = nil) -> String {
        run(["display-message", "-p", "-t", pane ?? firstPane, format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func resize(width: Int, height: Int) {
        run(["resize-window", "-t", "main", "-x", "\(width)", "-y", "\(height)"])
    }

    /// Waits until the pane's screen satisfies `condition`; the screen when it did, or nil
    /// after `timeout` seconds.
    @discardableResult
    func waitForScreen(_ pane: String? = nil, timeout: Double = 8, _ condition: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let text = screen(pane)
            if condition(text) { return text }
            Thread.sleep(forTimeInterval: 0.01)
        } while Date() < deadline
        return nil
    }

    func waitFor(_ text: String, pane: String? = nil, timeout: Double = 8) -> Bool {
        waitForScreen(pane, timeout: timeout) { $0.contains(text) } != nil
    }

    /// How the pane's program ended.
    enum Exit: Equatable {
        case status(Int)
        case signal(Int)
    }

    /// Waits until bananas in the pane has exited; how it ended, or nil after `timeout`.
    func waitForExit(_ pane: String? = nil, timeout: Double = 10) -> Exit? {
        guard let path = statusFiles[pane ?? firstPane] else { return nil }
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let text = try? String(contentsOfFile: path, encoding: .utf8),
               let code = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                return code > 128 ? .signal(code - 128) : .status(code)
            }
            Thread.sleep(forTimeInterval: 0.02)
        } while Date() < deadline
        return nil
    }

    /// The line of the screen that holds `text`.
    func line(containing text: String, pane: String? = nil) -> String? {
        screen(pane).split(separator: "\n").first { $0.contains(text) }.map(String.init)
    }
}
