import Foundation
import Testing

@testable import MetadataKit

/// Loads randomly damaged copies of a small, fully tagged file of every
/// format family through ``MediaItem/load()``: each load must either throw a
/// ``MediaError`` naming the file, or give an item whose properties,
/// warnings and pictures make sense. The generator is seeded (SplitMix64):
/// the seed is in every failure message, and `MDKIT_TEST_SEED=<n>` replays
/// it. The fuzzers in Fuzz/ go much further; this keeps the basics in
/// every test run.
@Suite struct RandomMutationTests {
    /// `MDKIT_TEST_SEED` (decimal or 0x-hex), else a fixed seed.
    static let seed: UInt64 = {
        guard let text = ProcessInfo.processInfo.environment["MDKIT_TEST_SEED"] else { return 0x6D64_6B69_7446_757A }
        return text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) ?? 0 : UInt64(text) ?? 0
    }()

    /// Damaged copies loaded per family.
    static let mutationsPerFamily = 150

    enum Family: String, CaseIterable, Sendable {
        case mp3, mp4, flac, ogg, wav, aiff

        /// A small file of this family with tags, a picture where the format
        /// holds one, and a little audio.
        var file: [UInt8] {
            switch self {
            case .mp3:
                var tag = ID3Builder(version: 4)
                tag.frames = [
                    ID3Builder.frame("TIT2", ID3Builder.text(["Title"], encoding: 3)),
                    ID3Builder.frame("TPE1", ID3Builder.text(["Björk"], encoding: 1)),
                    ID3Builder.frame("TRCK", ID3Builder.text(["3/12"], encoding: 0)),
                    ID3Builder.frame("COMM", ID3Builder.comment("note")),
                    ID3Builder.frame("APIC", ID3Builder.picture(ID3Builder.tinyPNG)),
                    ID3Builder.frame("TXXX", ID3Builder.text(["K", "V"], encoding: 0)),
                ]
                tag.padding = 16
                return tag.bytes() + ID3Builder.mpegFrames(3) + ID3Builder.id3v1(title: "v1 title", artist: "v1 artist")
            case .mp4:
                typealias M = MP4Builder
                let ilst = M.box(
                    "ilst",
                    children: [
                        M.item("©nam", M.text("Title")),
                        M.item("trkn", M.data(0, [0, 0, 0, 3, 0, 12, 0, 0])),
                        M.item("covr", M.data(14, M.png(width: 2, height: 2))),
                        M.freeform(mean: "com.apple.iTunes", name: "MOOD", M.text("calm")),
                    ])
                let udta = M.box("udta", children: [M.meta(handler: "mdir", [ilst])])
                return M.ftyp() + M.audioMovie(duration: 2, extra: [udta]) + M.box("mdat", [UInt8](repeating: 0x21, count: 64))
            case .flac:
                return FLACOggBuilder.flac(
                    [
                        (4, FLACOggBuilder.comment(["TITLE=Title", "TRACKNUMBER=3"])),
                        (6, FLACOggBuilder.picture()), (1, [UInt8](repeating: 0, count: 8)),
                    ],
                    audio: FLACOggBuilder.fakeAudio(200))
            case .ogg:
                return FLACOggBuilder.oggVorbis(fields: ["TITLE=Title", "ARTIST=Artist"], setupSize: 60, audioPages: 2)
            case .wav:
                return RIFFBuilder.simpleWAV(
                    info: [("INAM", "Title"), ("IART", "Artist")], dataBytes: 64,
                    after: [RIFFBuilder.chunk("id3 ", RIFFBuilder.id3([("TIT2", "Title")]))])
            case .aiff:
                return RIFFBuilder.aiff([
                    RIFFBuilder.comm(frames: 16), RIFFBuilder.text("NAME", "Title"),
                    RIFFBuilder.chunk("ID3 ", RIFFBuilder.id3([("TPE1", "Artist")]), bigEndian: true),
                    RIFFBuilder.ssnd(64),
                ])
            }
        }
    }

    /// `original` with 1–6 bytes changed (a random byte or a boundary value:
    /// sizes and counts live at 0x00/0xFF/0x7F/0x80), and one time in eight
    /// cut short as well.
    static func mutate(_ original: [UInt8], using generator: inout SplitMix64) -> [UInt8] {
        var bytes = original
        for _ in 0..<Int.random(in: 1...6, using: &generator) {
            let index = Int.random(in: 0..<bytes.count, using: &generator)
            bytes[index] =
                Bool.random(using: &generator)
                ? [0x00, 0xFF, 0x7F, 0x80, 0x01][Int.random(in: 0..<5, using: &generator)]
                : UInt8.random(in: 0...255, using: &generator)
        }
        if Int.random(in: 0..<8, using: &generator) == 0 {
            bytes.removeLast(Int.random(in: 1..<bytes.count, using: &generator))
        }
        return bytes
    }

    @Test func familiesLoadUnmutated() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for family in Family.allCases {
            let url = directory.appendingPathComponent("clean.\(family.rawValue)")
            try Data(family.file).write(to: url)
            let item = try await MediaItem.loaded(url)
            #expect(item.fileType?.identifier.isEmpty == false, "\(family)")
            #expect(item.warnings.isEmpty, "\(family): \(item.warnings)")
            #expect(item.metadata.title == "Title", "\(family)")
        }
    }

    @Test(arguments: Family.allCases)
    func randomMutationsFailCleanlyOrReadSanely(family: Family) async throws {
        let original = family.file
        let familySeed = Self.seed ^ UInt64(Family.allCases.firstIndex(of: family)! + 1) &* 0x1000_0000_01B3
        var generator = SplitMix64(state: familySeed)
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("mutated.\(family.rawValue)")
        var outcomes: [String: Int] = [:]
        for round in 0..<Self.mutationsPerFamily {
            let bytes = Self.mutate(original, using: &generator)
            try Data(bytes).write(to: url)
            let context = "MDKIT_TEST_SEED=\(Self.seed) family \(family) round \(round)"
            var item = MediaItem(url: url)
            do {
                try await item.load()
                outcomes["read", default: 0] += 1
            } catch {
                outcomes[error.code.rawValue, default: 0] += 1
                #expect(error.path == url.path, "\(context)")
                #expect(!item.isLoaded, "\(context)")
                continue
            }
            await Self.checkSane(item, fileSize: bytes.count, context)
        }
        // The mutations must reach both outcomes, or they test nothing.
        #expect(outcomes["read", default: 0] > 0, "\(family): \(outcomes)")
        #expect(outcomes.count > 1, "\(family): \(outcomes)")
    }

    /// What a loaded item promises whatever its file looked like.
    static func checkSane(_ item: MediaItem, fileSize: Int, _ context: String) async {
        #expect(item.isLoaded, "\(context)")
        let properties = item.properties
        if let duration = properties.duration {
            #expect(duration.isFinite && duration >= 0, "duration \(duration); \(context)")
        }
        for (name, value) in [
            ("bitrate", properties.bitrate), ("sampleRate", properties.sampleRate),
            ("channels", properties.channels), ("bitsPerSample", properties.bitsPerSample),
            ("width", properties.width), ("height", properties.height),
        ] {
            if let value { #expect(value >= 0, "\(name) \(value); \(context)") }
        }
        for warning in item.warnings {
            if let offset = warning.offset { #expect((0...Int64(fileSize)).contains(offset), "\(warning); \(context)") }
        }
        for picture in item.metadata.artwork {
            #expect(picture.byteCount >= 0 && picture.byteCount <= fileSize, "picture of \(picture.byteCount) bytes; \(context)")
            do {
                #expect(try await picture.data().count == picture.byteCount, "\(context)")
            } catch {
                // data() throws only MediaError (typed throws): a damaged picture may fail cleanly.
            }
        }
        for field in MetadataField.allCases { _ = item.metadata[field] }
    }
}
