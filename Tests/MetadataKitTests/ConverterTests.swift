import Foundation
import Testing
@testable import MetadataKit

@Suite struct ConverterTests {
    func item(_ space: MetadataKeySpace, _ key: String, _ value: MetadataValue, language: String? = nil) -> MetadataItem {
        MetadataItem(keySpace: space, key: key, value: value, dataType: .utf8, language: language)
    }

    @Test func id3FramesBecomeNormalizedFields() {
        let metadata = Metadata(items: [
            item(.id3, "TIT2", .string("Title")),
            item(.id3, "TPE1", .strings(["A", "B"])),
            item(.id3, "TRCK", .string(" 3 / 12 ")),
            item(.id3, "TPOS", .string("2")),
            item(.id3, "TBPM", .string("120.4")),
            item(.id3, "TCON", .string("(17)")),
            item(.id3, "COMM:iTunNORM", .string(" 0000 1111"), language: "eng"),
            item(.id3, "COMM", .string("real comment"), language: "eng"),
            item(.id3, "TDRC", .string("2024-05-01")),
        ])
        #expect(metadata.title == "Title")
        #expect(metadata.artist == "A; B")
        #expect(metadata.trackNumber == 3)
        #expect(metadata.trackCount == 12)
        #expect(metadata.discNumber == 2)
        #expect(metadata.discCount == nil)
        #expect(metadata.bpm == 120)
        #expect(metadata.genre?.name == "Rock")
        #expect(metadata.comments == "real comment")
        #expect(metadata.year == "2024-05-01")
    }

    @Test func iTunesNormCommentIsNeverTheComment() {
        let metadata = Metadata(items: [item(.id3, "COMM:iTunNORM", .string("0000"))])
        #expect(metadata.comments == nil)
    }

    @Test func id3v2WinsOverID3v1AndV1FillsGaps() {
        let metadata = Metadata(items: [
            item(.id3, "TIT2", .string("Long title from ID3v2")),
            item(.id3v1, "title", .string("Long title from ID3")),
            item(.id3v1, "album", .string("Only in v1")),
            item(.id3v1, "genre", .integer(8)),
            item(.id3v1, "track", .integer(7)),
        ])
        #expect(metadata.title == "Long title from ID3v2")
        #expect(metadata.album == "Only in v1")
        #expect(metadata.genre?.name == "Jazz")
        #expect(metadata.trackNumber == 7)
    }

    @Test func mp4PrecedenceIsIlstThenMdtaThenUdta() {
        let metadata = Metadata(items: [
            item(.quickTimeUserData, "©nam", .string("udta")),
            item(.quickTimeMetadata, "com.apple.quicktime.title", .string("mdta")),
            item(.quickTimeMetadata, "artist", .string("bare mdta key")),
            item(.quickTimeUserData, "©alb", .string("album from udta")),
            item(.iTunes, "©nam", .string("ilst")),
            item(.iTunes, "trkn", .numberPair(number: 4, total: 0)),
            item(.iTunes, "disk", .numberPair(number: 1, total: 2)),
            item(.iTunes, "gnre", .integer(18)),
            item(.iTunes, "tmpo", .integer(98)),
        ])
        #expect(metadata.title == "ilst")
        #expect(metadata.artist == "bare mdta key")
        #expect(metadata.album == "album from udta")
        #expect(metadata.trackNumber == 4)
        #expect(metadata.trackCount == nil)
        #expect(metadata.discNumber == 1 && metadata.discCount == 2)
        #expect(metadata.genre == Genre(id3Index: 17))
        #expect(metadata.bpm == 98)
    }

    @Test func textGenreWinsOverNumericGnre() {
        let metadata = Metadata(items: [item(.iTunes, "gnre", .integer(18)), item(.iTunes, "©gen", .string("Shoegaze"))])
        #expect(metadata.genre?.name == "Shoegaze")
        #expect(metadata.genre?.id3Index == 178)
    }

