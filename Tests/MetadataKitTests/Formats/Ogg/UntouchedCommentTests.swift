import Foundation
import Testing

@testable import MetadataKit

private typealias B = FLACOggBuilder

/// A title save keeps every other comment field byte for byte — the case of
/// names, the order of fields, the vendor string, repeated names, empty
/// values, fields without '=' — and pictures where they are: a
/// `METADATA_BLOCK_PICTURE` field stays a field, a PICTURE block stays a
/// block; only a new picture goes to the format's preferred place.
@Suite struct UntouchedCommentTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// The picture as a comment field (width 30, the image is 3 wide: a re-encoded one would differ).
    static let pictureField =
        "METADATA_BLOCK_PICTURE=" + Data(B.picture(type: 3, description: "in comment", width: 30)).base64EncodedString()
    static let vendor = "odd vendor ✓ 1.0"
    static func fields(title: String) -> [String] {
        ["Artist=a", "title=\(title)", "genre=", "no equals sign", "ARTIST=b", pictureField, "custom=x", "Custom=y", "TITLE2=z"]
    }

    /// The VORBIS_COMMENT block body and the PICTURE block bodies of a FLAC file.
    func flacBlocks(_ url: URL) throws -> (comment: [UInt8], pictures: [[UInt8]]) {
        let source = try FileSource(url: url)
        let layout = try FLACLayout(parsing: source)
        let comment = try #require(layout.blocks.first { $0.kind == .vorbisComment })
        return (
            try source.getBytes(at: comment.bodyOffset, count: comment.length),
            try layout.blocks.filter { $0.kind == .picture }.map { try source.getBytes(at: $0.bodyOffset, count: $0.length) }
        )
    }

    @Test func flacTitleSaveKeepsEveryOtherFieldAndBothPictures() async throws {
        let block = B.picture(type: 4, description: "in block", width: 30)
        let url = try B.write(
            B.flac([(4, B.comment(vendor: Self.vendor, Self.fields(title: "Old"))), (6, block)]), "a.flac", in: directory)
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.artwork.map(\.description) == ["in comment", "in block"])
        item.metadata.title = "New title"
        try await item.save()
        var blocks = try flacBlocks(url)
        #expect(blocks.comment == B.comment(vendor: Self.vendor, Self.fields(title: "New title")))
        #expect(blocks.pictures == [block])
        // A new picture goes to a PICTURE block; the comment's picture stays a field.
        item = try await MediaItem.loaded(url)
        #expect(item.metadata.artwork.count == 2 && item.metadata.title == "New title")
        item.metadata.artwork.append(Artwork(data: Data(ID3Builder.tinyPNG), pictureType: .artist, description: "new"))
        try await item.save()
        blocks = try flacBlocks(url)
        #expect(blocks.comment == B.comment(vendor: Self.vendor, Self.fields(title: "New title")))
        #expect(blocks.pictures.count == 2 && blocks.pictures[0] == block)
        // Removing the comment's picture removes only its field.
        item = try await MediaItem.loaded(url)
        item.metadata.artwork.removeAll { $0.description == "in comment" }
        try await item.save()
        blocks = try flacBlocks(url)
        #expect(blocks.comment == B.comment(vendor: Self.vendor, Self.fields(title: "New title").filter { $0 != Self.pictureField }))
        #expect(try await MediaItem.loaded(url).metadata.artwork.map(\.description) == ["in block", "new"])
    }

    @Test func aChangedRepeatedNameKeepsItsPlaceAndSpelling() async throws {
        let url = try B.write(
            B.flac([(4, B.comment(vendor: "v", ["artist=one", "TITLE=t", "Artist=two", "ALBUM=al"]))]), "b.flac",
            in: directory)
        var item = try await MediaItem.loaded(url)
        item.metadata.artist = "three"
        item.metadata.genre = Genre(name: "Rock")
        try await item.save()
        #expect(try flacBlocks(url).comment == B.comment(vendor: "v", ["artist=three", "TITLE=t", "ALBUM=al", "GENRE=Rock"]))
    }

    @Test func oggTitleSaveKeepsEveryOtherFieldAndTheCommentPicture() async throws {
        let url = try B.write(B.oggVorbis(fields: []), "a.ogg", in: directory)
        // oggVorbis takes fields only; build the comment with the odd vendor by hand.
        var pages = OggPage.paginate([B.vorbisID()], serial: 7, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate(
            [B.vorbisComment(Self.fields(title: "Old"), vendor: Self.vendor), B.vorbisSetup(200)],
            serial: 7, firstSequence: 1)
        pages += B.setEOS(
            OggPage.paginate([[UInt8](repeating: 3, count: 50)], serial: 7, firstSequence: UInt32(pages.count), granule: 4410))
        try Data(pages.flatMap { $0 }).write(to: url)
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.artwork.count == 1)
        item.metadata.title = "New title"
        try await item.save()
        let scan = try OggHeaderScan.read(FileSource(url: url))
        #expect(scan.packets[1] == B.vorbisComment(Self.fields(title: "New title"), vendor: Self.vendor))
        #expect(scan.packets[2] == B.vorbisSetup(200))
        #expect(try B.pageProblems(url).isEmpty)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "New title" && reread.metadata.artwork.first?.description == "in comment")
    }
}
