import BananasCore
import BananasFile
import BananasSync

/// One CLI mutation, through the same sync code as the editor: under the lock, with the
/// file's current list, build the edit; it is stamped, applied and written if anything
/// changed. Returns what the builder reported. When this throws, the file is as it was.
func mutate<Report>(
    _ options: FileOptions,
    _ build: (ShoppingList) throws -> (edit: ListEdit?, report: Report)
) throws -> Report {
    try CommandSession(file: options.listFile, lockTimeoutMillis: options.lockTimeout).commit(lockTimeoutMillis: options.lockTimeout, build)
}

/// Resolves several item names against one list, all or nothing.
func resolveAll(_ queries: [String], in list: ShoppingList) throws -> [Item] {
    var found: [Item] = []
    for query in queries {
        let item = try Addressing.resolve(query, in: list, allowNamePrefix: true)
        if !found.contains(where: { $0.id == item.id }) { found.append(item) }
    }
    return found
}
