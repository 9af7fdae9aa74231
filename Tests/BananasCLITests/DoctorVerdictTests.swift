import Foundation
import Testing
import BananasTestSupport

/// doctor's verdict (its `write` check: the lock, read and write path of an edit, tried
/// without writing) against the exit status of the `add` that follows, case by case.
@Suite("doctor's verdict matches the next add")
struct DoctorVerdictTests {
    /// doctor's `write` check and the exit status of `add Jam` right after, with the same options.
    static func verdict(_ cli: CLI, options: [String] = [], environment: [String: String] = [:]) async throws
        -> (doctor: DoctorTests.Outcome, add: CLI.Result) {
        let env = cli.environment(DoctorTests.calm.merging(environment) { $1 })
        let result = try await runProgram([CLI.binary, "doctor", "--json"] + options, environment: env)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)\(result.stderr)")
        let doctor = DoctorTests.Outcome(status: result.status, healthy: object["healthy"] as? Bool ?? false,
                                         checks: try #require(object["checks"] as? [[String: Any]]), text: result.stdout)
        let add = try await runProgram([CLI.binary, "add", "Jam"] + options, environment: env)
        return (doctor, add)
    }

    /// The `write` check says ok exactly when add succeeds, and names add's exit code when not.
    static func expectAgreement(_ outcome: (doctor: DoctorTests.Outcome, add: CLI.Result), _ expected: Int32,
                                sourceLocation: SourceLocation = #_sourceLocation) {
        let (doctor, add) = outcome
        #expect(add.status == expected, "add: \(add.stderr)", sourceLocation: sourceLocation)
        if expected == 0 {
            #expect(doctor.status(of: "write") == ["ok"], "\(doctor.checks)", sourceLocation: sourceLocation)
        } else {
            #expect(doctor.status(of: "write") == ["problem"] && doctor.summary(of: "write").contains("exit \(expected):"),
                    "\(doctor.summary(of: "write")) vs add \(add.status)", sourceLocation: sourceLocation)
            #expect(doctor.status == 1 && !doctor.healthy, sourceLocation: sourceLocation)
        }
    }

    @Test("all well: doctor says an edit would be written, and add writes it")
    func allWell() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli.run(["add", "Milk"]).status == 0)
        Self.expectAgreement(try await Self.verdict(cli), 0)
        let entries = try FileManager.default.contentsOfDirectory(atPath: cli.folder)
        #expect(!entries.contains { $0.contains(".tmp.") }, "the trial's temp file is removed: \(entries)")
    }

    @Test("root and a 0444 list: doctor says read-only, and add exits 8")
    func rootAndReadOnlyFile() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli.run(["add", "Milk"]).status == 0)
        chmod(cli.listPath, 0o444)
        let outcome = try await Self.verdict(cli)
        Self.expectAgreement(outcome, 8)
        #expect(outcome.doctor.status(of: "list access") == ["problem"] && outcome.doctor.summary(of: "list access").hasPrefix("read-only"),
                "as root too, where access(2) says writable: \(outcome.doctor.checks)")
    }

    @Test("a live lock holder: doctor names it and says writes wait; add waits as long and exits 7")
    func liveHolder() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli.run(["add", "Milk"]).status == 0)
        let lock = try LockHolder(cli)
        defer { lock.release() }
        let outcome = try await Self.verdict(cli, options: ["--lock-timeout", "300"])
        Self.expectAgreement(outcome, 7)
        let summary = outcome.doctor.summary(of: "lock")
        #expect(outcome.doctor.status(of: "lock") == ["problem"] && summary.contains("held by pid \(getpid())") && summary.contains("0.3 s an edit waits"), "\(summary)")
        #expect((outcome.doctor.named("lock").first?["details"] as? [String])?.first?.contains("every edit waits 0.3 s for it, then fails with exit 7") == true)
    }

    @Test("a live holder refreshing its lock every 200 ms, as bananas does: the running instance, status and doctor all say it is held")
    func refreshedHolderOneWord() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli.run(["add", "Milk"]).status == 0)
        let session = try SessionProcess(cli)
        defer { session.stop() }
        let lock = try LockHolder(cli)
        let path = lock.lockPath
        let refreshing = Task.detached {
            while !Task.isCancelled {
                utimes(path, nil)
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        defer { refreshing.cancel() }
        _ = try session.send("add", "Jam")
        try session.waitForState("paused")
        let status = await cli.run(["status", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect(object["state"] as? String == "paused" && (object["paused"] as? String)?.contains("\(getpid())") == true,
                "the lock's age is 0 s at every refresh; status says what the editor says: \(object)")
        let outcome = try await Self.verdict(cli, options: ["--lock-timeout", "300"])
        Self.expectAgreement(outcome, 7)
        refreshing.cancel()
        lock.release()
        try session.waitForState("synced")
        try session.quit()
    }

    @Test("a stale lock (not refreshed for a minute): a write breaks it, so doctor and add both go ahead")
    func staleLock() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli.run(["add", "Milk"]).status == 0)
        let lock = cli.listPath + ".lock"
        createTestFile(atPath: lock, contents: Data(String(getpid()).utf8))
        var old = [timeval(tv_sec: time(nil) - 60, tv_usec: 0), timeval(tv_sec: time(nil) - 60, tv_usec: 0)]
        utimes(lock, &old)
        let outcome = try await Self.verdict(cli)
        Self.expectAgreement(outcome, 0)
        #expect(outcome.doctor.status(of: "lock") == ["note"] && outcome.doctor.summary(of: "lock").contains("stale"), "\(outcome.doctor.checks)")
    }

    @Test("a newer schema: doctor says exit 6, and add exits 6")
    func newerSchema() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        cli.writeFile(#"{"schemaVersion": 99, "sections": ["Other"], "items": []}"#)
        Self.expectAgreement(try await Self.verdict(cli), 6)
    }

    @Test("a state folder that cannot take the state, and no spare that can: doctor says exit 8, and add exits 8")
    func stateFolderUnusable() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        #expect(await cli.run(["add", "Milk"]).status == 0)
        let state = cli.home + "/state-blocked"
        let runtime = cli.home + "/run-blocked"
        try FileManager.default.createDirectory(atPath: state + "/bananas", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        createTestFile(atPath: state + "/bananas/files", contents: Data("not a folder".utf8))
        createTestFile(atPath: runtime + "/bananas", contents: Data("not a folder".utf8))
        let outcome = try await Self.verdict(cli, environment: ["XDG_STATE_HOME": state, "XDG_RUNTIME_DIR": runtime])
        Self.expectAgreement(outcome, 8)
        #expect(outcome.doctor.summary(of: "write").contains("state not saved"), "\(outcome.doctor.summary(of: "write"))")
    }

    @Test("a folder that is gone: doctor says exit 8, and add exits 8")
    func missingFolder() async throws {
        let cli = CLI()
        defer { cli.cleanUp() }
        let environment = ["BANANAS_FILE": cli.folder + "/gone/BananaList.json"]
        Self.expectAgreement(try await Self.verdict(cli, environment: environment), 8)
    }
}
