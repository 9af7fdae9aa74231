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

    /// Undo (or redo) met a value someone else wrote since the step (rule 7): nothing was
    /// changed, and the step is dropped.
    public struct Refused: Error, Equatable, CustomStringConvertible {
        public var label: String
        public var reason: EditError
        public var direction: Direction = .undo
        public var description: String { "cannot \(direction) \(label): \(because)" }

        /// Why, in a person's words, for the direction it went: "its name was changed since
        /// by another edit, which redo does not overwrite".
        public var because: String {
            guard case .changedSince(_, let field) = reason else { return reason.description }
            let what: String = switch field {
            case "checked": "it was checked or unchecked since"
            case "optional": "it was marked optional or needed since"
            case "section": "it was moved to another section since"
            case "sortOrder": "it was moved since"
            case "section name": "the section was renamed since"
            case "section position": "the section was moved since"
            case "section removed": "the section was removed or brought back since"
            default: "its \(field) was changed since"
            }
            return "\(what) by another edit, which \(direction) does not overwrite"
        }
    }

    public enum Direction: String, Sendable { case undo, redo }

    public private(set) var undoSteps: [Step] = []
    public private(set) var redoSteps: [Step] = []
    /// Steps kept (the oldest go first).
    public static let limit = 1_000

    public init() {}

    /// A history kept between processes (the command line's, in the state folder).
    public init(undoSteps: [Step], redoSteps: [Step]) {
        self.undoSteps = Array(undoSteps.suffix(Self.limit))
        self.redoSteps = Array(redoSteps.suffix(Self.limit))
    }

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
                // The values it set back carry new stamps now: the steps that expect the old
                // ones expect these (the same values, written here again), so undoing further
                // compares stamps still, never text.
                let aliases = step.edit.aliases(inverse: inverse)
                if !aliases.isEmpty {
                    undoSteps = undoSteps.map { Step(edit: $0.edit.realiased(aliases), label: $0.label) }
                    redoSteps = redoSteps.map { Step(edit: $0.edit.realiased(aliases), label: $0.label) }
                }
                let replayed = Step(edit: inverse, label: step.label)
                if direction == .undo { redoSteps.append(replayed) } else { undoSteps.append(replayed) }
                return step.label
            } catch let error as EditError {
                if case .changedSince = error { throw Refused(label: step.label, reason: error, direction: direction) }
            }
        }
        return nil
    }
}

/// A field's value set back by an undo or redo: the value stamped `old` is the field's again,
/// stamped `new` by this instance. A step expecting `old` expects `new` from then on.
public struct StampAlias: Hashable, Sendable {
    /// The field: an item's (by id) or a section's (by key).
    public var subject: ConflictRecord.Subject
    public var old: Stamp
    public var new: Stamp

    public init(_ subject: ConflictRecord.Subject, old: Stamp, new: Stamp) {
        (self.subject, self.old, self.new) = (subject, old, new)
    }
}

extension ListEdit {
    /// What applying this undo or redo step (returning `inverse`) set back: each field whose
    /// value it restored, from the stamp that value had to the stamp it has now.
    public func aliases(inverse: ListEdit) -> [StampAlias] {
        switch (self, inverse) {
        case (.revert(let id, _, _, let restoring), .revert(_, _, let wrote, _)):
            return wrote.keys.sorted().compactMap { field in
                restoring[field].map { StampAlias(.item(id, field), old: $0, new: wrote[field]!) }
            }
        case (.revertSection(let key, _, _, let restoring), .revertSection(_, _, let wrote, _)):
            return wrote.keys.sorted { $0.stampIndex < $1.stampIndex }.compactMap { field in
                restoring[field].map { StampAlias(.section(key, field), old: $0, new: wrote[field]!) }
            }
        case (.undelete(let item, let expecting), .retract(_, let stamps)):
            return ItemField.allCases.compactMap { field in
                expecting[field] == stamps[field] ? nil : StampAlias(.item(item.id, field), old: expecting[field], new: stamps[field])
            }
        case (.batch(let steps), .batch(let inverses)) where steps.count == inverses.count:
            // A batch's inverse lists its steps' inverses in reverse order.
            return zip(steps, inverses.reversed()).flatMap { $0.aliases(inverse: $1) }
        default:
            return []
        }
    }

    /// This step with the stamps it expects (and restores) that `aliases` name replaced.
    public func realiased(_ aliases: [StampAlias]) -> ListEdit {
        guard !aliases.isEmpty else { return self }
        func renamed(_ subject: ConflictRecord.Subject, _ stamp: Stamp) -> Stamp {
            aliases.first { $0.subject == subject && $0.old == stamp }?.new ?? stamp
        }
        func renamed(_ id: String, _ table: [ItemField: Stamp]) -> [ItemField: Stamp] {
            Dictionary(uniqueKeysWithValues: table.map { ($0.key, renamed(.item(id, $0.key), $0.value)) })
        }
        func renamed(_ id: String, _ stamps: ItemStamps) -> ItemStamps {
            var result = stamps
            for field in ItemField.allCases {
                let new = renamed(.item(id, field), stamps[field])
                if new != stamps[field] { result[field] = new }
            }
            return result
        }
        func renamed(section key: String, _ table: [SectionField: Stamp]) -> [SectionField: Stamp] {
            Dictionary(uniqueKeysWithValues: table.map { ($0.key, renamed(.section(key, $0.key), $0.value)) })
        }
        switch self {
        case .revert(let id, let changes, let expecting, let restoring):
            return .revert(id: id, changes: changes, expecting: renamed(id, expecting), restoring: renamed(id, restoring))
        case .revertSection(let key, let changes, let expecting, let restoring):
            return .revertSection(key: key, changes: changes, expecting: renamed(section: key, expecting),
                                  restoring: renamed(section: key, restoring))
        case .undelete(let item, let expecting):
            return .undelete(item, expecting: renamed(item.id, expecting))
        case .retract(let id, let expecting):
            return .retract(id: id, expecting: renamed(id, expecting))
        case .batch(let steps):
            return .batch(steps.map { $0.realiased(aliases) })
        default:
            return self
        }
    }
}
