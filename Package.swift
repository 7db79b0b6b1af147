// swift-tools-version:6.0
import PackageDescription

// MetadataKit — Apache License 2.0 (see LICENSE).

let package = Package(
    name: "MetadataKit",
    // macOS 15 / iOS 18: the Swift 6 standard library and Foundation APIs used
    // here (String(validating:as:), URL(filePath:directoryHint:)) need them.
    // Only the library is meant for iOS (the tool and the tests run processes).
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "MetadataKit", targets: ["MetadataKit"]),
        .library(name: "MetadataKitCatalog", targets: ["MetadataKitCatalog"]),
        .executable(name: "mdkit", targets: ["mdkit"]),
    ],
    targets: [
        // zlib from the system (Debian: zlib1g-dev), for compressed ID3v2 frames.
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // Three layers, each a target so a wrong-way use does not compile
        // (Sources/MetadataKit/README.md): bytes and platform calls, the save
        // layer over them, and the model, formats and facades over both.
        .target(name: "MetadataKitBytes"),
        .target(name: "MetadataKitSaving", dependencies: ["MetadataKitBytes", "CZlib"], exclude: ["Saving/README.md"]),
        .target(name: "MetadataKit", dependencies: ["MetadataKitBytes", "MetadataKitSaving", "CZlib"], exclude: ["README.md"]),
        // SQLite from the system (Debian: libsqlite3-dev), for the catalog of `mdkit scan`.
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        // libpq (Debian: libpq5) is loaded at run time, when a PostgreSQL catalog is
        // opened (MetadataKitCatalog/LibPQ.swift): nothing to link.
        .target(name: "MetadataKitCatalog", dependencies: ["MetadataKit", "CSQLite"]),
        .executableTarget(name: "mdkit", dependencies: ["MetadataKit", "MetadataKitCatalog"]),
        .testTarget(
            name: "MetadataKitTests",
            dependencies: [
                "MetadataKit", "MetadataKitBytes", "MetadataKitSaving", "MetadataKitCatalog", "mdkit", "CZlib", "CSQLite",
            ]),
        // An app's use of the public API in Swift 6 language mode (complete
        // concurrency checking): a @MainActor @Observable model, no @testable.
        .testTarget(name: "AppModelTests", dependencies: ["MetadataKit"], swiftSettings: [.swiftLanguageMode(.v6)]),
    ],
    swiftLanguageModes: [.v6]
)
