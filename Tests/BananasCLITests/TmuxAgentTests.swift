import Foundation
import Testing
import Synchronization

/// An agent (the MCP server driven by a client) and a person (the editor in tmux) on one
/// list: the editor shows the agent's changes as they happen, and when both write at once,
/// together with the CLI, nothing acknowledged is lost.
@Suite("Editor and agent together", .serialized, .enabled(if: Tmux.isAvailable, "tmux is not installed"))
struct TmuxAgentTests {
    @Test("the editor pane shows the agent's adds, checks and removals live, cursor kept")
    func editorFollowsAgent() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Bananas", "--section", "Produce")
        await cli("add", "Bread", "--section", "Bakery")
        let tmux = try Tmux(cli, width: 70, height: 20)
        #expect(tmux.waitFor("Bread"))
        tmux.keys("G")  // the cursor on Bread

        let agent = try MCPProcess(cli)
        let added = try agent.call("add_items", ["items": [
            ["name": "Oat milk", "amount": "2 L", "section": "Dairy"],
            ["name": "Apples", "section": "Produce"],
        ]])
        #expect(added.statuses == ["added", "added"])
        #expect(tmux.waitFor("Oat milk  2 L"))
        #expect(tmux.waitFor("[ ] Apples"))
        _ = try agent.call("update_items", ["items": [["item": "Bananas", "checked": true]]])
        #expect(tmux.waitFor("[x] Bananas"))
        _ = try agent.call("remove_items", ["items": [["item": "Apples"]]])
        #expect(tmux.waitForScreen { !$0.contains("Apples") } != nil)
        // The cursor stayed on Bread through all of it: Space checks Bread.
        tmux.keys("Space")
        #expect(tmux.waitFor("Checked Bread"))
        #expect(agent.finish() == 0)
    }

    @Test("editor typing, an agent's batches and CLI adds at once: every acknowledged item lands")
    func allAtOnce() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Seed", "--section", "Other")
        let tmux = try Tmux(cli, width: 70, height: 40)
        #expect(tmux.waitFor("Seed"))
        let agent = try MCPProcess(cli)

        let agentDone = DispatchSemaphore(value: 0)
        let agentAdded = Locked<[String]>([])
        Thread.detachNewThread {
            for batch in 0..<10 {
                let names = (0..<3).map { "M\(batch)-\($0)" }
                if let result = try? agent.call("add_items", ["items": names.map { ["name": $0, "section": "Agent"] }]),
                   result.statuses == ["added", "added", "added"] {
                    agentAdded.update { $0 += names }
                }
            }
            agentDone.signal()
        }
        let script = Task {
            var added: [String] = []
            for n in 0..<5 where await cli("add", "C\(n)", "--section", "Script").status == 0 { added.append("C\(n)") }
            return added
        }
        tmux.keys("a")
        for n in 0..<10 {
            tmux.type("E\(n)")
            tmux.keys("Enter", "Enter")
        }
        tmux.keys("Enter")
        #expect(agentDone.wait(timeout: .now() + 60) == .success)
        let cliAdded = await script.value
        let typed = (0..<10).map { "E\($0)" }
        #expect(tmux.waitForScreen { s in typed.allSatisfy { s.contains("[ ] \($0) ") || s.contains("[ ] \($0)\n") } } != nil)

        let expected = Set(typed + agentAdded.value + cliAdded)
        #expect(agentAdded.value.count == 30 && cliAdded.count == 5)
        var names: [String] = []
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            names = try await cli.items().compactMap { $0["name"] as? String }
            if Set(names).isSuperset(of: expected) { break }
            try? await Task.sleep(for: .seconds(0.1))
        }
        #expect(Set(names).isSuperset(of: expected), "missing: \(expected.subtracting(names).sorted())")
        #expect(names.count == Set(names).count, "no duplicates")
        #expect(agent.finish() == 0)
    }
}

/// A value shared between threads.
final class Locked<Value: Sendable>: Sendable {
    private let stored: Mutex<Value>
    init(_ value: Value) { stored = Mutex(value) }
    var value: Value { stored.withLock { $0 } }
    func update(_ change: (inout Value) -> Void) { stored.withLock { change(&$0) } }
}
