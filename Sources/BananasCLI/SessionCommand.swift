#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import BananasCore
import BananasFile
import BananasSync
import Dispatch

/// `bananas session`: a long-running instance driven by lines on stdin, answering in JSON
/// lines on stdout. It is the editor's store and sync engine without a screen, for tests
/// (real processes: kill -9, idle writers, propagation) and for scripts that want to hold a
/// list open. Hidden from help; documented in docs/cli.md.
///
///     add NAME [SECTION]      check NAME      uncheck NAME     remove NAME
///     set NAME FIELD VALUE    undo            redo             list
///     status                  wait            burst N [PREFIX]    quit
///
/// Arguments are separated by tabs. Every edit answers `{"ack": ...}` only once it is
/// journaled and fsynced. Changes merged from the file print `{"event":"merged",...}`;
/// sync state changes print `{"event":"status",...}`.
struct SessionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session", abstract: "A long-running instance driven by stdin (for tests and scripts).",
        shouldDisplay: false)

    @OptionGroup var options: FileOptions
    @Flag(help: "Open read-only, like the viewer.") var readOnly = false
    @Flag(help: "Poll the folder instead of using change events.") var poll = false

    func run() throws {
        let file = options.listFile
        let readOnly = readOnly
        var watch = FolderWatcher.Options()
        watch.forcePolling = poll
        let watchOptions = watch
        MainActor.assumeIsolated {
            let session = Session(store: ListStore(file: file, mode: readOnly ? .viewer : .live, watch: watchOptions))
            Session.running = session
            session.start()
        }
        dispatchMain()
    }
}

@MainActor
final class Session {
    /// Keeps the session alive while the main queue runs it.
    static var running: Session?
    let store: ListStore
    var subscription: Subscription?
    var buffer: [UInt8] = []
    var input: DispatchSourceRead?
    var lastState: String = ""
    var lastRevision = 0

    init(store: ListStore) {
        self.store = store
    }

