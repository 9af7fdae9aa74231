import Foundation
import Testing
@testable import BananasFile

/// The Get Bananas server breaks any lock whose mtime is older than 5 s, without asking
/// whether its holder lives. A held bananas lock therefore keeps its mtime fresh.
@Suite struct FileLockHeartbeatTests {
    func ageSeconds(_ path: String) -> Double? {
        guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date else { return nil }
        return Date().timeIntervalSince(modified)
    }

    @Test("a held lock never looks stale to a writer that judges by mtime alone")
    func heldLockStaysFresh() throws {
        let folder = TempFolder()
        let lockPath = folder.listPath + ".lock"
        let lock = try FileLock.acquire(path: lockPath)
        // As it would look after a 10 s write without the heartbeat.
        let old = timespec(tv_sec: time(nil) - 10, tv_nsec: 0)
        utimensat(AT_FDCWD, lockPath, [old, old], 0)
        #expect((ageSeconds(lockPath) ?? 0) > 9)
        let deadline = Date().addingTimeInterval(5)
        while (ageSeconds(lockPath) ?? 0) > 4, Date() < deadline { usleep(50_000) }
        #expect((ageSeconds(lockPath) ?? 99) < 4, "refreshed well inside the 5 s stale window")
        #expect(folder.bytes("BananaList.json.lock") == Array(String(getpid()).utf8))
        lock.release()
        #expect(folder.entries.isEmpty)
    }

    @Test("a released lock is no longer touched")
    func releasedLockIsLeftAlone() throws {
        let folder = TempFolder()
        let lockPath = folder.listPath + ".lock"
        try FileLock.acquire(path: lockPath).release()
        // Someone else's lock now: it must age as its owner leaves it.
        folder.write("999999", to: "BananaList.json.lock")
        let old = timespec(tv_sec: time(nil) - 10, tv_nsec: 0)
        utimensat(AT_FDCWD, lockPath, [old, old], 0)
        usleep(1_500_000)
        #expect((ageSeconds(lockPath) ?? 0) > 9)
    }
}
