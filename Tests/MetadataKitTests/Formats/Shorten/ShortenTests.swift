import Foundation
import Testing

@testable import MetadataKit

/// Shorten: properties from the embedded WAV header, the ID3 and APE tags a
/// file may carry, read-only. The fixture was encoded by
/// Tests/Tools/make-shorten-fixture.py (0.1 s of 16-bit stereo at 44.1 kHz);
/// ffmpeg's decoder is the independent reader.
@Suite struct ShortenTests {
    static let fixture = TestSupport.fixtures.appendingPathComponent("valid/sample.shn")
    static let fast = SaveOptions(durability: .noSync)

    @Test func readsTheEmbeddedHeader() async throws {
        let item = try await MediaItem.loaded(Self.fixture)
        #expect(item.format?.identifier == "shorten" && item.fileType == .shorten)
        #expect(!item.isEditable && item.warnings.isEmpty && item.metadata.items.isEmpty)
        let p = item.properties
        #expect(p.codec == "Shorten" && p.sampleRate == 44100 && p.channels == 2 && p.bitsPerSample == 16)
        #expect(p.duration == 0.1)
    }

    /// ffmpeg decodes the fixture to as many frames as the header says, at its rate and channels.
    @Test(.enabled(if: TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("ffprobe"), "needs ffmpeg and ffprobe"))
    func ffmpegDecodesWhatTheHeaderSays() async throws {
        let item = try await MediaItem.loaded(Self.fixture)
        let pcm = try TestSupport.runChecked("ffmpeg", ["-v", "error", "-i", Self.fixture.path, "-f", "s16le", "-"]).standardOutput
        let channels = try #require(item.properties.channels), rate = try #require(item.properties.sampleRate)
        #expect(Double(pcm.count / (2 * channels)) / Double(rate) == item.properties.duration)
        let probe = try TestSupport.runChecked(
            "ffprobe", ["-v", "error", "-show_streams", "-of", "json", Self.fixture.path]
        ).standardOutput
        let json = try #require(try JSONSerialization.jsonObject(with: probe) as? [String: Any])
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        #expect(stream["codec_name"] as? String == "shorten")
        #expect(stream["sample_rate"] as? String == String(rate) && stream["channels"] as? Int == channels)
    }

    /// mutagen adds an APEv2 tag at the end and an ID3v2 tag at the start:
    /// both are read, the properties stay, and ffmpeg still decodes the file.
    @Test(.enabled(if: TestSupport.hasPythonModule("mutagen") && TestSupport.hasTool("ffprobe"), "needs mutagen and ffprobe"))
    func readsTheTagsMutagenAdds() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("tagged.shn")
        try FileManager.default.copyItem(at: Self.fixture, to: url)
        let script = """
            import sys
            from mutagen.apev2 import APEv2
            from mutagen.id3 import ID3, TIT2
            ape = APEv2(); ape['Title'] = 'APE title'; ape['Artist'] = 'APE artist'; ape.save(sys.argv[1])
            id3 = ID3(); id3.add(TIT2(encoding=3, text='ID3 title')); id3.save(sys.argv[1])
            """
        try TestSupport.runChecked("python3", ["-c", script, url.path])
        let item = try await MediaItem.loaded(url)
        #expect(item.format?.identifier == "shorten" && item.warnings.isEmpty)
        #expect(item.metadata.items.contains { $0.keySpace == .id3 && $0.key == "TIT2" && $0.value == .string("ID3 title") })
        #expect(item.metadata.items.contains { $0.keySpace == .ape && $0.key == "TITLE" && $0.value == .string("APE title") })
        #expect(item.metadata.artist == "APE artist")
        #expect(item.properties.duration == 0.1 && item.properties.sampleRate == 44100)
        let probe = try TestSupport.runChecked("ffprobe", ["-v", "error", "-show_format", "-of", "json", url.path]).standardOutput
        #expect(String(decoding: probe, as: UTF8.self).contains("ID3 title"))

