#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the list and local state live. See docs/cli.md ("Where the file lives").
public enum Locations {
    /// `--file`, then `BANANAS_FILE`, then the default; the flag says whether the folder may
    /// be created (only for the default location).
    public static func listFile(
        explicit: String?, environment: [String: String] = Environment.current(), time: any TimeSource = SystemTime()
    ) -> ListFile {
        let (state, spare) = (stateDirectory(environment), spareStateDirectory(environment))
        if let explicit, !explicit.isEmpty {
            return ListFile(path: expandTilde(explicit, environment), stateDirectory: state, spareDirectory: spare, time: time)
        }
        if let fromEnvironment = environment["BANANAS_FILE"], !fromEnvironment.isEmpty {
            return ListFile(path: expandTilde(fromEnvironment, environment), stateDirectory: state, spareDirectory: spare, time: time)
        }
        return ListFile(path: defaultListPath(environment), createsFolder: true, stateDirectory: state, spareDirectory: spare, time: time)
    }

    /// `$XDG_DATA_HOME/bananas/BananaList.json` (`~/.local/share/...`); on macOS the Get
    /// Bananas iCloud Drive file when it exists.
    public static func defaultListPath(_ environment: [String: String]) -> String {
        #if os(macOS)
        let iCloud = home(environment) + "/Library/Mobile Documents/iCloud~com~941apps~Banana-List/Documents/BananaList.json"
        if FileSystem.fileExists(atPath: iCloud) { return iCloud }
        #endif
        return xdg("XDG_DATA_HOME", fallback: "/.local/share", environment) + "/bananas/BananaList.json"
    }

    /// Whether `folder` is in iCloud Drive, the only place iCloud makes numbered duplicates
    /// (`BananaList 2.json`): on macOS, under `~/Library/Mobile Documents/`. Never on Linux,
    /// where no iCloud client runs, so there such a name is always a list of its own.
    public static func isICloudDrive(_ folder: String) -> Bool {
        #if os(macOS)
        return folder.contains("/Library/Mobile Documents/")
        #else
        return false
        #endif
    }

    /// `$XDG_STATE_HOME/bananas` (`~/.local/state/bananas`): journals, bases, conflict logs.
    public static func stateDirectory(_ environment: [String: String] = Environment.current()) -> String {
        xdg("XDG_STATE_HOME", fallback: "/.local/state", environment) + "/bananas"
    }

    /// Where the state goes while the state folder cannot take it (full, read-only, left
    /// root's by a `sudo bananas`): `$XDG_RUNTIME_DIR/bananas` (a tmpfs of this user's, gone at
    /// logout or reboot), else `$TMPDIR/bananas-UID` (or /tmp's), used only while it is a
    /// folder of this user's that no one else may enter (`StateFolder.problem`).
    public static func spareStateDirectory(_ environment: [String: String] = Environment.current()) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/bananas" }
        let temp = environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        return temp + "/bananas-\(geteuid())"
    }

    /// `$XDG_CONFIG_HOME/bananas` (`~/.config/bananas`): config and user themes.
    public static func configDirectory(_ environment: [String: String] = Environment.current()) -> String {
        xdg("XDG_CONFIG_HOME", fallback: "/.config", environment) + "/bananas"
    }

    static func xdg(_ variable: String, fallback: String, _ environment: [String: String]) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return value }
        return home(environment) + fallback
    }

    static func home(_ environment: [String: String]) -> String {
        environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileSystem.homeDirectoryFromUserDatabase
    }

    /// A path made absolute against the working directory.
    public static func absolute(_ path: String) -> String {
        path.hasPrefix("/") || path.hasPrefix("~") ? path : FileSystem.currentDirectoryPath + "/" + path
    }

    static func expandTilde(_ path: String, _ environment: [String: String]) -> String {
        path == "~" ? home(environment) : path.hasPrefix("~/") ? home(environment) + path.dropFirst() : path
    }
}
