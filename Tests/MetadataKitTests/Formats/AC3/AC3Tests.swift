import Foundation
import Testing

@testable import MetadataKit

private typealias S = StreamBuilder

@Suite struct AC3Tests {
    @Test(arguments: [(7, true, 6), (2, false, 2), (1, false, 1), (0, true, 3), (4, false, 3), (6, true, 5)] as [(UInt8, Bool, Int)])
    func channelsFromAcmodAndLFE(acmod: UInt8, lfe: Bool, channels: Int) throws {
        let bytes = (0..<10).flatMap { _ in S.ac3Frame(acmod: acmod, lfe: lfe) }
        let parsed = try S.parse(bytes, name: "x.ac3")
        #expect(parsed.fileType == .ac3 && parsed.properties.codec == "AC-3")
        #expect(parsed.properties.channels == channels && parsed.properties.sampleRate == 48_000)
        #expect(parsed.properties.duration == 10 * 1536 / 48_000.0 && parsed.properties.bitrate == 128_000)
    }

    @Test func eac3CountsOnlyTheIndependentSubstream() throws {
        let bytes = (0..<12).flatMap { _ in S.eac3Frame() + S.eac3Frame(streamType: 1) }
        let parsed = try S.parse(DSDBuilder.id3([("TIT2", "E")]) + bytes, name: "x.eac3")
        #expect(parsed.fileType == .eac3 && parsed.properties.codec == "E-AC-3" && parsed.properties.channels == 2)
        #expect(parsed.properties.duration == 12 * 1536 / 48_000.0)
        #expect(parsed.items.count == 1)
    }

    @Test func framesWithImpossibleFieldsAreNoStream() throws {
        var bad = S.ac3Frame()
        bad[4] = 3 << 6 | 16 // fscod 3 is reserved
        #expect(RIFFBuilder.code { try S.parse((0..<4).flatMap { _ in bad }, name: "x.bin") } != nil)
        var code = S.ac3Frame()
        code[4] = 40 // frmsizecod 40 does not exist
        #expect(RIFFBuilder.code { try S.parse((0..<4).flatMap { _ in code }, name: "x.bin") } != nil)
    }

    @Test func everyPrefix() throws {
        let tag = DSDBuilder.id3([("TIT2", "T")])
        let whole = tag + (0..<3).flatMap { _ in S.ac3Frame() }
        for length in stride(from: 0, to: whole.count, by: 7) {
            let prefix = Array(whole.prefix(length))
            do { _ = try S.parse(prefix, name: "x.ac3") } catch is MediaError {} catch {
                Issue.record("prefix of \(length) bytes: \(error)")
            }
        }
    }

    /// A file cut anywhere after its first whole frame (inside the next
    /// frame's header or its data) is still a cut AC-3 stream, as mutagen
    /// and ffprobe read it: it was refused when the cut fell in the third frame.
    @Test func everyCutAfterTheFirstFrameIsStillAC3() throws {
        let frame = S.ac3Frame()
        let whole = (0..<4).flatMap { _ in frame }
        for length in stride(from: frame.count + 1, to: whole.count, by: 5) {
            let parsed = try S.parse(Array(whole.prefix(length)), name: "cut.ac3")
            #expect(parsed.fileType == .ac3, "cut at \(length) bytes")
            #expect(parsed.properties.channels == 6, "cut at \(length) bytes")
        }
    }

    @Test func seededRandomDamage() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(state: seed)
        let whole = (0..<6).flatMap { _ in S.ac3Frame() + S.eac3Frame() }
        for _ in 0..<200 {
            var bytes = whole
            for _ in 0..<8 {
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            do { _ = try S.parse(bytes, name: "x.ac3") } catch is MediaError {} catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }
}
