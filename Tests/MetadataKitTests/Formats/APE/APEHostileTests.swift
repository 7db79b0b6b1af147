import Foundation
import Testing

@testable import MetadataKit

/// Cut and hostile APE tags and codec headers: reading never crashes, hangs
/// or refuses what can be read; a damaged tag is reported with its offset
/// and a save that would lose its bytes is refused before anything is written.
@Suite struct APEHostileTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    func write(_ bytes: [UInt8], _ name: String = "a.ofr") throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }

    /// Every prefix of a tagged file loads or fails with a ``MediaError``;
    /// the prefix that ends right after the tag reads every item.
    @Test(arguments: APEBuilder.streams)
    func everyPrefixReadsOrFailsCleanly(stream: APEBuilder.Stream) async throws {
        let tag = APEBuilder.richTag(picture: ID3Builder.tinyPNG)
        let full = stream.bytes + tag + APEBuilder.id3v1(title: "v1")
        let url = directory.appendingPathComponent("cut.\(stream.pathExtension)")
        for length in 0...full.count {
            try Data(full.prefix(length)).write(to: url)
            do {
                let item = try await MediaItem.loaded(url)
                if length == stream.bytes.count + tag.count || length == full.count {
                    #expect(item.metadata.items.filter { $0.keySpace == .ape }.count == 11, "prefix \(length)")
                    #expect(item.warnings.isEmpty, "prefix \(length): \(item.warnings)")
                }
            } catch is MediaError {
                #expect(length < 4, "prefix \(length) of \(stream.name) was refused")
            }
        }
    }

    @Test func itemCountsThatLieAreReadAroundAndFixedBySaving() async throws {
        for count in [0, 1, 1000, Int(UInt32.max)] {
            let items = [APEBuilder.text("Title", "a"), APEBuilder.text("Album", "b")]
            let url = try write(APEBuilder.optimFROG() + APEBuilder.tag(items, count: count))
            var item = try await MediaItem.loaded(url)
            #expect(item.metadata.title == "a" && item.metadata.album == "b")
            #expect(item.warnings.count == 1 && item.isEditable)
            item.metadata.title = "c"
            try await item.save()
            let reread = try await MediaItem.loaded(url)
            #expect(reread.warnings.isEmpty && reread.metadata.album == "b" && reread.metadata.title == "c")
        }
    }

    /// A footer whose size does not fit the file is audio, not a tag: read
    /// with a warning; a save appends a new tag and keeps those bytes.
    @Test(arguments: [UInt32.max, 0, 31, 5000])
    func tagSizesThatDontFitAreNotATag(size: UInt32) async throws {
        let body = APEBuilder.text("Title", "a")
        let broken = APEBuilder.tag([body], size: Int(size))
        let audio = APEBuilder.optimFROG()
        let url = try write(audio + broken)
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.items.isEmpty)
        #expect(item.warnings.count == 1 && item.warnings.first?.offset == Int64(audio.count + broken.count - 32 + 12))
        item.metadata.title = "new"
        try await item.save()
        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(Array(bytes.prefix(audio.count + broken.count)) == audio + broken)
        #expect(try await MediaItem.loaded(url).metadata.title == "new")
    }

    /// Items whose value size or key runs past the tag: the items before
    /// them are read, the damage reported; a save is refused, the file kept.
    @Test(arguments: [0, 1, 2])
    func damagedItemsStopTheReadAndRefuseTheSave(kind: Int) async throws {
        let bad: [UInt8] =
            switch kind {
            case 0: APEBuilder.le32(UInt32.max) + APEBuilder.le32(0) + Array("Album".utf8) + [0] + Array("xyz".utf8)
            case 1: APEBuilder.le32(3) + APEBuilder.le32(0) + Array(String(repeating: "K", count: 300).utf8) + Array("xyz".utf8)
            default: APEBuilder.le32(1) + APEBuilder.le32(0) + [0x41]
            }
        let url = try write(APEBuilder.optimFROG() + APEBuilder.tag([APEBuilder.text("Title", "a"), bad]))
        let original = try Data(contentsOf: url)
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "a")
        #expect(!item.warnings.isEmpty && !item.isEditable)
        #expect(item.warnings.allSatisfy { $0.offset != nil })
        item.metadata.title = "b"
        await #expect(throws: MediaError.self) { try await item.save() }
        #expect(try Data(contentsOf: url) == original)
    }

    /// A 131-byte APE tag puts the "TAG" of its header's "APETAGEX" 128 bytes
    /// from the end: when its footer is damaged, that is not an ID3v1 tag
    /// (mutagen's `find_id3v1` makes the same check), in the APE family and
    /// in MP3; the same bytes after an intact footer are the APE tag.
    @Test(arguments: ["a.ape", "a.mp3"])
    func theTAGOfAnAPEHeaderIsNoID3v1(name: String) async throws {
        let tag = APEBuilder.tag([APEBuilder.text("Title", String(repeating: "t", count: 53))])
        #expect(tag.count == 131)
        let audio = name.hasSuffix(".ape") ? APEBuilder.monkeysAudio() : ID3Builder.mpegFrames(4)
        var damaged = audio + tag
        damaged[damaged.count - 32] = 0x67 // the footer's "APETAGEX" becomes "gPETAGEX"
        let item = try await MediaItem.loaded(try write(damaged, name))
        #expect(!item.metadata.items.contains { $0.keySpace == .id3v1 }, "\(item.metadata.items)")
        #expect(item.metadata.title == nil)
        let intact = try await MediaItem.loaded(try write(audio + tag, "intact-" + name))
        #expect(intact.metadata.title == String(repeating: "t", count: 53))
        #expect(!intact.metadata.items.contains { $0.keySpace == .id3v1 })
    }

    @Test func aMissingHeaderIsReadAround() async throws {
        var tag = APEBuilder.tag([APEBuilder.text("Title", "a")])
        tag.replaceSubrange(0..<8, with: Array("XXXXXXXX".utf8))
        let url = try write(APEBuilder.optimFROG() + tag)
        let item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "a" && item.warnings.count == 1)
    }

    /// Hostile codec headers: sizes and counts at their limits.
    @Test func hostileHeadersGiveWarningsNotCrashes() async throws {
        let hostile: [(String, [UInt8])] = [
            (
                "a.ape",
                Array("MAC ".utf8) + APEBuilder.le16(3990) + APEBuilder.le16(0) + APEBuilder.le32(UInt32.max)
                    + [UInt8](repeating: 0xFF, count: 80)
            ),
            ("a.ape", Array("MAC ".utf8) + APEBuilder.le16(3970) + [UInt8](repeating: 0xFF, count: 40)),
            ("a.tak", Array("tBaK".utf8) + [1, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0xFF, count: 20)),
            ("a.tak", Array("tBaK".utf8) + [1, 2, 0, 0, 0, 0] + [0, 0, 0, 0]),
            ("a.mpc", Array("MPCK".utf8) + Array("SH".utf8) + [UInt8](repeating: 0xFF, count: 20)),
            ("a.mpc", Array("MPCK".utf8) + Array("XX".utf8) + [0x7F] + [UInt8](repeating: 0, count: 20)),
            ("a.mpc", Array("MP+".utf8) + [0x17] + [UInt8](repeating: 0xFF, count: 40)),
            ("a.ofr", Array("OFR ".utf8) + APEBuilder.le32(15) + [UInt8](repeating: 0xFF, count: 40)),
            ("a.tta", Array("TTA1".utf8) + [UInt8](repeating: 0xFF, count: 40)),
            ("a.wv", Array("wvpk".utf8) + APEBuilder.le32(UInt32.max) + [UInt8](repeating: 0xFF, count: 40)),
            ("a.wv", Array("wvpk".utf8) + APEBuilder.le32(24) + [UInt8](repeating: 0xFF, count: 24) + Array("wvpk".utf8) + [0, 0]),
        ]
        for (name, bytes) in hostile {
            let url = try write(bytes, name)
            let item = try await MediaItem.loaded(url)
            #expect(item.format?.extensions.contains(url.pathExtension) == true, "\(name)")
            if let duration = item.properties.duration { #expect(duration.isFinite && duration >= 0) }
        }
    }

    /// Seeded random byte changes in the tag and header: every result loads
    /// or fails with a ``MediaError``; an editable one saves or refuses cleanly.
    @Test func randomMutationsNeverCrash() async throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(state: seed)
        let base = APEBuilder.tak() + APEBuilder.richTag(picture: ID3Builder.tinyPNG)
        let url = directory.appendingPathComponent("m.tak")
        for round in 0..<200 {
            var bytes = base
            for _ in 0..<Int(random.next() % 4 + 1) {
                let position = Int(random.next() % UInt64(bytes.count))
                bytes[position] = UInt8(truncatingIfNeeded: random.next())
            }
            try Data(bytes).write(to: url)
            do {
                var item = try await MediaItem.loaded(url)
                if item.isEditable {
                    item.metadata.title = "mutated \(round)"
                    try await item.save()
                }
            } catch let error as MediaError {
                #expect(
                    [MediaError.Code.unsupportedFormat, .invalidValue, .verificationFailed, .unsupportedFeature].contains(error.code),
                    "seed \(seed), round \(round): \(error)")
            }
        }
    }
}
