import Foundation
import Testing

/// What `bananas` links decides how fast every command starts (docs/performance.md): the MCP
/// server lives in `bananas-mcp`, and no module of `bananas` imports Foundation (only
/// FoundationEssentials, which swift-argument-parser brings).
@Suite("Start-up: what the bananas binary links")
struct StartupTests {
    static func sharedLibraries(_ binary: String) async throws -> String {
        try await runProgram(["/usr/bin/ldd", binary]).stdout
    }

    @Test("bananas links no Foundation, no networking and no libcurl; bananas-mcp does")
    func linkedLibraries() async throws {
        let libraries = try await Self.sharedLibraries(CLI.binary)
        for unwanted in ["libFoundation.so", "libFoundationNetworking", "libFoundationInternationalization", "libcurl", "lib_FoundationICU"] {
            #expect(!libraries.contains(unwanted), "bananas links \(unwanted): \(libraries)")
        }
        let server = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().appendingPathComponent("bananas-mcp").path
        let serverLibraries = try await Self.sharedLibraries(server)
        // A static build links the Swift libraries in: then only libcurl shows.
        #expect(serverLibraries.contains("libcurl") || serverLibraries.contains("libFoundationNetworking"), "\(serverLibraries)")
    }
}
