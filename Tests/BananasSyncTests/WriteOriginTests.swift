@testable import BananasSync
import Testing

/// Own write or foreign, and what a foreign one is merged against, decided from values
/// (`WriteOrigin`).
@Suite("WriteOrigin: whose write a file state is")
struct WriteOriginTests {
    typealias Previous = WriteOrigin.Previous

    static func origin(
        hash: UInt64 = 7, exists: Bool = true, written: [UInt64]? = [1, 2], announced: UInt64? = nil, settled: Bool = true,
        previous: Previous? = nil, hasBase: Bool? = true
    ) -> WriteOrigin {
        WriteOrigin(hash: hash, exists: exists, writtenHashes: written, announced: announced, settled: settled,
                    previous: previous, hasBase: hasBase)
    }

    @Test("the bytes taken in last are taken as they were then, whatever else holds")
    func seenBefore() {
        let previous = Previous(hash: 7, baseMark: 1)
        #expect(Self.origin(previous: previous).verdict == .seenBefore)
        #expect(Self.origin(exists: false, previous: previous).verdict == .seenBefore)
        #expect(Self.origin(written: [7], settled: false, previous: previous, hasBase: nil).verdict == .seenBefore)
    }

    @Test("no file is absence, never a writer that deleted every row")
    func absent() {
        #expect(Self.origin(exists: false).verdict == .absent)
        #expect(Self.origin(exists: false, written: nil, previous: Previous(hash: 3, baseMark: nil)).verdict == .absent)
    }

    @Test("bytes bananas wrote (in the written hashes, or announced before a rename) are its own")
    func own() {
        #expect(Self.origin(written: [1, 7, 2], settled: false, hasBase: nil).verdict == .own)
        #expect(Self.origin(announced: 7, settled: false, hasBase: nil).verdict == .own)
        #expect(Self.origin(written: [1, 2]).verdict != .own)
    }

    @Test("an unknown write, with state kept, is settled before it counts as foreign; then the base is looked for")
    func unsettledThenNeedsBase() {
        #expect(Self.origin(settled: false, hasBase: nil).verdict == .unsettled)
        #expect(Self.origin(settled: true, hasBase: nil).verdict == .needsBase)
        // With no state kept there is no writer to wait for, and no base.
        #expect(Self.origin(written: nil, settled: false, hasBase: false).verdict == .foreignWithoutBase)
    }

    @Test("a foreign write with a base: against the base, or the last read when no bananas write came between")
    func foreignWithBase() {
        #expect(Self.origin().verdict == .foreign(.base))
        #expect(Self.origin(previous: Previous(hash: 5, baseMark: 1)).verdict == .foreign(.base))
        #expect(Self.origin(previous: Previous(hash: 5, baseMark: 2)).verdict == .foreign(.lastRead))
        #expect(Self.origin(written: [], previous: Previous(hash: 5, baseMark: nil)).verdict == .foreign(.lastRead))
    }

    @Test("a foreign write with no base: against the last read, stamped or not; the first read is taken as it is")
    func foreignWithoutBase() {
        #expect(Self.origin(hasBase: false).verdict == .foreignWithoutBase)
        #expect(Self.origin(previous: Previous(hash: 5, baseMark: 2), hasBase: false).verdict == .foreign(.lastRead))
        #expect(Self.origin(previous: Previous(hash: 5, baseMark: nil), hasBase: false).verdict == .foreign(.lastRead))
        #expect(Self.origin(written: nil, previous: Previous(hash: 5, baseMark: nil), hasBase: false).verdict
                == .foreign(.lastRead))
    }

    @Test("the base mark is the newest written hash")
    func baseMark() {
        #expect(Self.origin(written: [4, 9]).baseMark == 9)
        #expect(Self.origin(written: nil).baseMark == nil)
    }
}
