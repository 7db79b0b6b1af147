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
        .executable(name: "mdkit", targets: ["mdkit"]),
    ],
    targets: [
        // zlib from the system (Debian: zlib1g-dev), for compressed ID3v2 frames.
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .target(name: "MetadataKit", dependencies: ["CZlib"], exclude: ["README.md", "Saving/README.md"]),
        .executableTarget(name: "mdkit", dependencies: ["MetadataKit"]),
        .testTarget(name: "MetadataKitTests", dependencies: ["MetadataKit", "mdkit", "CZlib"]),
    ],
    swiftLanguageModes: [.v6]
)
