import BananasCore

/// What a frame shows of sync, as words: the shell reads it off the store's status at the
/// moment it draws, so the editor knows no store, file or sync engine.
public struct SyncView: Equatable, Sendable {
    /// The four states of DESIGN.md, which colour the status bar.
    public enum State: Sendable, Equatable { case synced, pending, conflict, paused }

    public var state: State
    /// The whole status bar line (`synced 4s ago`, `paused: lock held by pid 4242`).
    public var summary: String
    /// The same facts in fewer words, for a status bar too narrow for `summary`.
    public var shortSummary: String
    /// Values that lost to concurrent edits, awaiting review.
    public var conflicts: [Conflict]
    /// Why the file cannot be read or written now, in full; nil when it can.
    public var problem: String?

    public init(state: State = .synced, summary: String = "synced", shortSummary: String? = nil,
                conflicts: [Conflict] = [], problem: String? = nil) {
        self.state = state
        self.summary = summary
        self.shortSummary = shortSummary ?? summary
        self.conflicts = conflicts
        self.problem = problem
    }
}
