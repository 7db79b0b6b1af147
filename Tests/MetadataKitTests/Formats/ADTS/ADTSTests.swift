import Foundation
import Testing

@testable import MetadataKit

/// Raw AAC (ADTS) and AC-3 streams built frame by frame (headers per
/// ISO/IEC 13818-7 §6.2 and ATSC A/52), for the parsers' unit tests.
enum StreamBuilder {
    /// One ADTS frame of `length` bytes (header included, no CRC), payload zero.
    static func adtsFrame(length: Int = 200, rateIndex: UInt8 = 4, channels: UInt8 = 2, profile: UInt8 = 1, blocks: Int = 1) -> [UInt8] {
        var frame = [UInt8](repeating: 0, count: length)
        frame[0] = 0xFF
        frame[1] = 0xF1 // MPEG-4, layer 0, no CRC
        frame[2] = profile << 6 | rateIndex << 2 | channels >> 2
        frame[3] = (channels & 3) << 6 | UInt8(length >> 11 & 3)
        frame[4] = UInt8(length >> 3 & 0xFF)
        frame[5] = UInt8(length & 7) << 5 | 0x1F
        frame[6] = 0xFC | UInt8(blocks - 1)
        return frame
    }

    /// One AC-3 frame: 48 kHz, `frmsizecod` 16 (128 kbit/s, 512 bytes), bsid 8, `acmod` 7 (3/2) with LFE.
    static func ac3Frame(acmod: UInt8 = 7, lfe: Bool = true) -> [UInt8] {
        var frame = [UInt8](repeating: 0, count: 512)
        frame[0] = 0x0B
        frame[1] = 0x77
        frame[4] = 0 << 6 | 16 // fscod 0 (48 kHz), frmsizecod 16
        frame[5] = 8 << 3 // bsid 8, bsmod 0
        // acmod 3 bits, then cmixlev (acmod odd, not 1), surmixlev (acmod & 4), dsurmod (acmod 2), lfeon.
        var bits: [Int] = (0..<3).map { Int(acmod >> (2 - $0) & 1) }
        if acmod & 1 == 1 && acmod != 1 { bits += [0, 0] }
        if acmod & 4 == 4 { bits += [0, 0] }
        if acmod == 2 { bits += [0, 0] }
        bits.append(lfe ? 1 : 0)
        for (index, bit) in bits.enumerated() where bit == 1 { frame[6 + index / 8] |= 0x80 >> UInt8(index % 8) }
        return frame
    }

    /// One E-AC-3 frame: independent substream 0, 48 kHz, 6 blocks, `acmod` 2, 768 bytes.
    static func eac3Frame(streamType: UInt8 = 0, substream: UInt8 = 0) -> [UInt8] {
        let words = 384
        var frame = [UInt8](repeating: 0, count: words * 2)
        frame[0] = 0x0B
        frame[1] = 0x77
        frame[2] = streamType << 6 | substream << 3 | UInt8((words - 1) >> 8)
        frame[3] = UInt8((words - 1) & 0xFF)
        frame[4] = 0 << 6 | 3 << 4 | 2 << 1 | 0 // fscod 0, numblkscod 3, acmod 2, lfeon 0
        frame[5] = 16 << 3
        return frame
    }

    static func parse(_ bytes: [UInt8], name: String) throws -> ParsedFile { try DSDBuilder.parse(bytes, name: name) }
}

private typealias S = StreamBuilder

@Suite struct ADTSTests {
    /// An ADTS stream (frames as ffmpeg's `-f adts` writes them, built here) whose headers give a
    /// sampling-frequency index ADTS doesn't use is refused with that
    /// reason, not as "no MPEG audio frame".
    @Test func anInvalidSampleRateIndexIsNamed() async throws {
        let frames = (0..<20).flatMap { _ in S.adtsFrame(length: 300, rateIndex: 15, channels: 2, blocks: 1) }
        let url = try DSDBuilder.file(frames, name: "x.aac")
        defer { DSDBuilder.remove(url) }
        let error = await #expect(throws: MediaError.self) { _ = try await MediaItem.loaded(url) }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.reason.contains("sampling-frequency index 15") == true, "\(String(describing: error))")
    }

