#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CPlatform
import Dispatch

/// Tells when the list file (or anything else of interest in its folder) may have changed.
///
/// Three layers, so no change goes unseen for long and none costs much:
/// - events: inotify on the folder (Linux), which sees the file replaced by rename, written in
///   place, created or removed, within a millisecond or so;
/// - a stat poll (every `pollMillis`, faster where events are not delivered: network and FUSE
///   folders, or `forcePolling`): compares the file's inode, size and times;
/// - a safety rescan (every `rescanMillis`): the caller re-reads and compares content hashes,
///   whatever the events and stats said.
///
/// Everything runs on `queue`; `onChange` is called there. The watcher never reads the file:
/// the caller decides, by content hash, whether anything really changed.
public final class FolderWatcher: @unchecked Sendable {
    public enum Trigger: Sendable, Equatable {
        /// An event named a file of interest.
        case event
        /// The poll saw the file's inode, size or times change (or the folder come back).
        case poll
        /// The periodic safety rescan: re-read and compare, whatever the stats say.
        case rescan
        /// A poll with nothing seen: a chance for cheap housekeeping, not for reading the file.
        case tick
    }

    public struct Options: Sendable {
        public var pollMillis: Int = 1_000
        /// The poll interval where events are not delivered.
        public var remotePollMillis: Int = 250
        public var rescanMillis: Int = 30_000
        public var forcePolling = false
        public init() {}
    }

    public let folder: String
    public let fileName: String
    public let queue: DispatchQueue
    private let interesting: @Sendable (String) -> Bool
    private let onChange: @Sendable (Trigger) -> Void
    private let options: Options

    private var inotifyFD: Int32 = -1
    private var watchDescriptor: Int32 = -1
    private var source: DispatchSourceRead?
    private var timer: DispatchSourceTimer?
    private var lastSignature: Signature?
    private var lastRescan: Int64 = 0
    private var scheduled = false
    /// True while folder events are being delivered (false: polling only).
    public private(set) var usesEvents = false

    /// - Parameters:
    ///   - interesting: names in the folder (besides the file itself) whose changes matter.
    public init(
        file path: String, queue: DispatchQueue, options: Options = Options(),
        interesting: @escaping @Sendable (String) -> Bool = { _ in false },
        onChange: @escaping @Sendable (Trigger) -> Void
    ) {
        folder = Sys.directoryName(path)
        fileName = Sys.baseName(path)
        self.queue = queue
        self.interesting = interesting
        self.onChange = onChange
        self.options = options
    }

    /// Starts watching; call on `queue`.
    public func start() {
        lastSignature = signature()
        lastRescan = Sys.nowMillis()
        addWatch()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let interval = usesEvents ? options.pollMillis : options.remotePollMillis
        timer.schedule(deadline: .now() + .milliseconds(interval), repeating: .milliseconds(interval), leeway: .milliseconds(interval / 4))
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
        self.timer = timer
    }

    /// Stops watching; call on `queue`.
    public func stop() {
        timer?.cancel()
        timer = nil
        // The descriptor is closed by the source's cancel handler: dispatch may still be
        // watching it until then.
        source?.cancel()
        source = nil
        inotifyFD = -1
        watchDescriptor = -1
    }

    deinit {
        source?.cancel()  // its cancel handler closes the descriptor
    }

    // MARK: Events

    private func addWatch() {
        #if os(Linux)
        guard !options.forcePolling, bananas_is_remote_filesystem(folder) == 0 else {
            usesEvents = false
            return
        }
        if inotifyFD < 0 {
            inotifyFD = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard inotifyFD >= 0 else { return }
            let source = DispatchSource.makeReadSource(fileDescriptor: inotifyFD, queue: queue)
            let fd = inotifyFD
            source.setEventHandler { [weak self] in self?.drainEvents() }
            source.setCancelHandler { close(fd) }
            source.resume()
            self.source = source
        }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB
            | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
        watchDescriptor = inotify_add_watch(inotifyFD, folder, mask)
        usesEvents = watchDescriptor >= 0
        #else
        usesEvents = false
        #endif
    }

    private func drainEvents() {
        #if os(Linux)
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var relevant = false
        while true {
            let n = buffer.withUnsafeMutableBytes { read(inotifyFD, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            var offset = 0
            while offset + 16 <= n {
                let (mask, length) = buffer.withUnsafeBytes { raw in
                    (raw.load(fromByteOffset: offset + 4, as: UInt32.self), Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                let nameBytes = buffer[(offset + 16)..<min(offset + 16 + length, n)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                offset += 16 + length
                if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                    // The folder itself went away: poll until it is back.
                    watchDescriptor = -1
                    usesEvents = false
                    relevant = true
                } else if name == fileName || interesting(name) {
                    relevant = true
                }
            }
        }
        if relevant { fire(.event) }
        #endif
    }

    // MARK: Polling

    private struct Signature: Equatable {
        var folderExists: Bool
        var device: UInt64 = 0, inode: UInt64 = 0, size: Int64 = 0
        var modified: Int64 = 0, changed: Int64 = 0
        /// The other names of interest present (conflict copies), with their inode, size and
        /// change time: a copy appearing where events are not delivered, or whose event was
        /// lost, is seen by the poll too.
        var others: [String] = []
    }

    private func signature() -> Signature {
        guard let dir = Sys.linkStatus(folder) ?? statFollowing(folder), Sys.isDirectory(dir) || Sys.isSymlink(dir) else {
            return Signature(folderExists: false)
        }
        let others = otherNames()
        guard let st = Sys.linkStatus(folder + "/" + fileName) else { return Signature(folderExists: true, others: others) }
        return Signature(
            folderExists: true, device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
            modified: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
            changed: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec), others: others)
    }

    /// The interesting names in the folder with a fingerprint each (one readdir per poll).
    private func otherNames() -> [String] {
        Sys.directoryEntries(folder).filter(interesting).sorted().map { name in
            guard let st = Sys.linkStatus(folder + "/" + name) else { return name }
            return name + " \(st.st_ino) \(st.st_size) \(st.st_ctim.tv_sec).\(st.st_ctim.tv_nsec)"
        }
    }

    private func statFollowing(_ path: String) -> stat? {
        var st = stat()
        return stat(path, &st) == 0 ? st : nil
    }

    private func tick() {
        let now = Sys.nowMillis()
        if !usesEvents && !options.forcePolling && watchDescriptor < 0, Sys.linkStatus(folder) != nil {
            addWatch()  // the folder is back
        }
        let current = signature()
        if current != lastSignature {
            lastSignature = current
            fire(.poll)
        } else if now - lastRescan >= options.rescanMillis {
            lastRescan = now
            fire(.rescan)
        } else {
            onChange(.tick)
        }
    }

    /// Coalesces a burst of triggers into one call.
    private func fire(_ trigger: Trigger) {
        lastSignature = signature()
        guard !scheduled else { return }
        scheduled = true
        queue.async { [weak self] in
            guard let self else { return }
            self.scheduled = false
            self.onChange(trigger)
        }
    }
}
