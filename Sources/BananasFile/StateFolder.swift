/// This machine's private state for one list file, under
/// `$XDG_STATE_HOME/bananas/files/<hash of the list's path>/`:
///
/// - `base.json`       the last state of the list bananas wrote here (merging stampless writers);
/// - `journals/`       one journal per running instance (edits not yet in the list file);
/// - `conflicts.jsonl` the conflict log (values that lost a concurrent edit).
public struct StateFolder: Sendable, Hashable {
    public let path: String

    public init(listPath: String, stateDirectory: String) {
        path = stateDirectory + "/files/" + StateFolder.key(listPath)
    }

    public var basePath: String { path + "/base.json" }
    public var journalsPath: String { path + "/journals" }
    public var conflictLogPath: String { path + "/conflicts.jsonl" }

    /// FNV-1a of the path, 16 hex digits: a stable folder name for any path.
    static func key(_ listPath: String) -> String {
        Hash.fnv1a(Array(listPath.utf8)).hex
    }
}

/// 64-bit FNV-1a: cheap, stable across runs and machines. Used to name folders, to check
/// journal lines, and to recognise the bytes of a file we wrote ourselves.
public enum Hash {
    public static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}

extension UInt64 {
    /// 16 lowercase hex digits.
    var hex: String {
        let digits = String(self, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
