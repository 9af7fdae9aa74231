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
            let file = options.listFile
            // A read command: conflict copies are named, and left for a writer to merge.
            let (waitingCopies, copies) = CommandSession.conflictCopies(file)
            var fields: [String: JSONValue] = ["file": .string(file.path)]
            var lines = ["file: " + Output.safe(file.path)]
            var failure: ListFileError?
            var conflicts: [Conflict] = []
            var skew: (millis: Int64, replica: String)?
            do throws(ListFileError) {
                let snapshot = try file.load()
                conflicts = snapshot.list.conflictList()
                let now = Clock.nowMillis()
                if let ahead = snapshot.list.furthestAhead(of: now), ahead.lead(over: now) > SyncStatus.skewWarningMillis {
                    skew = (ahead.lead(over: now), ahead.replica)
                }
                let items = snapshot.list.items
                let checked = items.filter(\.checked).count
                fields["exists"] = .bool(snapshot.exists)
                fields["schemaVersion"] = .number(Double(snapshot.decoded.schemaVersion))
                fields["writable"] = .bool(snapshot.isWritable)
                fields["items"] = .number(Double(items.count))
                fields["checked"] = .number(Double(checked))
                fields["unchecked"] = .number(Double(items.count - checked))
                fields["sections"] = .number(Double(snapshot.list.displaySections.count))
                fields["problems"] = .array(snapshot.decoded.problems.map(JSONValue.string))
                lines.append(snapshot.exists ? "schema version: \(snapshot.decoded.schemaVersion)" : "not created yet (the first edit creates it)")
                lines.append("items: \(items.count) (\(items.count - checked) to get, \(checked) checked) in \(snapshot.list.displaySections.count) sections")
                if !snapshot.isWritable {
                    lines.append("read-only: written by a newer bananas (schemaVersion \(snapshot.decoded.schemaVersion))")
                }
                lines += Output.problemNotes(snapshot.decoded.problems)
            } catch {
                failure = error
                fields["error"] = .string(error.description)
                fields["paused"] = .string(error.pausedReason)
                lines.append("paused: " + error.pausedReason)
                lines.append(error.description)
            }
            // The sync state as the editor would show it, for this machine.
            let waiting = file.state.map { Journal.orphans(in: $0.journalsPath).reduce(0) { $0 + $1.entries.count } } ?? 0
            var status = SyncStatus()
            status.pausedBy = failure
            if failure == nil, let problem = file.base?.problem() {
                // A running instance would pause for this: it cannot save its sync state.
                status.pausedBy = problem
                fields["paused"] = .string(problem.pausedReason)
                lines.append("paused: " + problem.pausedReason)
                lines.append(problem.description)
            }
            status.pendingCount = waiting
            status.conflicts = conflicts
            status.unmergedCopies = copies
            fields["unmergedCopies"] = .array(copies.map {
                .object(["name": .string($0.name), "reason": .string($0.reason), "detail": .string($0.detail)])
            })
            fields["state"] = .string(status.state.rawValue)
            fields["pending"] = .number(Double(waiting))
            fields["conflicts"] = .number(Double(conflicts.count))
            lines.insert("state: " + status.state.rawValue, at: 1)
            if waiting > 0 {
                lines.append("pending: \(waiting) edits from a stopped bananas wait in its journal; the next edit writes them")
            }
            if !conflicts.isEmpty {
                lines.append("conflicts: \(conflicts.count) awaiting review (bananas conflicts)")
            }
            if let skew {
                status.clockSkewMillis = skew.millis
                status.clockSkewReplica = skew.replica
                fields["clockSkew"] = .object(["aheadSeconds": .number(Double(skew.millis / 1000)), "replica": .string(skew.replica)])
                lines.append("clock skew: a stamp in the list is \(SyncStatus.duration(skew.millis)) ahead of this clock (from \(skew.replica)); edits here still win over the values they replace")
            } else {
                fields["clockSkew"] = .null
            }
            fields["waitingCopies"] = .array(waitingCopies.map(JSONValue.string))
            if !waitingCopies.isEmpty { lines.append(Output.waitingCopiesNote(waitingCopies)) }
            for copy in copies {
                lines.append("conflict copy not merged: " + Output.safe(copy.name) + " (" + Output.safe(copy.detail) + ")")
            }
            if let holder = FileLock.holder(of: file.lockPath) {
                let who: JSONValue = holder.pid.map { .number(Double($0)) } ?? .null
                fields["lock"] = .object(["pid": who, "ageSeconds": .number(Double(holder.ageSeconds)), "alive": .bool(holder.alive)])
                lines.append("locked by " + (holder.pid.map { "pid \($0)" } ?? "an unknown holder") + " for \(holder.ageSeconds) s" + (holder.alive ? "" : " (not running: stale)"))
            } else if let problem = FileLock.problem(at: file.lockPath) {
                // A lock path no program can take (a symlink, a folder): every write waits on it.
                fields["lock"] = .object(["unusable": .string(problem)])
                lines.append("lock unusable: " + Output.safe(problem))
            } else {
                fields["lock"] = .null
            }
            if json {
                Output.printJSON(.object(fields))
            } else {
                lines.forEach { Output.line($0) }
            }
            if let failure { throw ExitCode(failure.exitCode) }
        }
    }
}
