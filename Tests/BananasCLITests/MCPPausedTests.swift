import Foundation
import Testing

/// `bananas mcp` when the list cannot be written, with real conditions: a lock held by
/// another process (as Get Bananas holds it), a newer schema, a file broken by hand.
@Suite("MCP server: paused lists (real processes)")
struct MCPPausedTests {
    @Test("lock held by another process: edits are saved and said to wait, the file is untouched, then written")
    func lockHeld() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        _ = await cli("add", "Milk")
        let before = cli.fileBytes
        let server = try MCPProcess(cli)
        let holder = try LockHolder(cli)
        defer { holder.release() }
        let pid = holder.pid

        let added = try server.call("add_items", ["items": [["name": "Eggs"]]])
        #expect(added.statuses == ["added"] && !added.isError)
        #expect(added.structured["written"] as? Bool == false)
        #expect(added.structured["paused"] as? String == "lock held by pid \(pid)")
        #expect(added.text.contains("not in the list file yet: the list is paused (lock held by pid \(pid))"), "\(added.text)")
        // While paused, answers come at once and say so.
        let checked = try server.call("update_items", ["items": [["item": "Milk", "checked": true]]])
        #expect(checked.statuses == ["updated"] && checked.structured["paused"] as? String == "lock held by pid \(pid)")
        let read = try server.call("get_shopping_list")
        let sync = read.structured["sync"] as? [String: Any]
        #expect(sync?["state"] as? String == "paused" && sync?["paused"] as? String == "lock held by pid \(pid)")
        #expect(sync?["pending"] as? Int == 2)
        #expect(read.text.hasPrefix("The list is paused (lock held by pid \(pid))"))
        #expect(cli.fileBytes == before, "nothing is written while another process holds the lock")

        holder.release()
        let deadline = Date().addingTimeInterval(10)
        var names: Set<String> = []
        while Date() < deadline {
            names = Set(try await cli.items().map { $0["name"] as! String })
            if names.contains("Eggs") { break }
            usleep(50_000)
        }
        #expect(names == ["Milk", "Eggs"])
        #expect(try await cli.items().first { $0["name"] as? String == "Milk" }?["checked"] as? Bool == true)
        let after = try server.call("add_items", ["items": [["name": "Bread"]]])
        #expect(after.structured["written"] as? Bool == true && after.structured["paused"] == nil)
        #expect(server.finish() == 0)
    }

    @Test("newer schema and a file broken by hand: mutating tools refuse, name the reason, and change nothing")
    func contentProblems() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let newer = #"{"schemaVersion": 99, "sections": ["A"], "items": [{"id": "1", "name": "Milk", "section": "A"}], "future": true}"#
        cli.writeFile(newer)
        let server = try MCPProcess(cli)
        let refused = try server.call("add_items", ["items": [["name": "Eggs"]]])
        #expect(refused.isError && refused.text.hasPrefix("The list is paused (newer schema (99))"), "\(refused.text)")
        let sections = try server.call("add_sections", ["sections": [["name": "B"]]])
        #expect(sections.isError && sections.text.contains("newer schema (99)"))
        let read = try server.call("get_shopping_list")
        #expect((read.structured["items"] as? [[String: Any]])?.count == 1, "a newer file is still shown")
        #expect(String(decoding: cli.fileBytes!, as: UTF8.self) == newer)

        cli.writeFile("{\"items\": [")
        let deadline = Date().addingTimeInterval(5)
        var answer: [String: Any] = [:]
        while Date() < deadline {
            answer = try server.call("remove_items", ["items": [["item": "Milk"]]])
            if answer.text.contains("unparseable file") { break }
            usleep(50_000)
        }
        #expect(answer.isError && answer.text.hasPrefix("The list is paused (unparseable file)"), "\(answer.text)")
        #expect(String(decoding: cli.fileBytes!, as: UTF8.self) == "{\"items\": [")
        #expect(server.finish() == 0)
    }
}
