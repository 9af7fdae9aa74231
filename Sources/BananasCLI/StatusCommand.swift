import ArgumentParser
import BananasCore
import BananasFile
import BananasSync

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the sync state, the file, its schema version, item counts and any lock holder.")

    @OptionGroup var options: FileOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        try perform {
            let report = StatusReport(file: options.listFile, lockTimeoutMillis: options.lockTimeout)
            if json {
                Output.printJSON(report.json)
            } else {
                report.textLines.forEach { Output.line($0) }
            }
            if let failure = report.failure { throw ExitCode(failure.exitCode) }
        }
    }
}

/// What `bananas status` says: a value, read once from the list every read command shows
/// (`init(file:lockTimeoutMillis:)`: `list`, `conflicts`, `deleted`'s one `CommandSession`, a
/// stampless save taken in and conflict copies shown merged, in memory only), then rendered as
/// `textLines` or `json`. Nothing is written.
struct StatusReport {
    let path: String
    /// The file could not be read: nothing else is known of the list.
    var failure: ListFileError?
    /// The state folder cannot take the sync state now (a running instance would pause).
    var stateProblem: ListFileError?
    /// The spare folder holding this machine's sync state, and why the state folder does not.
    var keptInSpare: (folder: String, reason: ListFileError)?
    var exists = false
    /// The file's own schema version (1: a save by a writer that keeps no stamps).
    var schemaVersion = 0
    var writable = true
    /// A save by a writer that keeps no stamps (Get Bananas, a hand edit): version 1, no stamps.
    var stampless = false
    var problems: [String] = []
    /// Counts of the list shown.
    var items = 0
    var checked = 0
    var sections = 0
    var deleted = 0
    var conflicts: [Conflict] = []
    /// Edits in the journals of running instances (not flushed yet) and of stopped ones.
    var runningEdits = 0
    var stoppedEdits = 0
    /// A stampless save taken in, shown, and not yet written back.
    var unwrittenSave = false
    var waitingCopies: [String] = []
    var unmergedCopies: [UnmergedCopy] = []
    var skew: (millis: Int64, replica: String)?
    var lock: LockState = .free
    var lockPath = ""
    /// Something waits for the file, and a live holder kept the lock past the wait a running
    /// instance makes before it says `paused` (`SyncStatus.lockWaitMillis`).
    var lockHeldPastWait = false

    enum LockState {
        case free
        case held((pid: Int32?, ageSeconds: Int, alive: Bool))
        case unusable(String)
    }

    /// A report of `path` with nothing known yet (tests build one field by field).
    init(path: String) {
        self.path = path
    }

    /// The report of `file` as it is now.
    init(file: ListFile, lockTimeoutMillis: Int64) {
        path = file.path
        if let state = file.state {
            for place in [state] + (state.spare.map { [$0] } ?? []) {
                let waiting = Journal.waiting(in: place)
                (runningEdits, stoppedEdits) = (runningEdits + waiting.running, stoppedEdits + waiting.stopped)
            }
        }
        do throws(ListFileError) {
            let session = try openList(file, lockTimeoutMillis: lockTimeoutMillis)
            let snapshot = session.snapshot
            let list = session.list
            exists = snapshot.exists
            schemaVersion = snapshot.decoded.schemaVersion
            writable = snapshot.isWritable
            stampless = snapshot.exists && snapshot.list.isStampless && !snapshot.list.rows.isEmpty
            problems = snapshot.decoded.problems
            let shown = list.items
            items = shown.count
            checked = shown.count(where: \.checked)
            sections = list.displaySections.count
            deleted = list.recentlyDeleted.count
            conflicts = list.conflictList()
            unwrittenSave = session.unwrittenSave
            waitingCopies = session.waitingCopies
            unmergedCopies = session.unmergedCopies
            let now = file.time.nowMillis()
            if let ahead = list.furthestAhead(of: now), ahead.lead(over: now) > SyncStatus.skewWarningMillis {
                skew = (ahead.lead(over: now), ahead.replica)
            }
            stateProblem = file.base?.problem()
            keptInSpare = file.base?.keptInSpare()
        } catch {
            failure = error
        }
        lockPath = file.lockPath
        if let holder = FileLock.holder(of: file.lockPath) {
            lock = .held(holder)
            if pending > 0, holder.alive, !FileLock.waitUntilFree(path: file.lockPath, timeoutMillis: SyncStatus.lockWaitMillis) {
                lockHeldPastWait = true
            }
        } else if let problem = FileLock.problem(at: file.lockPath) {
            lock = .unusable(problem)
        }
    }

    /// Writes that wait for the file: each journaled edit, each conflict copy shown merged,
    /// and a stampless save not yet written back.
    var pending: Int { runningEdits + stoppedEdits + waitingCopies.count + (unwrittenSave ? 1 : 0) }

    /// The state as the editor would show it on this machine: `paused` (why), `conflict` (the
    /// records of the list shown, those a waiting copy adds included, and copies that cannot
    /// be merged), `pending` (what waits for the file), else `synced`.
    var status: SyncStatus {
        var status = SyncStatus()
        status.pausedBy = failure ?? stateProblem
        if status.pausedBy == nil, pending > 0, lockHeldPastWait, case .held(let holder) = lock {
            // What waits is held back by a live holder past a running instance's wait: it
            // says `paused` with the holder named, and so does this.
            status.pausedBy = .lockHeld(path: lockPath, pid: holder.pid, ageSeconds: holder.ageSeconds)
        }
        status.pendingCount = pending
        status.conflicts = conflicts
        status.unmergedCopies = unmergedCopies
        if let skew {
            status.clockSkewMillis = skew.millis
            status.clockSkewReplica = skew.replica
        }
        return status
    }

