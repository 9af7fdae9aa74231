import Foundation
import Testing

/// bananas on three devices kept in sync by real Syncthing instances on loopback:
/// Tests/Syncthing/two_devices.py runs the sync checklist (docs/multi-device.md) with a
/// long-running `bananas session` on each device and CLI checks, and reports each step.
/// It needs Debian's `syncthing` (scripts/test installs it).
@Suite("Syncthing between devices")
struct SyncthingTests {
    /// The whole run is bounded; each wait inside the script is bounded too (60 s).
    static let timeLimit: TimeInterval = 600

    static let checklist = [
        "create on A appears on B",
        "edit the same item on both while the link is down, reconnect: both edits survive, the copy is merged away",
        "the same field on both while the link is down: the loser is a conflict on both devices, nothing added is lost",
        "delete on A disappears on B",
        "a new device with an empty folder receives the whole list",
        "B offline then back again catches up",
    ]

    @Test("the sync checklist with Syncthing: every step passes and conflict copies are merged away")
    func checklist() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Syncthing/two_devices.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--bananas", CLI.binary, "--test-tool", CLI.testTool]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let collected = OutputCollector()
        let reader = PipeReader(output.fileHandleForReading) { collected.append($0) }
        try process.run()
        let deadline = Date().addingTimeInterval(SyncthingTests.timeLimit)
        while process.isRunning && Date() < deadline { usleep(100_000) }
        if process.isRunning {
            process.terminate()  // the script stops its Syncthing and bananas processes on SIGTERM
            let grace = Date().addingTimeInterval(30)
            while process.isRunning && Date() < grace { usleep(100_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            Issue.record("the Syncthing checklist took longer than \(Int(SyncthingTests.timeLimit)) s")
        }
        process.waitUntilExit()
        // Its Syncthing processes may hold the pipe a moment longer.
        reader.waitForEnd(timeout: 10)

        let lines = collected.text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let passed = lines.filter { $0["ok"] as? Bool == true }.compactMap { $0["step"] as? String }
        for step in SyncthingTests.checklist {
            #expect(passed.contains(step), "step failed or did not run: \(step)\n\(collected.text)")
        }
        #expect(process.terminationStatus == 0, "\(collected.text)")
        // The figures, for the report (not asserted: the machine is shared).
        print("Syncthing checklist:", collected.text)
    }
}

/// Bytes from a pipe's handler thread, read on the test's.
private final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func append(_ chunk: Data) {
        lock.lock()
        data.append(chunk)
        lock.unlock()
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}
