#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore
import Synchronization
import Dispatch

/// The Get Bananas lock: `BananaList.json.lock` beside the file, created with
/// O_CREAT|O_EXCL|O_NOFOLLOW and holding the holder's PID as text. Its MCP server uses the
/// same file (`wx` flag), so the two never interleave.
///
/// A lock whose mtime is older than 5 s is stale and is broken, whoever owns its PID: while we
/// hold the lock we touch it every second (a heartbeat), so a live bananas never looks stale,
/// and a PID that is alive can be anyone (PID 1, a PID reused after a power cut). The Get
/// Bananas server breaks locks by the same rule. A holder frozen for longer (SIGSTOP, a VM
/// pause) loses its lock: `isStillOurs` tells it so before it renames anything.
///
/// Fairness: an O_EXCL lock has no queue, so a process that just let go of a contended lock
/// waits about as long as it held it (`turn`) before taking it again, and pollers (the Get
/// Bananas server tries every 50 ms, the CLI backs off to 50 ms) find it free.
public final class FileLock: @unchecked Sendable {  // its state is guarded by `heartbeatQueue` and `books`
    public static let staleAfterMillis: Int64 = 5_000
    /// How often a held lock's mtime is refreshed; well inside the stale window.
    static let heartbeatMillis = 1_000

    public let path: String
    private var held = true
    /// Our lock file, kept open so the heartbeat touches our inode even if someone broke it.
    private let descriptor: Int32
    /// Serial: the heartbeat and the close in `release` never overlap (a reused fd number
    /// must never be touched).
    private let heartbeatQueue = DispatchQueue(label: "bananas.lock-heartbeat")
    private var heartbeat: DispatchSourceTimer?

    /// Threads of one process queue here first: the lock file records only a PID, so it
    /// cannot tell two threads of the same process apart. A semaphore, not a mutex: it is
    /// held from `acquire` to `release`, which may run on another thread.
    private static let inProcess = DispatchSemaphore(value: 1)

    private init(path: String, descriptor: Int32, acquiredAt: Int64, contended: Bool) {
        self.path = path
        self.descriptor = descriptor
        self.acquiredAt = acquiredAt
        self.contended = contended
        var st = stat()
        createdAccess = fstat(descriptor, &st) == 0 ? st.st_atim : timespec()
        let timer = DispatchSource.makeTimerSource(queue: heartbeatQueue)
        let interval = DispatchTimeInterval.milliseconds(Self.heartbeatMillis)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        // mtime := now; atime is left to waiters, which mark it (`markWaiting`).
        timer.setEventHandler { _ = futimens(descriptor, [timespec(tv_sec: 0, tv_nsec: Sys.timeOmit), timespec(tv_sec: 0, tv_nsec: Sys.timeNow)]) }
        timer.resume()
        heartbeat = timer
    }

    /// When this process last let go of a lock, for how long it had held it, and whether it
    /// had to wait for it (others want it too); by lock path.
    private struct Release { var at: Int64; var heldMillis: Int64; var contended: Bool }
    /// What this process knows of its locks (`lastRelease`, `heldLocks`), shared by its threads.
    private struct Books {
        var lastRelease: [String: Release] = [:]
        var heldLocks: [String: Held] = [:]
    }
    private static let books = Mutex(Books())
    /// The longest a process that just let go waits before it tries again.
    static let maximumTurnMillis: Int64 = 1_000
    /// At least a Get Bananas poll interval (50 ms) and a bit.
    static let minimumTurnMillis: Int64 = 60

    private let acquiredAt: Int64
    private let contended: Bool
    /// The lock file's atime when we created it: a bananas waiter moves it (`markWaiting`).
    private let createdAccess: timespec

    /// A bananas writer that finds the lock held says so by setting the lock file's atime
    /// (its mtime is the holder's heartbeat, which the stale rule reads): the holder then
    /// knows, at release, that someone waits, and waits its turn before it takes it again.
    /// The Get Bananas server leaves no such mark.
    static func markWaiting(_ path: String) {
        _ = utimensat(AT_FDCWD, path, [timespec(tv_sec: 0, tv_nsec: Sys.timeNow), timespec(tv_sec: 0, tv_nsec: Sys.timeOmit)], AT_SYMLINK_NOFOLLOW)
    }

    /// Whether a waiter marked the lock while we held it.
    private func wasWaitedFor() -> Bool {
        var st = stat()
        guard fstat(descriptor, &st) == 0 else { return false }
        let now = st.st_atim
        return now.tv_sec > createdAccess.tv_sec || (now.tv_sec == createdAccess.tv_sec && now.tv_nsec > createdAccess.tv_nsec)
    }

