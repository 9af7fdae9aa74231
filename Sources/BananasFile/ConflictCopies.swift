#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A copy of the list that a sync engine put beside it when two devices changed the file
/// between syncs. bananas merges it into the list (see `SyncEngine.mergeConflictCopies`)
/// and only then moves it out of the folder.
///
/// The names recognised, for a list `BananaList.json` (stem `BananaList`, extension `.json`;
/// any list name works the same way):
///
/// | engine    | name                                                         |
/// |-----------|--------------------------------------------------------------|
/// | Syncthing | `BananaList.sync-conflict-20261121-101530-ABCDEF7.json` (the part may repeat: a copy of a copy) |
/// | Dropbox   | `BananaList (Ann's conflicted copy 2026-11-21).json`, also with ` (1)` after the date, or `’s` |
/// | Nextcloud | `BananaList (conflicted copy 2026-11-21 101530).json`        |
/// | iCloud    | `BananaList 2.json`, `BananaList 3.json`, … (a number from 2 on, no leading zero) |
///
/// Names are matched whole and exactly (case included), so temp files never match:
/// `.syncthing.BananaList.json.tmp`, `~syncthing~BananaList.json.tmp`,
/// `BananaList.json.tmp.<pid>.<hex>`, `BananaList.json.lock`, or a temp of a copy.
public struct ConflictCopy: Sendable, Hashable {
    public enum Engine: String, Sendable {
        case syncthing, dropbox, nextcloud, icloud
    }

    /// The copy's file name, and its full path.
    public let name: String
    public let path: String
    public let engine: Engine

    // MARK: Names

    /// The engine whose conflict-copy name `name` is, for a list file named `listName`;
    /// nil for anything else.
    public static func engine(of name: String, listName: String) -> Engine? {
        let (stem, ext) = split(listName)
        guard name.count > listName.count, name.hasPrefix(stem), name.hasSuffix(ext) else { return nil }
        let middle = Array(name.utf8.dropFirst(stem.utf8.count).dropLast(ext.utf8.count))
        if isSyncthing(middle) { return .syncthing }
        if let body = parenthesised(middle) {
            if isNextcloud(body) { return .nextcloud }
            if isDropbox(body) { return .dropbox }
            return nil
        }
        if isICloudNumber(middle) { return .icloud }
        return nil
    }

    /// A test for names in the folder of the list at `listPath` (for `FolderWatcher`).
    public static func recogniser(forList listPath: String) -> @Sendable (String) -> Bool {
        let listName = Sys.baseName(listPath)
        return { engine(of: $0, listName: listName) != nil }
    }

    /// `BananaList.json` → (`BananaList`, `.json`); a name without a dot has no extension.
    static func split(_ listName: String) -> (stem: String, ext: String) {
        let bytes = Array(listName.utf8)
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot > 0 else { return (listName, "") }
        return (String(decoding: bytes[..<dot], as: UTF8.self), String(decoding: bytes[dot...], as: UTF8.self))
    }

    /// One or more `.sync-conflict-YYYYMMDD-HHMMSS-DEVICE` (DEVICE: Syncthing's short device
    /// id, 7 characters of A–Z and 2–7; any upper-case letters and digits are taken).
    private static func isSyncthing(_ middle: [UInt8]) -> Bool {
        let marker = Array(".sync-conflict-".utf8)
        var rest = middle[...]
        var parts = 0
        while rest.starts(with: marker) {
            rest = rest.dropFirst(marker.count)
            guard digits(&rest, 8), take(&rest, "-"), digits(&rest, 6), take(&rest, "-") else { return false }
            let device = rest.prefix { isUpper($0) || isDigit($0) }
            guard !device.isEmpty else { return false }
            rest = rest.dropFirst(device.count)
            parts += 1
        }
        return parts > 0 && rest.isEmpty
    }

    /// ` (BODY)` → BODY.
    private static func parenthesised(_ middle: [UInt8]) -> [UInt8]? {
        guard middle.count > 3, middle.starts(with: Array(" (".utf8)), middle.last == UInt8(ascii: ")") else { return nil }
        return Array(middle.dropFirst(2).dropLast())
    }

    /// `conflicted copy YYYY-MM-DD HHMMSS`
    private static func isNextcloud(_ body: [UInt8]) -> Bool {
        var rest = body[...]
        return take(&rest, "conflicted copy ") && date(&rest) && take(&rest, " ") && digits(&rest, 6) && rest.isEmpty
    }

