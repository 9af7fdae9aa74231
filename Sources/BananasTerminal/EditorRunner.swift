import BananasEditor
import BananasSync
import CCurses
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the editor on the terminal until the user quits: keys arrive through a dispatch
/// source on stdin, changes from other writers through the store, and everything (curses
/// included) happens on the main queue. Never returns; exits the process.
@MainActor
public final class EditorRunner {
    let editor: Editor
    let terminal: CursesTerminal
    private var drawScheduled = false
    private var sources: [any DispatchSourceProtocol] = []
    private var finished = false
    private var emptyReads = 0
    private let crashKeyEnabled = getenv("BANANAS_TEST_CRASH") != nil

    public init(editor: Editor, theme: Theme) {
        self.editor = editor
        terminal = CursesTerminal(theme: theme)
    }

    /// Starts the terminal and the event sources; call `dispatchMain()` after.
    public func start() throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw TerminalError.notATerminal }
        try terminal.start()
        editor.onNeedsDisplay = { [weak self] in self?.setNeedsDisplay() }
        editor.onRepaintAll = { [weak self] in self?.terminal.repaintAll() }

        let input = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        input.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.readInput() } }
        input.resume()
        sources.append(input)

        // The terminal size, checked often (cheap: one ioctl), so a resize redraws at once
        // without depending on how SIGWINCH is delivered.
        let resize = DispatchSource.makeTimerSource(queue: .main)
        resize.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100), leeway: .milliseconds(50))
        resize.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.checkResize() } }
        resize.resume()
        sources.append(resize)

        // Once a second: `synced 4s ago` ages, messages expire.
        let tick = DispatchSource.makeTimerSource(queue: .main)
        tick.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1), leeway: .milliseconds(200))
        tick.setEventHandler { [weak self] in
            MainActor.assumeIsolated {
                if self?.editor.tick() == true { self?.setNeedsDisplay() }
            }
        }
        tick.resume()
        sources.append(tick)

        // SIGQUIT (Ctrl-\) too: left alone, the Swift runtime would print a backtrace over the screen.
        for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.finish() } }
            source.resume()
            sources.append(source)
        }
        draw()
    }

    private func readInput() {
        let keys = terminal.readKeys()
        if keys.isEmpty {
            // Readable again and again with nothing to read: the terminal went away (EOF
            // on stdin without a SIGHUP). A lone partial escape sequence reads empty once.
            emptyReads += 1
            if emptyReads > 100 { finish() }
            return
        }
        emptyReads = 0
        for input in keys {
            switch input {
            case .resize:
                _ = terminal.checkSize()
            case .key(.function(12)) where crashKeyEnabled:
                // For the test that proves a crash restores the terminal.
                fatalError("crash requested with F12 (BANANAS_TEST_CRASH is set)")
            case .key(let key):
                if !editor.handle(key) {
                    finish()
                    return
                }
            }
        }
        draw()
    }

    private func checkResize() {
        switch terminal.checkSize() {
        case .changed: draw()
        case .gone: finish()  // the terminal hung up without a SIGHUP reaching us
        case .same: break
        }
    }

    private func setNeedsDisplay() {
        guard !drawScheduled else { return }
        drawScheduled = true
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                self?.drawScheduled = false
                self?.draw()
            }
        }
    }

    private func draw() {
        guard !finished else { return }
        let size = terminal.size
        editor.setViewport(height: size.height)
        terminal.draw(editor.render(width: size.width, height: size.height))
    }

    /// Writes what is pending, restores the terminal, and exits.
    public func finish() {
        guard !finished else { return }
        finished = true
        for source in sources { source.cancel() }
        terminal.stop()
        let left = editor.store.close()
        if left > 0 {
            let text = "bananas: \(left) edit\(left == 1 ? "" : "s") could not be written to the list yet; they are kept and will be written the next time bananas runs.\n"
            _ = text.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
            exit(8)
        }
        exit(0)
    }
}
