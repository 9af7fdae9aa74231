import BananasCore

/// An undo step's label ("checked Tomatoes") that names its item as it is when the label is
/// shown: "Undid checked Cherry tomatoes" after a rename, never the name it had then. The
/// store keeps labels as text, so the item's id travels inside, between separators that
/// stored text cannot hold (TextRules refuses control characters).
public enum StepLabel {
    private static let separator: Character = "\u{1F}"

    /// `before`, the item's name, then `after`.
    static func make(_ before: String, id: String, name: String, _ after: String = "") -> String {
        "\(before) \(separator)\(id)\(separator)\(name)\(separator)\(after)"
    }

    static func make(_ before: String, _ item: Item, _ after: String = "") -> String {
        make(before, id: item.id, name: item.name, after)
    }

    /// The label for a person: the item's name now, or the one it had when it is gone.
    public static func text(_ label: String, in list: ShoppingList) -> String {
        let parts = label.split(separator: separator, omittingEmptySubsequences: false)
        guard parts.count == 4 else { return label.displaySafe }
        let name = list.item(String(parts[1]))?.name ?? String(parts[2])
        return (String(parts[0]) + name + String(parts[3])).displaySafe
    }
}

extension StepLabel {
    /// An undo or redo refused, for a person: "Cannot redo checked Spinach: it was checked or
    /// unchecked since by another edit, which redo does not overwrite".
    public static func refusal(_ refused: EditHistory.Refused, in list: ShoppingList) -> String {
        "Cannot \(refused.direction) \(text(refused.label, in: list)): \(refused.because)"
    }

    /// Why an edit could not be made, in words that name no id (an error's own description
    /// may: "no item with id …").
    public static func reason(_ error: any Error) -> String {
        switch error {
        case let refused as EditHistory.Refused: refused.because
        case EditError.noSuchItem: "it is no longer on the list"
        case EditError.itemExists: "it is on the list already"
        case EditError.changedSince: "it was changed since by another edit"
        case EditError.noSuchConflict: "that conflict was reviewed meanwhile"
        default: String(describing: error).displaySafe
        }
    }

    /// What a refused edit (`label`) says: "Not saved — checked Milk: it is no longer on the list".
    public static func failure(_ label: String, _ error: any Error, in list: ShoppingList) -> String {
        "Not saved — \(text(label, in: list)): \(reason(error))"
    }
}
