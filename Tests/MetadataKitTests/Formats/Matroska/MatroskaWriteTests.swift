import Foundation
import Testing

@testable import MetadataKit

private typealias B = MatroskaBuilder

/// Saves of built Matroska files: how the space is found (in place with a
/// Void, a 1-byte rest in a wider size field, the end of the Segment), the
/// SeekHead entries, CRC-32 elements, and the saves that are refused
/// before anything is written.
@Suite struct MatroskaWriteTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    @Test func aRestOfOneByteWidensTheSizeFieldAndLargerRestsBecomeAVoid() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = [UInt8](repeating: 7, count: 20)
        let natural = EBML.element(MatroskaID.tags, data)
        for rest in [0, 1, 2, 3, 130, 20_000] {
            let bytes = try #require(MatroskaSpaceLayout.fit(MatroskaID.tags, data, span: Int64(natural.count + rest)))
            #expect(bytes.count == natural.count + rest)
            var reader = ByteReader(bytes)
            let element = try EBMLElement(parsing: &reader)
            #expect(element.id == MatroskaID.tags && element.dataSize == 20)
            try reader.skip(20)
            if !reader.isAtEnd {
                let void = try EBMLElement(parsing: &reader)
                #expect(void.id == MatroskaID.void && void.end == Int64(bytes.count))
            }
        }
        #expect(MatroskaSpaceLayout.fit(MatroskaID.tags, data, span: Int64(natural.count - 1)) == nil)
    }

    @Test func aNewTitleAddsTagsAndASeekEntryAndReadsBackThroughTheSeekHead() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try B.write(B.typical(tags: [B.tag(target: 30, [("ARTIST", "A")])]), "a.mkv", in: directory)
        var item = try await MediaItem.loaded(url)
        item.metadata.album = "New Album"
        item.metadata.title = "Bigger title than before, so the Tags must move to the end of the Segment"
        try await item.save()
        let layout = try MatroskaLayout(parsing: FileSource(url: url))
        #expect(!layout.scannedClusters && layout.warnings.isEmpty)
        let tags = try #require(layout.first(MatroskaID.tags))
        #expect(layout.seekHeads[0].entries.contains { $0.id == MatroskaID.tags && $0.position == tags.offset - layout.segmentData })
        #expect(layout.segment.end == (try FileSource(url: url).size))
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.album == "New Album" && reread.metadata.artist == "A")
        #expect(reread.metadata.items.map(\.key).contains("Info/Title"), "the Segment title stays")
    }

    @Test func crc32ElementsOfRebuiltMastersAreRecomputed() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let tagData = B.tag(target: 30, [("TITLE", "t")])
        let tags = B.element(MatroskaID.tags, EBMLCRC32.prefixed(tagData))
        let info = B.info(title: "x")
        let infoData = Array(info.dropFirst(EBML.idBytes(MatroskaID.info).count + 1))
        let infoWithCRC = B.element(MatroskaID.info, EBMLCRC32.prefixed(infoData))
        let url = try B.write(B.file([infoWithCRC, B.tracks(), tags, EBML.void(count: 200), B.cluster()]), "crc.mkv", in: directory)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "a new track title"
        item.metadata.items.removeAll { $0.key == "Info/Title" }
        try await item.save()
        let source = try FileSource(url: url)
        let layout = try MatroskaLayout(parsing: source)
        for id in [MatroskaID.tags, MatroskaID.info] {
            let element = try #require(layout.first(id))
            let data = try source.getBytes(at: element.dataOffset, count: Int(element.dataSize ?? 0))
            #expect(Array(data.prefix(2)) == [0xBF, 0x84])
            // zlib's CRC-32 (python3), not ours, checks the stored one.
            let script = "import sys,zlib; d=sys.stdin.buffer.read(); print(zlib.crc32(d[6:]) == int.from_bytes(d[2:6],'little'))"
            let check = try python(script, input: data)
            #expect(check == "True", "CRC-32 of 0x\(String(id, radix: 16))")
        }
        #expect(try await MediaItem.loaded(url).metadata.title == "a new track title")
    }

    /// Runs a python3 `script` with `input` on its standard input.
    func python(_ script: String, input: [UInt8]) throws -> String {
        let file = directory.appendingPathComponent("input.bin")
        try Data(input).write(to: file)
        let output = try TestSupport.runChecked("sh", ["-c", "python3 -c \"$0\" < \"$1\"", script, file.path])
        return output.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func savesThatNeedRoomNobodyHasAreRefusedBeforeWriting() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        // A SeekHead with no room after it, too small even for a SeekHead pointing at a new one
        // at the end (a larger one moves there, see MatroskaSeveralTagsTests): a new Tags
        // element needs a Seek entry.
        let tight = try B.write(
            B.file([B.element(MatroskaID.seekHead, []), B.info(), B.tracks(), B.cluster()]), "tight.mkv", in: directory)
        try await expectRefused(tight)
        // Data after the Segment: nothing can go at its end, but the Tags,
        // before the Clusters, stay there (the Clusters move); the data
        // after the Segment stays.
        let trailing = try B.write(B.typical(voidSize: 2) + [1, 2, 3, 4], "trailing.mkv", in: directory)
        var item = try await MediaItem.loaded(trailing)
        item.metadata.comments = String(repeating: "long comment ", count: 40)
        try await item.save()
        let bytes = try Data(contentsOf: trailing)
        #expect(bytes.suffix(4) == Data([1, 2, 3, 4]))
        let layout = try MatroskaLayout(parsing: FileSource(url: trailing))
        #expect(try #require(layout.first(MatroskaID.tags)).offset < layout.firstCluster!)
        #expect(try await MediaItem.loaded(trailing).metadata.comments == item.metadata.comments)
    }

    func expectRefused(_ url: URL) async throws {
        let before = try Data(contentsOf: url)
        var item = try await MediaItem.loaded(url)
        item.metadata.comments = String(repeating: "long comment ", count: 40)
        let error = await #expect(throws: MediaError.self) { try await item.save() }
        #expect(error?.code == .unsupportedFeature)
        #expect(try Data(contentsOf: url) == before)
    }

    /// Cover art is written (MatroskaChapterWriterTests); an attachment that
    /// isn't a picture can only be kept or removed.
    @Test func changedNonPictureAttachmentsAreRefused() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try B.write(B.typical(), "a.mkv", in: directory)
        let before = try Data(contentsOf: url)
        var item = try await MediaItem.loaded(url)
        item.metadata.items.append(
            MetadataItem(keySpace: .matroska, key: "Attachment/font.ttf", value: .string("font/ttf"), dataType: .binary))
        let error = await #expect(throws: MediaError.self) { try await item.save() }
        #expect(error?.code == .unsupportedFeature)
        #expect(try Data(contentsOf: url) == before)
    }
}
