import Foundation
import Testing
import BananasTestSupport

@Suite struct CLIBadInputTests {
    @Test func badTextIsRefusedAndNothingChanges() async {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        let before = cli.fileBytes
        for arguments in [["add", ""], ["add", "   "], ["add", String(repeating: "x", count: 501)],
                          ["add", "Milk\u{1B}[2J"], ["add", "Eggs", "--amount", String(repeating: "1", count: 101)],
                          ["edit", "Milk", "--name", "a\nb"], ["add", "Eggs", "--section", ""]] {
            let result = await cli.run(arguments)
            #expect(result.status == 4, "\(arguments)")
            #expect(result.stderr.hasPrefix("bananas: the "), "\(arguments)")
        }
        #expect(cli.fileBytes == before)
    }

    @Test func damagedFilesAreReportedAndLeftAlone() async {
        let cli = CLI()
        defer { cli.cleanUp() }
        for damaged in [#"{"sections": ["A"], "items": [{"name": "Mi"#, "\u{7F}ELF\u{2}\u{1}binary", "[1, 2]"] {
            cli.writeFile(damaged)
            let list = await cli("list")
            #expect(list.status == 5)
            #expect(list.stderr.contains("is not a list bananas can read"))
            #expect(await cli("add", "Milk").status == 5)
            #expect(cli.fileBytes == Data(damaged.utf8))
        }
        let truncated = await cli("list")
        #expect(truncated.stderr.contains("top level is an array"))
        #expect(cli.entries == ["BananaList.json"])
    }

    @Test func truncatedFileMessageSaysWhere() async {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli.writeFile("{\n  \"sections\": [\"A\"],\n  \"items\": [\n    {\"name\": \"Mi")
        let result = await cli("list")
        #expect(result.stderr.contains("line 4"))
        #expect(result.stderr.contains("truncated"))
    }

    @Test func aNewerSchemaIsShownButNotChanged() async {
        let cli = CLI()
        defer { cli.cleanUp() }
        let text = #"{"schemaVersion": 99, "sections": ["A"], "items": [{"id": "1", "name": "Milk", "section": "A"}]}"#
        cli.writeFile(text)
        #expect(await cli("list").stdout.contains("Milk"))
        let add = await cli("add", "Eggs")
        #expect(add.status == 6)
        #expect(add.stderr.contains("newer version (schemaVersion 99"))
        #expect(await cli("status").stdout.contains("read-only"))
        #expect(cli.fileBytes == Data(text.utf8))
    }

    @Test func aDirectoryWhereTheFileShouldBe() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        try FileManager.default.createDirectory(atPath: cli.listPath, withIntermediateDirectories: false)
        let result = await cli("add", "Milk")
        #expect(result.status == 5)
        #expect(result.stderr.contains("is a directory, not a list file"))
    }

    @Test func aFolderWeMayNotWriteIsReported() async throws {
        // Root ignores permissions, so run the binary as "nobody" with setpriv.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), getuid() == 0 else {
            let cli = CLI()
            defer { cli.cleanUp() }
            await cli("add", "Milk")
            chmod(cli.folder, 0o555)
            defer { chmod(cli.folder, 0o755) }
            let result = await cli("add", "Eggs")
            #expect(result.status == 8)
            return
        }
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        chmod(cli.folder, 0o755)
        chmod(cli.listPath, 0o644)
        let before = cli.fileBytes
        let asNobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        #expect(await cli.run(["list"], prefix: asNobody).stdout.contains("Milk"), "reading needs no write access")
        let result = await cli.run(["add", "Eggs"], prefix: asNobody)
        #expect(result.status == 8)
        #expect(result.stderr.contains("permission denied"))
        #expect(cli.fileBytes == before)
        #expect(cli.entries == ["BananaList.json"])
    }

    @Test func aLockHeldByALiveProcessIsNamed() async {
        let cli = CLI()
        defer { cli.cleanUp() }
        await cli("add", "Milk")
        createTestFile(atPath: cli.listPath + ".lock", contents: Data(String(getpid()).utf8))
        let result = await cli.run(["add", "Eggs", "--lock-timeout", "300"])
        #expect(result.status == 7)
        #expect(result.stderr.contains("locked by process \(getpid())"))
        #expect(try! await cli.items().count == 1)
    }

    @Test func storedControlCharactersAreShownEscaped() async {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli.writeFile(#"{"sections": ["A"], "items": [{"id": "1", "name": "Milk\u001b[2J\u001b]0;pwned\u0007", "amount": "\u202e3", "section": "A"}]}"#)
        let result = await cli("list")
        #expect(result.status == 0)
        #expect(!result.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E })
        #expect(result.stdout.contains("Milk\\e[2J\\e]0;pwned\\u{7}"))
    }
}

@Suite struct CLIConcurrencyTests {
    @Test func parallelProcessesNeverLoseEachOthersEdits() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let count = 24
        await withTaskGroup { group in
            for n in 0..<count {
                group.addTask {
                    let result = await cli.run(["add", "item \(n)", "--section", n % 2 == 0 ? "Even" : "Odd", "--lock-timeout", "30000"])
                    #expect(result.status == 0, "\(result.stderr)")
                }
            }
        }
        let names = try await cli.items().map { $0["name"] as! String }
        #expect(Set(names) == Set((0..<count).map { "item \($0)" }))
        // Then check them all off in parallel, interleaved with removals.
        await withTaskGroup { group in
            for n in 0..<count {
                group.addTask {
                    let verb = n % 3 == 0 ? "remove" : "check"
                    let result = await cli.run([verb, "item \(n)", "--lock-timeout", "30000"])
                    #expect(result.status == 0, "\(result.stderr)")
                }
            }
        }
        let items = try await cli.items()
        #expect(items.count == count - (0..<count).filter { $0 % 3 == 0 }.count)
        #expect(items.allSatisfy { $0["checked"] as? Bool == true })
        #expect(cli.entries == ["BananaList.json"])
    }
}
