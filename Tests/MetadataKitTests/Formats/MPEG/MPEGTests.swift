import Foundation
import Testing

@testable import MetadataKit

private typealias B = ID3Builder

@Suite struct MPEGTests {
    /// `count` frames with header `header`, zero-filled to the header's length.
    private func frames(_ header: [UInt8], _ count: Int) throws -> [UInt8] {
        let parsed = try #require(MPEGFrameHeader(header[...]))
        var frame = [UInt8](repeating: 0, count: parsed.frameLength)
        frame.replaceSubrange(0..<4, with: header)
        return Array([[UInt8]](repeating: frame, count: count).joined())
    }

    @Test func headerTables() throws {
        let mp3 = try #require(MPEGFrameHeader(0xFFFB_9000))
        #expect(mp3.version == .mpeg1 && mp3.layer == 3)
        #expect(mp3.bitrate == 128_000 && mp3.sampleRate == 44_100)
        #expect(mp3.frameLength == 417 && mp3.samplesPerFrame == 1152 && mp3.channels == 2)
        let padded = try #require(MPEGFrameHeader(0xFFFB_9200))
        #expect(padded.frameLength == 418)
        let mpeg2 = try #require(MPEGFrameHeader(0xFFF3_80C0)) // MPEG-2 L3 64k 22.05 kHz mono
        #expect(mpeg2.version == .mpeg2 && mpeg2.bitrate == 64_000 && mpeg2.sampleRate == 22_050)
        #expect(mpeg2.frameLength == 208 && mpeg2.samplesPerFrame == 576 && mpeg2.channels == 1)
        let mpeg25 = try #require(MPEGFrameHeader(0xFFE3_8000)) // MPEG-2.5 L3 64k 11.025 kHz
        #expect(mpeg25.version == .mpeg25 && mpeg25.sampleRate == 11_025 && mpeg25.frameLength == 417)
        let layer2 = try #require(MPEGFrameHeader(0xFFFD_A400)) // MPEG-1 L2 192k 48 kHz
        #expect(layer2.codec == "MP2" && layer2.frameLength == 576 && layer2.samplesPerFrame == 1152)
        let layer1 = try #require(MPEGFrameHeader(0xFFFF_9000)) // MPEG-1 L1 288k 44.1 kHz
        #expect(layer1.codec == "MP1" && layer1.bitrate == 288_000 && layer1.frameLength == (12 * 288_000 / 44_100) * 4)
        #expect(MPEGFrameHeader(0xFFFB_0000) == nil) // free format
        #expect(MPEGFrameHeader(0xFFFB_F000) == nil) // bad bitrate
        #expect(MPEGFrameHeader(0xFFFB_9C00) == nil) // reserved sample rate
        #expect(MPEGFrameHeader(0xFFEB_9000) == nil) // reserved version
        #expect(MPEGFrameHeader(0xFFF9_9000) == nil) // reserved layer
    }

    @Test func cbrStreamDurationFromAudioBytes() async throws {
        var tag = B(version: 3)
        tag.frames = [B.frame("TIT2", B.text(["cbr"], encoding: 0), version: 3)]
        let item = try await B.load(tag.bytes() + B.mpegFrames(10) + B.id3v1(title: "x"))
        #expect(item.properties.codec == "MP3")
        #expect(item.properties.sampleRate == 44_100)
        #expect(item.properties.channels == 2)
        #expect(item.properties.bitrate == 128_000)
        // 10 × 417 bytes × 8 / 128 000 = 0.260625 s
        #expect(item.properties.duration == 0.260625)
    }

    @Test func xingHeaderGivesVBRDurationAndBitrate() throws {
        let parsed = try B.parse(B.xingStream(frames: 100, bytes: 50_000))
        // 100 × 1152 / 44 100 = 2.612244… s; 50 000 × 8 / that = 153 125 bit/s
        #expect(abs(parsed.properties.duration! - 115_200.0 / 44_100) < 1e-9)
        #expect(parsed.properties.bitrate == 153_125)
    }

    @Test func infoHeaderKeepsTheHeaderBitrate() throws {
        let parsed = try B.parse(B.xingStream(frames: 100, bytes: 41_700, tag: "Info"))
        #expect(abs(parsed.properties.duration! - 115_200.0 / 44_100) < 1e-9)
        #expect(parsed.properties.bitrate == 128_000)
    }

    @Test func xingWithoutBytesUsesTheAudioRange() throws {
        var stream = B.mpegFrames(6)
        stream.replaceSubrange(36..<48, with: Array("Xing".utf8) + B.be32(1) + B.be32(6))
        let parsed = try B.parse(stream)
        let duration = 6 * 1152.0 / 44_100
        #expect(abs(parsed.properties.duration! - duration) < 1e-9)
        #expect(parsed.properties.bitrate == Int((Double(6 * 417) * 8 / duration).rounded()))
    }

    @Test func vbriHeader() throws {
        var stream = B.mpegFrames(6)
        let vbri = Array("VBRI".utf8) + [0, 1, 0, 0, 0, 50] + B.be32(88_200) + B.be32(441)
        stream.replaceSubrange(36..<36 + vbri.count, with: vbri)
        let parsed = try B.parse(stream)
        // 441 × 1152 / 44 100 = 11.52 s; 88 200 × 8 / 11.52 = 61 250 bit/s
        #expect(abs(parsed.properties.duration! - 11.52) < 1e-9)
        #expect(parsed.properties.bitrate == 61_250)
    }

    @Test func mpeg2LayerIIIMono() throws {
        let stream = try frames([0xFF, 0xF3, 0x80, 0xC0], 20)
        let properties = try B.parse(stream).properties
        #expect(properties.sampleRate == 22_050 && properties.channels == 1 && properties.bitrate == 64_000)
        #expect(properties.duration == Double(20 * 208) * 8 / 64_000)
    }

    @Test func layerIIStream() throws {
        let properties = try B.parse(try frames([0xFF, 0xFD, 0xA4, 0x00], 5)).properties
        #expect(properties.codec == "MP2" && properties.sampleRate == 48_000)
        #expect(properties.duration == Double(5 * 576) * 8 / 192_000)
    }

    @Test func falseSyncInJunkIsSkipped() throws {
        var tag = B(version: 4)
        tag.frames = [B.frame("TIT2", B.text(["junk"], encoding: 0))]
        // A valid-looking header in junk whose successor is not a frame.
        let junk: [UInt8] = [0xFF, 0xFB, 0x90, 0x00] + [UInt8](repeating: 0x11, count: 96)
        let audio = B.mpegFrames(8)
        let parsed = try B.parse(tag.bytes() + junk + audio)
        #expect(parsed.properties.duration == Double(audio.count) * 8 / 128_000)
    }

    @Test func tagWithoutAudioGivesEmptyProperties() async throws {
        var tag = B(version: 4)
        tag.frames = [B.frame("TIT2", B.text(["silence"], encoding: 0))]
        let item = try await B.load(tag.bytes() + [UInt8](repeating: 0, count: 300))
        #expect(item.metadata.title == "silence")
        #expect(item.properties == MediaProperties())
    }

    @Test func noTagAndNoAudioIsUnsupported() async throws {
        let error = await #expect(throws: MediaError.self) {
            _ = try await B.load([UInt8](repeating: 0x42, count: 500))
        }
        #expect(error?.code == .unsupportedFormat)
    }

    @Test func bareMPEGStreamWithoutTags() async throws {
        let item = try await B.load(B.mpegFrames(3))
        #expect(item.metadata.items.isEmpty)
        #expect(item.properties.codec == "MP3")
    }
}
