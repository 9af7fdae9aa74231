import BananasCore
import BananasFile

/// Lists the benchmark runs on: N items in N/50 sections (at least one), names and amounts
/// like a real list's, every field stamped as bananas writes them.
enum Fixtures {
    static let words = ["Bananas", "Milk", "Bread", "Eggs", "Coffee", "Rice", "Tomatoes", "Cheese", "Apples", "Pasta",
                        "Yoghurt", "Butter", "Onions", "Carrots", "Olive oil", "Tea", "Lentils", "Spinach", "Oats", "Honey"]

    static func id(_ n: Int) -> String {
        let hex = String(n, radix: 16, uppercase: true)
        return "B0000000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    }

    static func list(items count: Int) -> ShoppingList {
        let sections = (0..<max(1, count / 50)).map { "Section \($0)" }
        let stamp = Stamp(millis: 1_790_000_000_000, counter: 0, replica: "0123456789ab")
        var rows: [Item] = []
        rows.reserveCapacity(count)
        for n in 0..<count {
            rows.append(Item(
                id: id(n), name: "\(words[n % words.count]) \(n)", amount: n % 3 == 0 ? "\(n % 7 + 1) kg" : "",
                section: sections[n % sections.count], checked: n % 5 == 0, optional: n % 11 == 0,
                sortOrder: Double(n) * 1024, lastModified: "2026-09-21T12:00:00.000Z", stamps: ItemStamps(all: stamp)))
        }
        return ShoppingList(sections: sections, rows: rows)
    }

    /// The list's file bytes, as bananas writes them.
    static func bytes(items count: Int) -> [UInt8] { ListCodec.encode(list(items: count)) }
}
