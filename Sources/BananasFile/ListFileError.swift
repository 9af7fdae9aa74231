import BananasCore

/// Everything that can stop us reading or writing the list, each with the words the user
/// sees, the short reason shown as the `paused` state, and the CLI's exit code.
public enum ListFileError: Error, Equatable, CustomStringConvertible {
    case unparseable(path: String, detail: String)
    case notARegularFile(path: String, kind: String)
    case tooLarge(path: String, size: Int, limit: Int)
    case newerSchema(path: String, found: Int, supported: Int)
    /// `alive`: whether the process named in the lock was running when it was looked at.
    case lockHeld(path: String, pid: Int32?, ageSeconds: Int, alive: Bool = true)
    case lockUnusable(path: String, reason: String)
    case folderMissing(path: String)
    case permissionDenied(path: String, action: String)
    case readOnlyFileSystem(path: String)
    case diskFull(path: String)
    case symlinkRefused(path: String)
    case io(path: String, action: String, code: Int32)
    /// This machine's sync state (the base) cannot be saved in the state folder `folder`:
    /// nothing may rely on it, so nothing is written until it can be (see `ListFile.update`).
    /// `reason` and `detail` are the underlying error's.
    case stateNotSaved(folder: String, reason: String, detail: String)

    public var description: String {
        // Paths and reasons come from the file system and the environment: shown escaped.
        func shown(_ text: String) -> String { TextRules.escaped(text) }
        return switch self {
        case .unparseable(let path, let detail):
            "\(shown(path)) is not a list bananas can read (\(shown(detail))). It was left untouched; fix it by hand, or restore it from a backup"
        case .notARegularFile(let path, let kind):
            "\(shown(path)) is \(kind), not a list file"
        case .tooLarge(let path, let size, let limit):
            "\(shown(path)) is \(size) bytes, over the \(limit)-byte limit for a list; it was left untouched"
        case .newerSchema(let path, let found, let supported):
            "\(shown(path)) was written by a newer version (schemaVersion \(found); this bananas knows \(supported)). It can be read but not changed: update bananas to edit it"
        case .lockHeld(let path, let pid?, let age, false):
            "the list is locked by process \(pid), which is no longer running (\(shown(path)), \(age) s old). "
                + "The lock is cleared once it is \(FileLock.staleAfterMillis / 1000) s old"
        case .lockHeld(let path, let pid?, let age, true) where age >= FileLock.staleAfterMillis / 1000:
            // bananas touches its lock every second: a lock this old is not bananas at work,
            // and the process may be an unrelated one that was given the same number.
            "the list is locked by process \(pid) (\(shown(path)), untouched for \(age) s). "
                + "If that process is not bananas or Get Bananas, remove the lock file"
        case .lockHeld(let path, let pid, let age, _):
            "the list is locked by " + (pid.map { "process \($0)" } ?? "another program") + " (\(shown(path)), held for \(age) s). "
                + "Try again in a moment; if no program is using the list, remove the lock file"
        case .lockUnusable(let path, let reason):
            "the lock \(shown(path)) cannot be used: \(shown(reason))"
        case .folderMissing(let path):
            "the folder \(shown(path)) does not exist (is the drive or sync folder available?)"
        case .permissionDenied(let path, let action) where action == Self.readOnlyFileAction:
            "\(shown(path)) is read-only (its mode lets nobody write it); it was left untouched. Make it writable (chmod u+w) to edit it"
        case .permissionDenied(let path, let action):
            "permission denied: cannot \(action) \(shown(path))"
        case .readOnlyFileSystem(let path):
            "cannot write \(shown(path)): the file system is read-only"
        case .diskFull(let path):
            "cannot write \(shown(path)): the disk is full"
        case .symlinkRefused(let path):
            "\(shown(path)) is a symbolic link that bananas did not expect; refusing to follow it"
        case .io(let path, let action, let code):
            "cannot \(action) \(shown(path)): \(SystemError.message(code))"
        case .stateNotSaved(let folder, let reason, let detail):
            "cannot save this machine's sync state in \(shown(folder)) (\(detail)); nothing was written after that, "
                + "and edits wait until it can be saved ("
                + (reason == ListFileError.symlinkRefused(path: "").pausedReason ? "replace the symbolic link with a folder" : "free some space, or make the folder writable")
                + ")"
        }
    }

