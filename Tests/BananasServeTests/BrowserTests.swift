import Foundation
import Subprocess
import SystemPackage
import Synchronization
import Testing

/// The phone at the store in a real browser: Tests/Browser/phone_at_the_store.py drives Debian's
/// headless Chromium with Selenium against the real `bananas serve` (scripts/test installs
/// chromium, chromium-driver and selenium), and reports each step as a JSON line.
@Suite("The web page in a real browser")
struct BrowserTests {
    static let timeLimit: TimeInterval = 900

    static let steps = [
        "at 320, 360, 390 and 430 px, light and dark: no word split, nothing cut or overflowing, 44 px targets",
        "the screenshots match the reference images in docs/serve/ (or were written there to be looked at)",
        "bananas serve shows a pairing URL and a QR code",
        "the page weighs at most 50 KB compressed",
        "a phone pairs with the code from the terminal",
        "the code works once",
        "every control has a name for screen readers, and checkboxes their state",
        "at 320 px nothing overflows, no zoom, and every control is at least 44 x 44 px",
        "the phone checks and adds items: in the file and in a running instance",
        "the running editor (ncurses, in tmux) shows the phone's check and add",
        "a CLI edit appears on the page without a reload",
        "the page is installable (manifest, service worker)",
        "offline, the page keeps taking edits and says so",
        "reloaded with no connection, the page opens with the list and the waiting edits",
        "back online, every edit is in the file exactly once",
        "and in the running instance; the laptop's edit made meanwhile is on the page",
        "the running editor shows the edits made offline, once",
        "an item moves up within its section: on the page, in the file, the running instance and the editor",
        "the sheet renames, sets the amount and optional, and moves to a new or an existing section",
        "delete (sheet) and clear the cart work, each with undo, and the cleared items are in recently deleted",
        "the cart folds, and stays folded on this phone after a reload",
        "the accessibility tree: every control has a role and a name, checkboxes their state, items read in the editor's order",
        "swiping a row sideways deletes it, with Undo; a short or vertical drag does not",
        "a value that lost is in the conflict review on the page and the CLI",
        "the server out of reach while the phone is online says so, not offline, and the edit lands",
        "a paused list keeps the page's queue (409 paused), and every edit lands once when it is repaired",
        "a 503 keeps the edit, sent again with the same key; a refusal for good is dropped and said",
        "a hostile list renders as text and runs no script",
        "requests without a token, with a revoked token, a foreign Origin or Host are refused",
        "nothing was added by a refused request",
        "over plain HTTP on a network the page says it cannot open offline, and its queue still works",
        "SIGTERM stops the server with its edits written (exit 0)",
        "over HTTPS (--tls-cert, --tls-key) the page pairs and the cookie is Secure",
    ]

    static var productsFolder: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().path
    }

    @Test("the looks at four widths in two themes; pair, check, add, the sheet, the cart, offline and back, a paused list, hostile text, refusals")
    func phoneAtTheStore() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Browser/phone_at_the_store.py").path
        let bananas = ProcessInfo.processInfo.environment["BANANAS_BIN"] ?? BrowserTests.productsFolder + "/bananas"
        // Into a file, not a pipe: chromium's helpers may hold a pipe open past the script's end.
        let report = NSTemporaryDirectory() + "bananas-browser-" + UUID().uuidString + ".jsonl"
        defer { try? FileManager.default.removeItem(atPath: report) }
        let output = try FileDescriptor.open(FilePath(report), .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
        let timedOut = Flag()
        let run = try await Subprocess.run(
            .path("/usr/bin/env"),
            arguments: ["python3", script, "--bananas", bananas, "--test-tool", BrowserTests.productsFolder + "/bananas-test"],
            environment: .inherit, input: .none, output: .fileDescriptor(output, closeAfterSpawningProcess: true), error: .discarded
        ) { execution in
            let pid = execution.processIdentifier.value
            return Task {
                try await Task.sleep(for: .seconds(BrowserTests.timeLimit))
                timedOut.set()
                kill(pid, SIGTERM)
                try await Task.sleep(for: .seconds(30))
                kill(pid, SIGKILL)
            }
        }
        run.closureResult.cancel()
        if timedOut.value { Issue.record("the browser test took longer than \(Int(BrowserTests.timeLimit)) s") }
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let passed = lines.filter { $0["ok"] as? Bool == true }.compactMap { $0["step"] as? String }
        for step in BrowserTests.steps {
            #expect(passed.contains(step), "step failed or did not run: \(step)\n\(text)")
        }
        #expect(run.terminationStatus == .exited(0), "\(text)")
        print("Browser test:", text)
    }
}

final class Flag: Sendable {
    private let stored = Mutex(false)
    var value: Bool { stored.withLock { $0 } }
    func set() { stored.withLock { $0 = true } }
}
