// A libFuzzer target over the list decoder, the writer, the merge and the published history's reader: built by `scripts/fuzz
// --libfuzzer` with `swiftc -sanitize=fuzzer,address` from BananasCore's sources and
// ListCodec.swift as one module (no SwiftPM target: the fuzzer runtime must not be linked
// into the normal build). It checks what Tests/BananasFileTests/FuzzTests.swift checks, with
// coverage guidance instead of seeded random inputs; a broken rule is a crash libFuzzer keeps.

/// A fixed list to merge every decoded input with.
let other: ShoppingList = {
    var list = ShoppingList()
    let stamp = Stamp(millis: 1_700_000_000_000, counter: 0, replica: "0123456789ab")
    try! list.apply(.insert(Item(id: "1", name: "Milk", amount: "2 L", section: "A", sortOrder: 1)), stamp: stamp)
    try! list.apply(.setSections(["A", "B"]), stamp: stamp)
    return list
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    if let value = try? JSONText.parse(bytes) {
        precondition((try? JSONText.parse(JSONText.serialize(value))) == value, "JSON does not survive a round trip")
    }
    // The state folder's published history (`published.json`) is hostile input too: it reads
    // or refuses, and what it writes reads back the same.
    if let history = PublishedHistory(encoded: bytes) {
        precondition(PublishedHistory(encoded: history.encoded()) == history, "a history does not survive a round trip")
    }
    // So are its log and the deletes' sightings beside it.
    if HistoryLog(summarizing: bytes) != nil {
        for publication in HistoryLog.publications(in: bytes) {
            precondition(HistoryLog.publications(in: HistoryLog.header(folded: publication.state, oldest: 0) + HistoryLog.line(publication))
                == [publication], "a log line does not survive a round trip")
        }
    }
    if let seen = PublishedHistory.sightings(encoded: bytes) {
        precondition(PublishedHistory.sightings(encoded: PublishedHistory.encoded(sightings: seen)) == seen, "sightings do not survive a round trip")
    }
    guard let decoded = try? ListCodec.decode(bytes) else { return 0 }
    // The readers a whole-process command uses: rows in the encoder's shape read straight
    // from the bytes, on demand (where a stamp index once overflowed: the fuzzer never got
    // there), and the general path for every row. All three read the same list.
    var layout = LayoutRecorder()
    if let onDemand = try? ListCodec.decode(bytes, readingItemsDirectly: true, rowsOnDemand: true, layout: &layout) {
        precondition(onDemand.list.items == decoded.list.items, "rows read on demand differ")
    }
    if let general = try? ListCodec.decode(bytes, readingItemsDirectly: false) {
        precondition(general.list.items == decoded.list.items, "the general reader differs")
    }
    let once = ListCodec.encode(decoded.list)
    guard let again = try? ListCodec.decode(once) else { preconditionFailure("what we wrote does not decode") }
    precondition(ListCodec.encode(again.list) == once, "a rewrite changes the file")
    let ab = decoded.list.merged(with: other)
    precondition(ab == other.merged(with: decoded.list), "merge is not commutative")
    precondition(ab.merged(with: other) == ab && decoded.list.merged(with: decoded.list) == decoded.list, "merge is not idempotent")
    return 0
}
