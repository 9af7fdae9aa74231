#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import BananasCore
import BananasEditor
import BananasFile
import BananasSync
import BananasTerminal
import BananasThemes

/// `bananas doctor`: one place that says why something does not work. Each check states a fact
/// in plain words and, when something is wrong, the fix. The facts come from the code that acts
/// on them (`StatusReport` for the list, lock, journals and conflict copies; `BaseStore` and
/// `StateFolder` for the state folder; `ColorLevel`, `ThemeCatalog` and `BackgroundProbe` for
/// the terminal; `Locations` for the paths): doctor decides nothing of its own.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the set-up and explain what is wrong, with the fix for each.",
        discussion: """
            Checks the list file (which one and why, readable, writable, schema), its lock, \
            the state folder (owner, modes, free space), running instances and their pending \
            edits, conflict copies, a sync engine on the list's folder, the terminal (size, \
            colour depth, background), the locale, bananas-mcp beside bananas, and the MCP \
            clients whose configurations mention bananas.

            Exits 0 when all is well, 1 when any check warns or fails.
            """)

    @OptionGroup var options: FileOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let environment = Environment.current()
        let doctor = Doctor(explicitFile: options.file, environment: environment, lockTimeoutMillis: options.lockTimeout)
        let checks = doctor.run(probeTerminal: !json)
        if json {
            Output.printJSON(.object([
                "healthy": .bool(Doctor.healthy(checks)),
                "checks": .array(checks.map(\.json)),
            ]))
        } else {
            for check in checks { check.lines.forEach { Output.line($0) } }
            let (warnings, problems) = (checks.count { $0.level == .warning }, checks.count { $0.level == .problem })
            Output.line(warnings + problems == 0 ? "all is well"
                : "\(problems) problem\(problems == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
        }
        if !Doctor.healthy(checks) { throw ExitCode(ExitCodes.failure) }
    }
}

/// One finding: what was checked, how it stands, the facts, and the fix when there is one.
struct DoctorCheck {
    enum Level: String {
        /// As it should be.
        case ok
        /// A fact worth knowing that needs nothing done (a sync engine, a running editor).
        case note
        /// Works, but not as well as it could (a missing bananas-mcp, a non-UTF-8 locale).
        case warning
        /// Something bananas cannot do until it is fixed.
        case problem
    }

    let id: String
    let level: Level
    let summary: String
    var details: [String] = []
    var fix: String?

    var json: JSONValue {
        var fields: [String: JSONValue] = ["check": .string(id), "status": .string(level.rawValue), "summary": .string(summary)]
        fields["details"] = .array(details.map(JSONValue.string))
        fields["fix"] = fix.map(JSONValue.string) ?? .null
        return .object(fields)
    }

    var lines: [String] {
        let mark = switch level {
        case .ok: "ok     "
        case .note: "note   "
        case .warning: "warning"
        case .problem: "PROBLEM"
        }
        var lines = [mark + " " + id + ": " + summary]
        lines += details.map { "          " + $0 }
        if let fix { lines.append("          fix: " + fix) }
        return lines
    }
}

struct Doctor {
    let explicitFile: String?
    let environment: [String: String]
    let lockTimeoutMillis: Int64

    static func healthy(_ checks: [DoctorCheck]) -> Bool {
        !checks.contains { $0.level == .warning || $0.level == .problem }
    }

    func run(probeTerminal: Bool) -> [DoctorCheck] {
        let file = Locations.listFile(explicit: explicitFile, environment: environment, time: BananasCommand.time)
        let report = StatusReport(file: file, lockTimeoutMillis: min(lockTimeoutMillis, 1_000))
        // What the next edit meets: its own lock, read and write path, tried (`trialWrite`).
        let trial: ListFileError?
        do { try file.trialWrite(lockTimeoutMillis: lockTimeoutMillis); trial = nil } catch { trial = error }
        var checks = [listPath(file), listAccess(file, report, trial: trial), schema(report), lock(report, trial: trial), write(trial)]
        checks += stateFolder(file, report)
        checks.append(instances(file, report))
        checks.append(conflictCopies(report))
        checks.append(syncEngine(file))
        checks += terminal(probe: probeTerminal)
        checks.append(locale())
        checks.append(mcpBinary())
        checks.append(mcpClients())
        return checks
    }