    /// How long a process that let go of a contended lock `millisAgo` ago, after holding it
    /// for `heldMillis`, still waits before it tries to take it again.
    static func turn(heldMillis: Int64, millisAgo: Int64) -> Int64 {
        max(0, min(max(heldMillis, minimumTurnMillis), maximumTurnMillis) - millisAgo)
    }

    /// Takes the lock, waiting up to `timeoutMillis` for a holder to let go.
    public static func acquire(path: String, timeoutMillis: Int64 = 5_000) throws(ListFileError) -> FileLock {
        let start = Sys.nowMillis()
        let previous = books.withLock { $0.lastRelease[path] }
        if let previous, previous.contended {
            let wait = turn(heldMillis: previous.heldMillis, millisAgo: start - previous.at)
            if wait > 0 { Sys.sleep(milliseconds: Int(min(wait, timeoutMillis))) }
        }
        inProcess.wait()
        let descriptor: Int32, waited: Bool
        do {
            (descriptor, waited) = try take(path: path, timeoutMillis: timeoutMillis - (Sys.nowMillis() - start))
        } catch {
            inProcess.signal()
            WaitLog.record(path: path, waitedMillis: Sys.nowMillis() - start, acquired: false)
            throw error
        }
        let now = Sys.nowMillis()
        WaitLog.record(path: path, waitedMillis: now - start, acquired: true)
        let lock = FileLock(path: path, descriptor: descriptor, acquiredAt: now, contended: waited)
        let fileSignature = path.hasSuffix(".lock") ? FileSignature.of(String(path.dropLast(5))) : nil
        books.withLock { $0.heldLocks[path] = Held(lock: lock, file: fileSignature) }
        return lock
    }

    /// The locks this process holds, by lock path, with the list file's signature (inode, size,
    /// times) when the lock was taken or our last write under it: `AtomicWrite` asks, just
    /// before its rename, whether the lock is still ours and the file still that one.
    private struct Held {
        weak var lock: FileLock?
        var file: [UInt8]?
    }

    /// Why a write to `filePath` must not be renamed into place now, or nil when it may: its
    /// lock is held by this process but was broken by another (we were frozen past the stale
    /// window), or the file changed since the lock was taken. Files with no lock of ours
    /// (the base, archives) are not checked.
    static func refusalBeforeReplacing(_ filePath: String) -> ListFileError? {
        let lockPath = filePath + ".lock"
        let entry = books.withLock { $0.heldLocks[lockPath] }
        guard let entry, let lock = entry.lock else { return nil }
        if !lock.isStillOurs() { return .lockLost(lockPath: lockPath, fileChanged: false) }
        if FileSignature.of(filePath) != entry.file { return .lockLost(lockPath: lockPath, fileChanged: true) }
        return nil
    }

    /// After our own rename onto `filePath`: the file as it now is is the one we hold.
    static func replaced(_ filePath: String) {
        let lockPath = filePath + ".lock"
        let signature = FileSignature.of(filePath)
        books.withLock { books in
            guard let entry = books.heldLocks[lockPath] else { return }
            books.heldLocks[lockPath] = Held(lock: entry.lock, file: signature)
        }
    }

    /// Whether the lock file at `path` is still the one we created: the same device and inode
    /// as the descriptor we hold. Our descriptor keeps that inode alive, so no other file can
    /// have its number; a lock another writer broke and made anew is another inode. (Read
    /// nothing: a read would move the atime that waiters mark.) False once another writer
    /// broke it (we were frozen past the stale window): a write must not be renamed then.
    public func isStillOurs() -> Bool {
        guard held else { return false }
        var own = stat()
        guard fstat(descriptor, &own) == 0, let st = Sys.linkStatus(path), Sys.isRegular(st) else { return false }
        return st.st_ino == own.st_ino && st.st_dev == own.st_dev
    }

    /// Creates the lock file; its open descriptor.
    /// Waits, up to `timeoutMillis`, until nobody holds the lock; true when nobody does. Does
    /// not take it. For a reader that wants a writer's flush finished (its base saved).
    public static func waitUntilFree(path: String, timeoutMillis: Int64) -> Bool {
        let deadline = Sys.nowMillis() + timeoutMillis
        while Sys.linkStatus(path) != nil {
            if Sys.nowMillis() >= deadline { return false }
            Sys.sleep(milliseconds: 1)
        }
        return true
    }

