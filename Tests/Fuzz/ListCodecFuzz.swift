// A libFuzzer target over the list decoder, the writer and the merge: built by `scripts/fuzz
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
    guard let decoded = try? ListCodec.decode(bytes) else { return 0 }
    let once = ListCodec.encode(decoded.list)
    guard let again = try? ListCodec.decode(once) else { preconditionFailure("what we wrote does not decode") }
    precondition(ListCodec.encode(again.list) == once, "a rewrite changes the file")
    let ab = decoded.list.merged(with: other)
    precondition(ab == other.merged(with: decoded.list), "merge is not commutative")
    precondition(ab.merged(with: other) == ab && decoded.list.merged(with: decoded.list) == decoded.list, "merge is not idempotent")
    return 0
}
