import Dispatch
import Foundation
import Testing
@testable import BananasFile
import BananasTestSupport
import Synchronization

/// The watcher's layers with the intervals an idle process uses: events at once, the poll and
/// the rescan seconds and minutes apart, a file elsewhere (the conflict log) as a `.tick`.
@Suite("Folder watcher")
struct FolderWatcherTests {
    /// What a watcher reported, in order.
    final class Reports: @unchecked Sendable {
        private let triggers = Mutex<[FolderWatcher.Trigger]>([])
        func add(_ trigger: FolderWatcher.Trigger) { triggers.withLock { $0.append(trigger) } }
        var all: [FolderWatcher.Trigger] { triggers.withLock { $0 } }
        func clear() { triggers.withLock { $0.removeAll() } }

        /// Waits until `trigger` is reported; false after `timeout` seconds.
        func wait(for trigger: FolderWatcher.Trigger, timeout: Double = 2) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while !all.contains(trigger) {
                if Date() > deadline { return false }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return true
        }
    }

    func start(_ path: String, options: FolderWatcher.Options = .init(), alsoWatching: [String] = []) -> (FolderWatcher, Reports) {
        let reports = Reports()
        let queue = DispatchQueue(label: "test.watcher")
        let watcher = FolderWatcher(file: path, queue: queue, options: options, alsoWatching: alsoWatching) { reports.add($0) }
        queue.sync { watcher.start() }
        return (watcher, reports)
    }

    @Test("idle defaults: a 5 s poll and an hourly rescan with events, 250 ms and 30 s without")
    func defaults() {
        let options = FolderWatcher.Options()
        #expect(options.pollMillis == 5_000 && options.rescanMillis == 3_600_000)
        #expect(options.remotePollMillis == 250 && options.remoteRescanMillis == 30_000)
    }

    #if os(Linux)
    @Test("with events, a change is reported at once and nothing comes between polls")
    func eventsAtOnce() throws {
        let folder = TempFolder()
        folder.write("{}")
        let (watcher, reports) = start(folder.listPath)
        defer { watcher.queue.sync { watcher.stop() } }
        #expect(watcher.queue.sync { watcher.usesEvents })
        Thread.sleep(forTimeInterval: 0.3)
        #expect(reports.all.isEmpty, "an idle watcher reports nothing before its first poll")
        folder.write("{\"a\": 1}", to: "new.tmp")
        #expect(rename(folder.path + "/new.tmp", folder.listPath) == 0)
        #expect(reports.wait(for: .event, timeout: 1))
    }

    @Test("a file in another folder is a tick at once, also when its folder appears after the start")
    func otherFiles() throws {
        let folder = TempFolder()
        folder.write("{}")
        let state = folder.path + "/state"
        let log = state + "/conflicts.jsonl"
        let (watcher, reports) = start(folder.listPath, alsoWatching: [log])
        defer { watcher.queue.sync { watcher.stop() } }
        // The folder appears; the next event in the list's folder (or the next poll) watches it.
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        folder.write("{\"b\": 2}")
        #expect(reports.wait(for: .event, timeout: 1))
        // One write is several inotify events, which may come as more than one report (on a
        // busy machine, after the first was seen): wait for the quiet before looking on.
        for _ in 0..<20 {
            reports.clear()
            Thread.sleep(forTimeInterval: 0.2)
            if reports.all.isEmpty { break }
        }
        createTestFile(atPath: state + "/base.json", contents: Data("{}".utf8))
        Thread.sleep(forTimeInterval: 0.2)
        #expect(reports.all.isEmpty, "other names in that folder are not reported")
        createTestFile(atPath: log, contents: Data("{}\n".utf8))
        #expect(reports.wait(for: .tick, timeout: 1))
        #expect(!reports.all.contains(.event), "the list is not read for it")
    }
    #endif

    @Test("without events, the poll sees a change within its 250 ms")
    func polling() throws {
        let folder = TempFolder()
        folder.write("{}")
        var options = FolderWatcher.Options()
        options.forcePolling = true
        let (watcher, reports) = start(folder.listPath, options: options)
        defer { watcher.queue.sync { watcher.stop() } }
        #expect(!watcher.queue.sync { watcher.usesEvents })
        folder.write("{\"changed\": true}")
        #expect(reports.wait(for: .poll, timeout: 1.5))
    }
}
