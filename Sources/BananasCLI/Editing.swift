import BananasCore
import BananasFile
import BananasSync

/// One CLI mutation, through the same sync code as the editor: under the lock, with the
/// file's current list, build the edit; it is stamped, applied and written if anything
/// changed. Returns what the builder reported. When this throws, the file is as it was.
func mutate<Report>(
    _ options: FileOptions,
    _ build: (ShoppingList) throws -> (edit: ListEdit?, report: Report)
) throws -> Report {
    let session = try openList(options.listFile, lockTimeoutMillis: options.lockTimeout, writing: true)
    let report = try session.commit(lockTimeoutMillis: options.lockTimeout, build)
    CommandHistory.record(session.lastInverse, file: session.file)
    if let failure = session.stateFailure {
        // The list holds the edit, but its base could not be renamed into place after it (the
        // state folder changed in between): the older base was removed, so the next stampless
        // write is taken as it is.
        Output.note("note: the edit is in the list, but this machine's sync state could not be saved after it (\(failure.pausedReason))")
    } else if let kept = session.file.base?.keptInSpare() {
        Output.note(Output.keptInSpare(kept))
    }
    return report
}

/// The command's session on the list (it reads the file), kept until the process exits.
/// Only a command that changes the list (`writing`) merges the conflict copies beside it into
/// the file; a read command shows them merged and leaves them (docs/sync.md, "Who merges").
///
/// A command is one short process: the system takes its memory back at once on exit, so the
/// lists it decoded are not freed item by item on the way out, a large part of a command's work.
func openList(_ file: ListFile, lockTimeoutMillis: Int64 = 1_000, writing: Bool = false) throws(ListFileError) -> CommandSession {
    file.reserveMemoryForOneCommand()
    let session = try CommandSession(file: file, lockTimeoutMillis: lockTimeoutMillis, writing: writing)
    keptUntilExit.append(session)
    return session
}

/// Only the command's own thread touches it.
nonisolated(unsafe) private var keptUntilExit: [AnyObject] = []

/// Resolves several item names against one list, all or nothing.
func resolveAll(_ queries: [String], in list: ShoppingList) throws -> [Item] {
    var found: [Item] = []
    for query in queries {
        let item = try Addressing.resolve(query, in: list, allowNamePrefix: true)
        if !found.contains(where: { $0.id == item.id }) { found.append(item) }
    }
    return found
}
