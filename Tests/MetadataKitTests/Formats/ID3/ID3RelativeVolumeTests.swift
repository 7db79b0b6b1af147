import Foundation
import Testing

@testable import MetadataKit

private typealias B = ID3Builder

/// ID3v2.4 `RVA2` frames (ID3v2.4.0 frames §4.11) as ReplayGain: the frame
/// parser on built, cut and hostile payloads, and the fields a file shows.
@Suite struct ID3RelativeVolumeTests {
    /// An `RVA2` payload: the identification, then per entry its type, gain
    /// in 1/512 dB, peak bit count and peak bytes.
    static func payload(_ identification: String, _ entries: [(type: UInt8, steps: Int16, bits: UInt8, peak: [UInt8])]) -> [UInt8] {
        var bytes = Array(identification.utf8) + [0]
        for entry in entries {
            let raw = UInt16(bitPattern: entry.steps)
            bytes += [entry.type, UInt8(raw >> 8), UInt8(raw & 0xFF), entry.bits] + entry.peak
        }
        return bytes
    }

    /// -6.5 dB (−3328 steps), peak 0x7D70 of 16 bits on the master volume, after a front-left entry.
    static let track = payload("track", [(3, 512, 8, [0x40]), (1, -3328, 16, [0x7D, 0x70])])

    @Test func readsTheMasterVolumeEntry() throws {
        let frame = try #require(ID3RelativeVolume(parsing: Self.track))
        #expect(frame.identification == "track" && frame.channels.count == 2 && frame.trailing.isEmpty)
        #expect(frame.master?.gain == -6.5 && frame.gainText == "-6.50 dB")
        #expect(frame.peakText == String(format: "%.6f", Double(0x7D70) / 32768))
        #expect(frame.payload == Self.track, "re-encodes byte for byte")
        #expect(ID3RelativeVolume.gainText(1.25) == "+1.25 dB" && ID3RelativeVolume.gainText(0) == "+0.00 dB")
        #expect(ID3RelativeVolume.gain(fromText: " -6.50 dB") == -6.5 && ID3RelativeVolume.gain(fromText: "+3 db") == 3)
        #expect(ID3RelativeVolume.gain(fromText: "loud") == nil && ID3RelativeVolume.gain(fromText: "nan dB") == nil)
        // No master volume: no ReplayGain.
        let noMaster = try #require(ID3RelativeVolume(parsing: Self.payload("track", [(2, 100, 0, [])])))
        #expect(noMaster.gainText == nil && noMaster.peakText == nil && noMaster.settingGain(1) == nil)
    }

    @Test func updatesTheMasterVolumeInPlace() throws {
        let frame = try #require(ID3RelativeVolume(parsing: Self.track))
        let louder = try #require(frame.settingGain(-4.25))
        #expect(louder.gainText == "-4.25 dB" && louder.peakText == frame.peakText)
        #expect(louder.channels[0] == frame.channels[0], "other channels are kept")
        let peaked = try #require(frame.settingPeak(0.5))
        #expect(peaked.peakText == "0.500000" && peaked.gainText == "-6.50 dB")
        #expect(Array(peaked.payload.suffix(3)) == [16, 0x40, 0x00])
        #expect(frame.settingGain(64) == nil && frame.settingGain(-64)?.gainText == "-64.00 dB")
        #expect(frame.settingPeak(-0.1) == nil && frame.settingPeak(2) == nil)
    }

    @Test func peakBitCounts() throws {
        // 0 bits: no peak bytes and no peak.
        let none = try #require(ID3RelativeVolume(parsing: Self.payload("album", [(1, 256, 0, [])])))
        #expect(none.gainText == "+0.50 dB" && none.peakText == nil && none.trailing.isEmpty)
        // 255 bits take 32 bytes; full scale at 2^254.
        let wide = try #require(ID3RelativeVolume(parsing: Self.payload("album", [(1, 0, 255, [0x40] + Array(repeating: 0, count: 31))])))
        #expect(wide.channels.count == 1 && wide.peakText == "1.000000")
        // 9 bits take 2 bytes.
        let nine = try #require(ID3RelativeVolume(parsing: Self.payload("album", [(1, 0, 9, [0x01, 0x00]), (1, 0, 0, [])])))
        #expect(nine.channels.count == 2 && nine.peakText == "1.000000")
        // Claimed 255 bits with 3 bytes left: the entry is cut short, its bytes kept.
        let cut = try #require(ID3RelativeVolume(parsing: Self.payload("album", [(1, 0, 255, [1, 2, 3])])))
        #expect(cut.channels.isEmpty && cut.trailing.count == 7 && cut.gainText == nil)
        #expect(cut.payload == Self.payload("album", [(1, 0, 255, [1, 2, 3])]))
        // Empty identification.
        let empty = try #require(ID3RelativeVolume(parsing: Self.payload("", [(1, -512, 16, [0x80, 0x00])])))
        #expect(empty.identification == "" && empty.gainText == "-1.00 dB" && empty.peakText == "1.000000")
        #expect(ID3RelativeVolume.item(id: "RVA2", payload: empty.payload)?.key == "RVA2:")
    }