    // MARK: The list

    func listPath(_ file: ListFile) -> DoctorCheck {
        let why: String
        if let explicitFile, !explicitFile.isEmpty {
            why = "chosen by --file"
        } else if let variable = environment["BANANAS_FILE"], !variable.isEmpty {
            why = "chosen by $BANANAS_FILE"
        } else if Locations.isICloudDrive(file.path) {
            why = "the Get Bananas iCloud Drive file, used because it exists"
        } else if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            why = "the default, under $XDG_DATA_HOME (no --file, no $BANANAS_FILE)"
        } else {
            why = "the default, ~/.local/share/bananas (no --file, no $BANANAS_FILE, no $XDG_DATA_HOME)"
        }
        return DoctorCheck(id: "list", level: .ok, summary: Output.safe(file.path), details: [why])
    }

    /// The verdict: what the next edit (`bananas add`) does, from the same lock, read and
    /// write path tried without writing the list (`ListFile.trialWrite`); its exit code when
    /// it would fail.
    func write(_ trial: ListFileError?) -> DoctorCheck {
        guard let trial else {
            return DoctorCheck(id: "write", level: .ok, summary: "an edit would be written",
                               details: ["tried as an edit does it: the lock, the read, a temp file beside the list (removed), the state folder"])
        }
        return DoctorCheck(id: "write", level: .problem, summary: "an edit would fail now with exit \(trial.exitCode): \(trial.pausedReason)",
                           details: [Output.safe(trial.description)], fix: Self.fix(for: trial))
    }

    func listAccess(_ file: ListFile, _ report: StatusReport, trial: ListFileError?) -> DoctorCheck {
        let path = Output.safe(file.path)
        if let failure = report.failure {
            if case .newerSchema = failure {
                // Readable; the schema check says the rest.
            } else {
                return DoctorCheck(id: "list access", level: .problem, summary: failure.pausedReason, details: [Output.safe(failure.description)],
                                   fix: Self.fix(for: failure))
            }
        }
        if !report.exists, report.failure == nil, let copy = GoodCopies.find(for: file).first {
            // Moved aside or lost: the first edit starts a new list, the good copies stay.
            return DoctorCheck(id: "list access", level: .warning, summary: "the list file is missing; an earlier list can be brought back",
                               details: ["newest good copy: \(copy.list.items.count) items, \(RecoverCommand.time(copy.modifiedMillis)), \(copy.kind.words)"],
                               fix: "bananas recover brings its items back (bananas recover --list shows every good copy); or just start a new list")
        }
        let folder = Doctor.directoryName(file.path)
        if !report.exists && report.failure == nil {
            if Doctor.linkStatus(folder) == nil {
                if file.createsFolder {
                    return DoctorCheck(id: "list access", level: .ok, summary: "not created yet: the first edit creates it and its folder")
                }
                return DoctorCheck(id: "list access", level: .problem, summary: "its folder \(Output.safe(folder)) does not exist",
                                   fix: "create the folder (mkdir -p \(Output.safe(folder))) or point --file / $BANANAS_FILE at the right list")
            }
            if access(folder, W_OK | X_OK) != 0 {
                return DoctorCheck(id: "list access", level: .problem, summary: "not created yet, and its folder \(Output.safe(folder)) cannot be written",
                                   fix: "make the folder yours and writable (chown \(Self.userName) \(Output.safe(folder)); chmod u+rwx \(Output.safe(folder)))")
            }
            return DoctorCheck(id: "list access", level: .ok, summary: "not created yet: the first edit creates it")
        }
        // A write replaces the file: a temp file in the folder, then a rename. What the trial
        // write met there, not what access(2) says: root may write a 0444 file, and bananas does not.
        switch trial {
        case .permissionDenied(let denied, let action)? where action == ListFileError.readOnlyFileAction || denied == file.path:
            return DoctorCheck(id: "list access", level: .problem, summary: "read-only: \(path) is not writable (mode \(Self.mode(of: file.path)))",
                               details: ["the list can be read, not changed; bananas never replaces a list its owner made read-only"],
                               fix: "make it writable (chmod u+w \(path), or chown \(Self.userName) it)")
        case .permissionDenied?, .readOnlyFileSystem?, .diskFull?, .io?:
            return DoctorCheck(id: "list access", level: .problem, summary: "read-only: its folder \(Output.safe(folder)) cannot take a new file, and every write makes one there",
                               details: ["the list can be read, not changed", Output.safe(trial!.description)],
                               fix: Self.fix(for: trial!))
        default:
            return DoctorCheck(id: "list access", level: .ok, summary: "readable and writable")
        }
    }

    func schema(_ report: StatusReport) -> DoctorCheck {
        if let failure = report.failure {
            if case .newerSchema(_, let found, let supported) = failure {
                return DoctorCheck(id: "schema", level: .problem, summary: "version \(found), from a newer bananas (this one writes version \(supported))",
                                   details: ["the list can be read but not changed, so nothing newer is lost"],
                                   fix: "upgrade bananas on this machine to the version the other machine runs")
            }
            return DoctorCheck(id: "schema", level: .note, summary: "unknown: the file cannot be read")
        }
        if report.exists, !report.writable {
            return DoctorCheck(id: "schema", level: .problem, summary: "version \(report.schemaVersion), from a newer bananas (this one writes version \(ListCodec.currentSchemaVersion))",
                               details: ["the list can be read but not changed, so nothing newer is lost"],
                               fix: "upgrade bananas on this machine to the version the other machine runs")
        }
        if !report.exists { return DoctorCheck(id: "schema", level: .ok, summary: "none yet (the first edit writes version \(ListCodec.currentSchemaVersion))") }
        var check = DoctorCheck(id: "schema", level: .ok, summary: "version \(report.schemaVersion)"
            + (report.stampless ? " (saved by a writer that keeps no stamps: Get Bananas, a hand edit; read as usual)" : ""))
        if !report.problems.isEmpty {
            check = DoctorCheck(id: "schema", level: .warning, summary: "version \(report.schemaVersion), with \(report.problems.count) part\(report.problems.count == 1 ? "" : "s") that could not be read",
                                details: Array(report.problems.prefix(Output.problemsShown).map(Output.safe)),
                                fix: "the rest of the list works; the next edit keeps what could not be read as it is (docs/file-format.md); repair it by hand if it matters")
        }
        return check
    }

    func lock(_ report: StatusReport, trial: ListFileError?) -> DoctorCheck {
        if case .lockHeld(_, let pid, let age, let alive)? = trial {
            // The trial waited as long as an edit waits, and the holder did not let go.
            let who = pid.map { "pid \($0)" } ?? "an unknown holder"
            let command = pid.flatMap(Self.commandLine).map { " (" + Output.safe($0) + ")" } ?? ""
            return DoctorCheck(id: "lock", level: .problem,
                               summary: "held by \(who)\(command)\(alive ? "" : ", not running,") for \(age) s since its last refresh, and not let go within the \(Self.seconds(lockTimeoutMillis)) an edit waits",
                               details: ["every edit waits \(Self.seconds(lockTimeoutMillis)) for it, then fails with exit 7; a running editor or MCP server keeps its edits and shows `paused`"],
                               fix: "let that program finish, or end it (kill \(pid.map(String.init) ?? "it")) if it is hung; remove \(Output.safe(report.lockPath)) only if it is no writer of the list")
        }
        switch report.lock {
        case .free:
            return DoctorCheck(id: "lock", level: .ok, summary: "free")
        case .unusable(let problem):
            return DoctorCheck(id: "lock", level: .problem, summary: "unusable: " + Output.safe(problem), details: [Output.safe(report.lockPath)],
                               fix: "if no program is using the list, remove \(Output.safe(report.lockPath))")
        case .held(let holder):
            let who = holder.pid.map { "pid \($0)" } ?? "an unknown holder"
            let command = holder.pid.flatMap(Self.commandLine).map { " (" + Output.safe($0) + ")" } ?? ""
            if holder.ageSeconds * 1000 >= FileLock.staleAfterMillis {
                // Not refreshed for the stale window: a write breaks it, whatever has its pid now.
                return DoctorCheck(id: "lock", level: .note, summary: "a stale lock of \(who)\(command)\(holder.alive ? "" : ", which is not running"), not refreshed for \(holder.ageSeconds) s",
                                   details: ["writes break a lock not refreshed for \(FileLock.staleAfterMillis / 1000) s (a live bananas refreshes its lock every second); the trial write broke it"])
            }
            if !holder.alive {
                return DoctorCheck(id: "lock", level: .note, summary: "left by \(who), which is not running (\(holder.ageSeconds) s old)",
                                   details: ["a write waits for it until it is \(FileLock.staleAfterMillis / 1000) s old, then breaks it"])
            }
            return DoctorCheck(id: "lock", level: .note, summary: "held by \(who)\(command) and let go within the \(Self.seconds(lockTimeoutMillis)) an edit waits (a write in progress)")
        }
    }

    // MARK: The state folder

    func stateFolder(_ file: ListFile, _ report: StatusReport) -> [DoctorCheck] {
        guard let state = file.state else { return [] }
        let path = Output.safe(state.path)
        var details = [path]
        var checks: [DoctorCheck] = []
        if let refused = state.problem() {
            checks.append(DoctorCheck(id: "state folder", level: .problem, summary: refused.pausedReason, details: [Output.safe(refused.description)],
                                      fix: "remove what is in the way (rm \(Self.path(of: refused) ?? path)); bananas makes the folders again"))
        }
        // The nearest folder that exists: the state folder, or where it will be made.
        var existing = state.path
        while Doctor.linkStatus(existing) == nil, existing.count > 1 { existing = Doctor.directoryName(existing) }
        if let st = Doctor.linkStatus(existing), Doctor.isDirectory(st) {
            if existing != state.path { details.append("not made yet; it will be made in \(Output.safe(existing))") }
            if st.st_uid != geteuid() {
                let owner = Self.userName(of: st.st_uid)
                checks.append(DoctorCheck(id: "state folder", level: .problem, summary: "\(Output.safe(existing)) belongs to \(owner), not to you (\(Self.userName))",
                                          details: ["left so by a bananas run as another user (sudo bananas)"],
                                          fix: "sudo chown -R \(Self.userName) \(Output.safe(existing))"))
            } else if existing == state.path, st.st_mode & 0o077 != 0 {
                checks.append(DoctorCheck(id: "state folder", level: .warning, summary: "others may enter it (mode \(String(st.st_mode & 0o777, radix: 8)))",
                                          details: ["it holds what you added and removed recently"],
                                          fix: "chmod 700 \(path)"))
            }
            var fs = statvfs()
            if statvfs(existing, &fs) == 0 {
                let free = UInt64(fs.f_bavail) * UInt64(fs.f_frsize)
                details.append("free space: " + Self.size(free))
                if fs.f_flag & UInt(ST_RDONLY) != 0 {
                    checks.append(DoctorCheck(id: "state folder", level: .problem, summary: "on a read-only file system", fix: "remount it read-write, or set $XDG_STATE_HOME to a writable folder"))
                } else if free < 1 << 20 {
                    checks.append(DoctorCheck(id: "state folder", level: .problem, summary: "its disk is full (\(Self.size(free)) free)",
                                              fix: "free some space on that disk, or set $XDG_STATE_HOME to a folder on another one"))
                }
            }
        }
        if checks.isEmpty, let problem = report.stateProblem {
            checks.append(DoctorCheck(id: "state folder", level: .problem, summary: problem.pausedReason, details: [Output.safe(problem.description)],
                                      fix: Self.fix(for: problem)))
        }
        if let kept = report.keptInSpare {
            checks.append(DoctorCheck(id: "state folder", level: .warning, summary: "this machine's sync state is kept in \(Output.safe(kept.folder)) for now",
                                      details: [Output.safe(kept.reason.description)],
                                      fix: "fix the state folder; the state moves back at the next write (docs/sync.md)"))
        }
        if checks.isEmpty { return [DoctorCheck(id: "state folder", level: .ok, summary: "yours, private, with room", details: details)] }
        return checks.map { var check = $0; check.details = details + check.details; return check }
    }

    /// Running instances (editors, MCP servers, sessions) hold their journal's lock.
    func instances(_ file: ListFile, _ report: StatusReport) -> DoctorCheck {
        var running = 0
        for state in [file.state, file.state?.spare].compactMap({ $0 }) where state.problem() == nil {
            for name in Doctor.directoryEntries(state.journalsPath) where name.hasSuffix(".journal") {
                let fd = open(state.journalsPath + "/" + name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                guard fd >= 0 else { continue }
                if flock(fd, LOCK_SH | LOCK_NB) != 0 { running += 1 }
                close(fd)
            }
        }
        var details: [String] = []
        if report.runningEdits > 0 { details.append("\(report.runningEdits) edit\(report.runningEdits == 1 ? "" : "s") of theirs not in the file yet") }
        if report.stoppedEdits > 0 {
            return DoctorCheck(id: "instances", level: .warning, summary: "\(report.stoppedEdits) edit\(report.stoppedEdits == 1 ? "" : "s") of a bananas that stopped wait in its journal",
                               details: details, fix: "open bananas or make any edit (bananas check …): it writes them into the list")
        }
        let summary = running == 0 ? "none running with edits of their own" : "\(running) running with edits of their own (editors, MCP servers, scripts)"
        return DoctorCheck(id: "instances", level: running == 0 ? .ok : .note, summary: summary, details: details)
    }

    func conflictCopies(_ report: StatusReport) -> DoctorCheck {
        if !report.unmergedCopies.isEmpty {
            return DoctorCheck(id: "conflict copies", level: .problem, summary: "\(report.unmergedCopies.count) cannot be merged",
                               details: report.unmergedCopies.map { Output.safe($0.name) + ": " + Output.safe($0.detail) },
                               fix: "repair or remove them (they are copies a sync engine made; docs/multi-device.md)")
        }
        if !report.waitingCopies.isEmpty {
            return DoctorCheck(id: "conflict copies", level: .warning, summary: "\(report.waitingCopies.count) waiting beside the list",
                               details: report.waitingCopies.map(Output.safe),
                               fix: "open bananas or make any edit: it merges them into the list and removes them")
        }
        let summary = "none" + (report.conflicts.isEmpty ? "" : "; \(report.conflicts.count) value\(report.conflicts.count == 1 ? "" : "s") lost to a concurrent edit (bananas conflicts)")
        return DoctorCheck(id: "conflict copies", level: report.conflicts.isEmpty ? .ok : .note, summary: summary)
    }

    /// A sync engine that syncs the list's folder, found by the marks it leaves in the folders
    /// it syncs (from the list's folder up to /).
    func syncEngine(_ file: ListFile) -> DoctorCheck {
        let marks: [(name: String, engine: String)] = [
            (".stfolder", "Syncthing"), (".dropbox", "Dropbox"), (".dropbox.cache", "Dropbox"),
            (".nextcloudsync.log", "Nextcloud"), (".owncloudsync.log", "Nextcloud (ownCloud)"),
        ]
        var folder = Doctor.directoryName(file.path)
        if Locations.isICloudDrive(folder) || folder.contains("/Library/Mobile Documents/") {
            return DoctorCheck(id: "sync", level: .note, summary: "iCloud Drive syncs the list's folder", details: [Output.safe(folder)],
                               fix: nil)
        }
        while true {
            for mark in marks where Doctor.linkStatus(folder + "/" + mark.name) != nil {
                return engineFound(mark.engine, root: folder, file: file)
            }
            // Nextcloud's desktop client keeps its journal as .sync_XXXX.db in the synced folder.
            if Doctor.directoryEntries(folder).contains(where: { ($0.hasPrefix(".sync_") || $0.hasPrefix("._sync_")) && $0.hasSuffix(".db") }) {
                return engineFound("Nextcloud", root: folder, file: file)
            }
            if folder == "/" || folder.isEmpty { break }
            folder = Doctor.directoryName(folder)
        }
        return DoctorCheck(id: "sync", level: .ok, summary: "no sync engine found on the list's folder (Syncthing, Dropbox, Nextcloud, iCloud Drive)",
                           details: ["to share the list between machines: docs/multi-device.md"])
    }

    private func engineFound(_ engine: String, root: String, file: ListFile) -> DoctorCheck {
        var details = ["synced folder: " + Output.safe(root), "its conflict copies are merged into the list (docs/multi-device.md)"]
        if let state = file.state, (state.root + "/").hasPrefix(root == "/" ? "/" : root + "/") {
            return DoctorCheck(id: "sync", level: .problem, summary: "\(engine) syncs the list's folder and this machine's state folder with it",
                               details: details + ["state folder: " + Output.safe(state.root)],
                               fix: "keep $XDG_STATE_HOME out of the synced folder: each machine's state is its own")
        }
        details.append("the state folder stays on this machine: " + Output.safe(file.state?.root ?? ""))
        return DoctorCheck(id: "sync", level: .note, summary: "\(engine) syncs the list's folder", details: details)
    }

    // MARK: The terminal and the locale

    func terminal(probe: Bool) -> [DoctorCheck] {
        guard isatty(STDOUT_FILENO) == 1 else {
            let term = Output.safe(environment["TERM"] ?? "")
            let detail = TerminalColors.terminfoCount().map { "TERM=\(term) would give colour depth: \(ColorLevel.detect(environment: environment, terminalColors: $0))" }
                ?? "TERM=\(term) has no terminfo entry"
            return [DoctorCheck(id: "terminal", level: .note, summary: "not a terminal (output is piped): not checked", details: [detail])]
        }
        var checks: [DoctorCheck] = []
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            let (width, height) = (Int(size.ws_col), Int(size.ws_row))
            if Screen.fits(width: width, height: height) {
                checks.append(DoctorCheck(id: "terminal size", level: .ok, summary: "\(width)×\(height)"))
            } else {
                checks.append(DoctorCheck(id: "terminal size", level: .warning, summary: "\(width)×\(height): too small for the editor",
                                          fix: "make the window at least \(Screen.minimumWidth)×\(Screen.minimumHeight)"))
            }
        }
        // What the editor will use: the colours TERM's terminfo entry gives, then COLORTERM and NO_COLOR.
        let term = Output.safe(environment["TERM"] ?? "")
        guard let colors = TerminalColors.terminfoCount() else {
            checks.append(DoctorCheck(id: "colour depth", level: .warning, summary: "no terminfo entry for TERM=\(term): the editor cannot start",
                                      fix: "set TERM to your terminal's (xterm-256color for most), or install its terminfo (ncurses-term)"))
            return checks
        }
        let level = ColorLevel.detect(environment: environment, terminalColors: colors)
        var depth = DoctorCheck(id: "colour depth", level: .ok, summary: level.description,
                                details: ["TERM=\(term) has \(colors) colours; COLORTERM=\(Output.safe(environment["COLORTERM"] ?? "")), NO_COLOR=\(Output.safe(environment["NO_COLOR"] ?? ""))"])
        if level == .none, (environment["NO_COLOR"] ?? "").isEmpty {
            depth = DoctorCheck(id: "colour depth", level: .warning, summary: "no colour", details: depth.details,
                                fix: "set TERM to your terminal's (xterm-256color for most)")
        } else if level < .truecolor, level != .none {
            depth.details.append("if your terminal shows 24-bit colour, export COLORTERM=truecolor")
        }
        checks.append(depth)
        let probed = probe && isatty(STDIN_FILENO) == 1 ? BackgroundProbe.query() : nil
        let background = ThemeCatalog.background(probed: probed, environment: environment)
        let (theme, problem) = ThemeCatalog.load(flag: nil, environment: environment, background: background)
        let source = probed != nil ? "the terminal answered" : background != nil ? "from COLORFGBG" : "the terminal did not say; dark assumed"
        checks.append(DoctorCheck(id: "background", level: .ok, summary: (background?.rawValue ?? "unknown") + " (\(source))",
                                  details: ["theme: " + Output.safe(theme.name)]))
        if let problem {
            checks.append(DoctorCheck(id: "theme", level: .warning, summary: Output.safe(problem), fix: "fix the theme file named, or choose another (bananas themes)"))
        }
        return checks
    }

    func locale() -> DoctorCheck {
        let name = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0].flatMap { $0.isEmpty ? nil : $0 } }.first ?? "C"
        let codeset = setlocale(LC_CTYPE, "") != nil ? String(cString: nl_langinfo(nl_item(CODESET))) : "unknown"
        // The editor's fallback (bananas_curses_start): a UTF-8 character type of the system's.
        let candidates: [String] = ["C.UTF-8", "en_US.UTF-8"]
        let fallback = candidates.first { setlocale(LC_CTYPE, $0) != nil }
        setlocale(LC_CTYPE, "C")
        if codeset.uppercased().filter({ $0 != "-" }) == "UTF8" { return DoctorCheck(id: "locale", level: .ok, summary: "\(Output.safe(name)) (UTF-8)") }
        let summary = "\(Output.safe(name)) (\(Output.safe(codeset)), not UTF-8)"
        if let fallback {
            return DoctorCheck(id: "locale", level: .note, summary: summary,
                               details: ["bananas reads and shows text as \(fallback) itself; other programs here may not (export LANG=C.UTF-8)"])
        }
        return DoctorCheck(id: "locale", level: .warning, summary: summary,
                           details: ["no UTF-8 locale on this system: the editor shows accented letters, other scripts and emoji wrongly"],
                           fix: "install one (Debian: locales, then dpkg-reconfigure locales) and export LANG to it")
    }

    // MARK: MCP

    func mcpBinary() -> DoctorCheck {
        guard let folder = MCPServerBinary.executableFolder() else {
            return DoctorCheck(id: "bananas-mcp", level: .warning, summary: "cannot tell where this bananas is installed")
        }
        let path = folder + "/" + MCPServerBinary.name
        if access(path, X_OK) == 0 {
            return DoctorCheck(id: "bananas-mcp", level: .ok, summary: "beside bananas: \(Output.safe(path))")
        }
        return DoctorCheck(id: "bananas-mcp", level: .warning, summary: "missing: \(Output.safe(path))",
                           details: ["everything but `bananas mcp` works"],
                           fix: "install bananas-mcp next to bananas (the Debian package, or scripts/install)")
    }

    /// The configuration files of the MCP clients that bananas's docs/mcp.md covers, and which
    /// of them mention bananas.
    func mcpClients() -> DoctorCheck {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileSystem.homeDirectoryFromUserDatabase
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        let cwd = FileSystem.currentDirectoryPath
        var places: [(client: String, path: String)] = [
            ("Claude Desktop", config + "/Claude/claude_desktop_config.json"),
            ("Claude Desktop", home + "/Library/Application Support/Claude/claude_desktop_config.json"),
            ("Claude Code", home + "/.claude.json"),
            ("Claude Code (this project)", cwd + "/.mcp.json"),
            ("Cursor", home + "/.cursor/mcp.json"),
            ("Cursor (this project)", cwd + "/.cursor/mcp.json"),
            ("VS Code", config + "/Code/User/mcp.json"),
            ("VS Code", home + "/Library/Application Support/Code/User/mcp.json"),
            ("VS Code (this workspace)", cwd + "/.vscode/mcp.json"),
            ("Windsurf", home + "/.codeium/windsurf/mcp_config.json"),
            ("Gemini CLI", home + "/.gemini/settings.json"),
            ("Codex", home + "/.codex/config.toml"),
            ("Zed", config + "/zed/settings.json"),
        ]
        places = places.reduce(into: []) { seen, place in if !seen.contains(where: { $0.path == place.path }) { seen.append(place) } }
        var mentioning: [String] = []
        var broken: [String] = []
        for place in places {
            guard let bytes = FileSystem.contents(atPath: place.path), bytes.count < 16 << 20 else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            guard text.contains("bananas") else { continue }
            mentioning.append("\(place.client): \(Output.safe(place.path))")
            // An absolute path to a bananas binary that is not there: the client cannot start it.
            for command in Self.bananasPaths(in: text) where access(command, X_OK) != 0 {
                broken.append("\(place.client) runs \(Output.safe(command)), which is not there")
            }
        }
        if !broken.isEmpty {
            return DoctorCheck(id: "MCP clients", level: .problem, summary: broken.joined(separator: "; "), details: mentioning,
                               fix: "put the full path of this bananas in the configuration (docs/mcp.md): \(Output.safe((MCPServerBinary.executableFolder() ?? "") + "/bananas"))")
        }
        if mentioning.isEmpty {
            return DoctorCheck(id: "MCP clients", level: .ok, summary: "no MCP client configuration mentions bananas",
                               details: ["to serve the list to an AI agent: docs/mcp.md"])
        }
        return DoctorCheck(id: "MCP clients", level: .ok, summary: "\(mentioning.count) configuration\(mentioning.count == 1 ? "" : "s") mention bananas", details: mentioning)
    }

    /// Absolute paths ending in `/bananas` or `/bananas-mcp` quoted in a configuration.
    static func bananasPaths(in text: String) -> [String] {
        var paths: [String] = []
        for piece in text.split(whereSeparator: { $0 == "\"" || $0 == "'" }) {
            let candidate = String(piece)
            if candidate.hasPrefix("/"), candidate.hasSuffix("/bananas") || candidate.hasSuffix("/bananas-mcp"), !candidate.contains(where: \.isWhitespace) || candidate.contains("/") {
                if !candidate.contains("\n") { paths.append(candidate) }
            }
        }
        return paths
    }

    // MARK: Helpers

    static func linkStatus(_ path: String) -> stat? {
        var st = stat()
        return lstat(path, &st) == 0 ? st : nil
    }

    static func isDirectory(_ st: stat) -> Bool { (st.st_mode & S_IFMT) == S_IFDIR }

    static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func directoryEntries(_ folder: String) -> [String] {
        FileSystem.contentsOfDirectory(atPath: folder) ?? []
    }

    static var userName: String { userName(of: geteuid()) }

    static func userName(of uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return String(cString: name)
    }

    static func commandLine(_ pid: Int32) -> String? {
        guard let bytes = FileSystem.contents(atPath: "/proc/\(pid)/cmdline"), !bytes.isEmpty else { return nil }
        let words = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return String(words.joined(separator: " ").prefix(80))
    }

    /// `7 s`, `0.5 s`.
    static func seconds(_ millis: Int64) -> String {
        millis % 1000 == 0 ? "\(millis / 1000) s" : "\(Double(millis) / 1000) s"
    }

    static func mode(of path: String) -> String {
        guard let st = linkStatus(path) else { return "?" }
        return "0" + String(st.st_mode & 0o777, radix: 8)
    }

    static func size(_ bytes: UInt64) -> String {
        if bytes >= 1 << 30 { return "\(bytes >> 30) GB" }
        if bytes >= 1 << 20 { return "\(bytes >> 20) MB" }
        return "\(bytes >> 10) KB"
    }

    static func path(of error: ListFileError) -> String? {
        switch error {
        case .symlinkRefused(let path), .notARegularFile(let path, _): Output.safe(path)
        default: nil
        }
    }

    /// The fix for a failure the list or the state folder reports.
    static func fix(for error: ListFileError) -> String {
        switch error {
        case .unparseable(let path, _):
            "repair the file by hand, or move it aside (mv \(Output.safe(path)) \(Output.safe(path)).broken): bananas starts a new list, and `bananas recover` then brings back the last good copy's items (`bananas recover --list` shows the copies)"
        case .notARegularFile(let path, _): "move \(Output.safe(path)) aside; the list must be a regular file"
        case .tooLarge: "the file is not a shopping list bananas can read; point --file / $BANANAS_FILE at the right one"
        case .newerSchema: "upgrade bananas on this machine"
        case .lockHeld, .lockUnusable: "see the lock check"
        case .folderMissing(let path): "create the folder: mkdir -p \(Output.safe(path))"
        case .permissionDenied(let path, _): "make \(Output.safe(path)) yours and writable (chown \(userName); chmod u+rw)"
        case .readOnlyFileSystem: "remount the file system read-write, or move the list"
        case .diskFull: "free some space on that disk"
        case .symlinkRefused(let path): "replace the symbolic link \(Output.safe(path)) with a real folder or file"
        case .io: "check the disk (dmesg) and try again"
        case .stateNotSaved(let folder, _, _): "make \(Output.safe(folder)) writable and give its disk room, or set $XDG_STATE_HOME elsewhere"
        }
    }
}
