#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore

/// A readable earlier state of the list that `bananas recover` can bring back: the state
/// folder's base (the last list bananas wrote here), the bases kept when the list file went
/// missing or empty (`BaseStore.keepBase`), merged conflict copies (`merged-copies/`), the
/// backups a sync engine keeps (Syncthing's `.stversions`), and conflict copies beside the
/// list (Dropbox, Nextcloud, Syncthing, iCloud).
public struct GoodCopy: Sendable {
    public enum Kind: String, Sendable {
        case base, keptBase, mergedCopy, syncBackup, conflictCopy

        /// Where it comes from, in a person's words.
        public var words: String {
            switch self {
            case .base: "the last list written on this machine (state folder)"
            case .keptBase: "the last good list before the file went missing or empty (state folder)"
            case .mergedCopy: "a conflict copy merged earlier (state folder)"
            case .syncBackup: "a sync engine's backup"
            case .conflictCopy: "a conflict copy beside the list"
            }
        }
    }

    public let kind: Kind
    public let path: String
    /// When its file was last modified, in ms since 1970.
    public let modifiedMillis: Int64
    public let list: ShoppingList
}

public enum GoodCopies {
    /// Every good copy of the list `file`, newest first: files that read as a list this
    /// bananas can write and that hold at least one item. Nothing is written.
    public static func find(for file: ListFile) -> [GoodCopy] {
        var found: [GoodCopy] = []
        func add(_ kind: GoodCopy.Kind, _ path: String) {
            guard let st = Sys.linkStatus(path), Sys.isRegular(st), Int(st.st_size) <= ListCodec.maxFileSize,
                  let bytes = FileSystem.contents(atPath: path),
                  let decoded = try? ListCodec.decode(bytes), decoded.schemaVersion <= ListCodec.currentSchemaVersion,
                  !decoded.list.items.isEmpty else { return }
            found.append(GoodCopy(kind: kind, path: path, modifiedMillis: Sys.modifiedMillis(st), list: decoded.list))
        }
        if let base = file.base {
            let folder = base.current.state
            if folder.problem() == nil {
                add(.base, folder.basePath)
                for path in base.keptBases() { add(.keptBase, path) }
                for name in Sys.directoryEntries(folder.mergedCopiesPath) where !name.contains(AtomicWrite.tempMarker) {
                    add(.mergedCopy, folder.mergedCopiesPath + "/" + name)
                }
            }
        }
        for path in syncBackups(of: file.path) { add(.syncBackup, path) }
        for copy in ConflictCopy.find(beside: file.path) { add(.conflictCopy, copy.path) }
        return found.sorted { $0.modifiedMillis > $1.modifiedMillis }
    }

    /// Syncthing's versions of the list (`.stversions/<folder>/BananaList~20261206-071500.json`
    /// at the root of the synced folder, found from the list's folder up).
    static func syncBackups(of listPath: String) -> [String] {
        let listName = Sys.baseName(listPath)
        let dot = listName.lastIndex(of: ".") ?? listName.endIndex
        let (stem, ext) = (String(listName[..<dot]), String(listName[dot...]))
        var folder = Sys.directoryName(listPath)
        var relative = ""
        while true {
            let versions = folder + "/.stversions" + relative
            if let st = Sys.linkStatus(folder + "/.stversions"), Sys.isDirectory(st) {
                return Sys.directoryEntries(versions).filter { $0.hasPrefix(stem + "~") && $0.hasSuffix(ext) }.map { versions + "/" + $0 }
            }
            if Sys.linkStatus(folder + "/.stfolder") != nil || folder == "/" || folder.isEmpty { return [] }
            relative = "/" + Sys.baseName(folder) + relative
            folder = Sys.directoryName(folder)
        }
    }
}
