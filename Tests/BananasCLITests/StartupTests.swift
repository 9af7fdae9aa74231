import Foundation
import Testing

/// What `bananas` links decides how fast every command starts (docs/performance.md): the MCP
/// server lives in `bananas-mcp`, and no module of `bananas` imports Foundation (only
/// FoundationEssentials, which swift-argument-parser brings).
@Suite("Start-up: what the bananas binary links")
struct StartupTests {
    static func sharedLibraries(_ binary: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        process.arguments = [binary]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    @Test("bananas links no Foundation, no networking and no libcurl; bananas-mcp does")
    func linkedLibraries() throws {
        let libraries = try Self.sharedLibraries(CLI.binary)
        for unwanted in ["libFoundation.so", "libFoundationNetworking", "libFoundationInternationalization", "libcurl", "lib_FoundationICU"] {
            #expect(!libraries.contains(unwanted), "bananas links \(unwanted): \(libraries)")
        }
        let server = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().appendingPathComponent("bananas-mcp").path
        let serverLibraries = try Self.sharedLibraries(server)
        // A static build links the Swift libraries in: then only libcurl shows.
        #expect(serverLibraries.contains("libcurl") || serverLibraries.contains("libFoundationNetworking"), "\(serverLibraries)")
    }
}