    /// Creates the lock file: its open descriptor, and whether someone else held it first.
    private static func take(path: String, timeoutMillis: Int64) throws(ListFileError) -> (Int32, waited: Bool) {
        let deadline = Sys.nowMillis() + timeoutMillis
        var pause = 1
        var waited = false
        let pid = Sys.processID()
        while true {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if fd >= 0 {
                let ok = Sys.writeAll(fd, Array(String(pid).utf8))
                let code = errno
                if !ok {
                    close(fd)
                    unlink(path)
                    throw Sys.failure(code, path: path, action: "write the lock")
                }
                return (fd, waited)
            }
            let code = errno
            guard code == EEXIST else { throw Sys.failure(code, path: path, action: "create the lock") }

            guard let holder = inspect(path: path) else { continue }  // vanished meanwhile: try again
            switch holder {
            case .unusable(let reason):
                throw .lockUnusable(path: path, reason: reason)
            case .held(let holderPID, let ageMillis, let inode):
                // Not refreshed for the stale window: its holder is dead or frozen, whatever
                // process now has its PID (a live bananas refreshes it every second).
                if ageMillis > staleAfterMillis {
                    // Break it only if it is still the same lock file we judged stale.
                    if let st = Sys.linkStatus(path), st.st_ino == inode { unlink(path) }
                    continue
                }
                if holderPID != pid {
                    waited = true
                    markWaiting(path)
                }
                if Sys.nowMillis() >= deadline {
                    throw .lockHeld(path: path, pid: holderPID, ageSeconds: Int(ageMillis / 1000),
                                    alive: holderPID.map(Sys.isAlive) ?? true)
                }
                Sys.sleep(milliseconds: pause)
                pause = min(pause * 2, 50)
            }
        }
    }

    enum Holder {
        case held(pid: Int32?, ageMillis: Int64, inode: ino_t)
        case unusable(String)
    }

    /// Who holds the lock at `path`, or nil when there is no lock file.
    static func inspect(path: String) -> Holder? {
        guard let st = Sys.linkStatus(path) else { return nil }
        if Sys.isSymlink(st) { return .unusable("it is a symbolic link; remove it if no program is using the list") }
        if !Sys.isRegular(st) { return .unusable("it is \(Sys.kind(st))") }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        var holderPID: Int32?
        if fd >= 0 {
            if let bytes = Sys.readAll(fd), bytes.count < 64 {
                holderPID = Int32(String(decoding: bytes, as: UTF8.self).trimmingWhitespace())
            }
            close(fd)
        }
        return .held(pid: holderPID, ageMillis: max(0, Sys.nowMillis() - Sys.modifiedMillis(st)), inode: st.st_ino)
    }

    /// The holder of the lock beside a list, for `bananas status`: nil when unlocked.
    public static func holder(of path: String) -> (pid: Int32?, ageSeconds: Int, alive: Bool)? {
        guard case .held(let pid, let age, _)? = inspect(path: path) else { return nil }
        return (pid, Int(age / 1000), pid.map(Sys.isAlive) ?? false)
    }

    /// Why the lock path cannot be used (a symlink, a folder), for `bananas status`; nil when
    /// it can (free or held).
    public static func problem(at path: String) -> String? {
        guard case .unusable(let reason)? = inspect(path: path) else { return nil }
        return reason
    }

    /// Lets go of the lock: removes the file only while it still names us.
    public func release() {
        guard held else { return }
        held = false
        let now = Sys.nowMillis()
        let contended = contended || wasWaitedFor()
        Self.books.withLock { books in
            books.lastRelease[path] = Release(at: now, heldMillis: now - acquiredAt, contended: contended)
            if books.heldLocks[path]?.lock === self { books.heldLocks[path] = nil }
        }
        heartbeatQueue.sync {
            heartbeat?.cancel()
            heartbeat = nil
            close(descriptor)
        }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        if fd >= 0 {
            let bytes = Sys.readAll(fd) ?? []
            close(fd)
            if String(decoding: bytes, as: UTF8.self) == String(Sys.processID()) { unlink(path) }
        }
        Self.inProcess.signal()
    }

    deinit { release() }
}

/// With `BANANAS_LOCK_WAIT_LOG` set to a file, every lock acquisition appends one line to it
/// (`<pid> <waited ms> acquired|gave-up`): the reliability harness reports the worst wait.
enum WaitLog {
    private static let path: String? = Environment.value("BANANAS_LOCK_WAIT_LOG").flatMap { $0.isEmpty ? nil : $0 }

    static func record(path lock: String, waitedMillis: Int64, acquired: Bool) {
        guard let path else { return }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = Sys.writeAll(fd, Array("\(Sys.processID()) \(waitedMillis) \(acquired ? "acquired" : "gave-up")\n".utf8))
    }
}