    @Test func readsFramesAfterAnID3TagAndID3v1() async throws {
        let frames = (0..<100).flatMap { _ in S.adtsFrame(length: 300, rateIndex: 3, channels: 2, blocks: 1) }
        let v1 = Array("TAG".utf8) + Array("V1 Title".utf8) + [UInt8](repeating: 0, count: 125 - 8)
        let bytes = DSDBuilder.id3([("TIT2", "Tïtle")], padding: 20) + frames + v1
        let url = try DSDBuilder.file(bytes, name: "x.aac")
        defer { DSDBuilder.remove(url) }
        let item = try await MediaItem.loaded(url)
        #expect(item.fileType == .aac && item.isEditable && item.warnings.isEmpty)
        let p = item.properties
        #expect(p.codec == "AAC LC" && p.sampleRate == 48_000 && p.channels == 2)
        #expect(p.duration == 100 * 1024 / 48_000.0)
        #expect(p.bitrate == Int((Double(300 * 100 * 8) / (100 * 1024 / 48_000.0)).rounded()))
        #expect(item.metadata.title == "Tïtle")
        #expect(item.metadata.items.contains { $0.keySpace == .id3v1 })
    }

    @Test func detectionNeedsThreeFramesInARow() throws {
        // Two frames then junk: not ADTS (MP3 claims FF F1 by its frame sync and finds nothing).
        let two = S.adtsFrame() + S.adtsFrame() + [UInt8](repeating: 0x55, count: 500)
        #expect(RIFFBuilder.code { try S.parse(two, name: "x.bin") } != nil)
        // A single frame that is the whole file is a stream.
        #expect(try S.parse(S.adtsFrame(), name: "x.bin").fileType == .aac)
        // Random bytes starting with a sync word are not.
        var random = SplitMix64(state: 7)
        let noise = [0xFF, 0xF1] + (0..<4000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        if let parsed = try? S.parse(noise, name: "x.bin") { #expect(parsed.fileType != .aac) }
    }

    @Test func anID3TagIsWrittenInFrontAndTheFramesAreKept() async throws {
        let frames = (0..<50).flatMap { _ in S.adtsFrame(length: 250) }
        let url = try DSDBuilder.file(frames, name: "x.aac")
        defer { DSDBuilder.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Néw"
        try await item.save(options: SaveOptions(durability: .noSync))
        let written = [UInt8](try Data(contentsOf: url))
        #expect(written.starts(with: Array("ID3".utf8)) && Array(written.suffix(frames.count)) == frames)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.fileType == .aac && reread.metadata.title == "Néw" && reread.properties == item.properties)
    }

    @Test func damageInTheMiddleIsEstimatedWithAWarning() throws {
        var bytes = (0..<40).flatMap { _ in S.adtsFrame(length: 256) }
        bytes[20 * 256] = 0 // frame 20 loses its sync
        let parsed = try S.parse(bytes, name: "x.aac")
        #expect(parsed.warnings.count == 1 && parsed.warnings[0].offset == 20 * 256)
        #expect(abs((parsed.properties.duration ?? 0) - 40 * 1024 / 44_100.0) < 1e-9)
    }

    /// Every prefix loads or fails with a MediaError; a prefix is ADTS
    /// when its frames are whole or at least three are.
    @Test func everyPrefix() throws {
        let tag = DSDBuilder.id3([("TIT2", "T")])
        let whole = tag + (0..<4).flatMap { _ in S.adtsFrame(length: 64) }
        for length in 0..<whole.count {
            let prefix = Array(whole.prefix(length))
            do {
                let parsed = try S.parse(prefix, name: "x.aac")
                // Three whole frames, or whole frames up to the end: ADTS (else the ID3 tag makes it MP3).
                let audio = length - tag.count
                if audio >= 3 * 64 || (audio > 0 && audio % 64 == 0) {
                    #expect(parsed.fileType == .aac, "prefix of \(length) bytes")
                }
            } catch is MediaError {} catch {
                Issue.record("prefix of \(length) bytes: \(error)")
            }
        }
    }

    @Test func seededRandomDamage() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(state: seed)
        let whole = DSDBuilder.id3([("TIT2", "T")]) + (0..<20).flatMap { _ in S.adtsFrame(length: 64) }
        for _ in 0..<300 {
            var bytes = whole
            for _ in 0..<6 {
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            do { _ = try S.parse(bytes, name: "x.aac") } catch is MediaError {} catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }
}
