import Foundation
import Testing

/// `add`, `check` and `uncheck` edit a file bananas wrote without decoding every row (the row
/// patch); `BANANAS_WHOLE_LIST=1` makes them decode it whole. Both must say the same and leave
/// the same list, and what a patch leaves behind must serve the next stampless writer.
@Suite struct RowPatchCLITests {
    /// The commands a shell user types, on a list of a few sections.
    static let session: [[String]] = [
        ["add", "Milk", "Eggs", "--section", "Dairy"],
        ["add", "Bananas", "--section", "Produce", "--amount", "6"],
        ["add", "Oat milk", "Ünïcode \"q\"", "--section", "dairy"],
        ["check", "milk", "Bananas"],
        ["add", "Milk"],                      // already on the list: unchecked, not added
        ["add", "Eggs"],                      // already on the list, unchecked: said so
        ["add", "Bread", "--duplicate", "--optional"],
        ["uncheck", "BANANAS"],
        ["check", "Ünïcode \"q\""],
        ["check", "oat"],                     // a name's start, one item's
        ["check", "MILK"],                    // a name in another case, exactly one item's
        ["uncheck", "b"],                     // the start of two names: an error, worded the same
        ["check", "nothing like it"],         // an error, worded the same
        ["add", "Tea", "--section", "Pantry", "--json"],
    ]

    /// What a user sees of a list: each item's name, amount, section and boxes, in order.
    func shown(_ cli: CLI) throws -> [String] {
        try cli.items().map { item in
            ["name", "amount", "section", "checked", "optional"].map { "\(item[$0] ?? "")" }.joined(separator: "|")
        }
    }

    @Test("the row patch and the whole-list path say and leave the same")
    func bothPathsAgree() throws {
        let patched = CLI(), whole = CLI()
        defer { patched.cleanUp(); whole.cleanUp() }
        for command in RowPatchCLITests.session {
            let a = patched.run(command)
            let b = whole.run(command, environment: ["BANANAS_WHOLE_LIST": "1"])
            #expect(a.status == b.status, "\(command)")
            // New ids differ between the two lists; the rest must not.
            let strip = { (text: String) in
                text.replacing(/"id" *: *"[0-9A-F-]{36}"/, with: "ID").replacing(/id [0-9A-F]{8}/, with: "ID")
            }
            #expect(strip(a.stderr) == strip(b.stderr), "\(command)")
            #expect(strip(a.stdout) == strip(b.stdout), "\(command)")
        }
        #expect(try shown(patched) == shown(whole))
        #expect(try shown(patched).count == 7)
    }

    @Test("a stampless writer after a patch is merged against the patched file")
    func foreignWriteAfterAPatch() throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli("add", "Milk", "Eggs", "--section", "Shop")
        cli("add", "Bread", "--section", "Shop")   // a patch: its base must hold Bread
        cli("check", "Milk")
        // The Get Bananas app: version-1 keys only; deletes Bread, sets Eggs to 12.
        let file = try JSONSerialization.jsonObject(with: cli.fileBytes!) as! [String: Any]
        var items = (file["items"] as! [[String: Any]]).map { item in
            ["id", "name", "amount", "section", "optional", "checked"].reduce(into: [String: Any]()) { $0[$1] = item[$1] }
        }
        let bread = items.first { $0["name"] as? String == "Bread" }!["id"] as! String
        items.removeAll { $0["name"] as? String == "Bread" }
        items[items.firstIndex { $0["name"] as? String == "Eggs" }!]["amount"] = "12"
        try JSONSerialization.data(withJSONObject: ["sections": file["sections"]!, "items": items])
            .write(to: URL(fileURLWithPath: cli.listPath))

        #expect(cli("check", "Eggs").status == 0)  // a foreign file: the whole-list path
        #expect(try shown(cli) == ["Milk||Shop|1|0", "Eggs|12|Shop|1|0"])
        let after = try JSONSerialization.jsonObject(with: cli.fileBytes!) as! [String: Any]
        let deleted = (after["sync"] as! [String: Any])["deleted"] as! [String: Any]
        #expect(deleted.keys.contains(bread), "Bread's delete is seen against the base the patch saved")
        // And the file is bananas's own again: the next check is a patch, and right.
        #expect(cli("uncheck", "Milk").status == 0)
        #expect(try shown(cli) == ["Milk||Shop|0|0", "Eggs|12|Shop|1|0"])
    }
}
