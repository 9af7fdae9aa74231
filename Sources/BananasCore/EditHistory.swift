/// Undo and redo as a value (as Helix keeps its history): each step is the edit that reverses
/// one made here, with the words people see for it. Replaying a step is itself an edit, whose
/// inverse goes on the other stack, so undo and redo are the same operation.
public struct EditHistory: Hashable, Sendable {
    public struct Step: Hashable, Sendable {
        public var edit: ListEdit
        public var label: String

        public init(edit: ListEdit, label: String) {
            self.edit = edit
            self.label = label
        }
    }

    /// Undo met a value someone else wrote since the step (rule 7): nothing was changed, and
    /// the step is dropped.
    public struct Refused: Error, Equatable, CustomStringConvertible {
        public var label: String
        public var reason: EditError
        public var description: String { "cannot undo \(label): \(reason)" }
    }

    public enum Direction: Sendable { case undo, redo }

    public private(set) var undoSteps: [Step] = []
    public private(set) var redoSteps: [Step] = []
    /// Steps kept (the oldest go first).
    public static let limit = 1_000

    public init() {}

    public var canUndo: Bool { !undoSteps.isEmpty }
    public var canRedo: Bool { !redoSteps.isEmpty }
    public var undoLabel: String? { undoSteps.last?.label }
    public var redoLabel: String? { redoSteps.last?.label }

    /// An edit was made here: `inverse` undoes it. A new edit ends what could be redone.
    public mutating func record(inverse: ListEdit, label: String) {
        guard !inverse.isEmpty else { return }
        undoSteps.append(Step(edit: inverse, label: label))
        if undoSteps.count > Self.limit { undoSteps.removeFirst(undoSteps.count - Self.limit) }
        redoSteps.removeAll()
    }

    /// Undoes (or redoes) the last step through `apply`, which makes the edit and returns its
    /// inverse, or nil when it changed nothing. Returns the step's label, or nil when there
    /// was nothing to do. A step that changes nothing (someone did the same) or whose item
    /// is gone is skipped for the one before; a step refused because a value changed since
    /// throws `Refused`, and is dropped.
    public mutating func replay(_ direction: Direction, apply: (ListEdit) throws -> ListEdit?) throws -> String? {
        while let step = direction == .undo ? undoSteps.popLast() : redoSteps.popLast() {
            do {
                guard let inverse = try apply(step.edit) else { continue }
                let replayed = Step(edit: inverse, label: step.label)
                if direction == .undo { redoSteps.append(replayed) } else { undoSteps.append(replayed) }
                return step.label
            } catch let error as EditError {
                if case .changedSince = error { throw Refused(label: step.label, reason: error) }
            }
        }
        return nil
    }
}