    /// The short reason shown after `paused:` in the status bar and `bananas status`.
    public var pausedReason: String {
        switch self {
        case .unparseable(_, let detail) where detail == Self.notAListDetail: "not a list"
        case .unparseable: "unparseable file"
        case .notARegularFile: "not a file"
        case .tooLarge: "file too large"
        case .newerSchema(_, let found, _): "newer schema (\(found))"
        case .lockHeld(_, let pid?, _, false): "stale lock (pid \(pid) ended)"
        case .lockHeld(_, let pid?, let age, true) where age >= FileLock.staleAfterMillis / 1000:
            "old lock, pid \(pid) (not bananas? remove it)"
        case .lockHeld(_, let pid, _, _): pid.map { "lock held by pid \($0)" } ?? "lock held"
        case .lockUnusable: "lock unusable"
        case .folderMissing: "missing folder"
        case .permissionDenied(_, let action) where action == Self.readOnlyFileAction: "read-only file"
        case .permissionDenied: "permission denied"
        case .readOnlyFileSystem: "read-only file system"
        case .diskFull: "disk full"
        case .symlinkRefused: "unexpected symlink"
        case .io(_, _, let code): SystemError.message(code)
        case .stateNotSaved(_, let reason, _): "state not saved: " + reason
        }
    }

    /// `error`, met saving this machine's sync state in `folder`.
    public static func stateNotSaved(_ error: ListFileError, folder: String) -> ListFileError {
        if case .stateNotSaved = error { return error }
        return .stateNotSaved(folder: folder, reason: error.pausedReason, detail: error.description)
    }

    /// The action of an `io` error raised by reading the file's bytes.
    public static let readAction = "read"
    /// The action of a `permissionDenied` error for a list file whose mode lets nobody write
    /// it (0444): respected as the owner's wish, never replaced.
    public static let readOnlyFileAction = "replace a read-only file"

    /// A JSON object with neither `items` nor `sections` (a settings file, say) is not a
    /// list: refused like an unreadable file, so it is never written.
    public static func notAList(path: String) -> ListFileError {
        .unparseable(path: path, detail: notAListDetail)
    }

    static let notAListDetail = "it is a JSON object with neither \"items\" nor \"sections\", not a shopping list"

    /// Another writer broke our lock while this write waited (bananas was frozen past the
    /// stale window), or the file changed since it was read under the lock: nothing was
    /// renamed into place, and the caller merges again.
    public static func lockLost(lockPath: String, fileChanged: Bool) -> ListFileError {
        .lockUnusable(path: lockPath, reason: fileChanged
            ? "the list changed while this write was prepared under it; nothing was written (a running bananas merges and tries again; run a command again)"
            : "another program broke it while this write was paused; nothing was written (a running bananas merges and tries again; run a command again)")
    }

    /// Exit codes (documented in `bananas --help` and docs/cli.md).
    public var exitCode: Int32 {
        switch self {
        case .unparseable, .notARegularFile, .tooLarge: ExitCodes.unreadableFile
        // The file's bytes could not be read (EIO): the file cannot be read as a list.
        case .io(_, let action, _) where action == Self.readAction: ExitCodes.unreadableFile
        case .newerSchema: ExitCodes.newerSchema
        case .lockHeld, .lockUnusable: ExitCodes.locked
        case .folderMissing, .permissionDenied, .readOnlyFileSystem, .diskFull, .symlinkRefused, .io, .stateNotSaved: ExitCodes.cannotWrite
        }
    }
}

/// The exit codes every command uses.
public enum ExitCodes {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    public static let notFound: Int32 = 2
    public static let ambiguous: Int32 = 3
    public static let invalidInput: Int32 = 4
    public static let unreadableFile: Int32 = 5
    public static let newerSchema: Int32 = 6
    public static let locked: Int32 = 7
    public static let cannotWrite: Int32 = 8
    /// `bananas undo` / `redo` refused: another writer changed the value since (rule 7).
    public static let refused: Int32 = 9
    public static let usage: Int32 = 64
}