    // MARK: - Renderers

    /// `bananas status --json`.
    var json: JSONValue {
        var fields: [String: JSONValue] = ["file": .string(path)]
        let status = status
        fields["state"] = .string(status.state.rawValue)
        fields["pending"] = .number(Double(pending))
        fields["pendingDetail"] = .object([
            "runningInstances": .number(Double(runningEdits)),
            "stoppedInstances": .number(Double(stoppedEdits)),
            "waitingCopies": .number(Double(waitingCopies.count)),
            "unwrittenSave": .bool(unwrittenSave),
        ])
        fields["conflicts"] = .number(Double(conflicts.count))
        if let keptInSpare {
            fields["stateKeptIn"] = .object(["folder": .string(keptInSpare.folder), "reason": .string(keptInSpare.reason.description)])
        }
        if let failure {
            fields["error"] = .string(failure.description)
            fields["paused"] = .string(failure.pausedReason)
        } else {
            fields.merge(listFields(pausedBy: status.pausedBy)) { _, new in new }
        }
        fields["unmergedCopies"] = .array(unmergedCopies.map {
            .object(["name": .string($0.name), "reason": .string($0.reason), "detail": .string($0.detail)])
        })
        fields["waitingCopies"] = .array(waitingCopies.map(JSONValue.string))
        fields["clockSkew"] = skew.map {
            .object(["aheadSeconds": .number(Double($0.millis / 1000)), "replica": .string($0.replica)])
        } ?? .null
        fields["lock"] = lockJSON
        return .object(fields)
    }

    /// The JSON fields of a list that could be read.
    private func listFields(pausedBy: ListFileError?) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "exists": .bool(exists),
            "schemaVersion": .number(Double(schemaVersion)),
            "stampless": .bool(stampless),
            "writable": .bool(writable),
            "items": .number(Double(items)),
            "checked": .number(Double(checked)),
            "unchecked": .number(Double(items - checked)),
            "sections": .number(Double(sections)),
            "deleted": .number(Double(deleted)),
            "problems": .array(problems.map(JSONValue.string)),
        ]
        if let pausedBy { fields["paused"] = .string(pausedBy.pausedReason) }
        return fields
    }

    private var lockJSON: JSONValue {
        switch lock {
        case .free: return .null
        case .held(let holder):
            let who: JSONValue = holder.pid.map { .number(Double($0)) } ?? .null
            return .object(["pid": who, "ageSeconds": .number(Double(holder.ageSeconds)), "alive": .bool(holder.alive)])
        case .unusable(let problem): return .object(["unusable": .string(problem)])
        }
    }

    /// `bananas status`: its lines, one per fact (each printed through `Output.line`, which
    /// escapes it on its own).
    var textLines: [String] {
        let status = status
        var lines = ["file: " + Output.safe(path), "state: " + status.state.rawValue]
        if failure == nil, stateProblem == nil, let held = status.pausedBy {
            lines.append("paused: " + held.pausedReason)
        }
        if let failure {
            lines.append("paused: " + failure.pausedReason)
            lines.append(failure.description)
        } else {
            lines += listLines
        }
        lines += pendingLines
        if !waitingCopies.isEmpty { lines.append(Output.waitingCopiesNote(waitingCopies)) }
        for copy in unmergedCopies {
            lines.append("conflict copy not merged: " + Output.safe(copy.name) + " (" + Output.safe(copy.detail) + ")")
        }
        if let lockLine { lines.append(lockLine) }
        return lines
    }

    /// The lines of a list that could be read: the state folder, the schema, the counts, the problems.
    private var listLines: [String] {
        var lines: [String] = []
        if let stateProblem {
            lines.append("paused: " + stateProblem.pausedReason)
            lines.append(stateProblem.description)
        } else if let keptInSpare {
            lines.append(String(Output.keptInSpare(keptInSpare).dropFirst("note: ".count)))
        }
        lines.append(!exists ? "not created yet (the first edit creates it)"
            : "schema version: \(schemaVersion)" + (stampless ? " (saved by a writer that keeps no stamps: Get Bananas, a hand edit)" : ""))
        lines.append("items: \(items) (\(items - checked) to get, \(checked) checked) in \(sections) sections")
        if !writable {
            lines.append("read-only: written by a newer bananas (schemaVersion \(schemaVersion))")
        }
        return lines + Output.problemNotes(problems)
    }

    /// What waits for the file, the conflicts to review and a clock ahead.
    private var pendingLines: [String] {
        var lines: [String] = []
        if runningEdits > 0 {
            lines.append("pending: \(runningEdits) edit\(runningEdits == 1 ? "" : "s") of a running bananas not yet in the file")
        }
        if stoppedEdits > 0 {
            lines.append("pending: \(stoppedEdits) edits from a stopped bananas wait in its journal; the next edit writes them")
        }
        if unwrittenSave {
            lines.append("pending: a save by a writer that keeps no stamps (Get Bananas, a hand edit) is shown merged; the next edit writes it back")
        }
        if !conflicts.isEmpty {
            lines.append("conflicts: \(conflicts.count) awaiting review (bananas conflicts)")
        }
        if let skew {
            lines.append("clock skew: a stamp in the list is \(SyncStatus.duration(skew.millis)) ahead of this clock (from \(skew.replica)); edits here still win over the values they replace")
        }
        return lines
    }

    private var lockLine: String? {
        switch lock {
        case .free: return nil
        case .held(let holder):
            return "locked by " + (holder.pid.map { "pid \($0)" } ?? "an unknown holder") + " for \(holder.ageSeconds) s" + (holder.alive ? "" : " (not running: stale)")
        case .unusable(let problem):
            return "lock unusable: " + Output.safe(problem)
        }
    }
}
