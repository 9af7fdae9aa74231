import BananasCore
import BananasEditor
import BananasFile
import BananasSync

/// The editor's shell: an `EditorState` driven by keys, carried out on a `ListStore`. It knows
/// nothing of terminals; a backend feeds it keys and paints `render(width:height:)`.
@MainActor
public final class Editor {
    public let store: ListStore
    public private(set) var state: EditorState
    public let fileLabel: String
    /// The rows last built, so a key press that only moves the cursor builds none; and what
    /// the list remembers, gathered once per revision of the store's list.
    private var rowsMemo: RowsMemo {
        memo.revision = store.revision
        return memo
    }
    private let memo = RowsMemo()
    /// Called whenever the screen should be drawn again (a change from another writer, a
    /// status change). Set by the backend.
    public var onNeedsDisplay: (() -> Void)?
    private var subscription: Subscription?
    private var messageShownAt: Int64?
    public static let messageLifetimeMillis: Int64 = 5_000

    public init(store: ListStore, fileLabel: String? = nil) {
        self.store = store
        let time = store.time
        memo.now = { time.nowMillis() }
        state = EditorState(readOnly: store.mode == .viewer)
        self.fileLabel = fileLabel ?? Editor.label(for: store.file.path)
        state.pinSelection(state.rows(for: store.list, memo: rowsMemo))
        subscription = store.subscribe { [weak self] change in
            guard let self else { return }
            self.storeChanges += 1
            if change == .status {
                // Only the status bar changed: no need to rebuild the rows, nor to draw at all
                // when its text is what is shown (a flush or a merge reports one either way).
                if self.statusTextChanged() { self.onNeedsDisplay?() }
                return
            }
            // Another writer's change: the selection is kept by identity, so the cursor stays
            // on its item wherever that item now is.
            self.state.pinSelection(self.state.rows(for: self.store.list, memo: self.rowsMemo))
            if change == .merged { self.reviseSavedMessage() }
            self.gatherSuggestions()
            self.onNeedsDisplay?()
        }
    }

    /// While the add prompt is open, gathers what the list remembers for its new state now
    /// (after an add, or another writer's change), so the next letter typed only matches.
    private func gatherSuggestions() {
        guard case .prompt(let prompt) = state.mode, case .addName = prompt.kind else { return }
        _ = rowsMemo.suggestions(for: store.list)
    }

    /// `~/…` for paths under the home folder.
    public static func label(for path: String) -> String {
        if let home = Environment.value("HOME"), !home.isEmpty, path.hasPrefix(home + "/") {
            return "~" + path.dropFirst(home.count)
        }
        return path
    }

    /// Whether Space moves on to the next item (config.yaml `space-moves-on: false` keeps it).
    public var spaceMovesOn: Bool {
        get { state.spaceMovesOn }
        set { state.spaceMovesOn = newValue }
    }

    /// The values the last edit here set, while its message ("Saved Gala apples") shows.
    private var savedShown: (id: String, changes: [ItemField: FieldValue], message: String)?

    /// A concurrent edit that won over the values just saved here changes the message: it
    /// never says "Saved Gala apples" beside a row that shows "Green apples".
    private func reviseSavedMessage() {
        guard let saved = savedShown, state.message?.text == saved.message else { savedShown = nil; return }
        guard let item = store.list.item(saved.id) else { return }
        // The fields a row shows (an order lost to another is no news).
        let shownFields: [ItemField] = [.name, .amount, .section, .checked, .optional]
        guard let (field, mine) = saved.changes.sorted(by: { $0.key < $1.key })
            .first(where: { shownFields.contains($0.key) && item[$0.key] != $0.value }) else { return }
        func said(_ value: FieldValue) -> String {
            switch (field, value) {
            case (.optional, .flag(let on)): on ? "optional" : "needed"
            default: Screen.shown(value, field: field.rawValue)
            }
        }
        let what = switch field {
        case .name: "the name is"
        case .checked, .optional: "\(Screen.quoted(item.name)) is"
        default: "the \(field.rawValue) of \(Screen.quoted(item.name)) is"
        }
        let review = store.status.conflicts.contains { $0.subjectID == saved.id } ? " — c reviews" : ""
        state.message = .init("Another edit won: \(what) \(said(item[field])), not \(said(mine))\(review)", kind: .error)
        remember(state.message!)
        savedShown = nil
        messageShownAt = store.time.nowMillis()
    }

    public func show(_ text: String, isError: Bool) {
        state.message = .init(text, kind: isError ? .error : .info)
        remember(state.message!)
        messageShownAt = store.time.nowMillis() + 10_000  // long enough to read
    }

