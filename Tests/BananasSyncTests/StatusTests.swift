import BananasCore
import BananasFile
@testable import BananasSync
import Testing

@Suite("Sync status wording")
struct StatusTests {
    let conflict = ConflictLog.Entry(
        id: "3f2a9c1e", loggedAt: 0,
        conflict: Conflict(itemID: "1", itemName: "Oat\u{1B}[2J milk", field: .amount, kept: .text("2 L"),
                           keptStamp: Stamp(millis: 2, counter: 0, replica: "b"), lost: .text("1 L"),
                           lostStamp: Stamp(millis: 1, counter: 0, replica: "a")))

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
