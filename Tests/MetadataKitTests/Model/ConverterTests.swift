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
        #expect(metadata.date == "2024-05-01")
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

    /// An ID3v1 year that is not digits (garbled bytes) is no year; the next
    /// tag's year is taken, and the raw item stays.
    @Test func aGarbledID3v1YearIsNoYear() {
        let garbled = item(.id3v1, "year", .string("¬\u{9C}Ä&"))
        #expect(Metadata(items: [garbled]).date == nil)
        #expect(Metadata(items: [garbled]).items == [garbled])
        #expect(Metadata(items: [garbled, item(.ape, "YEAR", .string("2021"))]).date == "2021")
        #expect(Metadata(items: [item(.id3v1, "year", .string("1999"))]).date == "1999")
    }

    /// An ID3v2 date that is not a timestamp gives its leading timestamp, or
    /// no year (the next tag's is taken); a timestamp stays whole.
    @Test(
        arguments: [
            ("2004 (remaster)", "2004"), ("1995-10-03 12:00", "1995-10-03"), ("2024-05-01T12:30", "2024-05-01T12:30"),
            ("Oct 3, 1995", nil), ("19955", nil), ("2021-1", "2021"),
        ] as [(String, String?)])
    func anID3DateThatIsNoTimestamp(text: String, year: String?) {
        #expect(Metadata(items: [item(.id3, "TDRC", .string(text))]).date == year, "\(text)")
        #expect(Metadata(items: [item(.id3, "TYER", .string(text))]).date == year, "\(text)")
        let withV1 = Metadata(items: [item(.id3, "TDRC", .string(text)), item(.id3v1, "year", .string("1990"))])
        #expect(withV1.date == (year ?? "1990") && withV1.items.count == 2, "\(text)")
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
        let mp4 = try converter.items(
            for: .trackCount, value: .integer(12), key: .init(.iTunes, "trkn"),
            existing: [item(.iTunes, "trkn", .numberPair(number: 3, total: nil))])
        #expect(mp4.first?.value == .numberPair(number: 3, total: 12))
        let id3 = try converter.items(
            for: .trackNumber, value: .integer(4), key: .init(.id3, "TRCK"),
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
