import BananasCore
import BananasFile

/// What the status bar and `bananas status` say about sync: exactly one of the four states
/// of DESIGN.md, with the detail a user needs to act.
public struct SyncStatus: Equatable, Sendable {
    public enum State: String, Equatable, Sendable {
        /// The file holds every local edit and every file change is merged.
        case synced
        /// Local edits not yet in the file.
        case pending
        /// A losing value of a concurrent edit awaits review (or a conflict copy could not be merged).
        case conflict
        /// The file cannot be read or written now; edits keep queuing.
        case paused
    }

    /// Confirmed edits not yet in the file.
    public var pendingCount = 0
    /// Values that lost to concurrent edits, awaiting review (the records in the list).
    public var conflicts: [Conflict] = []
    /// Conflict copies beside the file that could not be merged.
    public var unmergedCopies: [UnmergedCopy] = []
    /// Why the file cannot be read or written now.
    public var pausedBy: ListFileError?
    /// When the file and this instance last agreed (a write, or a change merged), in ms.
    public var lastSyncMillis: Int64?
    /// The journal cannot be written: edits are confirmed only once they reach the file.
    public var journalProblem: ListFileError?
    /// The state folder cannot take this machine's sync state (why): its spare holds it
    /// (`StateFolder.spare`), and nothing waits for it.
    public var stateInSpare: ListFileError?
    /// The largest amount, in ms, by which a stamp seen was ahead of this machine's clock.
    public var clockSkewMillis: Int64 = 0
    /// The replica (instance) whose stamp was furthest ahead, when that is past the warning.
    public var clockSkewReplica: String?

    public init() {}

    /// Paused trumps conflict (nothing can be fixed while the file is out of reach), conflict
    /// trumps pending (pending lasts milliseconds; a conflict lasts until reviewed).
    public var state: State {
        if pausedBy != nil { return .paused }
        if !conflicts.isEmpty || !unmergedCopies.isEmpty { return .conflict }
        if pendingCount > 0 { return .pending }
        return .synced
    }

    /// One line for a status bar: `synced 4s ago`, `pending 2`, `conflict 1 — Oat milk amount`,
    /// `paused: lock held by pid 4242`.
    public func summary(now: Int64) -> String {
        var text: String
        switch state {
        case .synced:
            text = "synced" + (lastSyncMillis.map { " " + SyncStatus.age(now - $0) } ?? "")
        case .pending:
            text = "pending \(pendingCount)"
        case .conflict:
            text = "conflict \(conflicts.count + unmergedCopies.count)"
            if let first = conflicts.last {
                text += " — " + TextRules.escaped(first.name) + " " + first.field
            } else if let copy = unmergedCopies.first {
                text += " — copy " + TextRules.escaped(copy.name) + " not merged (" + copy.reason + ")"
            }
        case .paused:
            text = "paused: " + (pausedBy?.pausedReason ?? "")
            if pendingCount > 0 { text += " (\(pendingCount) waiting)" }
        }
        if let journalProblem { text += " · journal: " + journalProblem.pausedReason }
        if let stateInSpare { text += " · state in spare: " + stateInSpare.pausedReason }
        if clockSkewMillis > SyncStatus.skewWarningMillis {
            text += " · clock skew " + SyncStatus.duration(clockSkewMillis) + (clockSkewReplica.map { " (\($0))" } ?? "")
        }
        return text
    }

