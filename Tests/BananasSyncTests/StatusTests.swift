import BananasCore
import BananasFile
@testable import BananasSync
import Testing

@Suite("Sync status wording")
struct StatusTests {
    let conflict: Conflict = {
        var list = ShoppingList(rows: [Item(id: "1", name: "Oat\u{1B}[2J milk", amount: "2 L")])
        let record = ConflictRecord(subject: .item("1", .amount), lost: .text("1 L"), lostStamp: Stamp(millis: 1, counter: 0, replica: "a"))
        list.merge(ShoppingList(sectionEntries: [:], conflicts: [record]))
        return list.conflictList()[0]
    }()

    @Test("each state, as the status bar says it, with paused > conflict > pending > synced")
    func states() {
        var status = SyncStatus()
        #expect(status.state == .synced && status.summary(now: 0) == "synced")
        status.lastSyncMillis = 1_000
        #expect(status.summary(now: 5_400) == "synced 4s ago")
        #expect(status.summary(now: 1_000 + 3 * 3_600_000) == "synced 3h ago")
        status.pendingCount = 2
        #expect(status.state == .pending && status.summary(now: 0) == "pending 2")
        status.conflicts = [conflict]
        #expect(status.state == .conflict)
        #expect(status.summary(now: 0) == "conflict 1 — Oat\\e[2J milk amount", "stored text is escaped")
        status.pausedBy = .lockHeld(path: "/x.lock", pid: 4242, ageSeconds: 1)
        #expect(status.state == .paused && status.summary(now: 0) == "paused: lock held by pid 4242 (2 waiting)")
        status.pausedBy = .newerSchema(path: "/x", found: 3, supported: 2)
        status.pendingCount = 0
        #expect(status.summary(now: 0) == "paused: newer schema (3)")
    }

    @Test("the age is rounded down: seconds, tens of seconds, minutes, hours, days")
    func ages() {
        let cases: [(Int64, String)] = [
            (-5_000, "just now"), (999, "just now"), (1_000, "1s ago"), (9_999, "9s ago"), (10_000, "10s ago"),
            (19_999, "10s ago"), (20_000, "20s ago"), (59_999, "50s ago"), (60_000, "1m ago"), (119_999, "1m ago"),
            (3_599_999, "59m ago"), (3_600_000, "1h ago"), (86_399_999, "23h ago"), (86_400_000, "1d ago"),
            (3 * 86_400_000 + 5, "3d ago"),
        ]
        for (millis, text) in cases { #expect(SyncStatus.age(millis) == text, "\(millis)") }
    }

    @Test("the next change of the status text is when the age text moves on, and only then")
    func nextChange() throws {
        var status = SyncStatus()
        #expect(status.nextSummaryChange(after: 0) == nil, "no age shown")
        status.lastSyncMillis = 1_000_000
        var now: Int64 = 1_000_000 - 3_000  // a stamp from a clock ahead: `just now` until it is 1 s old
        var changes = 0
        while now < 1_000_000 + 3 * 86_400_000 {
            let next = try #require(status.nextSummaryChange(after: now))
            #expect(next > now)
            let text = status.summary(now: now)
            #expect(status.summary(now: next - 1) == text, "no change before \(next) (from \(now))")
            #expect(status.summary(now: next) != text, "a change at \(next)")
            now = next
            changes += 1
        }
        #expect(changes == 1 + 9 + 5 + 59 + 23 + 2, "every second for 10 s, every 10 s to a minute, then minutes, hours, days")
        status.pendingCount = 1
        #expect(status.nextSummaryChange(after: now) == nil, "pending shows no age")
    }

    @Test("clock skew and a failing journal are added to any state")
    func warnings() {
        var status = SyncStatus()
        status.clockSkewMillis = 90_000
        status.journalProblem = .diskFull(path: "/state/j")
        #expect(status.summary(now: 0) == "synced · journal: disk full · clock skew 90s")
        status.clockSkewMillis = 4_000  // small skew is normal
        status.journalProblem = nil
        #expect(status.summary(now: 0) == "synced")
    }
}
