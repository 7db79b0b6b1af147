// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "MetadataKit",
    products: [
        .library(name: "MetadataKit", targets: ["MetadataKit"]),
        .executable(name: "mdkit", targets: ["mdkit"]),
    ],
    targets: [
        // zlib from the system (Debian: zlib1g-dev), for compressed ID3v2 frames.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib",
                       providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .target(name: "MetadataKit", dependencies: ["CZlib"]),
        .executableTarget(name: "mdkit", dependencies: ["MetadataKit"]),
        .testTarget(name: "MetadataKitTests", dependencies: ["MetadataKit", "mdkit", "CZlib"]),
    ],
    swiftLanguageModes: [.v6]
)
