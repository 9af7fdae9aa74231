import BananasEditor
import BananasCore
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
    private var tickTimer: DispatchSourceTimer?
    /// When the tick is armed for (nil: not armed).
    private var tickDeadline: ContinuousClock.Instant?

    /// Whether clicks and the wheel reach the editor (`--no-mouse`, `mouse: false` turn it off,
    /// leaving the terminal's own selection of text).
    let mouse: Bool

    public init(editor: Editor, theme: Theme, mouse: Bool = true) {
        self.editor = editor
        self.mouse = mouse
        terminal = CursesTerminal(theme: theme)
    }

    /// Starts the terminal and the event sources; call `dispatchMain()` after.
    public func start() throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw TerminalError.notATerminal }
        try terminal.start()
        if mouse { terminal.reportMouse() }
        editor.onNeedsDisplay = { [weak self] in self?.setNeedsDisplay() }

        let input = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        input.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.readInput() } }
        input.resume()
        sources.append(input)

        // A resize redraws at once: SIGWINCH through a dispatch signal source. On Linux,
        // libdispatch installs its own handler for the signal (replacing ncurses's, which
        // would only set a flag for the next `wget_wch`) and hands it over through a
        // signalfd; the size is then read with TIOCGWINSZ and given to `resizeterm`.
        // No polling: an idle editor sleeps until a key, a signal, a change or its tick.
        let winch = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .main)
        winch.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.checkResize() } }
        winch.resume()
        sources.append(winch)

        // Woken only when the screen would change by itself: a message expires, or the
        // status bar's age moves on (`synced 4s ago` → `5s ago`, then once a minute, once an
        // hour). One-shot, armed again after every draw and every tick.
        let tick = DispatchSource.makeTimerSource(queue: .main)
        tick.setEventHandler { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.tickDeadline = nil
                if self.editor.tick() { self.draw() }
                self.scheduleTick()
            }
        }
        tick.resume()
        sources.append(tick)
        tickTimer = tick

        // SIGQUIT (Ctrl-\) too: left alone, the Swift runtime would print a backtrace over the screen.
        for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.finish() } }
            source.resume()
            sources.append(source)
        }
        draw()
        // A resize between starting curses and the signal source taking over.
        DispatchQueue.main.async { [weak self] in MainActor.assumeIsolated { self?.checkResize() } }
    }

    /// Arms the tick for when `Editor.tick` next has something to do (never, when nothing
    /// on screen changes by itself).
    private func scheduleTick() {
        guard let timer = tickTimer, !finished else { return }
        guard let delay = editor.millisUntilNextTick() else {
            if tickDeadline != nil {
                tickDeadline = nil
                timer.schedule(wallDeadline: .distantFuture)
            }
            return
        }
        // A few ms past the moment, so the text has surely moved on when the tick looks.
        let deadline = ContinuousClock.now + .milliseconds(delay + 5)
        if let armed = tickDeadline, armed <= deadline, deadline - armed < .milliseconds(20) { return }
        tickDeadline = deadline
        // Wall time: a machine asleep meanwhile shows the right age when it wakes. Leeway
        // lets the kernel batch wake-ups; a minute's boundary may come a second late.
        let leeway = min(max(delay / 20, 20), 2_000)
        timer.schedule(wallDeadline: .now() + .milliseconds(Int(delay + 5)), leeway: .milliseconds(Int(leeway)))
    }

    private func readInput() {
        let keys = terminal.readKeys()
        if keys.isEmpty {
            // Nothing to read: the terminal may have gone away without a SIGHUP reaching us
            // (the read source then reports the hang-up once, and is gone). TIOCGWINSZ on
            // the terminal tells (a lone partial escape sequence reads empty too). Or
            // readable again and again with nothing to read: EOF on stdin.
            emptyReads += 1
            if emptyReads > 100 { finish() } else { checkResize() }
            return
        }
        emptyReads = 0
        var resized = false
        for input in keys {
            switch input {
            case .resize:
                // ncurses saw the SIGWINCH itself (and already resized): paint everything.
                if terminal.checkSize() == .same { terminal.repaintAll() }
                resized = true
            case .key(let key):
                if !editor.handle(key) {
                    finish()
                    return
                }
            case .mouse(let event):
                if !editor.handle(event) {
                    finish()
                    return
                }
            }
        }
        // What the keys changed says whether there is anything to draw (a key that changed
        // nothing draws nothing) and whether every cell is painted again (Ctrl-L).
        let changed = editor.changedSinceFrame
        if changed.contains(.terminal) { terminal.repaintAll() }
        if resized || !changed.isEmpty {
            draw()
        } else {
            scheduleTick()
        }
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
        editor.setViewport(width: size.width, height: size.height)
        terminal.draw(editor.render(width: size.width, height: size.height))
        scheduleTick()
    }

    /// Writes what is pending, restores the terminal, and exits.
    public func finish() {
        guard !finished else { return }
        finished = true
        for source in sources { source.cancel() }
        terminal.stop()
        let unsaved = editor.store.unsaved
        let journalProblem = editor.store.status.journalProblem
        let pausedBy = editor.store.status.pausedBy
        let left = editor.store.close()
        if left > 0 {
            let lost = min(unsaved, left)
            let edits = "\(left) edit\(left == 1 ? "" : "s")"
            let text: String
            if lost > 0 {
                text = "bananas: \(edits) could not be written to the list, and \(lost) of them could not be kept either "
                    + "(journal: \(journalProblem.map { TextRules.escaped($0.description) } ?? "not written")): those are lost.\n"
            } else if case .newerSchema(_, let found, _)? = pausedBy {
                // This version will never write that file: promising "next time" would be false.
                text = "bananas: \(edits) could not be written: this bananas cannot write a schema \(found) file. "
                    + "They are kept in the journal and will be written by a newer bananas.\n"
            } else {
                text = "bananas: \(edits) could not be written to the list yet; they are kept and will be written the next time bananas runs.\n"
            }
            _ = text.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
            exit(8)
        }
        exit(0)
    }
}