    func start() {
        lastRevision = store.revision
        subscription = store.subscribe { [weak self] change in self?.changed(change) }
        emit(["event": .string("ready"), "pid": .number(Double(getpid())), "revision": .number(Double(store.revision)),
              "state": .string(store.status.state.rawValue)])
        let source = DispatchSource.makeReadSource(fileDescriptor: 0, queue: .main)
        source.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.readInput() }
        }
        source.resume()
        input = source
    }

    func changed(_ change: ListStore.Change) {
        if change == .merged, store.revision != lastRevision {
            lastRevision = store.revision
            emit(["event": .string("merged"), "revision": .number(Double(store.revision)),
                  "items": .number(Double(store.list.visibleCount))])
        }
        if change == .edited { lastRevision = store.revision }
        let summary = store.status.state.rawValue + "|" + (store.status.pausedBy?.pausedReason ?? "") + "|\(store.status.pendingCount)|\(store.status.conflicts.count)|\(store.status.unmergedCopies.map(\.name))"
        if summary != lastState {
            lastState = summary
            emit(statusObject(event: true))
        }
    }

    func statusObject(event: Bool) -> [String: JSONValue] {
        var object: [String: JSONValue] = [
            "state": .string(store.status.state.rawValue),
            "pending": .number(Double(store.status.pendingCount)),
            "conflicts": .number(Double(store.status.conflicts.count)),
            "unmergedCopies": .array(store.status.unmergedCopies.map { .string($0.name) }),
            "summary": .string(store.status.summary(now: Clock.nowMillis())),
        ]
        if event { object["event"] = .string("status") }
        if let reason = store.status.pausedBy?.pausedReason { object["reason"] = .string(reason) }
        return object
    }

    func readInput() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if n <= 0 {
            quit()
            return
        }
        buffer += chunk[0..<n]
        while let newline = buffer.firstIndex(of: 0x0A) {
            let line = String(decoding: buffer[..<newline], as: UTF8.self)
            buffer.removeSubrange(...newline)
            if !line.isEmpty { handle(line) }
        }
    }

    func handle(_ line: String) {
        let parts = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        let command = parts[0]
        let args = Array(parts.dropFirst())
        do {
            switch command {
            case "add":
                guard let name = args.first else { throw CLIError(message: "add NAME [SECTION]", code: ExitCodes.usage) }
                let item = Item(
                    id: ItemID.random(), name: try TextRules.validated(name, as: .name),
                    section: args.count > 1 ? try TextRules.validated(args[1], as: .section) : "Other",
                    sortOrder: store.list.nextSortOrder)
                let steps = [store.list.ensureSectionEdit(item.section), .insert(item)].compactMap { $0 }
                try store.perform(.batch(steps), label: "add")
                emit(["ack": .string("add"), "id": .string(item.id), "name": .string(item.name)])
            case "burst":
                // N adds in one go, as fast as the store takes them (one flush follows).
                guard let count = args.first.flatMap(Int.init) else { throw CLIError(message: "burst N [PREFIX]", code: ExitCodes.usage) }
                let prefix = args.count > 1 ? args[1] : "Item"
                var order = store.list.nextSortOrder
                for n in 0..<count {
                    order += 1
                    let item = Item(id: ItemID.random(), name: "\(prefix) \(n)", section: "Other", sortOrder: order)
                    try store.perform(.insert(item), label: "add")
                }
                emit(["ack": .string("burst"), "count": .number(Double(count))])
            case "check", "uncheck":
                let item = try find(args)
                try store.perform(.update(id: item.id, changes: [.checked: .flag(command == "check")]), label: command)
                emit(["ack": .string(command), "id": .string(item.id)])
            case "remove":
                let item = try find(args)
                try store.perform(.delete(id: item.id), label: "remove")
                emit(["ack": .string("remove"), "id": .string(item.id)])
            case "set":
                guard args.count == 3, let field = ItemField(rawValue: args[1]) else {
                    throw CLIError(message: "set NAME FIELD VALUE", code: ExitCodes.usage)
                }
                let item = try find(args)
                // The same rules as every other surface: a NaN or infinite order would make the
                // file unreadable for all, a blank name would skip the text rules.
                let value: FieldValue
                switch field {
                case .checked, .optional:
                    guard args[2] == "true" || args[2] == "false" else {
                        throw CLIError(message: "\(field.rawValue) is true or false", code: ExitCodes.invalidInput)
                    }
                    value = .flag(args[2] == "true")
                case .sortOrder:
                    guard let order = Double(args[2]), order.isFinite else {
                        throw CLIError(message: "sortOrder must be a finite number", code: ExitCodes.invalidInput)
                    }
                    value = .order(order)
                case .name: value = .text(try TextRules.validated(args[2], as: .name))
                case .amount: value = .text(try TextRules.validated(args[2], as: .amount))
                case .section: value = .text(try TextRules.validated(args[2], as: .section))
                }
                try store.perform(.update(id: item.id, changes: [field: value]), label: "set")
                emit(["ack": .string("set"), "id": .string(item.id)])
            case "undo", "redo":
                let label = try command == "undo" ? store.undo() : store.redo()
                emit(["ack": .string(command), "label": label.map(JSONValue.string) ?? .null])
            case "list":
                emit(["items": .array(store.list.items.map(Output.json)), "revision": .number(Double(store.revision))])
            case "status":
                emit(statusObject(event: false))
            case "wait":
                Task { @MainActor in
                    let flushed = await store.waitUntilFlushed()
                    emit(["ack": .string("wait"), "flushed": .bool(flushed)])
                }
            case "quit":
                quit()
            default:
                throw CLIError(message: "unknown command \(Output.safe(command))", code: ExitCodes.usage)
            }
        } catch {
            emit(["error": .string(describe(error).0)])
        }
    }

    func find(_ args: [String]) throws -> Item {
        guard let query = args.first else { throw CLIError(message: "name an item", code: ExitCodes.usage) }
        return try Addressing.resolve(query, in: store.list)
    }

    func quit() {
        let left = store.close()
        emit(["event": .string("closed"), "pending": .number(Double(left))])
        exit(left == 0 ? 0 : ExitCodes.cannotWrite)
    }

    func emit(_ object: [String: JSONValue]) {
        print(JSONText.compact(.object(object)))
        fflush(nil)  // all streams: the stdout global is not concurrency-safe to name
    }
}
