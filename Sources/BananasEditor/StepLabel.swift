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
