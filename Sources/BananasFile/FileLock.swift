#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore
import Dispatch

/// The Get Bananas lock: `BananaList.json.lock` beside the file, created with
/// O_CREAT|O_EXCL|O_NOFOLLOW and holding the holder's PID as text. Its MCP server uses the
/// same file (`wx` flag), so the two never interleave. A lock older than 5 s whose PID is
/// not alive on this host is stale and is broken; a live holder is waited for, however old
/// its lock looks (the fix Get Bananas's author wished for).
///
/// The Get Bananas server breaks any lock older than 5 s by its mtime, alive or not. So while
/// we hold the lock we touch it every second (a heartbeat): a write that takes longer than
/// 5 s (a slow disk, a loaded machine, a big list) is never taken for a crashed one, and the
/// server never writes over it. The reliability harness lost edits to exactly that before.
public final class FileLock {
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

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
        let timer = DispatchSource.makeTimerSource(queue: heartbeatQueue)
        let interval = DispatchTimeInterval.milliseconds(Self.heartbeatMillis)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { _ = futimens(descriptor, nil) }  // mtime (and atime) := now
        timer.resume()
        heartbeat = timer
    }

    /// Takes the lock, waiting up to `timeoutMillis` for a live holder to let go.
    public static func acquire(path: String, timeoutMillis: Int64 = 5_000) throws(ListFileError) -> FileLock {
        inProcess.wait()
        let descriptor: Int32
        do {
            descriptor = try take(path: path, timeoutMillis: timeoutMillis)
        } catch {
            inProcess.signal()
            throw error
        }
        return FileLock(path: path, descriptor: descriptor)
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

    private static func take(path: String, timeoutMillis: Int64) throws(ListFileError) -> Int32 {
        let deadline = Sys.nowMillis() + timeoutMillis
        var pause = 1
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
                return fd
            }
            let code = errno
            guard code == EEXIST else { throw Sys.failure(code, path: path, action: "create the lock") }

            guard let holder = inspect(path: path) else { continue }  // vanished meanwhile: try again
            switch holder {
            case .unusable(let reason):
                throw .lockUnusable(path: path, reason: reason)
            case .held(let holderPID, let ageMillis, let inode):
                let alive = holderPID.map { $0 != pid && Sys.isAlive($0) } ?? false
                if ageMillis > staleAfterMillis && !alive {
                    // Break it only if it is still the same lock file we judged stale.
                    if let st = Sys.linkStatus(path), st.st_ino == inode { unlink(path) }
                    continue
                }
                if Sys.nowMillis() >= deadline {
                    throw .lockHeld(path: path, pid: holderPID, ageSeconds: Int(ageMillis / 1000))
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
        #if canImport(Darwin)
        let mtime = st.st_mtimespec
        #else
        let mtime = st.st_mtim
        #endif
        let modified = Int64(mtime.tv_sec) * 1000 + Int64(mtime.tv_nsec) / 1_000_000
        return .held(pid: holderPID, ageMillis: max(0, Sys.nowMillis() - modified), inode: st.st_ino)
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
