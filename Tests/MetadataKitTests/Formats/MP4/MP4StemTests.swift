import Foundation
import Testing

@testable import MetadataKit

/// Native Instruments' `moov/udta/stem` atom: read as the `udta:stem` item,
/// kept byte for byte by saves that don't change it, rewritten or dropped
/// when the item changes.
@Suite struct MP4StemTests {
    typealias B = MP4Builder
    static let manifest =
        ##"{"mastering_dsp":{"compressor":{"enabled":false}},"stems":[{"color":"#009E73","name":"Drums"},{"color":"#D55E00","name":"Bass"}],"version":1}"##
    static let fast = SaveOptions(durability: .noSync)

    static func file(manifest: [UInt8] = Array(MP4StemTests.manifest.utf8)) -> [UInt8] {
        B.ftyp() + B.audioMovie(extra: [B.box("udta", children: [B.box("stem", manifest)])])
            + B.box("mdat", [UInt8](repeating: 0x21, count: 64))
    }

    @Test func readsTheManifest() async throws {
        let item = try await B.load(Self.file())
        let stem = try #require(item.metadata.items.first { $0.key == "stem" })
        #expect(stem.keySpace == .quickTimeUserData && stem.value == .string(Self.manifest) && stem.dataType == .utf8)
        #expect(item.warnings.isEmpty)
        // Not UTF-8: its bytes.
        let binary = try await B.load(Self.file(manifest: [0xFF, 0xFE, 0x00]))
        #expect(binary.metadata.items.first { $0.key == "stem" }?.value == .data(Data([0xFF, 0xFE, 0x00])))
    }

    @Test func keptByASaveThatDoesNotChangeIt() async throws {
        let url = try B.write(Self.file())
        defer { try? FileManager.default.removeItem(at: url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "A title beside the stems"
        try await item.save(options: Self.fast)
        let bytes = [UInt8](try Data(contentsOf: url))
        let atom = B.box("stem", Array(Self.manifest.utf8))
        #expect(bytes.firstRange(of: atom) != nil, "the stem atom is no longer there byte for byte")
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "A title beside the stems")
        #expect(reread.metadata.items.filter { $0.key == "stem" }.map(\.value) == [.string(Self.manifest)])
    }

    @Test func rewrittenOrDroppedWhenTheItemChanges() async throws {
        let url = try B.write(Self.file())
        defer { try? FileManager.default.removeItem(at: url) }
        var item = try await MediaItem.loaded(url)
        let index = try #require(item.metadata.items.firstIndex { $0.key == "stem" })
        item.metadata.items[index].value = .string(#"{"stems":[],"version":1}"#)
        try await item.save(options: Self.fast)
        var reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.items.filter { $0.key == "stem" }.map(\.value) == [.string(#"{"stems":[],"version":1}"#)])
        #expect([UInt8](try Data(contentsOf: url)).firstRange(of: B.box("stem", Array(#"{"stems":[],"version":1}"#.utf8))) != nil)

        reread.metadata.items.removeAll { $0.key == "stem" }
        try await reread.save(options: Self.fast)
        #expect(try await MediaItem.loaded(url).metadata.items.contains { $0.key == "stem" } == false)
        #expect([UInt8](try Data(contentsOf: url)).firstRange(of: Array("stem".utf8)) == nil)
    }

    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func shownByReadItems() throws {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        let url = try B.write(Self.file())
        defer { try? FileManager.default.removeItem(at: url) }
        let table = try TestSupport.runChecked(executable.path, ["read", "--items", url.path]).text
        #expect(table.contains("udta:stem") && table.contains("{\"mastering_dsp\""))
        let json = try TestSupport.runChecked(executable.path, ["read", "--json", "--items", url.path]).text
        #expect(json.contains("\"key\": \"stem\"") && json.contains("Drums"))
    }
}