    /// `NAME's conflicted copy YYYY-MM-DD`, optionally followed by ` (N)`.
    private static func isDropbox(_ body: [UInt8]) -> Bool {
        let text = String(decoding: body, as: UTF8.self)
        for marker in ["'s conflicted copy ", "\u{2019}s conflicted copy "] {
            guard let range = text.firstRange(of: marker), range.lowerBound != text.startIndex else { continue }
            var rest = Array(text[range.upperBound...].utf8)[...]
            guard date(&rest) else { return false }
            if rest.isEmpty { return true }
            guard take(&rest, " ("), rest.last == UInt8(ascii: ")") else { return false }
            let number = rest.dropLast()
            return !number.isEmpty && number.allSatisfy(isDigit)
        }
        return false
    }

    /// ` N` with N ≥ 2 and no leading zero.
    private static func isICloudNumber(_ middle: [UInt8]) -> Bool {
        guard middle.count >= 2, middle.first == UInt8(ascii: " ") else { return false }
        let number = middle.dropFirst()
        guard number.count <= 6, number.allSatisfy(isDigit), number.first != UInt8(ascii: "0") else { return false }
        return Int(String(decoding: number, as: UTF8.self)).map { $0 >= 2 } ?? false
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
    private static func isUpper(_ c: UInt8) -> Bool { c >= 65 && c <= 90 }

    private static func digits(_ rest: inout ArraySlice<UInt8>, _ count: Int) -> Bool {
        guard rest.count >= count, rest.prefix(count).allSatisfy(isDigit) else { return false }
        rest = rest.dropFirst(count)
        return true
    }

    private static func take(_ rest: inout ArraySlice<UInt8>, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard rest.starts(with: bytes) else { return false }
        rest = rest.dropFirst(bytes.count)
        return true
    }

    /// `YYYY-MM-DD`
    private static func date(_ rest: inout ArraySlice<UInt8>) -> Bool {
        digits(&rest, 4) && take(&rest, "-") && digits(&rest, 2) && take(&rest, "-") && digits(&rest, 2)
    }

    // MARK: Finding and reading

    /// The conflict copies beside the list file at `listPath`, by name. Only regular files
    /// count (a folder or a symlink of that name is left alone).
    public static func find(beside listPath: String) -> [ConflictCopy] {
        let folder = Sys.directoryName(listPath)
        let listName = Sys.baseName(listPath)
        return Sys.directoryEntries(folder).sorted().compactMap { name in
            guard let engine = engine(of: name, listName: listName) else { return nil }
            let path = folder + "/" + name
            guard let st = Sys.linkStatus(path), Sys.isRegular(st) else { return nil }
            return ConflictCopy(name: name, path: path, engine: engine)
        }
    }

    /// Reads and decodes the copy, with the list file's limits (size, no symlinks). A copy
    /// that is gone reads as a snapshot without bytes.
    public func load() throws(ListFileError) -> ListFile.Snapshot {
        try ListFile(path: path).load()
    }

    // MARK: Retiring a merged copy

    /// After the list file holding this copy's content is safely on disk: keeps the merged
    /// bytes in the state folder's `merged-copies/` (when there is one), then removes the copy.
    /// Returns false, leaving the copy, when its bytes are no longer `merged` (the sync engine
    /// changed it since: it is merged again next time). A copy already gone is fine.
    @discardableResult
    public func retire(merged: [UInt8], archive state: StateFolder?, now: Int64 = Clock.nowMillis()) -> Bool {
        guard let current = try? ListFile(path: path).readBytes() else { return true }  // gone
        guard current == merged else { return false }
        if let state {
            let folder = state.mergedCopiesPath
            _ = Sys.makeDirectories(folder)
            try? AtomicWrite.replace(folder + "/" + String(now) + "-" + name, with: merged, durable: false) { _ in true }
            ConflictCopy.pruneArchive(folder, now: now)
        }
        unlink(path)
        return true
    }

    /// Merged copies are kept this long, and at most `archiveLimit` of them.
    public static let archiveLifetimeMillis: Int64 = 30 * 86_400_000
    public static let archiveLimit = 100

    /// Drops archived copies older than the lifetime, and the oldest beyond the limit.
    /// Archived names start with the time they were merged, so names sort by age.
    static func pruneArchive(_ folder: String, now: Int64) {
        let names = Sys.directoryEntries(folder).filter { !$0.contains(AtomicWrite.tempMarker) }.sorted {
            (Int64($0.prefix { $0 != "-" }) ?? 0) < (Int64($1.prefix { $0 != "-" }) ?? 0)
        }
        for (index, name) in names.enumerated() {
            let merged = Int64(name.prefix { $0 != "-" }) ?? 0
            if now - merged > archiveLifetimeMillis || names.count - index > archiveLimit {
                unlink(folder + "/" + name)
            }
        }
    }
}

extension StateFolder {
    /// Conflict copies bananas merged and removed from the list's folder, kept for a while.
    public var mergedCopiesPath: String { path + "/merged-copies" }
}
