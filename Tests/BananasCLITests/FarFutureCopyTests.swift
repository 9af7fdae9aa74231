import Foundation
import Testing
import BananasTestSupport

/// Issue 21's "a conflict copy whose stamps are far in the future empties the list for good",
/// through the real binary: a device whose clock is 100 years ahead, and a copy of its file
/// that lost rows by hand.
extension ContractCLITests {
    @Test("A conflict copy from a clock 100 years ahead deletes only what its device saw, and what it deleted comes back for good")
    func farFutureCopy() async throws {
        let ahead = Int64(100) * 365 * 86_400_000
        let a = Device()
        defer { a.cleanUp() }
        #expect(await a("add", "Milk", "Eggs", "Tea", "Jam").status == 0)
        let b = pair(a)
        defer { b.cleanUp() }
        #expect(await b.run(["remove", "Milk"], clockOffset: ahead).status == 0)
        #expect(await b.run(["edit", "Tea", "--amount", "9"], clockOffset: ahead).status == 0)
        // Meanwhile, here: an edit the fast device never sees before it deletes the row.
        #expect(await a("edit", "Eggs", "--amount", "2").status == 0)
        #expect(await b.run(["remove", "Eggs"], clockOffset: ahead).status == 0)

        // Its file arrives as a conflict copy, damaged on the way: the Jam row is gone.
        var root = try #require(try JSONSerialization.jsonObject(with: b.fileBytes!) as? [String: Any])
        root["items"] = (root["items"] as! [[String: Any]]).filter { $0["name"] as? String != "Jam" }
        let copy = try JSONSerialization.data(withJSONObject: root)
        createTestFile(atPath: a.folder + "/" + Self.copyName, contents: copy)
        await write(a, "Tea")

        #expect(try await names(a) == ["Eggs", "Tea", "Jam"],
                "Milk was deleted by a device that saw it; Eggs has an edit it never saw; a missing row is not a delete")
        #expect(try await item(a, "Eggs")?["amount"] as? String == "2")
        #expect(try await item(a, "Tea")?["amount"] as? String == "9")

        // The delete is reviewable and undone by a restore, which outranks its far-future stamp.
        #expect(await a("deleted").stdout.contains("Milk"))
        let restored = await a("restore", "Milk")
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try await names(a) == ["Milk", "Eggs", "Tea", "Jam"])

        // The same copy delivered again changes nothing; later edits here still take effect.
        createTestFile(atPath: a.folder + "/" + Self.copyName, contents: copy)
        await write(a, "Tea")
        #expect(try await names(a) == ["Milk", "Eggs", "Tea", "Jam"])
        #expect(await a("edit", "Tea", "--amount", "3").status == 0)
        #expect(try await item(a, "Tea")?["amount"] as? String == "3")

        // And the fast device, receiving the result, shows it too.
        deliver(a.fileBytes!, to: b)
        let there = await b.run(["list", "--json"], clockOffset: ahead)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(there.stdout.utf8)) as? [String: Any])
        let items = list["items"] as! [[String: Any]]
        #expect(Set(items.map { $0["name"] as! String }) == ["Milk", "Eggs", "Tea", "Jam"])
        #expect(items.first { $0["name"] as? String == "Tea" }?["amount"] as? String == "3")
    }
}
