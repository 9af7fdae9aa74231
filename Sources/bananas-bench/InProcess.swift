import BananasCore
import BananasEditor
import BananasFile
import BananasSync
import BananasTerminal
#if canImport(Glibc)
import Glibc
#endif

/// The measurements that run inside this process: no process start, no terminal.
enum InProcess {
    /// One key press handled and the visible window rendered into a 100x40 grid, with the
    /// list in memory (what the editor does between reading a key and painting).
    static func keyPress(items: Int, runs: Int? = nil) -> Samples {
        let list = Fixtures.list(items: items)
        var state = EditorState()
        let memo = RowsMemo()  // as the editor keeps one
        state.viewportHeight = Screen.viewportHeight(forHeight: 40)
        state.pinSelection(state.rows(for: list, memo: memo))
        let status = SyncView(SyncStatus(), now: 0)
        return measure(warmup: runs == nil ? 20 : 0, runs: runs ?? (items >= 100_000 ? 100 : 300)) { k in
            _ = state.handle(k % 2 == 0 ? .char("j") : .down, list: list, memo: memo)
            let grid = Screen.render(Frame(state: state, list: list, status: status, fileLabel: "bench"), width: 100, height: 40,
                                     memo: memo)
            precondition(grid.width == 100)
        }
    }

    /// Remembered items with a list of `items` items and 1,000 more names bought before (hidden
    /// checked rows): building the suggestions (once per change of the list), and one query
    /// per key typed in the add prompt (a prefix, a typo, letters in order, no match).
    static func suggestions(items: Int, runs: Int? = nil) -> (build: Samples, query: Samples, names: Int) {
        var list = Fixtures.list(items: items)
        let now: Int64 = 1_800_000_000_000
        for n in 0..<1_000 {
            let stamp = Stamp(millis: now - Int64(n) * 3_600_000, counter: 0, replica: "0123456789ab")
            let id = "M" + Fixtures.id(n)
            try! list.apply(.insert(Item(id: id, name: "\(Fixtures.words[n % Fixtures.words.count]) bought \(n)", section: "Bought",
                                         checked: true)), stamp: stamp)
            try! list.apply(.delete(id: id), stamp: stamp)
        }
        var built = Suggestions([])
        var names = 0
        let build = measure(warmup: runs == nil ? 2 : 0, runs: runs ?? (items >= 100_000 ? 5 : 20)) { _ in
            let remembered = list.rememberedItems(now: now)
            names = remembered.count
            built = Suggestions(remembered)
        }
        let typed = ["a", "ap", "aple", "bougth 5", "xq", "oat mlk", "bread 99"]
        let query = measure(warmup: runs == nil ? 20 : 0, runs: runs ?? 300) { k in
            _ = built.matching(typed[k % typed.count], limit: 5)
        }
        return (build, query, names)
    }

    /// A flush of one changed item, as the sync engine does it: lock, read the file, absorb
    /// against the base, merge the local list, encode, write (temp, fsync, verify, rename,
    /// fsync the folder), save the base.
    static func flush(items: Int, folder: String, runs: Int? = nil) throws -> Samples {
        let file = ListFile(path: folder + "/BananaList.json", stateDirectory: folder + "/state")
        let seed = Fixtures.list(items: items)
        _ = try file.update { list, _ in list = seed }
        var clock = StampClock(replica: "fedcba987654")
        var local = seed
        return try measure(warmup: runs == nil ? 3 : 0, runs: runs ?? (items >= 100_000 ? 10 : 40), prepare: { k in
            // The store's list: the file's plus one edit (check or uncheck one item).
            let id = Fixtures.id((k * 7919) % items)
            let checked = local.rows[id]?.checked ?? false
            _ = try? local.apply(.update(id: id, changes: [.checked: .flag(!checked)]), stamp: clock.next(now: 1_800_000_000_000 + Int64(k)))
        }) { _ in
            // The file is the last flush's: bananas' own write, taken as it is (`WriteOrigin`).
            let result = try file.update { list, _ in list.merge(local) }
            precondition(result.wrote)
            local.merge(result.list)  // as the store does with what it wrote
        }
    }

    /// `merge` of two full copies of the list, each with its own edits to 10% of the items.
    static func merge(items: Int, runs: Int? = nil) -> Samples {
        let base = Fixtures.list(items: items)
        var left = base, right = base
        var leftClock = StampClock(replica: "111111111111"), rightClock = StampClock(replica: "222222222222")
        for n in stride(from: 0, to: items, by: 10) {
            _ = try? left.apply(.update(id: Fixtures.id(n), changes: [.name: .text("Left \(n)")]), stamp: leftClock.next(now: 1_800_000_000_000))
            let m = (n + 5) % items
            _ = try? right.apply(.update(id: Fixtures.id(m), changes: [.checked: .flag(true)]), stamp: rightClock.next(now: 1_800_000_000_000))
        }
        return measure(warmup: runs == nil ? 2 : 0, runs: runs ?? (items >= 100_000 ? 10 : 30)) { _ in
            let merged = left.merged(with: right)
            precondition(merged.rows.count == items)
        }
    }

    /// The write protocol alone on the file of `items` items (temp file, write, fsync, read
    /// back and compare, rename, fsync of the folder): the least any write of it costs.
    static func atomicWrite(items: Int, folder: String, runs: Int? = nil) throws -> Samples {
        let bytes = ListCodec.encode(Fixtures.list(items: items))
        let path = folder + "/Floor.json"
        return try measure(warmup: runs == nil ? 2 : 0, runs: runs ?? (items >= 100_000 ? 10 : 30)) { _ in
            try AtomicWrite.replace(path, with: bytes)
        }
    }

    /// Reading the list file into memory the way a command's process does (`read` into pages it
    /// has never touched, which the kernel must clear first): what any command that takes the
    /// file in pays besides the write protocol. Fresh pages come from `mmap` for each run, as a
    /// reused heap would hand back pages already mapped.
    static func fileRead(items: Int, folder: String, runs: Int? = nil) throws -> Samples {
        let path = folder + "/Read.json"
        try AtomicWrite.replace(path, with: ListCodec.encode(Fixtures.list(items: items)))
        let fd = open(path, O_RDONLY)
        precondition(fd >= 0, "open failed")
        defer { close(fd) }
        var info = stat()
        fstat(fd, &info)
        let size = Int(info.st_size)
        return measure(warmup: runs == nil ? 2 : 0, runs: runs ?? (items >= 100_000 ? 10 : 30)) { _ in
            guard let pages = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), pages != MAP_FAILED else {
                fatalError("mmap failed")
            }
            var done = 0
            while done < size {
                let got = pread(fd, pages + done, size - done, off_t(done))
                precondition(got > 0, "read failed")
                done += got
            }
            munmap(pages, size)
        }
    }

    /// Parts of a flush or a read, for the profile table: decode and encode of the whole file.
    static func codec(items: Int, runs: Int? = nil) throws -> (decode: Samples, encode: Samples, bytes: Int) {
        let list = Fixtures.list(items: items)
        let bytes = ListCodec.encode(list)
        let count = runs ?? (items >= 100_000 ? 5 : 20)
        let decode = try measure(warmup: runs == nil ? 2 : 0, runs: count) { _ in _ = try ListCodec.decode(bytes) }
        let encode = measure(warmup: runs == nil ? 2 : 0, runs: count) { _ in _ = ListCodec.encode(list) }
        return (decode, encode, bytes.count)
    }
}

/// A fresh temporary folder.
func temporaryFolder() -> String {
    var template = Array("/tmp/bananas-bench-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed") }
    return String(cString: made)
}