        var edit = item
        edit.metadata.title = "x"
        await #expect(throws: MediaError.self) { try await edit.save(options: Self.fast) }
    }

    @Test func writingIsRefused() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("a.shn")
        try FileManager.default.copyItem(at: Self.fixture, to: url)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "New"
        await #expect {
            try await item.save(options: Self.fast)
        } throws: { error in
            (error as? MediaError)?.code == .unsupportedFeature && "\(error)".contains("Shorten")
        }
        #expect(try Data(contentsOf: url) == Data(contentsOf: Self.fixture))
    }

    static func parse(_ bytes: [UInt8]) -> Result<ParsedFile, Error> {
        Result {
            let source = FileSource(bytes: bytes, path: "x.shn")
            let url = URL(fileURLWithPath: "x.shn")
            let format = try MediaFormat.detect(source, url: url)
            guard format.identifier == "shorten" else { throw MediaError(.unsupportedFormat, "not Shorten") }
            return try format.parse(source, url)
        }
    }

    /// Every prefix: a MediaError, or the properties the header gives (cut
    /// inside the header: what was read and a warning that says where).
    @Test func everyPrefix() throws {
        let bytes = [UInt8](try Data(contentsOf: Self.fixture))
        for length in Array(0..<400) + Array(stride(from: 400, to: bytes.count, by: 7)) {
            switch Self.parse(Array(bytes.prefix(length))) {
            case .failure(let error):
                #expect(error is MediaError, "prefix \(length): \(error)")
                #expect(length < 5, "prefix \(length): \(error)")
            case .success(let parsed):
                #expect(parsed.warnings.allSatisfy { $0.offset != nil }, "prefix \(length)")
                if parsed.properties.sampleRate == nil {
                    #expect(!parsed.warnings.isEmpty, "prefix \(length): no rate and no warning")
                } else {
                    #expect(parsed.properties.duration == 0.1, "prefix \(length)")
                }
            }
        }
    }

    @Test func hostileHeaders() throws {
        let cases: [(String, [UInt8])] = [
            ("version 0", Array("ajkg".utf8) + [0] + [UInt8](repeating: 0xFF, count: 64)),
            ("endless unary run", Array("ajkg".utf8) + [2] + [UInt8](repeating: 0, count: 300_000)),
            ("all ones", Array("ajkg".utf8) + [2] + [UInt8](repeating: 0xFF, count: 4096)),
            // Six ulongs of 0 (uvar(2) = 0 → "1 00", then uvar(0) = "1"), VERBATIM with a
            // length of 2^16 + 1 (unary high part 2048 zeros): refused before it is read.
            (
                "long verbatim",
                Array("ajkg".utf8) + [2]
                    + Self.bits(String(repeating: "1001", count: 6) + "1" + "01" + String(repeating: "0", count: 2049) + "1" + "00001")
            ),
            (
                "verbatim that is no WAV",
                Array("ajkg".utf8) + [2]
                    + Self.bits(
                        String(repeating: "1001", count: 6) + "1" + "01" + "1" + "01100" + String(repeating: "1" + "00000000", count: 12))
            ),
        ]
        for (what, bytes) in cases {
            let start = Date()
            switch Self.parse(bytes) {
            case .failure(let error): #expect(error is MediaError, "\(what): \(error)")
            case .success(let parsed):
                #expect(!parsed.warnings.isEmpty && parsed.warnings.allSatisfy { $0.offset != nil }, "\(what)")
                #expect(parsed.properties.sampleRate == nil, "\(what)")
            }
            #expect(Date().timeIntervalSince(start) < 5, "\(what)")
        }
    }

    /// `text`'s 0s and 1s as bytes, padded with zeros.
    static func bits(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8).map { $0 == UInt8(ascii: "1") ? 1 : 0 } + [Int](repeating: 0, count: 8)
        return stride(from: 0, to: digits.count - 8, by: 8).map { index in
            UInt8(digits[index..<index + 8].reduce(0) { $0 << 1 | $1 })
        }
    }
}
