import Foundation
import Testing

/// No function over 80 lines without a reason in a comment (`// Long because …`), in the
/// modules held to it (docs/decisions.md, issue 45's part): `scripts/long-functions` lists
/// what is over, and this fails when it lists anything.
@Suite struct LongFunctionsTests {
    static let modules = ["BananasEditor", "BananasTerminal", "BananasCLI", "BananasMCP", "BananasServe", "BananasThemes"]

    @Test func noUnexplainedLongFunctions() async throws {
        let root = DocsTruthTests.root.path
        let result = try await runProgram(["/usr/bin/env", "python3", root + "/scripts/long-functions", "--unexplained", "--check"]
                                              + Self.modules.map { root + "/Sources/" + $0 })
        #expect(result.status == 0 && result.stdout.isEmpty, "\(result.stdout)\(result.stderr)")
    }
}
