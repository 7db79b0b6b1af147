import Foundation
import Testing

@testable import MetadataKit

/// ADIF headers built bit by bit (ISO/IEC 14496-3 §1.A.2.1 `adif_header`,
/// §4.4.1.1 `program_config_element`), written here independently of the
/// reader.
enum ADIFBuilder {
    /// One program config element: `front`, `side` and `back` hold one flag
    /// per element (true: a channel pair); `mixdowns` sets the three mixdown
    /// flags; `comment` goes in the comment field.
    struct Element {
        var objectType = 1
        var rateIndex = 4
        var front: [Bool] = [true]
        var side: [Bool] = []
        var back: [Bool] = []
        var lfe = 0
        var associated = 0
        var coupling = 0
        var mixdowns = false
        var comment = ""
    }

    /// The header: "ADIF", the fields, every element (with a buffer fullness before each at constant rate).
    static func header(bitrate: Int, constantRate: Bool = true, copyright: Bool = false, elements: [Element] = [Element()]) -> [UInt8] {
        var bits: [(value: Int, count: Int)] = []
        func put(_ value: Int, _ count: Int) { bits.append((value, count)) }
        put(copyright ? 1 : 0, 1)
        if copyright { for _ in 0..<9 { put(0xA5, 8) } }
        put(0, 2) // original_copy, home
        put(constantRate ? 0 : 1, 1)
        put(bitrate, 23)
        put(elements.count - 1, 4)
        for element in elements {
            if constantRate { put(0x7FF, 20) }
            put(0, 4) // element_instance_tag
            put(element.objectType, 2)
            put(element.rateIndex, 4)
            put(element.front.count, 4)
            put(element.side.count, 4)
            put(element.back.count, 4)
            put(element.lfe, 2)
            put(element.associated, 3)
            put(element.coupling, 4)
            put(element.mixdowns ? 1 : 0, 1)
            if element.mixdowns { put(3, 4) }
            put(element.mixdowns ? 1 : 0, 1)
            if element.mixdowns { put(5, 4) }
            put(element.mixdowns ? 1 : 0, 1)
            if element.mixdowns {
                put(1, 2)
                put(1, 1)
            }
            for pair in element.front + element.side + element.back {
                put(pair ? 1 : 0, 1)
                put(0, 4)
            }
            for _ in 0..<(element.lfe + element.associated) { put(0, 4) }
            for _ in 0..<element.coupling { put(0, 5) }
            let used = 32 + bits.reduce(0) { $0 + $1.count }
            if used % 8 != 0 { put(0, 8 - used % 8) }
            put(element.comment.utf8.count, 8)
            for byte in element.comment.utf8 { put(Int(byte), 8) }
        }
        var out = Array("ADIF".utf8)
        var accumulator = 0, filled = 0
        for (value, count) in bits {
            for index in stride(from: count - 1, through: 0, by: -1) {
                accumulator = accumulator << 1 | (value >> index & 1)
                filled += 1
                if filled == 8 {
                    out.append(UInt8(accumulator))
                    accumulator = 0
                    filled = 0
                }
            }
        }
        if filled > 0 { out.append(UInt8(accumulator << (8 - filled))) }
        return out
    }

    /// A file: `header`, then `payload` bytes of raw data (a seeded pattern).
    static func file(header: [UInt8], payload: Int) -> [UInt8] {
        header + (0..<payload).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
    }
}

private typealias A = ADIFBuilder

@Suite struct ADIFTests {
    @Test func theFirstElementGivesRateChannelsAndCodec() throws {
        // Front: a single channel element and a pair; a pair at the side; one LFE: 1 + 2 + 2 + 1 channels.
        let element = A.Element(objectType: 1, rateIndex: 4, front: [false, true], side: [true], lfe: 1, comment: "made by hand")
        let header = A.header(bitrate: 96_000, elements: [element])
        let parsed = try StreamBuilder.parse(A.file(header: header, payload: 12_000), name: "x.aac")
        #expect(parsed.fileType == .aac && parsed.warnings.isEmpty && parsed.isEditable)
        let p = parsed.properties
        #expect(p.codec == "AAC LC" && p.sampleRate == 44_100 && p.channels == 6)
        #expect(p.duration == 12_000 * 8 / 96_000.0 && p.bitrate == 96_000)
    }

    /// Variable rate (no buffer fullness), a copyright id, mixdown fields and
    /// a second element with another rate: the first element counts.
    @Test func everyOptionalFieldIsSkipped() throws {
        let first = A.Element(
            objectType: 0, rateIndex: 3, front: [true, true, false], back: [true], lfe: 2, associated: 3, coupling: 2, mixdowns: true)
        let second = A.Element(objectType: 2, rateIndex: 11, front: [false], comment: String(repeating: "c", count: 255))
        let header = A.header(bitrate: 320_000, constantRate: false, copyright: true, elements: [first, second])
        let parsed = try StreamBuilder.parse(A.file(header: header, payload: 40_000), name: "x.aac")
        let p = parsed.properties
        #expect(p.codec == "AAC Main" && p.sampleRate == 48_000 && p.channels == 9)
        #expect(p.duration == 40_000 * 8 / 320_000.0)
        #expect(ADIFHeader(header).map(\.length) == header.count)
    }

