import Foundation
import Testing

/// Every ```swift block of README.md and of the DocC articles (MetadataKit's
/// and MetadataKitCatalog's) compiles as written, without warnings: each
/// becomes the `main.swift` of an executable target of a throwaway package
/// that depends on this one by path; the README's `// Package.swift` block
/// is that package's manifest (its `.package(url:…)` pointed at this
/// checkout). The package and its build folder live in
/// `.build/readme-snippets/`, so later runs build incrementally.
@Suite(.serialized) struct ReadmeSnippetTests {
    /// The bodies of the README's ```swift blocks, in order.
    static func snippets() throws -> [String] {
        try snippets(in: TestSupport.packageRoot.appendingPathComponent("README.md"))
    }

    /// The DocC catalogs whose articles' code is compiled.
    static let doccCatalogs = ["Sources/MetadataKit/MetadataKit.docc", "Sources/MetadataKitCatalog/MetadataKitCatalog.docc"]

    /// The ```swift blocks of every DocC article, each named after its
    /// article and place (`ReadingDocC1`).
    static func articleSnippets() throws -> [(name: String, code: String)] {
        var result: [(name: String, code: String)] = []
        for catalog in doccCatalogs {
            let folder = TestSupport.packageRoot.appendingPathComponent(catalog)
            let articles = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".md") }.sorted()
            for article in articles {
                let blocks = try snippets(in: folder.appendingPathComponent(article))
                let stem = article.dropLast(3).filter { $0.isLetter || $0.isNumber }
                result += blocks.enumerated().map { ("\(stem)DocC\($0.offset + 1)", $0.element) }
            }
        }
        return result
    }

    /// The bodies of the ```swift blocks of the Markdown file at `url`, in order.
    static func snippets(in url: URL) throws -> [String] {
        let text = try String(contentsOf: url, encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n") + "\n")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    @Test func theSnippetsAreFound() throws {
        let snippets = try Self.snippets()
        #expect(snippets.count >= 5)
        #expect(snippets.filter { $0.hasPrefix("// Package.swift") }.count == 1)
        for snippet in snippets where !snippet.hasPrefix("// Package.swift") {
            #expect(snippet.hasPrefix("import Foundation\nimport MetadataKit\n"), "each snippet names its imports: \(snippet.prefix(80))")
        }
        let articles = try Self.articleSnippets()
        // Five of MetadataKit's six articles, and the catalog's.
        #expect(articles.count >= 7, "\(articles.map(\.name))")
        #expect(articles.contains { $0.code.contains("import MetadataKitCatalog") })
        for (name, code) in articles {
            #expect(code.hasPrefix("import Foundation\nimport MetadataKit\n"), "\(name) names its imports")
        }
    }

    @Test(.enabled(if: TestSupport.hasTool("swift"), "needs the swift toolchain"))
    func everySnippetCompiles() throws {
        let snippets = try Self.snippets()
        let manifestBlock = try #require(snippets.first { $0.hasPrefix("// Package.swift") })
        // README blocks are Snippet1…, the articles' SnippetReadingDocC1…
        let code =
            snippets.filter { !$0.hasPrefix("// Package.swift") }.enumerated().map { (name: "Snippet\($0.offset + 1)", code: $0.element) }
            + (try Self.articleSnippets()).map { (name: "Snippet\($0.name)", code: $0.code) }
        let root = TestSupport.packageRoot.appendingPathComponent(".build/readme-snippets")
        let package = root.appendingPathComponent("package")
        let fileManager = FileManager.default
        // Only the folders this test makes are replaced.
        try? fileManager.removeItem(at: package.appendingPathComponent("Sources"))
        try fileManager.createDirectory(at: package, withIntermediateDirectories: true)
        // The dependency is reached through a link named like the package,
        // so that its identity is "MetadataKit" whatever the checkout's folder is called.
        let link = root.appendingPathComponent("MetadataKit")
        if (try? fileManager.destinationOfSymbolicLink(atPath: link.path)) != TestSupport.packageRoot.path {
            try? fileManager.removeItem(at: link)
            try fileManager.createSymbolicLink(at: link, withDestinationURL: TestSupport.packageRoot)
        }
        var fragment = manifestBlock.split(separator: "\n").dropFirst().joined(separator: "\n")
        // The snippet shows the platforms line an Apple package needs and the path form too.
        #expect(fragment.hasPrefix("platforms: [.macOS(.v15), .iOS(.v18)],"), "\(fragment)")
        #expect(fragment.contains(".package(path: "), "\(fragment)")
        let url = try #require(
            fragment.range(of: #"\.package\(url: "[^"]*", from: "[^"]*"\)"#, options: .regularExpression),
            "the manifest snippet has a .package(url:from:)")
        fragment.replaceSubrange(url, with: ".package(path: \"\(link.path)\")")
        let targets = code.map {
            #"    .executableTarget(name: "\#($0.name)", dependencies: [.product(name: "MetadataKit", package: "MetadataKit"), "#
                + #".product(name: "MetadataKitCatalog", package: "MetadataKit")]),"#
        }
        let targetsRange = try #require(fragment.range(of: "targets: ["))
        fragment.replaceSubrange(targetsRange, with: "targets: [\n" + targets.joined(separator: "\n"))
        let manifest = """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "ReadmeSnippets",
            \(fragment.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
            )

            """
        try Data(manifest.utf8).write(to: package.appendingPathComponent("Package.swift"))
        func write(_ text: String, target: String) throws {
            let folder = package.appendingPathComponent("Sources/\(target)")
            try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: folder.appendingPathComponent("main.swift"))
        }
        try write("import MetadataKit\n\nprint(MetadataKitVersion.current)\n", target: "Tagger")
        for snippet in code { try write(snippet.code, target: snippet.name) }
        let build = try TestSupport.run(
            "swift",
            [
                "build", "--package-path", package.path,
                "--scratch-path", root.appendingPathComponent("build").path,
            ])
        let log = String(decoding: build.standardOutput, as: UTF8.self) + build.standardError
        #expect(
            build.status == 0,
            "README or DocC snippets don't compile:\n\(log.split(separator: "\n").filter { $0.contains("error") }.joined(separator: "\n"))\n\(manifest)"
        )
        let snippetWarnings = log.split(separator: "\n").filter { $0.contains("warning:") && $0.contains("/Sources/Snippet") }
        #expect(snippetWarnings.isEmpty, "\(snippetWarnings.joined(separator: "\n"))")
    }
}