    /// `summary` in fewer words, for a narrow status bar: every fact kept, the details cut
    /// ("paused: lock pid 26415 · 1 queued", "conflict 2 · press c").
    public func shortSummary(now: Int64) -> String {
        var short: String
        switch state {
        case .synced, .pending:
            short = summary(now: now)
            if let range = short.firstRange(of: " · ") { short = String(short[..<range.lowerBound]) }
        case .conflict:
            short = "conflict \(conflicts.count + unmergedCopies.count) · press c"
        case .paused:
            let reason: String = switch pausedBy {
            case .lockHeld(_, let pid?, _, false)?: "stale lock pid \(pid)"
            case .lockHeld(_, let pid?, _, true)?: "lock pid \(pid)"
            case let problem?: problem.pausedReason
            case nil: ""
            }
            short = "paused: " + reason
            if pendingCount > 0 { short += " · \(pendingCount) queued" }
        }
        if journalProblem != nil { short += " · no journal" }
        if stateInSpare != nil { short += " · state in spare" }
        if clockSkewMillis > SyncStatus.skewWarningMillis { short += " · skew \(clockSkewMillis / 1000)s" }
        return short
    }

    /// How long something waiting for the file waits for a lock someone else holds before
    /// the state is `paused` with the holder named: a running instance's flush (`ListStore`),
    /// and `bananas status` and `bananas doctor`, which wait as long before they say it. One
    /// rule, so the editor, `status` and doctor use the same word for the same lock. (The age
    /// of a lock is no measure: a live bananas refreshes it every second.)
    public static let lockWaitMillis: Int64 = 1_000

    /// Skew worth telling the user about: stamps from a machine this far ahead win over
    /// later edits made here.
    public static let skewWarningMillis: Int64 = 5_000

    /// When `summary` next reads differently with nothing else changing (ms since 1970): the
    /// moment the age shown moves on. Nil when the text does not depend on time.
    public func nextSummaryChange(after now: Int64) -> Int64? {
        guard state == .synced, let last = lastSyncMillis else { return nil }
        return last + SyncStatus.nextAgeChange(now - last)
    }

    /// The smallest age greater than `millis` whose `age` text differs from that of `millis`.
    public static func nextAgeChange(_ millis: Int64) -> Int64 {
        let seconds = max(0, millis) / 1000
        let step: Int64 = seconds < 10 ? 1 : seconds < 60 ? 10 : seconds < 3600 ? 60 : seconds < 86_400 ? 3600 : 86_400
        return (seconds / step + 1) * step * 1000
    }

    /// `just now`, `4s ago`, `30s ago`, `3m ago`, `2h ago`, `5d ago`: rounded down, to the
    /// second for ten seconds, then to ten seconds, then to the minute, hour or day. Each
    /// change is a redraw of an idle editor, so the text changes 14 times in the first
    /// minute, then once a minute, then once an hour (docs/decisions.md).
    /// A span for people: `45s`, `2h 5m`, `3d`, `100y`.
    public static func duration(_ millis: Int64) -> String {
        let seconds = max(0, millis) / 1000
        if seconds < 120 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m" }
        if seconds < 86_400 { return "\(seconds / 3600)h" + (seconds % 3600 >= 60 ? " \(seconds % 3600 / 60)m" : "") }
        if seconds < 365 * 86_400 { return "\(seconds / 86_400)d" }
        return "\(seconds / (365 * 86_400))y"
    }

    public static func age(_ millis: Int64) -> String {
        let seconds = max(0, millis) / 1000
        if seconds < 1 { return "just now" }
        if seconds < 10 { return "\(seconds)s ago" }
        if seconds < 60 { return "\(seconds / 10 * 10)s ago" }
        if seconds < 3600 { return "\(seconds / 60)m ago" }
        if seconds < 86_400 { return "\(seconds / 3600)h ago" }
        return "\(seconds / 86_400)d ago"
    }
}

/// A sync engine's conflict copy that bananas left in place: it cannot be read (damaged,
/// half-synced, not a list) or is from a newer bananas. Shown as `conflict` until the user
/// fixes or removes it.
public struct UnmergedCopy: Equatable, Sendable {
    /// The copy's file name, in the list's folder.
    public var name: String
    /// Short: `unparseable file`, `newer schema (3)`.
    public var reason: String
    /// The whole error, with line and column for a damaged copy.
    public var detail: String

    public init(name: String, reason: String, detail: String) {
        self.name = name
        self.reason = reason
        self.detail = detail
    }
}
