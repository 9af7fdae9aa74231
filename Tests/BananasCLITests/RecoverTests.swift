import Foundation
import Testing
import BananasTestSupport

/// `bananas recover` and the last good copy, through the real binary: a list whose file is
/// damaged or moved aside is never lost, whatever the user does next.
@Suite("bananas recover")
struct RecoverTests {
    /// The list's state folder under the test's HOME (the only one it has).
    static func stateFolder(_ cli: CLI) throws -> String {
        let root = cli.home + "/.local/state/bananas/files"
        let names = try FileManager.default.contentsOfDirectory(atPath: root)
        return root + "/" + (try #require(names.first))
    }

    static func keptBases(_ cli: CLI) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: try stateFolder(cli)).filter { $0.hasPrefix("base-kept-") }
    }

    static func doctor(_ cli: CLI) async throws -> DoctorTests.Outcome {
        try await DoctorTests.doctor(cli)
    }

    @Test("truncate the file, follow doctor, add Butter, recover: every old item is back beside Butter")
    func truncationEndToEnd() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli.run(["add", "Milk", "Eggs", "--section", "Dairy"]).status == 0)
        #expect(await cli.run(["add", "Bread", "--section", "Bakery", "--amount", "2"]).status == 0)
        #expect(await cli.run(["add", "Apples", "--section", "Produce"]).status == 0)
        #expect(await cli.run(["check", "Eggs"]).status == 0)
        let before = try await cli.items()

        // The file cut short, as a half-synced copy or a crash leaves it.
        cli.writeFile(String(decoding: try #require(cli.fileBytes).prefix(200), as: UTF8.self))
        #expect(await cli.run(["add", "Butter"]).status == 5, "a file that does not parse is never written")
        let damaged = try await Self.doctor(cli)
        #expect(damaged.status(of: "list access") == ["problem"] && damaged.summary(of: "list access") == "unparseable file")
        let advice = try #require(damaged.named("list access").first?["fix"] as? String)
        #expect(advice.contains("move it aside") && advice.contains("bananas recover"), "doctor names recover: \(advice)")
        #expect(damaged.status(of: "write") == ["problem"] && damaged.summary(of: "write").contains("exit 5"), "\(damaged.checks)")

        // Doctor's advice followed: the file moved aside.
        try FileManager.default.moveItem(atPath: cli.listPath, toPath: cli.listPath + ".broken")
        let missing = try await Self.doctor(cli)
        #expect(missing.status(of: "list access") == ["warning"], "\(missing.checks)")
        #expect((missing.named("list access").first?["fix"] as? String)?.contains("bananas recover") == true)
        #expect(missing.status(of: "write") == ["ok"])

        #expect(await cli.run(["add", "Butter"]).status == 0)
        #expect(try await cli.items().map { $0["name"] as? String } == ["Butter"], "a new list, as doctor said")
        #expect(try Self.keptBases(cli).count == 1, "the base that held the old list was kept before the new list replaced it")
        // Another edit of the new list leaves the kept copy alone.
        #expect(await cli.run(["add", "Jam"]).status == 0)
        #expect(try Self.keptBases(cli).count == 1)

        let listed = await cli.run(["recover", "--list"])
        #expect(listed.status == 0 && listed.stdout.contains("brings back 4"), "\(listed.stdout)")
        let recovered = await cli.run(["recover"])
        #expect(recovered.status == 0 && recovered.stdout.hasPrefix("Brought back 4 items"), "\(recovered.stdout)\(recovered.stderr)")

        let after = try await cli.items()
        let names = Set(after.compactMap { $0["name"] as? String })
        #expect(names == ["Milk", "Eggs", "Bread", "Apples", "Butter", "Jam"], "\(names)")
        for old in before {
            let back = try #require(after.first { $0["id"] as? String == old["id"] as? String }, "\(old)")
            for key in ["name", "amount", "section", "checked", "optional"] {
                #expect("\(back[key] ?? "")" == "\(old[key] ?? "")", "\(key) of \(old["name"] ?? "")")
            }
        }
        // Nothing left to bring back; and recover is one step of undo.
        #expect(await cli.run(["recover"]).stdout.hasPrefix("Nothing to bring back"))
        #expect(await cli.run(["undo"]).status == 0)
        #expect(Set(try await cli.items().compactMap { $0["name"] as? String }) == ["Butter", "Jam"])
    }

    @Test("a list emptied in place keeps the old base too; kept bases are bounded")
    func keptBasesBounded() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        for round in 0..<8 {
            #expect(await cli.run(["add", "Item \(round)"]).status == 0)
            if round % 2 == 0 {
                try FileManager.default.removeItem(atPath: cli.listPath)
            } else {
                cli.writeFile(#"{"sections": [], "items": []}"#)
            }
        }
        #expect(await cli.run(["add", "Last"]).status == 0)
        let kept = try Self.keptBases(cli)
        #expect(kept.count == 5, "the newest five: \(kept)")
        let listed = await cli.run(["recover", "--list", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let copies = try #require(object["copies"] as? [[String: Any]])
        #expect(copies.filter { $0["kind"] as? String == "keptBase" }.count == 5)
        #expect(copies.first?["kind"] as? String == "base" && copies.first?["bringsBack"] as? Int == 0, "the newest is the list itself: \(copies)")
    }

    @Test("a Syncthing backup is a good copy: recover N brings its items back and keeps the ones added since")
    func syncthingBackup() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        try FileManager.default.createDirectory(atPath: cli.folder + "/.stfolder", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: cli.folder + "/.stversions", withIntermediateDirectories: true)
        let backup = #"{"sections": ["Pantry"], "items": [{"id": "8F0C9E8C-0D1B-4E0B-9B43-0C4A7A1C2B11", "name": "Rice", "amount": "1 kg", "section": "Pantry", "optional": false, "checked": false}]}"#
        createTestFile(atPath: cli.folder + "/.stversions/BananaList~20261201-101010.json", contents: Data(backup.utf8))
        #expect(await cli.run(["add", "Tea"]).status == 0)
        let listed = await cli.run(["recover", "--list"])
        #expect(listed.stdout.contains("a sync engine's backup") && listed.stdout.contains(".stversions/BananaList~20261201-101010.json"), "\(listed.stdout)")
        let number = try #require(listed.stdout.split(separator: "\n").first { $0.contains("sync engine") }?.split(separator: " ").first.map(String.init))
        let recovered = await cli.run(["recover", number])
        #expect(recovered.status == 0, "\(recovered.stderr)")
        let items = try await cli.items()
        #expect(Set(items.compactMap { $0["name"] as? String }) == ["Tea", "Rice"])
        #expect(items.first { $0["name"] as? String == "Rice" }?["section"] as? String == "Pantry")
        #expect(await cli.run(["recover", "99"]).status == 2)
    }
}