    @Test func positionConverterWritesEachFormatsShape() throws {
        let converter = PositionMetadataConverter()
        let mp4 = try converter.items(for: .trackCount, value: .integer(12), key: .init(.iTunes, "trkn"),
                                      existing: [item(.iTunes, "trkn", .numberPair(number: 3, total: nil))])
        #expect(mp4.first?.value == .numberPair(number: 3, total: 12))
        let id3 = try converter.items(for: .trackNumber, value: .integer(4), key: .init(.id3, "TRCK"),
                                      existing: [item(.id3, "TRCK", .string("3/12"))])
        #expect(id3.first?.value == .string("4/12"))
        #expect(throws: MediaError.self) {
            try converter.items(for: .trackNumber, value: .integer(70000), key: .init(.iTunes, "trkn"), existing: [])
        }
        #expect(throws: MediaError.self) {
            try converter.items(for: .trackNumber, value: .text("three"), key: .init(.id3, "TRCK"), existing: [])
        }
    }

    @Test func genreConverterWritesIndexOrName() throws {
        let converter = GenreMetadataConverter()
        let gnre = try converter.items(for: .genre, value: .text("Rock"), key: .init(.iTunes, "gnre"), existing: [])
        #expect(gnre.first?.value == .integer(18))
        let text = try converter.items(for: .genre, value: .text("Vaporwave"), key: .init(.id3, "TCON"), existing: [])
        #expect(text.first?.value == .string("Vaporwave"))
        #expect(throws: MediaError.self) {
            try converter.items(for: .genre, value: .text("Vaporwave"), key: .init(.iTunes, "gnre"), existing: [])
        }
    }

    @Test func registryChoosesSpecialConverters() {
        let registry = MetadataConverterRegistry.standard
        #expect(registry.converter(for: .artwork) is ArtworkMetadataConverter)
        #expect(registry.converter(for: .discCount) is PositionMetadataConverter)
        #expect(registry.converter(for: .comments) is CommentMetadataConverter)
        #expect(registry.converter(for: .genre) is GenreMetadataConverter)
        #expect(registry.converter(for: .title) is DefaultMetadataConverter)
    }

    @Test func positionParsing() {
        #expect(PositionMetadataConverter.parse("3/12")! == (3, 12))
        #expect(PositionMetadataConverter.parse("/12")! == (nil, 12))
        #expect(PositionMetadataConverter.parse("x") == nil)
        #expect(PositionMetadataConverter.parse("-1") == nil)
    }
}

@Suite struct ImageInfoTests {
    /// A 3×2 PNG (IHDR only is parsed; the rest need not be valid for the size).
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        + [0, 0, 0, 3, 0, 0, 0, 2, 8, 2, 0, 0, 0, 0, 0, 0, 0]

    @Test func pngGifBmpJpegWebpSizes() {
        #expect(ImageInfo(bytes: Self.png) == ImageInfo(mimeType: "image/png", width: 3, height: 2))
        let gif = Array("GIF89a".utf8) + [10, 0, 20, 0, 0, 0, 0]
        #expect(ImageInfo(bytes: gif) == ImageInfo(mimeType: "image/gif", width: 10, height: 20))
        var bmp = [UInt8](repeating: 0, count: 30)
        bmp[0] = 0x42; bmp[1] = 0x4D; bmp[14] = 40; bmp[18] = 7; bmp[22] = 0xFB; bmp[23] = 0xFF; bmp[24] = 0xFF; bmp[25] = 0xFF
        #expect(ImageInfo(bytes: bmp) == ImageInfo(mimeType: "image/bmp", width: 7, height: 5))
        // SOI, APP0 (length 16), SOF0 height 480 width 640
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + [UInt8](repeating: 0, count: 14)
            + [0xFF, 0xC0, 0, 17, 8, 0x01, 0xE0, 0x02, 0x80, 3]
        #expect(ImageInfo(bytes: jpeg) == ImageInfo(mimeType: "image/jpeg", width: 640, height: 480))
        let webp = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0, 0, 0, 0]
            + [0x3F, 0x01, 0x00, 0xEF, 0x00, 0x00]
        #expect(ImageInfo(bytes: webp) == ImageInfo(mimeType: "image/webp", width: 320, height: 240))
        #expect(ImageInfo(bytes: Array("not an image".utf8)) == nil)
    }

    @Test func truncatedJpegHasNoSize() {
        #expect(ImageInfo(bytes: [0xFF, 0xD8, 0xFF, 0xE0, 0, 200]) == ImageInfo(mimeType: "image/jpeg", width: nil, height: nil))
    }

    @Test func artworkFromDataKeepsBytes() throws {
        let artwork = Artwork(data: Data(Self.png))
        #expect(artwork.mimeType == "image/png")
        #expect(artwork.width == 3 && artwork.height == 2)
        #expect(try artwork.data() == Data(Self.png))
    }
}

