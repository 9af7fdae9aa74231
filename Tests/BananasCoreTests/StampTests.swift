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
