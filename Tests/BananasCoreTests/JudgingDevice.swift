@testable import BananasCore

/// A device as rule 5 sees it, for tests: the list it holds (its base), against which a save
/// is judged.
struct JudgingDevice {
    var head: ShoppingList
    private var nextHash: UInt64 = 1

    init(_ list: ShoppingList, born: Bool = true) {
        head = list
    }

    /// A bananas write of `list` here.
    mutating func publish(_ list: ShoppingList, born: Bool = false) {
        head = list
    }

    /// A save by a writer that keeps no stamps (or the Get Bananas server's), taken in here at
    /// the time `stamp` says (its millis and counter: the file's time).
    @discardableResult
    mutating func takeIn(_ save: ShoppingList, stamp: Stamp) -> ShoppingList {
        let hash = 1_000_000 + nextHash
        nextHash += 1
        let whole = save.isStampless || !save.writeMark.isZero && save.writeMark == head.writeMark
        let judgment = ShoppingList.judging(save: save, writtenAtNanos: stamp.millis * 1_000_000 + Int64(stamp.counter), hash: hash,
                                            head: head, deletes: whole)
        head = judgment.merged
        return judgment.merged
    }
}

/// `save` judged by a device holding `base`.
func judged(_ save: ShoppingList, base: ShoppingList, stamp: Stamp) -> ShoppingList {
    var device = JudgingDevice(base)
    return device.takeIn(save, stamp: stamp)
}

extension ShoppingList {
    /// `save` judged by a device holding this list.
    func judgedWithoutHistory(_ save: ShoppingList, stamp: Stamp) -> ShoppingList {
        judged(save, base: self, stamp: stamp)
    }
}

extension ShoppingList {
    /// `collectGarbage` on a device that first saw each delete at the `now` of the call that
    /// first met it (as its sightings record), kept in `sightings`.
    mutating func collectGarbage(now: Int64, sightings: inout [UInt64: Int64]) {
        for id in tombstones.keys where sightings[id] == nil { sightings[id] = now }
        let seen = sightings
        collectGarbage(now: now, deleteFirstSeen: { id, _ in seen[id] })
    }
}
