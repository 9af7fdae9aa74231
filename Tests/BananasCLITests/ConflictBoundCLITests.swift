import Foundation
import Testing
import BananasTestSupport

/// Issue 38, failure 6, through the real binary: a field that keeps losing values keeps the
/// newest ten listed and folds the older ones into one entry that says how many it holds;
/// none goes without the review saying so, and dismissing the entry reviews them all.
@Suite("Conflict records are bounded, never silently (real binary)")
struct ConflictBoundCLITests {
    typealias Device = CLI

    static let copyName = "BananaList.sync-conflict-20261127-101530-ABCDEF7.json"

    func deliver(_ bytes: Data, to device: Device) {
        let temp = device.folder + "/.syncthing.BananaList.json.tmp"
        createTestFile(atPath: temp, contents: bytes)
        rename(temp, device.listPath)
    }

    @Test("6: fourteen values of one field lost: ten listed, the four older folded into one entry that counts them")
    func olderLostValuesAreFoldedAndCounted() async throws {
        let a = Device()
        defer { a.cleanUp() }
        #expect(await a("add", "Oat milk").status == 0)
        let b = Device()
        defer { b.cleanUp() }
        deliver(a.fileBytes!, to: b)

        // Fourteen rounds of both devices setting the amount while apart: B's later value
        // wins each time, A's is lost, and B's file reaches A.
        for round in 0..<14 {
            #expect(await a("edit", "Oat milk", "--amount", "a\(round)").status == 0)
            usleep(5_000)
            #expect(await b("edit", "Oat milk", "--amount", "b\(round)").status == 0)
            createTestFile(atPath: b.folder + "/" + Self.copyName, contents: a.fileBytes!)
            #expect(await b("uncheck", "Oat milk").status == 0)  // a write: merges the copy
            deliver(b.fileBytes!, to: a)
        }

        let listed = await a("conflicts")
        let lines = listed.stdout.split(separator: "\n").filter { $0.contains("Oat milk · amount") }
        #expect(lines.count == 11, "\(listed.stdout)")
        let folded = try #require(lines.first { $0.contains("older lost value") }, "\(listed.stdout)")
        #expect(folded.contains(#"lost "a3" (and 3 older lost values of this field)"#), "\(folded)")
        for round in 4..<14 { #expect(lines.contains { $0.contains(#"lost "a\#(round)""#) }) }
        #expect(!listed.stdout.contains(#"lost "a0""#), "folded, not listed")

        let json = await a("conflicts", "--json")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(entries.count == 11)
        #expect(entries.compactMap { $0["folded"] as? Int }.sorted() == Array(repeating: 0, count: 10) + [3])
        #expect(String(decoding: a.fileBytes!, as: UTF8.self).contains(#""conflictsFolded""#))

        // The other device shows the same review; dismissing the entry there reviews the
        // four it holds, and A learns it.
        #expect(await b("conflicts").stdout.contains("(and 3 older lost values of this field)"))
        #expect(await b("conflicts", "dismiss", String(folded.prefix(8))).status == 0)
        deliver(b.fileBytes!, to: a)
        let after = await a("conflicts")
        #expect(after.stdout.split(separator: "\n").filter { $0.contains("Oat milk · amount") }.count == 10, "\(after.stdout)")
        #expect(!after.stdout.contains("older lost value"))
        #expect(await a("conflicts", "--all").stdout.contains(#"lost "a3" (and 3 older lost values of this field)  ("#))
        #expect(await a("conflicts", "--all").stdout.contains("— dismissed"))
    }
}
