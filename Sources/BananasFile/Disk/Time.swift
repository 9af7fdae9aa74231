import Dispatch

/// The time edits are stamped with and the delays a running instance waits (a flush after an
/// edit, a retry after a pause, taking a file in once the lock is free): the system's
/// (`SystemTime`), or one a test sets and advances (`ManualTime` in BananasTestSupport). A
/// `ListFile` carries one; its engine, store and commands read it there. Locks, the folder
/// watcher's polls and file times keep the system's clock: they are about the disk.
public protocol TimeSource: Sendable {
    /// Milliseconds since 1970.
    func nowMillis() -> Int64
    /// Runs `work` on `queue` once `millis` have passed.
    func schedule(afterMillis millis: Int64, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void)
}

/// The system's clock, or a device's that runs ahead or behind by `offsetMillis` (the test
/// tool plays such a device: `bananas-test cli --clock-offset`).
public struct SystemTime: TimeSource {
    public let offsetMillis: Int64

    public init(offsetMillis: Int64 = 0) { self.offsetMillis = offsetMillis }

    public func nowMillis() -> Int64 { Sys.nowMillis() &+ offsetMillis }

    public func schedule(afterMillis millis: Int64, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        queue.asyncAfter(deadline: .now() + .milliseconds(Int(max(0, millis))), execute: work)
    }
}
