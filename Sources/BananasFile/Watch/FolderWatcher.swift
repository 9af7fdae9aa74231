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
/// - a stat poll: compares the file's inode, size and times. Where events are delivered it is
///   only a safety net (every `pollMillis`, 5 s); where they are not (network and FUSE
///   folders, `forcePolling`, the folder gone) it is how changes are seen (`remotePollMillis`);
/// - a safety rescan: the caller re-reads and compares content hashes, whatever the events
///   and stats said (every `rescanMillis`, an hour, with events; `remoteRescanMillis`, 30 s,
///   without). With events, the poll's stat signature (inode, size, mtime and ctime in ns)
///   is the cheap check; reading and hashing the whole file is for what neither events nor
///   stats show.
///
/// Files elsewhere that matter to the caller can be watched too
/// (`alsoWatching`): a change to one is a `.tick`, never a reason to read the list.
///
/// An idle watcher with events wakes once per `pollMillis`, and does a stat or three then.
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
        /// A poll with nothing seen, or a change to a file in `alsoWatching`: a chance for
        /// cheap housekeeping, not for reading the file.
        case tick
    }

    public struct Options: Sendable {
        /// The stat poll while events are delivered: a safety net for an event lost.
        public var pollMillis: Int = 5_000
        /// The poll interval where events are not delivered.
        public var remotePollMillis: Int = 250
        /// The content rescan while events are delivered.
        public var rescanMillis: Int = 3_600_000
        /// The content rescan where events are not delivered (attribute caches on network
        /// folders can hide a change from the stat poll).
        public var remoteRescanMillis: Int = 30_000
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
    /// The poll interval the timer runs at now.
    private var timerInterval = 0
    private var lastSignature: Signature?
    private var lastRescan: Int64 = 0
    /// What the call scheduled on `queue` will report (a burst of triggers is one call).
    private var pending: Trigger?
    /// Files outside the folder whose changes are reported as `.tick`.
    private var others: [Other]

    private struct Other {
        let folder: String
        let name: String
        var watchDescriptor: Int32 = -1
    }
    /// True while folder events are being delivered (false: polling only).
    public private(set) var usesEvents = false

    /// - Parameters:
    ///   - interesting: names in the folder (besides the file itself) whose changes matter.
    ///   - alsoWatching: files in other folders (which need not exist yet) whose changes are
    ///     reported as `.tick` when events are delivered; without events, every poll is a
    ///     `.tick` anyway.
    public init(
        file path: String, queue: DispatchQueue, options: Options = Options(),
        interesting: @escaping @Sendable (String) -> Bool = { _ in false },
        alsoWatching: [String] = [],
        onChange: @escaping @Sendable (Trigger) -> Void
    ) {
        folder = Sys.directoryName(path)
        fileName = Sys.baseName(path)
        self.queue = queue
        self.interesting = interesting
        self.onChange = onChange
        self.options = options
        others = alsoWatching.map { Other(folder: Sys.directoryName($0), name: Sys.baseName($0)) }
    }

    /// Starts watching; call on `queue`.
    public func start() {
        lastSignature = signature()
        lastRescan = Sys.nowMillis()
        addWatch()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
        self.timer = timer
        armTimer()
    }

    /// The poll runs fast only where events are not delivered.
    private var pollInterval: Int { usesEvents ? options.pollMillis : options.remotePollMillis }
    private var rescanInterval: Int { usesEvents ? options.rescanMillis : options.remoteRescanMillis }

    /// (Re)arms the poll for whether events are delivered now.
    private func armTimer() {
        guard let timer, pollInterval != timerInterval else { return }
        let interval = pollInterval
        timerInterval = interval
        timer.schedule(deadline: .now() + .milliseconds(interval), repeating: .milliseconds(interval), leeway: .milliseconds(interval / 4))
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
        addOtherWatches()
        #else
        usesEvents = false
        #endif
    }

    /// Watches the folders of `alsoWatching` that exist and are not watched yet (one failing
    /// system call each for those that do not: tried again on every poll and event).
    private func addOtherWatches() {
        #if os(Linux)
        guard inotifyFD >= 0 else { return }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE
            | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_MASK_ADD)
        for index in others.indices where others[index].watchDescriptor < 0 {
            others[index].watchDescriptor = inotify_add_watch(inotifyFD, others[index].folder, mask)
        }
        #endif
    }

    private func drainEvents() {
        #if os(Linux)
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var relevant = false
        var otherChanged = false
        while true {
            let n = buffer.withUnsafeMutableBytes { read(inotifyFD, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            var offset = 0
            while offset + 16 <= n {
                let (descriptor, mask, length) = buffer.withUnsafeBytes { raw in
                    (raw.load(fromByteOffset: offset, as: Int32.self), raw.load(fromByteOffset: offset + 4, as: UInt32.self),
                     Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                let nameBytes = buffer[(offset + 16)..<min(offset + 16 + length, n)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                offset += 16 + length
                let gone = mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    // Events were lost: look at everything.
                    relevant = true
                    otherChanged = true
                }
                for index in others.indices where others[index].watchDescriptor == descriptor {
                    if gone { others[index].watchDescriptor = -1 }  // watched again once it is back
                    if gone || name == others[index].name { otherChanged = true }
                }
                guard descriptor == watchDescriptor else { continue }
                if gone {
                    // The folder itself went away: poll until it is back.
                    watchDescriptor = -1
                    usesEvents = false
                    relevant = true
                } else if name == fileName || interesting(name) {
                    relevant = true
                }
            }
        }
        if relevant {
            armTimer()
            addOtherWatches()
            fire(.event)
        } else if otherChanged {
            fire(.tick)
        }
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
            armTimer()
        } else {
            addOtherWatches()
        }
        let current = signature()
        if current != lastSignature {
            lastSignature = current
            fire(.poll)
        } else if now - lastRescan >= rescanInterval {
            lastRescan = now
            fire(.rescan)
        } else if pending == nil {
            onChange(.tick)
        }
    }

    /// Coalesces a burst of triggers into one call; any that reads the file wins over `.tick`.
    private func fire(_ trigger: Trigger) {
        if trigger != .tick { lastSignature = signature() }
        if let pending {
            if pending == .tick { self.pending = trigger }
            return
        }
        pending = trigger
        queue.async { [weak self] in
            guard let self, let trigger = self.pending else { return }
            self.pending = nil
            self.onChange(trigger)
        }
    }
}
