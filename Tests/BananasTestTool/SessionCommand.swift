#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import BananasCLI
import BananasCore
import BananasFile
import BananasSync
import Dispatch

/// `bananas-test session`: a long-running instance driven by lines on stdin, answering in JSON
/// lines on stdout. It is the editor's store and sync engine without a screen, for the process
/// tests (kill -9, idle writers, propagation) and the benchmark. Documented in docs/architecture.md.
///
///     add NAME [SECTION]      check NAME      uncheck NAME     remove NAME
///     set NAME FIELD VALUE    undo            redo             list
///     status                  wait            burst N [PREFIX]    quit
///
/// Arguments are separated by tabs. Every edit is checked by the rules every surface uses
/// (`TextRules`) and answers `{"ack": ...}` only once it is journaled and fsynced. Changes
/// merged from the file print `{"event":"merged",...}`; sync state changes print
/// `{"event":"status",...}`.
struct SessionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session", abstract: "A long-running instance driven by stdin (for the process tests).")

    @Option(help: "The list file (default: $BANANAS_FILE, else the default list).") var file: String?
    @Flag(help: "Open read-only, like the viewer.") var readOnly = false
    @Flag(help: "Poll the folder instead of using change events.") var poll = false

    func run() throws {
        let file = Locations.listFile(explicit: file)
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
            "summary": .string(store.status.summary(now: SystemTime().nowMillis())),
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
                guard let name = args.first else { throw Usage("add NAME [SECTION]") }
                let item = Item(
                    id: ItemID.random(), name: try text(name, .name),
                    section: args.count > 1 ? try text(args[1], .section) : "Other",
                    sortOrder: store.list.nextSortOrder)
                let steps = [store.list.ensureSectionEdit(item.section), .insert(item)].compactMap { $0 }
                try store.perform(.batch(steps), label: "add")
                emit(["ack": .string("add"), "id": .string(item.id), "name": .string(item.name)])
            case "burst":
                // N adds in one go, as fast as the store takes them (one flush follows).
                guard let count = args.first.flatMap(Int.init) else { throw Usage("burst N [PREFIX]") }
                let prefix = args.count > 1 ? try text(args[1], .name) : "Item"
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
                guard args.count == 3, let field = ItemField(rawValue: args[1]) else { throw Usage("set NAME FIELD VALUE") }
                let item = try find(args)
                let value: FieldValue = switch field {
                case .checked, .optional:
                    switch args[2] {
                    case "true": .flag(true)
                    case "false": .flag(false)
                    default: throw Usage("\(field.rawValue) is true or false")
                    }
                case .sortOrder:
                    if let order = Double(args[2]) { .order(order) } else { throw Usage("sortOrder is a number") }
                default: .text(args[2])
                }
                try store.perform(.update(id: item.id, changes: [field: try TextRules.validated(value, for: field)]), label: "set")
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
                throw Usage("unknown command \(TextRules.escaped(command))")
            }
        } catch {
            emit(["error": .string(describe(error).0)])
        }
    }

    /// Text for a new item, by the same rules as `set` (a blank section is refused).
    func text(_ text: String, _ field: ItemField) throws -> String {
        guard case .text(let valid) = try TextRules.validated(.text(text), for: field) else { throw Usage("\(field.rawValue) is text") }
        return valid
    }

    func find(_ args: [String]) throws -> Item {
        guard let query = args.first else { throw Usage("name an item") }
        return try Addressing.resolve(query, in: store.list)
    }

    func quit() {
        let left = store.close()
        emit(["event": .string("closed"), "pending": .number(Double(left))])
        exit(left == 0 ? 0 : ExitCodes.cannotWrite)
    }

    func emit(_ object: [String: JSONValue]) {
        var object = object
        // An edit neither in the file nor in a journal is acknowledged as not durable, with why.
        if object["ack"] != nil, store.unsaved > 0, let problem = store.status.journalProblem {
            object["durable"] = .bool(false)
            object["reason"] = .string(problem.description)
        }
        print(JSONText.compact(.object(object)))
        fflush(nil)  // all streams: the stdout global is not concurrency-safe to name
    }
}

/// A line the session does not understand.
struct Usage: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