    /// The terminal's size, for the rows a page holds and for knowing when nothing but
    /// "Too small" is shown (keys then act only when they cannot act blind).
    public func setViewport(width: Int, height: Int) {
        screenWidth = width
        state.screenWidth = width
        state.tooSmall = !Screen.fits(width: width, height: height)
        state.keyBarShown = Screen.keyBar(state, store.list, height: height, memo: rowsMemo)
        let viewport = Screen.viewportHeight(forHeight: height, keyBar: state.keyBarShown)
        guard viewport != state.viewportHeight else { return }
        state.viewportHeight = viewport
        state.pinSelection(state.rows(for: store.list, memo: rowsMemo))
    }

    public func render(width: Int, height: Int, now: Int64? = nil) -> Grid {
        changedSinceFrame = []
        let now = now ?? store.time.nowMillis()
        var frame = Frame(state: state, list: store.list, status: SyncView(store.status, now: now), fileLabel: fileLabel, now: now)
        if store.status.pausedBy != nil, store.list.items.isEmpty, let base = store.file.state?.basePath,
           FileSystem.fileExists(atPath: base) {
            frame.lastWritten = Editor.label(for: base)
        }
        // Only the clock moved on (the status bar's `synced 4s ago`, once a second while
        // idle): the last frame with its status bar drawn again, not the whole list.
        if var last = lastRender, last.width == width, last.height == height, case .normal = state.mode,
           Screen.fits(width: width, height: height),
           last.storeChanges == storeChanges, last.state == state, last.status == store.status {
            Screen.drawStatusBar(&last.grid, frame, state)
            lastRender = last
            return last.grid
        }
        let grid = Screen.render(frame, width: width, height: height, memo: rowsMemo)
        lastRender = LastRender(grid: grid, width: width, height: height, storeChanges: storeChanges, state: state, status: store.status)
        return grid
    }

    /// The last frame rendered and what it was rendered from (all but the time).
    private struct LastRender {
        var grid: Grid
        var width: Int
        var height: Int
        /// The store's list is not compared (that can take a pass over 100,000 items): it
        /// changes only with a notification from the store, which this counts.
        var storeChanges: Int
        var state: EditorState
        var status: SyncStatus
    }
    private var lastRender: LastRender?
    /// Notifications from the store so far (each may come with a new list).
    private var storeChanges = 0

    /// The terminal's width, as last set (for where a click lands on the status bar).
    private var screenWidth = 80

    /// What the keys and clicks handled since the last frame changed on screen: the backend
    /// draws a frame only when something did, and paints every cell for `.terminal`.
    public private(set) var changedSinceFrame: Changed = []

    /// Handles one key. Returns false when the editor should quit.
    @discardableResult
    public func handle(_ key: Key) -> Bool {
        refreshRefusal()
        let before = state.message
        return carryOut(state.react(to: key, list: store.list, conflicts: store.status.conflicts, memo: rowsMemo), messageBefore: before)
    }

    /// Handles a click or a turn of the wheel.
    @discardableResult
    public func handle(_ mouse: MouseEvent) -> Bool {
        refreshRefusal()
        let before = state.message
        return carryOut(state.react(to: mouse, list: store.list, conflicts: store.status.conflicts, width: screenWidth, memo: rowsMemo),
                        messageBefore: before)
    }

    private func carryOut(_ reaction: Reaction, messageBefore: EditorState.Message?) -> Bool {
        let action = reaction.action
        changedSinceFrame.formUnion(reaction.changed)
        let keepGoing = perform(action)
        // A count being typed ("5…") is not worth keeping.
        if let message = state.message, message != messageBefore || action != .none, state.countPrefix == 0 { remember(message) }
        if state.mode == .conflicts && store.status.conflicts.isEmpty {
            state.mode = .normal  // the last one was reviewed
            changedSinceFrame.insert(.overlay)
        }
        // `handle` pinned the selection on the list it was given; only a changed list needs more.
        switch action {
        case .none, .quit, .redraw: break
        default: state.pinSelection(state.rows(for: store.list, memo: rowsMemo))
        }
        gatherSuggestions()
        messageShownAt = state.message == nil ? nil : store.time.nowMillis()
        return keepGoing
    }

    /// Keeps a message for the history (`M`): a narrow status line may have cut it short,
    /// or it went before it was read.
    private func remember(_ message: EditorState.Message) {
        state.history.append(message.text)
        if state.history.count > EditorState.historyLimit { state.history.removeFirst() }
    }

    /// Expires old messages. Returns true when the screen should be drawn: a message went,
    /// or the status bar's text moved on (`synced 4s ago` → `5s ago`). The backend calls it
    /// when `millisUntilNextTick` says, so an idle editor wakes only to draw something new.
    @discardableResult
    public func tick(now: Int64? = nil) -> Bool {
        let now = now ?? store.time.nowMillis()
        var changed = false
        if let shown = messageShownAt, now - shown >= Editor.messageLifetimeMillis, case .normal = state.mode {
            state.message = nil
            messageShownAt = nil
            changed = true
        }
        // Whatever the mode: only the status bar's text changes with time.
        let text = store.status.summary(now: now)
        if text != checkedStatusText { changed = true }
        checkedStatusText = text
        return changed
    }