    @Test func aRateOrBitRateTheHeaderLacksIsLeftOut() throws {
        let noRate = A.header(bitrate: 64_000, elements: [A.Element(rateIndex: 13)])
        let parsed = try StreamBuilder.parse(A.file(header: noRate, payload: 1000), name: "x.aac")
        #expect(parsed.properties.sampleRate == nil && parsed.properties.channels == 2 && parsed.properties.duration == 0.125)
        let noBitrate = try StreamBuilder.parse(A.file(header: A.header(bitrate: 0), payload: 1000), name: "x.aac")
        #expect(noBitrate.properties.duration == nil && noBitrate.properties.bitrate == nil && noBitrate.properties.sampleRate == 44_100)
    }

    /// Every prefix of a tagged ADIF file reads or fails with a MediaError;
    /// one that cuts the header gives the codec and a warning.
    @Test func everyPrefixReadsOrFailsCleanly() throws {
        let tag = DSDBuilder.id3([("TIT2", "Tïtle")])
        let header = A.header(bitrate: 128_000, elements: [A.Element(front: [true, false], comment: "abc")])
        let whole = tag + A.file(header: header, payload: 64)
        var cut = 0, read = 0
        for length in 0..<whole.count {
            do {
                let parsed = try StreamBuilder.parse(Array(whole.prefix(length)), name: "x.aac")
                let audio = length - tag.count
                if audio >= 4 && audio < header.count {
                    cut += 1
                    #expect(parsed.fileType == .aac && parsed.warnings.contains { $0.code == .truncated && $0.offset == Int64(tag.count) })
                }
                if audio >= header.count {
                    read += 1
                    #expect(parsed.properties.channels == 3 && parsed.warnings.isEmpty, "prefix \(length)")
                }
            } catch is MediaError {
                // a clean refusal
            } catch {
                Issue.record("prefix of \(length) bytes: \(error)")
            }
        }
        // Every prefix inside the header and after it is read as ADIF (none refused).
        #expect(cut == header.count - 4 && read == 64)
    }

    @Test func anID3TagIsWrittenInFrontAndTheStreamIsKept() async throws {
        let stream = A.file(header: A.header(bitrate: 128_000), payload: 5000)
        let url = try DSDBuilder.file(stream, name: "x.aac")
        defer { DSDBuilder.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Néw"
        item.metadata.artist = "Sömeone"
        try await item.save(options: SaveOptions(durability: .noSync))
        let written = [UInt8](try Data(contentsOf: url))
        #expect(written.starts(with: Array("ID3".utf8)) && Array(written.suffix(stream.count)) == stream)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "Néw" && reread.metadata.artist == "Sömeone" && reread.properties == item.properties)
    }
}

/// mutagen's `AAC` reads ADIF (it is in its test data): the same rate,
/// channels, bit rate and length for the hand-built files, and the tags we
/// write.
@Suite(.enabled(if: ToolCheck.has("python3:mutagen"), "needs python3 mutagen"))
struct ADIFMutagenTests {
    static let reader = """
        import sys, json, mutagen.aac, mutagen.id3
        f = mutagen.aac.AAC(sys.argv[1])
        try:
            title = str(mutagen.id3.ID3(sys.argv[1]).get("TIT2"))
        except mutagen.id3.ID3NoHeaderError:
            title = None
        print(json.dumps({"rate": f.info.sample_rate, "channels": f.info.channels, "bitrate": f.info.bitrate,
                          "length": f.info.length, "title": title}))
        """

    @Test func mutagenReadsWhatWeRead() async throws {
        let elements = [
            A.Element(front: [true]), A.Element(objectType: 0, rateIndex: 3, front: [false, true], side: [true], lfe: 1, comment: "x"),
        ]
        for (index, element) in elements.enumerated() {
            let stream = A.file(
                header: A.header(bitrate: 96_000 + index * 32_000, copyright: index == 1, elements: [element]), payload: 9000)
            let url = try DSDBuilder.file(stream, name: "x\(index).aac")
            defer { DSDBuilder.remove(url) }
            var item = try await MediaItem.loaded(url)
            item.metadata.title = "Tïtle \(index)"
            try await item.save(options: SaveOptions(durability: .noSync))
            let output = try TestSupport.runChecked("python3", ["-c", Self.reader, url.path])
            let info = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
            let p = item.properties
            #expect(info["rate"] as? Int == p.sampleRate && info["channels"] as? Int == p.channels && info["bitrate"] as? Int == p.bitrate)
            // mutagen counts the bytes after the header to the end of the file: here the same.
            #expect(abs((info["length"] as? Double ?? -1) - (p.duration ?? 0)) < 1e-9)
            #expect(info["title"] as? String == "Tïtle \(index)")
        }
    }
}
