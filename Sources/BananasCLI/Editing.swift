import BananasCore
import BananasFile

/// One CLI mutation: lock, read, build the edit from the current list, stamp and apply it,
/// write if anything changed. Returns what the builder reported.
func mutate<Report>(
    _ options: FileOptions,
    _ build: (ShoppingList) throws -> (edit: ListEdit?, report: Report)
) throws -> Report {
    let file = options.listFile
    let result = try file.update(lockTimeoutMillis: options.lockTimeout) { list, _ in
        let (edit, report) = try build(list)
        if let edit, !edit.isEmpty {
            let now = Clock.nowMillis()
            var clock = StampClock(replica: ReplicaID.random())
            clock.observe(list.newestStamp, now: now)
            try list.apply(edit, stamp: clock.next(now: now), modifiedAt: Timestamp.iso8601(millis: now))
        }
        return report
    }
    return result.value
}

/// Resolves several item names against one list, all or nothing.
func resolveAll(_ queries: [String], in list: ShoppingList) throws -> [Item] {
    let items = list.items
    var found: [Item] = []
    for query in queries {
        let item = try Addressing.resolve(query, in: items, allowNamePrefix: true)
        if !found.contains(where: { $0.id == item.id }) { found.append(item) }
    }
    return found
}
