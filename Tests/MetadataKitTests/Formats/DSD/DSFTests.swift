import Foundation
import Testing

@testable import MetadataKit

private typealias B = DSDBuilder

/// DSF reading and writing on files built from the DSF 1.01 specification.
@Suite struct DSFTests {
    static let fast = SaveOptions(durability: .noSync)

    /// The 'DSD ' chunk's total size and metadata pointer.
    static func header(_ bytes: [UInt8]) -> (total: UInt64, pointer: UInt64) {
        func le64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) } }
        return (le64(12), le64(20))
    }

    static func dataChunk(_ bytes: [UInt8]) -> ArraySlice<UInt8> { bytes[(28 + 52)..<(B.dsfDataOffset + 2 * 2 * 4096)] }

    @Test func readsPropertiesAndTheTagThePointerLeadsTo() async throws {
        let bytes = B.dsf(channels: 2, rate: 5_644_800, blocks: 2, samples: 60_000, tag: B.id3([("TIT2", "Tïtle"), ("TPE1", "Artist")]))
        let url = try B.file(bytes, name: "x.dsf")
        defer { B.remove(url) }
        let item = try await MediaItem.loaded(url)
        #expect(item.fileType == .dsf && item.isEditable && item.warnings.isEmpty)
        let p = item.properties
        #expect(p.codec == "DSD" && p.channels == 2 && p.sampleRate == 5_644_800 && p.bitsPerSample == 1)
        #expect(p.duration == 60_000 / 5_644_800.0 && p.bitrate == 2 * 5_644_800)
        #expect(item.metadata.title == "Tïtle" && item.metadata.artist == "Artist")
    }

    @Test func aFileWithoutATagGetsOneAtTheEndAndThePointerAndSizeFollow() async throws {
        let original = B.dsf()
        let url = try B.file(original, name: "x.dsf")
        defer { B.remove(url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.items.isEmpty)
        item.metadata.title = "Néw"
        item.metadata.album = "Album"
        try await item.save(options: Self.fast)
        let written = [UInt8](try Data(contentsOf: url))
        let (total, pointer) = Self.header(written)
        #expect(total == UInt64(written.count) && pointer == UInt64(original.count))
        #expect(Array(written[Int(pointer)..<Int(pointer) + 3]) == Array("ID3".utf8))
        #expect(Array(written[28..<original.count]) == Array(original[28...]))
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "Néw" && reread.metadata.album == "Album" && reread.warnings.isEmpty)

        // Removing every tag: pointer 0, the file as it was.
        var again = reread
        try await again.save(options: SaveOptions(removesAllTags: true, durability: .noSync))
        let stripped = [UInt8](try Data(contentsOf: url))
        #expect(stripped == original)
    }

    @Test func aTagThatKeepsItsSpaceIsPatchedInPlace() async throws {
        let bytes = B.dsf(tag: B.id3([("TIT2", "One"), ("TPE1", "Artist")], padding: 200))
        let url = try B.file(bytes, name: "x.dsf")
        defer { B.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Two"
        let plan = try item.prepareSave(options: Self.fast).plan
        guard case .inPlace = plan else {
            Issue.record("expected an in-place plan, got \(plan)")
            return
        }
        try await item.save(options: Self.fast)
        let written = [UInt8](try Data(contentsOf: url))
        #expect(written.count == bytes.count && Self.header(written) == Self.header(bytes))
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "Two" && reread.metadata.artist == "Artist")
    }

    @Test func aGrowingTagReplacesTheOldOneAndKeepsBytesAfterIt() async throws {
        let junk = Array("trailing junk".utf8)
        let bytes = B.dsf(tag: B.id3([("TIT2", "One")]), after: junk)
        let url = try B.file(bytes, name: "x.dsf")
        defer { B.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.comments = String(repeating: "long comment ", count: 300)
        try await item.save(options: Self.fast)
        let written = [UInt8](try Data(contentsOf: url))
        let (total, pointer) = Self.header(written)
        #expect(total == UInt64(written.count) && pointer == Self.header(bytes).pointer)
        #expect(Array(written.suffix(junk.count)) == junk)
        #expect(Self.dataChunk(written) == Self.dataChunk(bytes))
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "One" && reread.metadata.comments?.hasPrefix("long comment") == true)
    }

    /// Lying pointers and sizes are read around; a save never touches the sample data.
    @Test(
        arguments: [
            ("pointer into the data", UInt64(B.dsfDataOffset + 100)), ("pointer into the header", 20),
            ("pointer past the end", 1 << 40), ("pointer 2^64 − 1", UInt64.max),
        ] as [(String, UInt64)])
    func lyingPointers(name: String, pointer: UInt64) async throws {
        let bytes = B.dsf(pointer: pointer)
        let url = try B.file(bytes, name: "x.dsf")
        defer { B.remove(url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.items.isEmpty && item.isEditable, "\(name)")
        #expect(item.warnings.contains { $0.offset == 20 }, "\(name)")
        item.metadata.title = "T"
        try await item.save(options: Self.fast)
        let written = [UInt8](try Data(contentsOf: url))
        #expect(Array(written[28..<bytes.count]) == Array(bytes[28...]), "\(name)")
        #expect(Self.header(written).pointer == UInt64(bytes.count), "\(name)")
        #expect(try await MediaItem.loaded(url).metadata.title == "T", "\(name)")
    }

    @Test func lyingSizes() throws {
        // A total size that disagrees: a warning.
        let total = try B.parse(B.dsf(tag: B.id3([("TIT2", "x")]), total: 3), name: "x.dsf")
        #expect(total.isEditable && total.warnings.map(\.offset) == [12] && total.items.count == 1)
        // A data chunk claiming 2^64 − 1 or more than the file: read-only, properties from 'fmt '.
        for size in [UInt64.max, UInt64(Int64.max), 1 << 40] {
            let code = RIFFBuilder.code { try B.parse(B.dsf(dataSize: size), name: "x.dsf") }
            if let code {
                #expect(code == .sizeOutOfRange, "data size \(size)")
            } else {
                let parsed = try B.parse(B.dsf(dataSize: size), name: "x.dsf")
                #expect(!parsed.isEditable && parsed.warnings.contains { $0.code == .truncated }, "data size \(size)")
            }
        }
        // A data chunk smaller than its own header: nothing sensible.
        #expect(RIFFBuilder.code { try B.parse(B.dsf(dataSize: 3), name: "x.dsf") } == .sizeOutOfRange)
        // A tag claiming more than the file has: read within the file, with a warning.
        var tag = B.id3([("TIT2", "Cut")], padding: 10)
        tag[9] = 0x7F
        let cut = try B.parse(B.dsf(tag: tag), name: "x.dsf")
        #expect(cut.items.count == 1 && cut.warnings.contains { $0.code == .sizeOutOfRange })
    }

    @Test func aTruncatedFileIsRefusedForWriting() async throws {
        let whole = B.dsf(tag: B.id3([("TIT2", "x")]))
        let url = try B.file(Array(whole.prefix(B.dsfDataOffset + 1000)), name: "x.dsf")
        defer { B.remove(url) }
        var item = try await MediaItem.loaded(url)
        #expect(!item.isEditable && item.properties.sampleRate == 2_822_400)
        item.metadata.title = "y"
        await #expect(throws: MediaError.self) { try await item.save(options: Self.fast) }
    }

    /// Every prefix fails with a MediaError or loads: cuts inside the data
    /// chunk load read-only; cuts in the tag load with a warning.
    @Test func everyPrefix() throws {
        let whole = B.dsf(blocks: 1, tag: B.id3([("TIT2", "Title"), ("TPE1", "A")]))
        let dataEnd = B.dsfDataOffset + 2 * 4096
        // Every length around the chunk headers and the tag; inside the sample data, every 61st.
        let lengths = (0..<whole.count).filter { $0 < B.dsfDataOffset + 16 || $0 > dataEnd - 16 || $0 % 61 == 0 }
        for length in lengths {
            let prefix = Array(whole.prefix(length))
            if length < B.dsfDataOffset {
                #expect(RIFFBuilder.code { try B.parse(prefix, name: "x.dsf") } != nil, "prefix of \(length) bytes")
                continue
            }
            let parsed = try B.parse(prefix, name: "x.dsf")
            #expect(parsed.isEditable == (length >= dataEnd), "prefix of \(length) bytes")
            #expect(!parsed.warnings.isEmpty, "prefix of \(length) bytes")
        }
        #expect(try B.parse(whole, name: "x.dsf").items.count == 2)
    }

    /// Random damage never crashes or hangs the reader.
    @Test func seededRandomDamage() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(state: seed)
        let whole = B.dsf(blocks: 1, tag: B.id3([("TIT2", "Title"), ("TPE1", "A")]))
        for _ in 0..<200 {
            var bytes = whole
            for _ in 0..<4 {
                let position = Int(random.next() % UInt64(bytes.count))
                bytes[position] = UInt8(truncatingIfNeeded: random.next())
            }
            do { _ = try B.parse(bytes, name: "x.dsf") } catch is MediaError {} catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }
}
