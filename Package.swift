// swift-tools-version: 6.1
import PackageDescription

// Module layout (who may import whom) is documented in docs/architecture.md:
//   BananasCore  – pure values: list model, stamps, edits, addressing. No I/O.
//   BananasFile  – JSON codec, lock, atomic write, journal, watcher, paths. Imports BananasCore.
//   BananasSync  – ListStore (observable list, undo, sync state) and the sync engine.
//   BananasMCP   – the MCP server (modelcontextprotocol/swift-sdk) over the ListStore.
//   BananasEditor – the full-screen editor without a store: state, key tables, pure render into
//                  a cell grid. Imports BananasCore only.
//   CNcursesw    – the system ncursesw library (wide characters; no pkg-config, see below).
//   CCurses      – the few C shims Swift cannot call directly (macros, globals, signals).
//   CYAML        – the system libyaml (Debian: libyaml-dev).
//   BananasThemes – theme files (YAML, via CYAML): parsing, inheritance, where themes live.
//   BananasTerminal – the editor's shell: `Editor` carries its actions out on a ListStore; paints
//                  a cell grid with ncurses and turns key presses into input events.
//   BananasCLI   – the command-line surface (swift-argument-parser). No MCP: it starts fast.
//   bananas      – the executable: a thin main that runs BananasCLI.
//   bananas-mcp  – the MCP server's executable (BananasMCP, swift-log); `bananas mcp` execs it,
//                  so it is installed next to `bananas`.
//   BananasServe – the web page's HTTP server (Hummingbird) over the ListStore, device pairing.
//   CQRencode    – the system libqrencode (Debian: libqrencode-dev): the pairing QR code.
//   bananas-serve – the web server's executable; `bananas serve` and `bananas devices` exec it,
//                  so `bananas` links no HTTP server (docs/serve.md).
//   bananas-test, CTestProcess – test-only (sources under Tests/): a scripted long-running
//                  instance, a crashing editor, and starting tmux. No product depends on them.
let package = Package(
    name: "bananas",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "bananas", targets: ["bananas"]),
        .executable(name: "bananas-mcp", targets: ["bananas-mcp"]),
        .executable(name: "bananas-serve", targets: ["bananas-serve"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // No default traits: ConfigurationSupport (swift-configuration) and FullFoundation link all of
        // Foundation and its ICU data into bananas-serve, which needs neither (docs/decisions.md,
        // "The lean install").
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0", traits: []),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // gzip of the web page's answers (zlib; Debian: zlib1g-dev). Hummingbird has none built in.
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        // Test targets only: spawning processes with both pipes drained concurrently.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.0"),
    ],
    targets: [
        .target(name: "BananasCore"),
        .target(name: "CPlatform"),
        .target(name: "BananasFile", dependencies: ["BananasCore", "CPlatform"]),
        .target(name: "BananasSync", dependencies: ["BananasCore", "BananasFile"]),
        .target(
            name: "BananasMCP",
            dependencies: [
                "BananasCore", "BananasFile", "BananasSync",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "BananasEditor", dependencies: ["BananasCore"]),
        // No pkgConfig: ncursesw's pkg-config adds -D_DEFAULT_SOURCE -D_XOPEN_SOURCE=600, which
        // SwiftPM refuses with a warning on every build. The module map names the header and
        // the library; wide characters come from NCURSES_WIDECHAR in its header. Debian splits
        // the terminfo half into libtinfo: the shared libncursesw.so pulls it in (a linker
        // script), the static archive the static `bananas` links does not.
        .systemLibrary(name: "CNcursesw", providers: [.apt(["libncurses-dev"]), .brew(["ncurses"])]),
        .target(
            name: "CCurses", dependencies: ["CNcursesw"],
            linkerSettings: [.linkedLibrary("tinfo", .when(platforms: [.linux]))]
        ),
        .target(name: "BananasTerminal", dependencies: ["BananasEditor", "BananasSync", "BananasFile", "CCurses"]),
        .systemLibrary(
            name: "CYAML", pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]
        ),
        .target(name: "BananasThemes", dependencies: ["BananasEditor", "BananasFile", "CYAML"]),
        .target(
            name: "BananasCLI",
            dependencies: [
                "BananasCore", "BananasFile", "BananasSync", "BananasEditor", "BananasTerminal", "BananasThemes",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "bananas", dependencies: ["BananasCLI"]),
        .executableTarget(
            name: "bananas-mcp",
            dependencies: [
                "BananasFile", "BananasSync", "BananasMCP",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"]), .brew(["qrencode"])]),
        .target(
            name: "BananasServe",
            dependencies: [
                "BananasCore", "BananasFile", "BananasSync", "CQRencode",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ]
        ),
        .executableTarget(
            name: "bananas-serve",
            dependencies: [
                "BananasFile", "BananasSync", "BananasServe",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Shared by the test targets only (a temp list sandbox, waiting on the main actor).
        .target(name: "BananasTestSupport", dependencies: ["BananasCore", "BananasFile"]),
        .executableTarget(name: "bananas-bench", dependencies: ["BananasCore", "BananasFile", "BananasEditor", "BananasSync", "BananasTerminal"]),
        .testTarget(
            name: "BananasCoreTests",
            dependencies: [
                "BananasCore", "BananasTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "BananasFileTests",
            dependencies: ["BananasFile", "BananasTestSupport", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        // The merge contract's model, over replicas in memory and over devices on disk (a
        // folder, a state folder and a SyncEngine each, time injected).
        .testTarget(
            name: "BananasContractTests",
            dependencies: [
                "BananasCore", "BananasFile", "BananasSync", "BananasTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "BananasSyncTests", dependencies: ["BananasSync", "BananasFile", "BananasTestSupport"]),
        .testTarget(
            name: "BananasEditorTests",
            dependencies: [
                "BananasEditor", "BananasTerminal", "BananasSync", "BananasCore", "BananasThemes", "BananasTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "BananasMCPTests",
            dependencies: ["BananasMCP", "BananasSync", "BananasFile", "BananasTestSupport", .product(name: "MCP", package: "swift-sdk"),
                           .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        // Test-only, never installed: `bananas-test session` (a ListStore driven by stdin) and
        // `bananas-test crashing-editor` (the editor, dying of a trap on SIGUSR1) for the
        // process tests.
        .executableTarget(
            name: "bananas-test",
            dependencies: [
                "BananasCLI", "BananasCore", "BananasFile", "BananasSync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tests/BananasTestTool"
        ),
        // Test-only: starting tmux, whose server must inherit none of the test runner's pipes.
        .target(name: "CTestProcess", path: "Tests/CTestProcess"),
        // Depends on the executables so `swift test` builds the real binaries it drives
        // (`bananas mcp` execs `bananas-mcp`).
        .testTarget(
            name: "BananasCLITests",
            dependencies: ["bananas", "bananas-mcp", "bananas-test", "BananasCLI", "BananasFile", "BananasTestSupport", "CTestProcess",
                           .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "PropertyBased", package: "swift-property-based"),
                           .product(name: "Subprocess", package: "swift-subprocess")]
        ),
            // The web server: API tests in process (HummingbirdTesting) and the browser test
        // (Tests/Browser, Python + Selenium + Debian's chromium) against the real binaries.
        .testTarget(
            name: "BananasServeTests",
            dependencies: ["bananas", "bananas-serve", "bananas-test", "BananasServe", "BananasSync", "BananasFile", "BananasTestSupport",
                           .product(name: "HummingbirdTesting", package: "hummingbird"),
                           .product(name: "CompressNIO", package: "compress-nio"),
                           .product(name: "Subprocess", package: "swift-subprocess")]
        ),
    ]
)
