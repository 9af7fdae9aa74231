import Foundation
import Subprocess
import SystemPackage
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
        "the phone checks an item, then clears checked: it stays gone on both devices, in recently deleted",
        "a new device with an empty folder receives the whole list",
        "B offline then back again catches up",
    ]

    @Test("the sync checklist with Syncthing: every step passes and conflict copies are merged away")
    func checklist() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Syncthing/two_devices.py").path
        // Into a file, not a pipe: the Syncthing processes it starts may hold a pipe open past
        // the script's end.
        let report = NSTemporaryDirectory() + "bananas-syncthing-" + UUID().uuidString + ".jsonl"
        defer { try? FileManager.default.removeItem(atPath: report) }
        let output = try FileDescriptor.open(FilePath(report), .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
        let timedOut = Locked(false)
        let run = try await Subprocess.run(
            .path("/usr/bin/env"), arguments: ["python3", script, "--bananas", CLI.binary, "--test-tool", CLI.testTool],
            environment: .inherit, input: .none, output: .fileDescriptor(output, closeAfterSpawningProcess: true), error: .discarded
        ) { execution in
            let pid = execution.processIdentifier.value
            return Task {
                try await Task.sleep(for: .seconds(SyncthingTests.timeLimit))
                timedOut.update { $0 = true }
                kill(pid, SIGTERM)  // the script stops its Syncthing and bananas processes on SIGTERM
                try await Task.sleep(for: .seconds(30))
                kill(pid, SIGKILL)
            }
        }
        run.closureResult.cancel()
        if timedOut.value { Issue.record("the Syncthing checklist took longer than \(Int(SyncthingTests.timeLimit)) s") }
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""

        let lines = text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let passed = lines.filter { $0["ok"] as? Bool == true }.compactMap { $0["step"] as? String }
        for step in SyncthingTests.checklist {
            #expect(passed.contains(step), "step failed or did not run: \(step)\n\(text)")
        }
        #expect(run.terminationStatus == .exited(0), "\(text)")
        // The figures, for the report (not asserted: the machine is shared).
        print("Syncthing checklist:", text)
    }
}
