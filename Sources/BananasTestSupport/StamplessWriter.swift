import BananasCore

/// What a stampless writer does to a list it read: the Get Bananas app rewrites the file in
/// the version-1 shape (no stamps, no sync).
public enum StamplessWriter {
    /// The Get Bananas app: only the version-1 keys survive.
    public static func app(_ list: ShoppingList, _ change: (inout [Item]) -> Void) -> ShoppingList {
        var items = list.items.map { item in
            Item(id: item.id, name: item.name, amount: item.amount, section: item.section,
                 checked: item.checked, optional: item.optional, sortOrder: item.sortOrder)
        }
        change(&items)
        return ShoppingList(sections: list.sections, rows: items)
    }
}
