import BananasFile
import Dispatch
import Synchronization

/// For tests: time that stands still until the test moves it on. Work scheduled for later runs
/// (on its queue, in order of when it falls due) only when `advance` passes its time: a test
/// says "a second later" instead of sleeping through one.
public final class ManualTime: TimeSource {
    private struct Timer {
        let due: Int64, order: Int
        let queue: DispatchQueue
        let work: @Sendable () -> Void
    }
    private let state: Mutex<(now: Int64, timers: [Timer], order: Int)>

    public init(startMillis: Int64 = SystemTime().nowMillis()) {
        state = Mutex((startMillis, [], 0))
    }

    public func nowMillis() -> Int64 { state.withLock { $0.now } }

    public func schedule(afterMillis millis: Int64, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.timers.append(Timer(due: state.now + max(0, millis), order: state.order, queue: queue, work: work))
            state.order += 1
        }
    }

    /// Moves time on by `millis`; each timer that falls due meanwhile is dispatched to its
    /// queue, the clock standing at its time.
    public func advance(by millis: Int64) {
        let target = state.withLock { $0.now + millis }
        while let timer = state.withLock({ state -> Timer? in
            guard let next = state.timers.filter({ $0.due <= target }).min(by: { ($0.due, $0.order) < ($1.due, $1.order) }) else {
                return nil
            }
            state.timers.removeAll { $0.order == next.order }
            state.now = max(state.now, next.due)
            return next
        }) {
            timer.queue.async(execute: timer.work)
        }
        state.withLock { $0.now = max($0.now, target) }
    }

    /// Timers waiting for time to pass.
    public var waiting: Int { state.withLock { $0.timers.count } }
}
