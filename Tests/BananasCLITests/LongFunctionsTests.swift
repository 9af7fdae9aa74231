import Foundation
import Testing

/// No function over 80 lines without a reason in a comment (`// Long because …`), in every
/// module (docs/decisions.md, "A house a newcomer can live in"): `scripts/long-functions`
/// lists what is over, and this fails when it lists anything.
@Suite struct LongFunctionsTests {
    @Test func noUnexplainedLongFunctions() async throws {
        let root = DocsTruthTests.root.path
        let modules = try FileManager.default.contentsOfDirectory(atPath: root + "/Sources").sorted()
        #expect(modules.contains("BananasCore") && modules.contains("BananasEditor") && modules.contains("bananas-serve"))
        let result = try await runProgram(["/usr/bin/env", "python3", root + "/scripts/long-functions", "--unexplained", "--check"]
                                              + modules.map { root + "/Sources/" + $0 })
        #expect(result.status == 0 && result.stdout.isEmpty, "\(result.stdout)\(result.stderr)")
    }
}
