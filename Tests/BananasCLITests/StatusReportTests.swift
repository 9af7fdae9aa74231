import BananasCore
import BananasFile
import BananasSync
import Testing
@testable import BananasCLI

/// `bananas status` renders one value, `StatusReport`, as text or JSON: the renderers on a
/// report built field by field, without a file (the commands' own output is CLITests').
@Suite struct StatusReportTests {
    static let path = "/home/me/lists/BananaList.json"

    /// A list that was read: two edits of a running instance wait, a stale lock is left.
    static func readReport() -> StatusReport {
        var report = StatusReport(path: path)
        report.exists = true
        report.schemaVersion = 3
        report.items = 5
        report.checked = 2
        report.sections = 3
        report.runningEdits = 2
        report.waitingCopies = ["BananaList.sync-conflict-1.json"]
        report.lock = .held((pid: 42, ageSeconds: 9, alive: false))
        return report
    }

    @Test func textOfAListRead() {
        #expect(Self.readReport().textLines == [
            "file: \(Self.path)",
            "state: pending",
            "schema version: 3",
            "items: 5 (3 to get, 2 checked) in 3 sections",
            "pending: 2 edits of a running bananas not yet in the file",
            "note: a conflict copy is shown merged; the next edit merges it into the list and removes it (BananaList.sync-conflict-1.json)",
            "locked by pid 42 for 9 s (not running: stale)",
        ])
    }

    @Test func jsonOfAListRead() throws {
        let json = Self.readReport().json
        guard case .object(let fields) = json else { Issue.record("not an object: \(json)"); return }
        #expect(fields["file"] == .string(Self.path))
        #expect(fields["state"] == .string("pending"))
        #expect(fields["pending"] == .number(3))
        #expect(fields["items"] == .number(5) && fields["unchecked"] == .number(3) && fields["checked"] == .number(2))
        #expect(fields["schemaVersion"] == .number(3) && fields["exists"] == .bool(true) && fields["writable"] == .bool(true))
        #expect(fields["problems"] == .array([]) && fields["paused"] == nil && fields["error"] == nil)
        #expect(fields["waitingCopies"] == .array([.string("BananaList.sync-conflict-1.json")]))
        #expect(fields["lock"] == .object(["pid": .number(42), "ageSeconds": .number(9), "alive": .bool(false)]))
        #expect(fields["clockSkew"] == .null)
    }

    @Test func aFileThatCannotBeReadSaysWhyAndNoCounts() {
        let failure = ListFileError.unparseable(path: Self.path, detail: "line 3, column 1: expected a value")
        var report = StatusReport(path: Self.path)
        report.failure = failure
        report.lock = .unusable("a folder where the lock goes")
        #expect(report.textLines == [
            "file: \(Self.path)",
            "state: paused",
            "paused: " + failure.pausedReason,
            failure.description,
            "lock unusable: a folder where the lock goes",
        ])
        guard case .object(let fields) = report.json else { Issue.record("not an object"); return }
        #expect(fields["error"] == .string(failure.description))
        #expect(fields["paused"] == .string(failure.pausedReason))
        #expect(fields["items"] == nil && fields["schemaVersion"] == nil)
        #expect(fields["lock"] == .object(["unusable": .string("a folder where the lock goes")]))
    }

    @Test func stampsAheadAndStoppedJournalsAreSaid() {
        var report = StatusReport(path: Self.path)
        report.stoppedEdits = 4
        report.unwrittenSave = true
        report.skew = (millis: 3_600_000, replica: "a1b2c3d4e5f6")
        let lines = report.textLines
        #expect(lines.contains("not created yet (the first edit creates it)"))
        #expect(lines.contains("pending: 4 edits from a stopped bananas wait in its journal; the next edit writes them"))
        #expect(lines.contains { $0.hasPrefix("pending: a save by a writer that keeps no stamps") })
        #expect(lines.contains { $0.hasPrefix("clock skew: a stamp in the list is \(SyncStatus.duration(3_600_000)) ahead") })
        guard case .object(let fields) = report.json else { Issue.record("not an object"); return }
        #expect(fields["pending"] == .number(5))
        #expect(fields["clockSkew"] == .object(["aheadSeconds": .number(3600), "replica": .string("a1b2c3d4e5f6")]))
    }
}
