@testable import BananasCore

/// A device as rule 5 sees it, for tests: its published history and the list it holds.
struct JudgingDevice {
    var history = PublishedHistory()
    var head: ShoppingList
    private var nextHash: UInt64 = 1

    /// A device that published `list`; `born`: bananas created the file with it.
    init(_ list: ShoppingList, born: Bool = true) {
        head = list
        publish(list, born: born)
    }

    /// A bananas write of `list` here.
    mutating func publish(_ list: ShoppingList, born: Bool = false) {
        history.publish(list, hash: nextHash, kind: .write(mark: list.writeMark), now: 0, born: born)
        nextHash += 1
        head = list
    }

    /// A save by a writer that keeps no stamps (or the Get Bananas server's), taken in here.
    @discardableResult
    mutating func takeIn(_ save: ShoppingList, stamp: Stamp) -> ShoppingList {
        let hash = 1_000_000 + nextHash
        nextHash += 1
        let judgment = ShoppingList.judging(save: save, hash: hash, stamp: stamp, history: history, head: head)
        let kind: PublishedHistory.Kind = save.isStampless ? .save(marked: false)
            : history.state(marked: save.writeMark) != nil ? .save(marked: true) : .received(mark: save.writeMark)
        history.publish(judgment.held, hash: hash, kind: kind, now: 0)
        head = judgment.merged
        return judgment.merged
    }
}

/// `save` judged by a device whose only published state is `base`.
func judged(_ save: ShoppingList, base: ShoppingList, stamp: Stamp) -> ShoppingList {
    var device = JudgingDevice(base)
    return device.takeIn(save, stamp: stamp)
}

extension ShoppingList {
    /// `save` judged by a device that has published nothing, holding this list.
    func judgedWithoutHistory(_ save: ShoppingList, stamp: Stamp) -> ShoppingList {
        ShoppingList.judging(save: save, hash: 7, stamp: stamp, history: PublishedHistory(), head: self).merged
    }
}

extension ShoppingList {
    /// `collectGarbage` on a device that first saw each delete at the `now` of the call that
    /// first met it (as its published history records), kept in `sightings`.
    mutating func collectGarbage(now: Int64, sightings: inout [UInt64: Int64]) {
        for id in tombstones.keys where sightings[id] == nil { sightings[id] = now }
        let seen = sightings
        collectGarbage(now: now, deleteFirstSeen: { id, _ in seen[id] })
    }
}
