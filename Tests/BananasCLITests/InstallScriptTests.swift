import Foundation
import Testing
import BananasTestSupport

/// scripts/install's checks, which run before any build (the build itself is what scripts/test's
/// second stage and the Debian package stage run).
@Suite("scripts/install")
struct InstallScriptTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test("missing build tools are named as Debian packages, in one line, before anything is built")
    func namesMissingPackages() async throws {
        guard FileManager.default.fileExists(atPath: "/usr/include/yaml.h") else { return }  // the headers this machine has decide the rest
        // A PATH with the shell's tools and a swift, but no pkg-config, objcopy, strip or python3.
        let bin = NSTemporaryDirectory() + "bananas-install-path-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: bin) }
        for tool in ["bash", "env", "dirname", "uname", "sed", "gcc", "cat"] {
            if let path = ["/usr/bin/", "/bin/"].map({ $0 + tool }).first(where: FileManager.default.isExecutableFile) {
                try FileManager.default.createSymbolicLink(atPath: bin + "/" + tool, withDestinationPath: path)
            }
        }
        try FileManager.default.createSymbolicLink(atPath: bin + "/swift", withDestinationPath: "/bin/false")
        let to = bin + "/installed"
        let result = try await runProgram([bin + "/bash", Self.root + "/scripts/install", "--to", to],
                                          environment: ["PATH": bin, "HOME": bin])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("scripts/install: missing Debian packages: pkg-config binutils python3 (sudo apt-get install pkg-config binutils python3)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: to), "nothing is installed")
    }

    @Test("--uninstall removes exactly what it installs, and never a list")
    func uninstall() async throws {
        let prefix = NSTemporaryDirectory() + "bananas-uninstall-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let files = ["bin/bananas", "bin/bananas-mcp", "bin/bananas-serve", "share/man/man1/bananas.1", "share/man/man1/bananas-mcp.1",
                     "share/man/man1/bananas-serve.1", "share/bash-completion/completions/bananas", "share/zsh/site-functions/_bananas",
                     "share/fish/vendor_completions.d/bananas.fish"]
        let kept = ["bin/other-tool", "share/bananas/BananaList.json"]
        for file in files + kept {
            try FileManager.default.createDirectory(atPath: prefix + "/" + (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            createTestFile(atPath: prefix + "/" + file, contents: Data("x".utf8))
        }
        let result = try await runProgram(["/bin/bash", Self.root + "/scripts/install", "--uninstall", "--to", prefix + "/bin"])
        #expect(result.status == 0, "\(result.stderr)")
        for file in files { #expect(!FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file) removed") }
        for file in kept { #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file) kept") }
        #expect(result.stdout.contains("uninstalled bananas (9 files)"), "\(result.stdout)")
    }
}
