// swift-tools-version: 6.1
import PackageDescription

// Module layout (who may import whom) is documented in docs/architecture.md:
//   BananasCore  – pure values: list model, stamps, edits, addressing. No I/O.
//   BananasFile  – JSON codec, lock, atomic write, journal, watcher, paths. Imports BananasCore.
//   BananasSync  – ListStore (observable list, undo, sync state) and the sync engine.
//   BananasMCP   – the MCP server (modelcontextprotocol/swift-sdk) over the ListStore.
//   BananasCLI   – the command-line surface (swift-argument-parser).
//   bananas      – the executable: a thin main that runs BananasCLI.
let package = Package(
    name: "bananas",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "bananas", targets: ["bananas"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
    ],
    targets: [
        .target(name: "BananasCore"),
        .target(name: "CPlatform"),
        .target(name: "BananasFile", dependencies: ["BananasCore", "CPlatform"]),
        .target(name: "BananasSync", dependencies: ["BananasCore", "BananasFile"]),
        .target(
            name: "BananasMCP",
            dependencies: ["BananasCore", "BananasFile", "BananasSync", .product(name: "MCP", package: "swift-sdk")]
        ),
        .target(
            name: "BananasCLI",
            dependencies: [
                "BananasCore", "BananasFile", "BananasSync", "BananasMCP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "bananas", dependencies: ["BananasCLI"]),
        .testTarget(
            name: "BananasCoreTests",
            dependencies: [
                "BananasCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "BananasFileTests", dependencies: ["BananasFile"]),
        .testTarget(name: "BananasSyncTests", dependencies: ["BananasSync", "BananasFile"]),
        // Depends on the executable so `swift test` builds the real binary it drives.
        .testTarget(name: "BananasCLITests", dependencies: ["bananas", "BananasFile"]),
    ]
)
