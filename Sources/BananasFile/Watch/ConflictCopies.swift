#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore

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
/// An iCloud numbered name is also what a person calls a second list, so it counts only where
/// iCloud makes such copies (an iCloud Drive folder on macOS: `Locations.isICloudDrive`) and
/// only when the file shares a row version with the list (`isEvidentlyCopy`); elsewhere it is
/// another list, left alone.
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
    /// The file found under that name (device and inode): it is read only if the file opened
    /// is still that one, never through a symlink swapped in since.
    let device: UInt64
    let inode: UInt64

    // MARK: Names

    /// The engine whose conflict-copy name `name` is, for a list file named `listName` in a
    /// folder that is (`inICloudDrive`) or is not an iCloud Drive folder; nil for anything else.
    public static func engine(of name: String, listName: String, inICloudDrive: Bool) -> Engine? {
        let found = engine(of: name, listName: listName)
        return found == .icloud && !inICloudDrive ? nil : found
    }

    /// The engine by the name alone (an iCloud numbered name included, wherever it is).
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
        let iCloud = Locations.isICloudDrive(Sys.directoryName(listPath))
        return { engine(of: $0, listName: listName, inICloudDrive: iCloud) != nil }
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
    /// count (a folder or a symlink of that name is left alone); an iCloud numbered file only
    /// in an iCloud Drive folder, and only when it is evidently a copy of this list.
    public static func find(beside listPath: String) -> [ConflictCopy] {
        find(beside: listPath, inICloudDrive: Locations.isICloudDrive(Sys.directoryName(listPath)))
    }

    static func find(beside listPath: String, inICloudDrive: Bool) -> [ConflictCopy] {
        let folder = Sys.directoryName(listPath)
        let listName = Sys.baseName(listPath)
        var list: ShoppingList?
        return Sys.directoryEntries(folder).sorted().compactMap { name in
            guard let engine = engine(of: name, listName: listName, inICloudDrive: inICloudDrive) else { return nil }
            let path = folder + "/" + name
            guard let st = Sys.linkStatus(path), Sys.isRegular(st) else { return nil }
            let copy = ConflictCopy(name: name, path: path, engine: engine, device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
            if engine == .icloud {
                if list == nil { list = (try? ListFile(path: listPath).load().list) ?? ShoppingList() }
                guard let snapshot = try? copy.load(), isEvidentlyCopy(snapshot.list, of: list!) else { return nil }
            }
            return copy
        }
    }

    /// Whether `copy` holds a version of a row of `list`: the same id with the same stamp on a
    /// field, or (rows of writers that keep no stamps) the same id and name. Ids are random,
    /// so a list made on its own shares none; a copy iCloud made of this list shares most.
    public static func isEvidentlyCopy(_ copy: ShoppingList, of list: ShoppingList) -> Bool {
        for (id, row) in copy.rows {
            guard let mine = list.rows[id] else { continue }
            if ItemField.allCases.contains(where: { row.stamps[$0] == mine.stamps[$0] && !row.stamps[$0].isZero }) { return true }
            if row.stamps.newest.isZero, mine.stamps.newest.isZero, row.name == mine.name { return true }
        }
        return false
    }

    /// Reads and decodes the copy, with the list file's limits (size, no symlinks). A copy
    /// that is gone, or is no longer the file found (swapped for a symlink or another file),
    /// reads as a snapshot without bytes.
    public func load() throws(ListFileError) -> ListFile.Snapshot {
        guard let bytes = try readBytes() else {
            return ListFile.Snapshot(bytes: nil, decoded: DecodedList(list: ShoppingList(), schemaVersion: ListCodec.currentSchemaVersion, problems: []))
        }
        return try ListFile.decodeSnapshot(bytes, path: path)
    }

    /// The copy's bytes, opened without following a symlink and checked on the descriptor
    /// (a regular file, the one found); nil when it is gone or is no longer that file.
    func readBytes() throws(ListFileError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            if code == ENOENT || code == ELOOP { return nil }
            throw Sys.failure(code, path: path, action: ListFileError.readAction)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Sys.failure(errno, path: path, action: ListFileError.readAction) }
        guard Sys.isRegular(st), UInt64(st.st_dev) == device, UInt64(st.st_ino) == inode else { return nil }
        guard Int(st.st_size) <= ListCodec.maxFileSize else {
            throw .tooLarge(path: path, size: Int(st.st_size), limit: ListCodec.maxFileSize)
        }
        guard let bytes = Sys.readAll(fd, sizeHint: Int(st.st_size)) else {
            throw Sys.failure(errno, path: path, action: ListFileError.readAction)
        }
        guard bytes.count <= ListCodec.maxFileSize else {
            throw .tooLarge(path: path, size: bytes.count, limit: ListCodec.maxFileSize)
        }
        return bytes
    }

    // MARK: Retiring a merged copy

    /// A copy changed this recently may still be being written by its sync engine.
    static let quietMillis: Int64 = 500

    /// Whether a sync engine is still bringing this copy in: its temp file for it is there
    /// (Syncthing's `.syncthing.NAME.tmp` or `~syncthing~NAME.tmp`, Nextcloud's `.NAME.~…`).
    func isBeingPulled() -> Bool {
        let folder = Sys.directoryName(path)
        return Sys.directoryEntries(folder).contains { entry in
            entry == ".syncthing." + name + ".tmp" || entry == "~syncthing~" + name + ".tmp" || entry.hasPrefix("." + name + ".~")
        }
    }

    /// After the list file holding this copy's content is safely on disk: keeps the merged
    /// bytes in the state folder's `merged-copies/` (when there is one), then removes the copy.
    /// Returns false, leaving the copy, when its bytes are no longer `merged` (the sync engine
    /// changed it since: it is merged again next time) or its sync engine is still pulling it
    /// (removing it then makes the engine fail and retry): its temp file's rename into place
    /// is the folder event that brings it back. A copy changed in the last `quietMillis` is
    /// waited for that long first. A copy already gone is fine.
    @discardableResult
    public func retire(merged: [UInt8], archive state: StateFolder?, now: Int64) -> Bool {
        if isBeingPulled() { return false }
        if let st = Sys.linkStatus(path) {
            let changed = max(Self.millis(st.st_mtim), Self.millis(st.st_ctim))
            let quiet = changed + Self.quietMillis - Sys.nowMillis()
            if quiet > 0 { Sys.sleep(milliseconds: Int(min(quiet, Self.quietMillis))) }
            if isBeingPulled() { return false }
        }
        guard let current = try? readBytes() else { return true }  // gone
        guard current == merged else { return false }
        if let state {
            let folder = state.mergedCopiesPath
            if state.make(folder) == nil {
                try? AtomicWrite.replace(folder + "/" + String(now) + "-" + name, with: merged, durable: false) { _ in true }
                ConflictCopy.pruneArchive(folder, now: now)
            }
        }
        unlink(path)
        return true
    }

    private static func millis(_ time: timespec) -> Int64 { Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000 }

    /// Merged copies are kept this long, at most `archiveLimit` of them, and at most
    /// `archiveByteLimit` bytes in all (a copy can be as large as a list, 128 MiB).
    public static let archiveLifetimeMillis: Int64 = 30 * 86_400_000
    public static let archiveLimit = 100
    public static let archiveByteLimit = 32 * 1024 * 1024

    /// Drops archived copies older than the lifetime, and the oldest beyond the count or the
    /// byte limit. Archived names start with the time they were merged, so names sort by age.
    static func pruneArchive(_ folder: String, now: Int64) {
        let names = Sys.directoryEntries(folder).filter { !$0.contains(AtomicWrite.tempMarker) }.sorted {
            (Int64($0.prefix { $0 != "-" }) ?? 0) < (Int64($1.prefix { $0 != "-" }) ?? 0)
        }
        // Newest first: each is kept while the count and the bytes kept so far allow it.
        var kept = 0, bytes = 0
        for name in names.reversed() {
            let path = folder + "/" + name
            let merged = Int64(name.prefix { $0 != "-" }) ?? 0
            let size = Sys.linkStatus(path).map { Int($0.st_size) } ?? 0
            if now - merged > archiveLifetimeMillis || kept >= archiveLimit || bytes + size > archiveByteLimit {
                unlink(path)
            } else {
                kept += 1
                bytes += size
            }
        }
    }
}