@Suite struct MetadataChangesTests {
    func item(_ space: MetadataKeySpace, _ key: String, _ value: MetadataValue) -> MetadataItem {
        MetadataItem(keySpace: space, key: key, value: value, dataType: .utf8)
    }

    @Test func changedFieldsReplaceItemsInEveryKeySpaceThatHoldsThem() throws {
        let loaded = Metadata(items: [
            item(.iTunes, "©nam", .string("Old")), item(.quickTimeUserData, "©nam", .string("Old")),
            item(.iTunes, "©ART", .string("Artist")), item(.iTunes, "----:com.apple.iTunes:MOOD", .string("Calm")),
        ])
        var edited = loaded
        edited.title = "New"
        edited.album = "Added"
        edited.artist = nil
        let items = try MetadataChanges().resolvedItems(loaded: loaded, edited: edited, keySpaces: [.iTunes, .quickTimeMetadata, .quickTimeUserData])
        #expect(items.map(\.key) == ["©nam", "©nam", "----:com.apple.iTunes:MOOD", "©alb"])
        #expect(items.map(\.keySpace) == [.iTunes, .quickTimeUserData, .iTunes, .iTunes])
        #expect(items.filter { $0.key == "©nam" }.map(\.value) == [.string("New"), .string("New")])
        #expect(Metadata(items: items).album == "Added")
    }

    @Test func mdtaOnlyFilesAreUpdatedInMdta() throws {
        let loaded = Metadata(items: [item(.quickTimeMetadata, "com.apple.quicktime.title", .string("Old"))])
        var edited = loaded
        edited.title = "New"
        let items = try MetadataChanges().resolvedItems(loaded: loaded, edited: edited, keySpaces: [.iTunes, .quickTimeMetadata, .quickTimeUserData])
        #expect(items == [item(.quickTimeMetadata, "com.apple.quicktime.title", .string("New"))])
    }

    @Test func trackNumberAndCountShareOneItem() throws {
        let loaded = Metadata(items: [item(.id3, "TRCK", .string("3/12")), item(.id3v1, "track", .integer(3))])
        var edited = loaded
        edited.trackNumber = 4
        var items = try MetadataChanges().resolvedItems(loaded: loaded, edited: edited, keySpaces: [.id3, .id3v1])
        #expect(items.first { $0.key == "TRCK" }?.value == .string("4/12"))
        #expect(items.first { $0.key == "track" }?.value == .integer(4))
        var removed = Metadata(items: items)
        let before = removed
        removed.trackNumber = nil
        items = try MetadataChanges().resolvedItems(loaded: before, edited: removed, keySpaces: [.id3, .id3v1])
        #expect(items.first { $0.key == "TRCK" }?.value == .string("/12"))
        #expect(Metadata(items: items).trackCount == 12)
        #expect(Metadata(items: items).trackNumber == nil)
    }
}
