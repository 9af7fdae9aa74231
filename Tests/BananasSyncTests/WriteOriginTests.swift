@testable import BananasSync
import BananasCore
import Testing

/// Own write or foreign, and what a foreign one is merged against, decided from values
/// (`WriteOrigin`).
@Suite("WriteOrigin: whose write a file state is")
struct WriteOriginTests {
    typealias Previous = WriteOrigin.Previous

    static func origin(
        hash: UInt64 = 7, exists: Bool = true, written: [UInt64]? = [1, 2], announced: UInt64? = nil, settled: Bool = true,
        previous: Previous? = nil, hasBase: Bool? = true, mark: Stamp = .zero
    ) -> WriteOrigin {
        WriteOrigin(hash: hash, exists: exists, writtenHashes: written, announced: announced, settled: settled,
                    previous: previous, hasBase: hasBase, mark: mark)
    }

    /// The write mark of bananas write `n`.
    static func mark(_ n: Int64) -> Stamp { Stamp(millis: 1_000 + n, counter: 0, replica: "w\(n)") }

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

    @Test("the base mark is the newest written hash, or for bytes bananas wrote, those bytes")
    func baseMark() {
        #expect(Self.origin(written: [4, 9]).baseMark == 9)
        #expect(Self.origin(written: nil).baseMark == nil)
        #expect(Self.origin(hash: 9, written: [4, 9]).baseMark == 9)
        // Found to be bananas's by a glance after the read, which names a later write too.
        #expect(Self.origin(hash: 4, written: [4, 9]).baseMark == 4)
        #expect(Self.origin(hash: 7, written: [4], announced: 7).baseMark == 7)
    }

    /// An instance read bananas write 4 with a glance that did not name it yet; settling
    /// found it in a newer glance that also named write 9, made after the read. A Get Bananas
    /// file made from write 9 is then judged against the base (write 9), not against the read
    /// of write 4, which lacks what write 9 added: a row added there and removed by the server
    /// is a delete (against write 4 it was not, and the row came back: nine-writer test).
    @Test("a foreign write after a read of an older bananas write is judged against the base")
    func foreignAfterAnOlderOwnRead() {
        let read = Self.origin(hash: 4, written: [3, 4, 9], settled: true)
        #expect(read.verdict == .own)
        let previous = Previous(hash: read.hash, baseMark: read.baseMark)
        #expect(Self.origin(hash: 11, written: [3, 4, 9], previous: previous).verdict == .foreign(.base))
        // A foreign write on top of the very state read last, with no bananas write since.
        let newest = Self.origin(hash: 9, written: [3, 4, 9])
        #expect(Self.origin(hash: 11, written: [3, 4, 9], previous: Previous(hash: 9, baseMark: newest.baseMark)).verdict == .foreign(.lastRead))
    }

    /// A file that names the bananas write it comes from (the Get Bananas server keeps
    /// `sync.written`) is judged against the state read last only when that state comes from
    /// the same write, whatever the glances said: the server's remove made on write 9 after
    /// this instance read write 4 (marked as if nothing came between, by the old rule) is a
    /// delete against the base; its file made on the very write read last, or on a server file
    /// read last that came from it, against that read; a put-back older write read last
    /// and a server file made on it, against that read, not the newer base.
    @Test("a file with a write mark is judged against the last read only when it comes from the same bananas write")
    func markedFileByLineage() {
        let (four, nine) = (Self.mark(4), Self.mark(9))
        #expect(Self.origin(hash: 11, written: [3, 4, 9], previous: Previous(hash: 4, baseMark: 9, mark: four), mark: nine).verdict == .foreign(.base))
        #expect(Self.origin(hash: 11, written: [3, 4, 9], previous: Previous(hash: 9, baseMark: 9, mark: nine), mark: nine).verdict == .foreign(.lastRead))
        #expect(Self.origin(hash: 12, written: [3, 4, 9], previous: Previous(hash: 11, baseMark: 9, mark: nine), mark: nine).verdict == .foreign(.lastRead))
        #expect(Self.origin(hash: 11, written: [3, 4, 9], previous: Previous(hash: 4, baseMark: 4, mark: four), mark: four).verdict == .foreign(.lastRead))
        // No mark (a phone's save drops `sync`): the glances decide, as before.
        #expect(Self.origin(hash: 11, written: [3, 4, 9], previous: Previous(hash: 9, baseMark: 9, mark: nine)).verdict == .foreign(.lastRead))
        #expect(Self.origin(hash: 11, written: [3, 4, 9], previous: Previous(hash: 4, baseMark: 4, mark: four)).verdict == .foreign(.base))
    }
}