    /// How long until `tick` has something to do: a message expires, or the status bar's
    /// age text changes (every second in the first minute, then every minute, then every
    /// hour). Nil when nothing on screen changes by itself.
    public func millisUntilNextTick(now: Int64? = nil) -> Int64? {
        let now = now ?? store.time.nowMillis()
        var next = store.status.nextSummaryChange(after: now)
        if let shown = messageShownAt, case .normal = state.mode {
            let expiry = shown + Editor.messageLifetimeMillis
            next = min(next ?? expiry, expiry)
        }
        return next.map { max(0, $0 - now) }
    }

    /// The status bar text last checked here; an overlay (conflict review, help) always redraws.
    private var checkedStatusText: String?

    private func statusTextChanged(now: Int64? = nil) -> Bool {
        let now = now ?? store.time.nowMillis()
        let text = store.status.summary(now: now)
        defer { checkedStatusText = text }
        guard case .normal = state.mode else { return true }
        return text != checkedStatusText
    }

    /// Undo or redo (`verb`), said with the step's label as it reads now.
    private func replay(_ verb: String, _ step: () throws -> String?, said: (String) -> String) {
        do {
            if let label = try step() {
                state.message = .init(said(StepLabel.text(label, in: store.list)))
            } else {
                state.message = .init("Nothing to \(verb)")
            }
        } catch let refused as EditHistory.Refused {
            state.message = .init(StepLabel.refusal(refused, in: store.list), kind: .error)
        } catch {
            state.message = .init("Could not \(verb): \(StepLabel.reason(error))", kind: .error)
        }
    }

    /// Why no edit can be made now although this is the editor: the file is from a newer
    /// bananas, which this one cannot write (an edit made anyway would never reach the file).
    public static func editsRefused(_ status: SyncStatus) -> String? {
        guard case .newerSchema(_, let found, let supported)? = status.pausedBy else { return nil }
        return "Not changed: this bananas cannot write a schema \(found) file (it writes schema \(supported)); update bananas to edit this list"
    }

    /// Keys see the refusal as it stands now (the file may have changed since the last key).
    private func refreshRefusal() {
        state.editsRefused = store.mode == .live ? Editor.editsRefused(store.status) : nil
    }

    private func perform(_ action: EditorAction) -> Bool {
        // A prompt opened before the file turned unwritable ends here, said, not as an edit
        // that would never land.
        if let refusal = state.editsRefused {
            switch action {
            case .edit, .undo, .redo, .restoreConflict, .dismissConflicts:
                state.message = .init(refusal, kind: .error)
                return true
            case .none, .redraw, .quit:
                break
            }
        }
        switch action {
        case .none:
            break
        case .quit:
            return false
        case .redraw:
            break  // the reaction's `.terminal`: the backend paints every cell
        case .edit(let edit, let label, let select, let message):
            do {
                try store.perform(edit, label: label)
                if let select { state.selection = select }
                state.message = .init(message)
                if case .update(let id, let changes, _) = edit { savedShown = (id, changes, message) }
            } catch {
                state.message = .init(StepLabel.failure(label, error, in: store.list), kind: .error)
            }
        case .undo:
            replay("undo", store.undo) { "Undid \($0) — Ctrl-R redoes" }
        case .redo:
            replay("redo", store.redo) { "Redid \($0)" }
        case .restoreConflict(let conflict):
            do {
                let before = store.list
                try store.perform(try before.restoreEdit(conflict), label: "restore \(conflict.name) \(conflict.field)")
                state.message = .init(conflict.restoredMessage(in: before) + " — u undoes")
            } catch EditError.noSuchItem {
                state.message = .init("\(TextRules.escaped(conflict.name)) is no longer on the list", kind: .error)
            } catch {
                state.message = .init("Could not restore: \(StepLabel.reason(error))", kind: .error)
            }
        case .dismissConflicts(let conflicts):
            do {
                try store.perform(store.list.dismissEdit(conflicts), label: "dismiss conflicts")
                state.message = .init(conflicts.count == 1 ? "Dismissed 1 conflict" : "Dismissed \(conflicts.count) conflicts")
            } catch {
                state.message = .init("Could not dismiss: \(StepLabel.reason(error))", kind: .error)
            }
        }
        return true
    }
}

extension SyncView {
    /// What the frame drawn at `now` shows of `status`.
    public init(_ status: SyncStatus, now: Int64) {
        let state: State = switch status.state {
        case .synced: .synced
        case .pending: .pending
        case .conflict: .conflict
        case .paused: .paused
        }
        self.init(state: state, summary: status.summary(now: now), shortSummary: status.shortSummary(now: now),
                  conflicts: status.conflicts, problem: status.pausedBy?.description)
    }
}
