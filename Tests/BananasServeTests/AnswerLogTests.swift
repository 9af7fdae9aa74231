import BananasCore
import BananasFile
@testable import BananasServe
import BananasSync
import BananasTestSupport
import Foundation
import Testing

/// Answers by idempotency key survive a restart of the server (docs/serve.md, "Offline at the
/// store"): a retry of an edit whose answer was lost is answered, not carried out again.
@MainActor @Suite struct AnswerLogTests {
    /// The page changed the amount, the answer was lost, the server restarted, someone changed
    /// the amount on the laptop; the page's retry (same key) gets the first answer and leaves
    /// the laptop's amount alone (run again, it would have overwritten it).
    @Test func anEditRetriedAfterARestartIsAnsweredNotRunAgain() async throws {
        let sandbox = Sandbox()
        let answersFile = WebList.answersPath(listPath: sandbox.listPath, stateDirectory: sandbox.stateDirectory)
        var store = ListStore(file: sandbox.file(), mode: .live)
        _ = try store.perform(store.list.addEdit(["Eggs"], section: "Dairy").edit, label: "add")
        let eggs = try #require(store.list.items.first)
        var web = WebList(store: store, answersFile: answersFile)
        let retry: JSONValue = .object(["key": "amount-key-0001", "op": "amount", "id": .string(eggs.id), "amount": "6",
                                        "seen": WebList.stampsValue(eggs.stamps)])
        let first = web.edit(retry)
        #expect(first.status == 200)
        #expect(store.list.item(eggs.id)?.amount == "6")
        #expect(await store.waitUntilFlushed(timeoutMillis: 30_000))
        _ = store.close()

        // The file: the user's alone.
        var st = stat()
        #expect(lstat(answersFile, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o600)
        #expect(lstat((answersFile as NSString).deletingLastPathComponent, &st) == 0 && st.st_mode & 0o777 == 0o700)

        // The server again, and the laptop's edit meanwhile.
        store = ListStore(file: sandbox.file(), mode: .live)
        defer { _ = store.close() }
        web = WebList(store: store, answersFile: answersFile)
        let shown = try #require(store.list.item(eggs.id))
        _ = try store.perform(.update(id: eggs.id, changes: [.amount: .text("12")], seen: [.amount: shown.stamps[.amount]]), label: "edit")

        let again = web.edit(retry)
        #expect(again.status == first.status)
        var body = try #require(again.body.objectValue)
        #expect(body.removeValue(forKey: "replayed") == .bool(true))
        #expect(JSONValue.object(body) == first.body)
        #expect(store.list.item(eggs.id)?.amount == "12")
        #expect(store.list.conflictList().isEmpty)
        #expect(await store.waitUntilFlushed(timeoutMillis: 30_000))
        #expect(try sandbox.decoded().item(eggs.id)?.amount == "12")

        // A new key is a new edit.
        let other = web.edit(.object(["key": "amount-key-0002", "op": "amount", "id": .string(eggs.id), "amount": "4"]))
        #expect(other.status == 200 && other.body.objectValue?["replayed"] == nil)
        #expect(store.list.item(eggs.id)?.amount == "4")
    }

    /// An answer is kept a day; at most 1,000 are, the newest; the file holds no more than
    /// twice that, and lines that do not parse are skipped.
    @Test func answersAreBoundedByAgeAndCount() throws {
        let sandbox = Sandbox()
        let path = sandbox.stateDirectory + "/serve/answers/test.jsonl"
        let day = AnswerLog.maxAgeMillis
        let start: Int64 = 1_800_000_000_000
        let answer = WebList.Answer(200, .object(["ok": .bool(true), "outcome": "checked"]))
        var log = AnswerLog(path: path, now: start)
        log.remember("old-key-0001", answer, now: start)
        #expect(log.answer("old-key-0001", now: start + day - 1) == answer)
        #expect(log.answer("old-key-0001", now: start + day) == nil)
        for k in 0..<2_500 { log.remember(String(format: "key-%06d", k), answer, now: start + day / 2) }
        #expect(log.count == AnswerLog.kept)
        #expect(log.answer("key-000000", now: start + day / 2) == nil)
        #expect(log.answer("key-002499", now: start + day / 2) == answer)
        #expect(log.answer("key-001500", now: start + day / 2) == answer)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count
        #expect(lines <= 2 * AnswerLog.kept)

        // Read again (a restart), with a damaged line in it: the same 1,000.
        try ("not json\n" + (try String(contentsOfFile: path, encoding: .utf8))).write(toFile: path, atomically: true, encoding: .utf8)
        log = AnswerLog(path: path, now: start + day / 2 + 1)
        #expect(log.count == AnswerLog.kept)
        #expect(log.answer("key-002499", now: start + day / 2 + 1) == answer)
        #expect(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count == AnswerLog.kept)
        // A day later, read again: none.
        log = AnswerLog(path: path, now: start + day / 2 + day)
        #expect(log.count == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8).isEmpty)
    }
}