    @Test func everyPrefixParsesWhatIsThere() throws {
        let full = Self.payload("track", [(1, -3328, 16, [0x7D, 0x70]), (8, 77, 24, [1, 2, 3]), (2, -1, 0, [])])
        var previous = 0
        for length in 0...full.count {
            let prefix = Array(full[0..<length])
            guard let frame = ID3RelativeVolume(parsing: prefix) else {
                #expect(length < 6, "only a prefix without the identification's terminator fails (\(length))")
                continue
            }
            #expect(frame.payload == prefix, "prefix \(length) re-encodes byte for byte")
            #expect(frame.channels.count >= previous && frame.channels.count <= 3)
            previous = frame.channels.count
            let expected = length >= 12 ? "-6.50 dB" : nil
            #expect(frame.gainText == expected, "prefix \(length)")
        }
        #expect(previous == 3)
    }

    @Test func randomPayloadsNeverCrash() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(state: seed)
        for _ in 0..<3000 {
            let count = Int.random(in: 0...80, using: &random)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            if Bool.random(using: &random), !bytes.isEmpty { bytes[Int.random(in: 0..<bytes.count, using: &random)] = 0 }
            guard let frame = ID3RelativeVolume(parsing: bytes) else {
                #expect(!bytes.contains(0), "seed \(seed)")
                continue
            }
            #expect(frame.payload == bytes, "seed \(seed): parse and encode are inverse")
            _ = (frame.gainText, frame.peakText, frame.settingGain(1.5)?.payload, frame.settingPeak(0.25)?.payload)
            let item = try #require(ID3RelativeVolume.item(id: "RVA2", payload: bytes))
            let metadata = Metadata(items: [
                MetadataItem(keySpace: .id3, key: "RVA2:track", value: item.value, dataType: .binary)
            ])
            #expect(metadata.replayGainTrackGain == frame.gainText, "seed \(seed)")
        }
    }

    @Test func filesShowRVA2AsReplayGainAndTXXXWins() async throws {
        var tag = B(version: 4)
        tag.frames = [
            B.frame("TIT2", B.text(["Title"], encoding: 0)),
            B.frame("RVA2", Self.track),
            B.frame("RVA2", Self.payload("ALBUM", [(1, 640, 16, [0x40, 0x00])])),
            B.frame("RVA2", Self.payload("other", [(1, 1024, 0, [])])),
        ]
        let item = try await B.load(tag.bytes() + B.mpegFrames(3))
        let metadata = item.metadata
        #expect(metadata.replayGainTrackGain == "-6.50 dB")
        #expect(metadata.replayGainTrackPeak == String(format: "%.6f", Double(0x7D70) / 32768))
        #expect(metadata.replayGainAlbumGain == "+1.25 dB" && metadata.replayGainAlbumPeak == "0.500000")
        #expect(item.item("RVA2:track")?.value == .data(Data(Self.track)), "the raw item is the payload")
        #expect(item.item("RVA2:other") != nil && item.warnings.isEmpty)

        tag.frames.insert(B.frame("TXXX", B.text(["REPLAYGAIN_TRACK_GAIN", "-3.00 dB"], encoding: 0)), at: 1)
        let both = try await B.load(tag.bytes() + B.mpegFrames(3))
        #expect(both.metadata.replayGainTrackGain == "-3.00 dB", "TXXX wins over RVA2")
        #expect(both.metadata.replayGainTrackPeak == metadata.replayGainTrackPeak, "the peak still comes from RVA2")
    }

    @Test func hostileFramesInAFileNeverCrash() async throws {
        var tag = B(version: 4)
        tag.frames = [
            B.frame("RVA2", []), B.frame("RVA2", Array("track".utf8)), B.frame("RVA2", [0]),
            B.frame("RVA2", Self.payload("track", [(1, 0, 255, [])])),
            B.frame("RVA2", Self.payload("album", [(1, Int16.min, 255, Array(repeating: 0xFF, count: 32))])),
            B.frame("TIT2", B.text(["After"], encoding: 0)),
        ]
        let item = try await B.load(tag.bytes() + B.mpegFrames(3))
        #expect(item.metadata.title == "After")
        #expect(item.metadata.replayGainTrackGain == nil, "a cut entry gives nothing")
        #expect(item.metadata.replayGainAlbumGain == "-64.00 dB" && item.metadata.replayGainAlbumPeak != nil)
        let plain = item.metadata.items.filter { $0.key == "RVA2" }.map(\.value)
        #expect(plain == [.data(Data()), .data(Data("track".utf8))], "no terminator: kept as plain binary items")
        #expect(item.item("RVA2:")?.value == .data(Data([0])))
    }

    /// An unrelated change keeps the RVA2 frames byte for byte.
    @Test func untouchedFramesAreKeptByteForByte() async throws {
        var tag = B(version: 4)
        let album = Self.payload("album", [(1, 640, 16, [0x40, 0x00])])
        tag.frames = [B.frame("TIT2", B.text(["Title"], encoding: 0)), B.frame("RVA2", Self.track), B.frame("RVA2", album)]
        tag.padding = 64
        let url = try B.file(tag.bytes() + B.mpegFrames(3))
        defer { try? FileManager.default.removeItem(at: url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Changed"
        try await item.save(options: SaveOptions(durability: .noSync))
        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(ID3WriterTests.contains(bytes, B.frame("RVA2", Self.track)) && ID3WriterTests.contains(bytes, B.frame("RVA2", album)))
        let reloaded = try await MediaItem.loaded(url)
        #expect(reloaded.metadata.title == "Changed" && reloaded.metadata.replayGainTrackGain == "-6.50 dB")
    }
}
