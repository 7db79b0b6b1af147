import Foundation
import Testing

@testable import MetadataKit

/// ID3 `SYLT` frames and LRC text: every timestamp format and content type,
/// every encoding, truncated and hostile payloads, exact LRC round trips.
@Suite struct SynchronizedLyricsTests {
    /// A `SYLT` payload built by hand from ID3v2.4.0 frames §4.9.
    static func payload(encoding: UInt8, format: UInt8, type: UInt8, entries: [(String, UInt32)], description: String = "d") -> [UInt8] {
        func text(_ string: String) -> [UInt8] {
            switch encoding {
            case 1: return [0xFF, 0xFE] + string.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } + [0, 0]
            case 2: return string.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } + [0, 0]
            case 3: return Array(string.utf8) + [0]
            default: return string.unicodeScalars.map { UInt8($0.value) } + [0]
            }
        }
        var bytes: [UInt8] = [encoding] + Array("deu".utf8) + [format, type] + text(description)
        for (string, time) in entries {
            bytes += text(string) + [UInt8(time >> 24), UInt8(time >> 16 & 0xFF), UInt8(time >> 8 & 0xFF), UInt8(time & 0xFF)]
        }
        return bytes
    }

    @Test(arguments: [UInt8(0), 1, 2, 3])
    func decodesEveryEncodingTimestampFormatAndContentType(_ encoding: UInt8) throws {
        let text = encoding == 0 ? "Zeile ü" : "Zeile ü 日本"
        for format: UInt8 in [1, 2] {
            for type: UInt8 in 0...8 {
                let bytes = Self.payload(encoding: encoding, format: format, type: type, entries: [(text, 1500), ("b", 0x0102_0304)])
                let lyrics = try #require(SynchronizedLyrics(parsing: bytes))
                #expect(lyrics.language == "deu" && lyrics.description == "d" && lyrics.contentType == type)
                #expect(lyrics.timestampFormat == format)
                #expect(lyrics.entries == [.init(timestamp: 1500, text: text), .init(timestamp: 0x0102_0304, text: "b")])
                if format == 2 {
                    #expect(lyrics.timedLines()?.first == TimedLyricLine(time: 1.5, text: text))
                } else {
                    #expect(lyrics.timedLines() == nil, "MPEG frames need the frame duration")
                    #expect(lyrics.timedLines(secondsPerFrame: 0.5)?.first?.time == 750)
                }
                // Built again, it decodes to the same (v2.4; v2.3 for the encodings it has).
                for version: UInt8 in [3, 4] {
                    #expect(SynchronizedLyrics(parsing: lyrics.payload(version: version)) == lyrics, "v2.\(version)")
                }
            }
        }
    }

    @Test func truncatedAndHostilePayloadsNeverCrash() {
        let seed = UInt64.random(in: 0..<UInt64.max)
        var random = SplitMix64(state: seed)
        let whole = Self.payload(encoding: 1, format: 2, type: 1, entries: [("one", 10), ("two", 20), ("three", 30)])
        for count in 0...whole.count {
            let lyrics = SynchronizedLyrics(parsing: Array(whole.prefix(count)))
            #expect((lyrics?.entries.count ?? 0) <= 3, "prefix \(count)")
            if count < 7 { #expect(lyrics == nil, "prefix \(count): no header") }
        }
        for _ in 0..<2000 {
            var bytes = whole
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if let lyrics = SynchronizedLyrics(parsing: bytes) {
                #expect(lyrics.entries.count <= bytes.count / 5, "seed \(seed)")
            }
        }
        #expect(SynchronizedLyrics(parsing: [9, 0x65, 0x6E, 0x67, 2, 1, 0]) == nil, "unknown encoding")
    }

    @Test func aLyricsFrameSurvivesASaveInBothVersions() async throws {
        for version in [SaveOptions.ID3v2Version.v2_3, .v2_4] {
            let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent("a.mp3")
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.mp3"), to: url)
            var item = try await MediaItem.loaded(url)
            let lrc = try #require(LRCLyrics(parsing: "[00:00.10]日本 one\n[00:00.90]two\n"))
            try item.setTimedLyrics(lrc)
            try await item.save(options: SaveOptions(id3v2Version: version, durability: .noSync))
            let reread = try await MediaItem.loaded(url)
            #expect(reread.lrcLyrics?.text == lrc.text, "\(version)")
            #expect(reread.metadata.lyrics == "日本 one\ntwo")
        }
    }

    @Test func lrcRoundTripsExactly() throws {
        for text in [
            "[ti:Title]\n[ar:Artist]\n\n[00:01.00]one\n[00:02.50]two ü\n[10:59.99]last\n",
            "[00:00.000]milliseconds\r\n[00:01.234]kept\r\n",
            "[00:05.10]no final newline",
        ] {
            let lrc = try #require(LRCLyrics(parsing: text))
            #expect(lrc.text == text)
        }
        let several = try #require(LRCLyrics(parsing: "[00:01.00][00:30.00]chorus\n"))
        #expect(several.timedLines == [TimedLyricLine(time: 1, text: "chorus"), TimedLyricLine(time: 30, text: "chorus")])
        #expect(LRCLyrics(parsing: "plain words\n[not a time]\n") == nil)
        #expect(LRCLyrics(parsing: "[00:61.00]bad seconds\n") == nil)
        let made = LRCLyrics(lines: [TimedLyricLine(time: 1.5, text: "a"), TimedLyricLine(time: 61.25, text: "b")])
        #expect(made.text == "[00:01.50]a\n[01:01.25]b\n")
        #expect(LRCLyrics(lines: [TimedLyricLine(time: 0.001, text: "x")]).text == "[00:00.001]x\n")
    }
}
