import BananasCore
import BananasFile
@testable import BananasSync
import Foundation
import BananasTestSupport
import Testing

func item(_ name: String, section: String = "Other", order: Double = 1) -> Item {
    Item(id: ItemID.random(), name: name, section: section, sortOrder: order)
}

extension ShoppingList {
    func named(_ name: String) -> Item? { items.first { $0.name == name } }
}
