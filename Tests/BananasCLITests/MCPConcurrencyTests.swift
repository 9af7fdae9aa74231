import Foundation
import Testing
import Synchronization

/// What every writer was told succeeded, gathered across threads.
final class Acknowledged: Sendable {
    private let state = Mutex<(added: [String], checked: [String], failures: [String])>(([], [], []))

    func add(_ name: String) { state.withLock { $0.added.append(name) } }
    func check(_ name: String) { state.withLock { $0.checked.append(name) } }
    func fail(_ what: String) { state.withLock { $0.failures.append(what) } }

    var snapshot: (added: [String], checked: [String], failures: [String]) { state.withLock { $0 } }
}

@Suite("MCP server: concurrent writers (real processes)")
struct MCPConcurrencyTests {
    @Test("two bananas mcp processes add the same 20 names at once, five times: each name is in the file once, answered added by one of them")
    func sameNamesFromTwoServers() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let servers = [try MCPProcess(cli), try MCPProcess(cli)]
        for round in 0..<5 {
            let names = (0..<20).map { "Round \(round) item \($0)" }
            let answers = Mutex<[[String]]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { n in
                let statuses = (try? servers[n].call("add_items", ["items": names.map { ["name": $0] }]).statuses) ?? []
                answers.withLock { $0.append(statuses) }
            }
            let all = answers.withLock { $0 }
            #expect(all.count == 2 && all.allSatisfy { $0.count == 20 }, "\(all)")
            for index in 0..<20 {
                #expect(all.filter { $0.count == 20 && $0[index] == "added" }.count == 1, "round \(round), \(names[index]): \(all.map { $0.count == 20 ? $0[index] : "?" })")
            }
            let inFile = try await cli.items().compactMap { $0["name"] as? String }.filter { $0.hasPrefix("Round \(round) ") }
            #expect(inFile.count == 20, "round \(round): \(inFile.count) rows for 20 names")
        }
        for server in servers { #expect(server.finish() == 0) }
    }

    @Test("two MCP servers, CLI add/check loops and a long-running session write at once: every acknowledged add and check is in the file")
    func concurrentWriters() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        _ = await cli("add", "Seed")
        let serverA = try MCPProcess(cli), serverB = try MCPProcess(cli)
        let session = try SessionProcess(cli)
        let acked = Acknowledged()
        let until = Date().addingTimeInterval(6)
        // On a loaded machine a writer may get nothing done in 6 s: each keeps going until it
        // has had one add acknowledged (or two minutes pass), so the check is of loss, not speed.
        let cap = Date().addingTimeInterval(120)
        @Sendable func going(_ done: Int) -> Bool { Date() < until || (done == 0 && Date() < cap) }
        let group = DispatchGroup()

        // An agent per server: batches of two adds, and a check of an earlier item.
        for (server, tag) in [(serverA, "A"), (serverB, "B")] {
            DispatchQueue.global().async(group: group) {
                var round = 0, done = 0
                while going(done) {
                    do {
                        let names = ["\(tag)\(round) x", "\(tag)\(round) y"]
                        let added = try server.call("add_items", ["items": names.map { ["name": $0] }])
                        for (name, status) in zip(names, added.statuses) {
                            if status == "added" { acked.add(name); done += 1 } else { acked.fail("\(name): \(status)") }
                        }
                        if round > 0 && round % 3 == 0 {
                            let name = "\(tag)\(round - 1) y"
                            let checked = try server.call("update_items", ["items": [["item": name, "checked": true]]])
                            if checked.statuses == ["updated"] { acked.check(name) } else { acked.fail("check \(name): \(checked.text)") }
                        }
                    } catch {
                        acked.fail("\(tag): \(error)")
                    }
                    round += 1
                }
            }
        }
        // A script on the CLI: one process per command, each writing under the lock.
        let script = Task {
            var round = 0, done = 0
            while going(done) {
                let name = "C\(round)"
                let result = await cli("add", name)
                if result.status == 0 { acked.add(name); done += 1 } else { acked.fail("cli add \(name): \(result.stderr)") }
                if round > 0 && round % 3 == 0 {
                    let previous = "C\(round - 1)"
                    let result = await cli("check", previous)
                    if result.status == 0 { acked.check(previous) } else { acked.fail("cli check \(previous): \(result.stderr)") }
                }
                round += 1
            }
        }
        // The editor's stand-in: a long-running store taking edits from its user.
        DispatchQueue.global().async(group: group) {
            var round = 0, done = 0
            while going(done) {
                do {
                    let name = "S\(round)"
                    if try session.send("add", name)["ack"] as? String == "add" { acked.add(name); done += 1 } else { acked.fail("session add \(name)") }
                    if round > 0 && round % 3 == 0 {
                        let previous = "S\(round - 1)"
                        if try session.send("check", previous)["ack"] as? String == "check" { acked.check(previous) } else { acked.fail("session check \(previous)") }
                    }
                } catch {
                    acked.fail("session: \(error)")
                }
                round += 1
                usleep(10_000)
            }
        }
        #expect(group.wait(timeout: .now() + 150) == .success)
        await script.value

        // Everyone stops; what is pending is written on the way out.
        _ = try session.send("wait")
        try session.quit()
        #expect(serverA.finish() == 0 && serverB.finish() == 0)

        let (added, checked, failures) = acked.snapshot
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        let items = try await cli.items()
        var count: [String: Int] = [:]
        for item in items { count[item["name"] as! String, default: 0] += 1 }
        let checkedOnDisk = Set(items.filter { $0["checked"] as? Bool == true }.map { $0["name"] as! String })
        let lostAdds = added.filter { count[$0] == nil }
        let lostChecks = checked.filter { !checkedOnDisk.contains($0) }
        let duplicated = added.filter { (count[$0] ?? 0) > 1 }
        let perWriter = Dictionary(grouping: added) { String($0.prefix(1)) }.mapValues(\.count).sorted { $0.key < $1.key }
        print("concurrent writers: \(added.count) adds (\(perWriter.map { "\($0.key) \($0.value)" }.joined(separator: ", "))), \(checked.count) checks acknowledged; lost \(lostAdds.count + lostChecks.count)")
        #expect(lostAdds.isEmpty, "acknowledged adds missing from the file: \(lostAdds)")
        #expect(lostChecks.isEmpty, "acknowledged checks missing from the file: \(lostChecks)")
        #expect(duplicated.isEmpty, "\(duplicated)")
        #expect(count["Seed"] == 1 && items.count == added.count + 1)
        #expect(perWriter.count == 4 && perWriter.allSatisfy { $0.value >= 1 }, "every writer got work done: \(perWriter)")
        #expect(serverA.stdoutLines.allSatisfy { (try? JSONSerialization.jsonObject(with: $0)) != nil })
    }
}
