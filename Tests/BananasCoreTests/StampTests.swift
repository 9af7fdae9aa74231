import Testing
import PropertyBased
@testable import BananasCore

@Suite struct StampTests {
    @Test func encodedFormRoundTrips() {
        let stamp = Stamp(millis: 1_763_720_130_123, counter: 7, replica: "3f9a1c2e")
        #expect(stamp.encoded == "0001763720130123-000007-3f9a1c2e")
        #expect(Stamp(encoded: stamp.encoded) == stamp)
    }

    @Test func malformedStampsAreRejected() {
        for text in ["", "12-000001-a", "0001763720130123-000007-", "0001763720130123-000007-UPPER", "x001763720130123-000007-ab"] {
            #expect(Stamp(encoded: text) == nil, "\(text)")
        }
    }

    @Test func comparingTextComparesTuples() async {
        let millis = Gen.int(in: 0...5_000_000)
        await propertyCheck(count: 300, input: millis, Gen.int(in: 0...5), millis, Gen.int(in: 0...5)) { m1, c1, m2, c2 in
            let a = Stamp(millis: Int64(m1), counter: c1, replica: "aa")
            let b = Stamp(millis: Int64(m2), counter: c2, replica: "ab")
            #expect((a < b) == (a.encoded < b.encoded))
        }
    }

    @Test func clockNeverRunsBackwards() {
        var clock = StampClock(replica: "r1")
        let a = clock.next(now: 1_000)
        let b = clock.next(now: 900)  // the wall clock stepped back
        let c = clock.next(now: 900)
        #expect(a < b && b < c)
        #expect(b.millis == 1_000 && b.counter == 1)
    }

    @Test func observedStampsMoveTheClockForward() {
        var clock = StampClock(replica: "r1")
        clock.observe(Stamp(millis: 5_000, counter: 3, replica: "zz"), now: 4_000)
        let next = clock.next(now: 4_000)
        #expect(next > Stamp(millis: 5_000, counter: 3, replica: "zz"))
    }

    @Test func aFarFutureStampMovesTheClockAtMostAMinute() {
        var clock = StampClock(replica: "r1")
        let now: Int64 = 1_000_000
        clock.observe(Stamp(millis: now + 3_600_000, counter: 0, replica: "zz"), now: now)
        let next = clock.next(now: now)
        #expect(next.millis <= now + StampClock.maxForwardJump)
        #expect(clock.largestSkewSeen == 3_600_000)
    }

    /// The store looks for a stamp ahead of the wall clock only when its clock may have seen
    /// one: whatever stamps it observed (a little ahead, a minute, hours, or behind), and
    /// however much later it is asked, a stamp still ahead is never missed.
    @Test func aClockKnowsWhetherAnyStampItSawMayBeAhead() async {
        let leads = Gen.int(in: -120_000...7_200_000).array(of: 0...6)
        await propertyCheck(count: 500, input: leads, Gen.int(in: 0...8), Gen.int(in: 0...200_000)) { leads, edits, later in
            var clock = StampClock(replica: "r1")
            let start: Int64 = 1_000_000_000
            var seen: [Stamp] = []
            for (k, lead) in leads.enumerated() {
                let now = start + Int64(k) * 10
                let stamp = Stamp(millis: now + Int64(lead), counter: k, replica: "zz")
                clock.observe(stamp, now: now)
                seen.append(stamp)
            }
            for _ in 0..<edits { seen.append(clock.next(now: start)) }
            let now = start + Int64(later)
            if seen.contains(where: { $0.millis > now }) {
                #expect(clock.mayHaveSeenStamp(aheadOf: now), "a stamp ahead of \(now) in \(seen)")
            }
        }
    }

    @Test func aClockThatSawNothingAheadSaysSo() {
        var clock = StampClock(replica: "r1")
        clock.observe(Stamp(millis: 5_000, counter: 0, replica: "zz"), now: 6_000)
        _ = clock.next(now: 6_000)
        #expect(!clock.mayHaveSeenStamp(aheadOf: 6_000))
        #expect(clock.mayHaveSeenStamp(aheadOf: 5_999))
    }

    @Test func counterOverflowCarriesIntoMillis() {
        var clock = StampClock(replica: "r1")
        clock.observe(Stamp(millis: 10, counter: Stamp.maxCounter, replica: "r0"), now: 10)
        let next = clock.next(now: 10)
        #expect(next.millis == 11 && next.counter == 0)
    }
}

@Suite struct IdentityTests {
    @Test func randomIDsAreUpperCaseVersion4UUIDs() {
        let id = ItemID.random()
        #expect(ItemID.isUUID(id))
        #expect(id == id.uppercased())
        #expect(Array(id)[14] == "4")
    }

    @Test func derivedIDsAreStable() {
        #expect(ItemID.derived(from: "x") == ItemID.derived(from: "x"))
        #expect(ItemID.derived(from: "x") != ItemID.derived(from: "y"))
        #expect(ItemID.isUUID(ItemID.derived(from: "x")))
    }

    @Test func iso8601Formatting() {
        #expect(Timestamp.iso8601(millis: 0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.iso8601(millis: 1_795_256_130_123) == "2026-11-21T10:15:30.123Z")
        #expect(Timestamp.iso8601(millis: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
    }
}
