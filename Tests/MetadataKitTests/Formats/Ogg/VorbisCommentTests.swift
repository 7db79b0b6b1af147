import Foundation
import Testing

@testable import MetadataKit

private typealias B = FLACOggBuilder

/// The Vorbis comment codec, its items, the key map and the track/disc total fields.
@Suite struct VorbisCommentTests {
    func parse(_ bytes: [UInt8], framing: Bool = false) throws -> VorbisComment {
        var reader = ByteReader(bytes)
        return try VorbisComment(parsing: &reader, framingBit: framing)
    }

    func item(_ key: String, _ value: String) -> MetadataItem {
        MetadataItem(keySpace: .vorbis, key: key, value: .string(value), dataType: .utf8)
    }

    @Test func fieldsBecomeUppercasedItemsWithRepeatsJoined() throws {
        let comment = try parse(B.comment(vendor: "Xiph", ["title=Ünï", "Artist=A", "ARTIST=B", "noequals", "empty=", "a=b=c"]))
        #expect(comment.vendor == "Xiph")
        #expect(comment.fields.count == 5)
        let items = comment.items()
        #expect(items.map(\.key) == ["TITLE", "ARTIST", "EMPTY", "A"])
        #expect(items[0].value == .string("Ünï"))
        #expect(items[1].value == .strings(["A", "B"]))
        #expect(items[2].value == .string(""))
        #expect(items[3].value == .string("b=c"))
        #expect(!items.contains { $0.key == "VENDOR" }) // the vendor is not an item
    }

    @Test func roundTripKeepsVendorOrderAndFraming() throws {
        let original = try parse(B.comment(vendor: "Ven ✓", ["TITLE=x", "ARTIST=1", "ARTIST=2"]) + [1], framing: true)
        let bytes = try VorbisComment(vendor: original.vendor).updated(for: original.items(), picturesAsFields: true)
            .comment.serialized(framingBit: true)
        #expect(bytes == B.comment(vendor: "Ven ✓", ["TITLE=x", "ARTIST=1", "ARTIST=2"]) + [1])
    }

    @Test func vorbisCommentNeedsItsFramingBit() {
        #expect(throws: MediaError.self) { try parse(B.comment(["A=b"]) + [0], framing: true) }
        #expect(throws: MediaError.self) { try parse(B.comment(["A=b"]), framing: true) }
    }

    @Test func hostileLengthsThrowWithoutAllocating() throws {
        // Field count far beyond the bytes left.
        var bytes = B.comment(["A=b"])
        bytes.replaceSubrange(15..<19, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: MediaError.self) { try parse(bytes) }
        // Vendor length past the end.
        #expect(throws: MediaError.self) { try parse([0xFF, 0xFF, 0xFF, 0x7F, 0, 0]) }
        // Field length past the end.
        var field = B.comment(["A=b"])
        field.replaceSubrange(19..<23, with: [0x00, 0x00, 0x00, 0x10])
        #expect(throws: MediaError.self) { try parse(field) }
        // Every prefix of a valid comment throws; only the whole parses.
        let valid = B.comment(["TITLE=x", "ARTIST=y"])
        for length in 0..<valid.count {
            #expect(throws: MediaError.self) { try parse(Array(valid[..<length])) }
        }
        #expect(try parse(valid).fields.count == 2)
    }

    @Test func invalidNamesAndBinaryValuesAreRefusedOnWrite() {
        let empty = VorbisComment(vendor: "v")
        #expect(throws: MediaError.self) { try empty.updated(for: [item("A=B", "x")], picturesAsFields: true) }
        #expect(throws: MediaError.self) { try empty.updated(for: [item("TÏTLE", "x")], picturesAsFields: true) }
        #expect(throws: MediaError.self) {
            try empty.updated(
                for: [MetadataItem(keySpace: .vorbis, key: "X", value: .data(Data([1])), dataType: .binary)],
                picturesAsFields: true)
        }
    }

    @Test func pictureFieldsDecodeAndReencodeVerbatim() async throws {
        // Width 30 in the block, 3 in the image: a re-encoded block would say 3.
        let block = B.picture(type: 4, mime: "image/png", description: "back ✓", width: 30, height: 2)
        let text = Data(block).base64EncodedString()
        let comment = try parse(B.comment(["metadata_block_picture=" + text, "TITLE=t"]))
        let items = comment.items()
        guard case .picture(let artwork)? = items.first?.value else {
            Issue.record("no picture")
            return
        }
        #expect(items[0].key == "METADATA_BLOCK_PICTURE")
        #expect(artwork.pictureType == .backCover)
        #expect(artwork.description == "back ✓")
        #expect(artwork.mimeType == "image/png")
        #expect(artwork.width == 3 && artwork.height == 2) // from the image header
        #expect(try await artwork.data() == Data(ID3Builder.tinyPNG))
        // An unchanged picture keeps its field text (width 30 in the original, 3 when re-encoded).
        let kept = try comment.updated(for: items, picturesAsFields: true)
        #expect(kept.comment.fields[0].value == text && kept.comment.fields[0].name == "metadata_block_picture")
        #expect(kept.pictureItems == [0])
        let fresh = try VorbisComment(vendor: "v").updated(for: items, picturesAsFields: true).comment.fields
        #expect(fresh.map(\.name) == ["TITLE", "METADATA_BLOCK_PICTURE"]) // new names first, then new pictures
        #expect(fresh[1].value != text)
        #expect(VorbisComment.decodePictureField(fresh[1].value) == artwork)
        // Garbage base64 stays text.
        let bad = try parse(B.comment(["METADATA_BLOCK_PICTURE=!!!"])).items()
        #expect(bad.first?.value == .string("!!!"))
    }

    @Test func base64PiecesDecodeLikeFoundationAtEveryRange() throws {
        // Every range of a 0-, 1- and 2-padded text, against Foundation's decoder of the whole.
        for length in [30, 31, 32] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            var text = Data(bytes).base64EncodedString()
            let decoded = try #require(Data(base64Encoded: text).map { [UInt8]($0) })
            #expect(text.withUTF8 { Base64Pieces.decodedCount($0) } == length)
            text.withUTF8 { utf8 in
                #expect(Base64Pieces.claimedCount(utf8) == length)
                for start in 0...length {
                    for end in start...length {
                        #expect(
                            Base64Pieces.decode(utf8, bytes: start..<end) == Array(decoded[start..<end]), "\(start)..<\(end) of \(length)")
                    }
                }
            }
        }
        // Not canonical: a line break, a character outside the alphabet, padding inside, a cut-short group.
        for shown in ["QUJD\nREVG", "QUJD*EVG", "QU==REVG", "QUJDREV"] {
            var text = shown
            text.withUTF8 { utf8 in
                #expect(Base64Pieces.decodedCount(utf8) == nil, "\(shown)")
                #expect(Base64Pieces.decode(utf8, bytes: 0..<6) == nil, "\(shown)")
            }
        }
    }

    @Test func picturesStayBase64UntilTheirBytesAreAsked() async throws {
        // A JPEG whose frame header lies past a 3000-byte APP1 segment: the image header is
        // decoded in pieces from far into the text; the image only by data().
        var jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0x0B, 0xBA] + [UInt8](repeating: 0x45, count: 3000)
        jpeg += [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0x2C, 0x00, 0xC8, 0x03] + [UInt8](repeating: 1, count: 9) + [0xFF, 0xD9]
        let block = B.picture(type: 3, mime: "image/jpeg", description: "front", width: 0, height: 0, data: jpeg)
        let text = Data(block).base64EncodedString()
        let items = try parse(B.comment(["METADATA_BLOCK_PICTURE=" + text])).items()
        guard case .picture(let artwork)? = items.first?.value else {
            Issue.record("no picture")
            return
        }
        guard case .base64(let held, let offset, let count) = artwork.storage else {
            Issue.record("the picture was decoded while reading: \(artwork.storage)")
            return
        }
        #expect(held == text && offset == block.count - jpeg.count && count == jpeg.count)
        #expect(artwork.width == 200 && artwork.height == 300 && artwork.byteCount == jpeg.count)
        #expect(artwork.mimeType == "image/jpeg" && artwork.description == "front")
        #expect(try await artwork.data() == Data(jpeg))
        // The same image held as bytes is the same picture (the writer keeps a field whose picture is still there).
        #expect(artwork == Artwork(data: Data(jpeg), mimeType: "image/jpeg", pictureType: .frontCover, description: "front"))
        #expect(artwork != Artwork(data: Data(jpeg.dropLast()), mimeType: "image/jpeg", pictureType: .frontCover, description: "front"))
        // Base64 with line breaks (as some taggers wrap it) is decoded whole, as before.
        let wrapped = stride(from: 0, to: text.count, by: 76).map { String(Array(text)[$0..<min(text.count, $0 + 76)]) }
        let wrappedItems = try parse(B.comment(["METADATA_BLOCK_PICTURE=" + wrapped.joined(separator: "\r\n")])).items()
        guard case .picture(let whole)? = wrappedItems.first?.value else {
            Issue.record("no picture from wrapped base64")
            return
        }
        #expect(try await whole.data() == Data(jpeg) && whole == artwork)
    }

    @Test func keyMapReadsTheCommonNames() {
        let metadata = Metadata(items: [
            item("TITLE", "T"), item("ALBUM ARTIST", "AA"), item("DESCRIPTION", "D"), item("YEAR", "1999"),
            item("GENRE", "Rock"), item("BPM", "120"), item("COMPOSER", "C"), item("GROUPING", "G"), item("ALBUM", "Al"),
            item("TRACKNUMBER", "3"), item("TOTALTRACKS", "12"), item("DISCNUMBER", "1/2"),
        ])
        #expect(metadata.title == "T")
        #expect(metadata.albumArtist == "AA")
        #expect(metadata.comments == "D")
        #expect(metadata.date == "1999")
        #expect(metadata.genre?.name == "Rock")
        #expect(metadata.bpm == 120)
        #expect(metadata.composer == "C" && metadata.grouping == "G" && metadata.album == "Al")
        #expect(metadata.trackNumber == 3 && metadata.trackCount == 12)
        #expect(metadata.discNumber == 1 && metadata.discCount == 2)
        let preferred = Metadata(items: [item("COMMENT", "c"), item("DESCRIPTION", "d"), item("DATE", "2001"), item("YEAR", "1999")])
        #expect(preferred.comments == "c" && preferred.date == "2001")
    }

    func resolved(_ items: [MetadataItem], _ edit: (inout Metadata) -> Void) throws -> [MetadataItem] {
        let loaded = Metadata(items: items)
        var edited = loaded
        edit(&edited)
        return try MetadataChanges().resolvedItems(loaded: loaded, edited: edited, keySpaces: [.vorbis])
    }

    @Test func totalsGoToTheirOwnFields() throws {
        // A count set on a file without one goes to TRACKTOTAL beside a plain number.
        var items = try resolved([item("TRACKNUMBER", "3")]) { $0.trackCount = 12 }
        #expect(Set(items) == [item("TRACKNUMBER", "3"), item("TRACKTOTAL", "12")])
        // "n/N" is split when the count changes…
        items = try resolved([item("TRACKNUMBER", "3/12")]) { $0.trackCount = 10 }
        #expect(Set(items) == [item("TRACKNUMBER", "3"), item("TRACKTOTAL", "10")])
        // …and kept as "n/N" when only the number changes.
        items = try resolved([item("TRACKNUMBER", "3/12")]) { $0.trackNumber = 5 }
        #expect(items == [item("TRACKNUMBER", "5/12")])
        // A file's TOTALTRACKS stays TOTALTRACKS; the number keeps its field.
        items = try resolved([item("TRACKNUMBER", "3"), item("TOTALTRACKS", "12")]) { $0.trackNumber = 4 }
        #expect(Set(items) == [item("TRACKNUMBER", "4"), item("TOTALTRACKS", "12")])
        items = try resolved([item("TOTALTRACKS", "12")]) { $0.trackCount = 9 }
        #expect(items == [item("TOTALTRACKS", "9")])
        // Removing the count leaves the number; removing both leaves nothing.
        items = try resolved([item("TRACKNUMBER", "3"), item("TRACKTOTAL", "12")]) { $0.trackCount = nil }
        #expect(items == [item("TRACKNUMBER", "3")])
        items = try resolved([item("TRACKNUMBER", "3"), item("TRACKTOTAL", "12")]) {
            $0.trackCount = nil
            $0.trackNumber = nil
        }
        #expect(items.isEmpty)
        // Discs the same way; a new field goes to the primary key.
        items = try resolved([]) {
            $0.discNumber = 1
            $0.discCount = 2
        }
        #expect(Set(items) == [item("DISCNUMBER", "1"), item("DISCTOTAL", "2")])
        items = try resolved([]) {
            $0.title = "New"
            $0.comments = "c"
            $0.albumArtist = "AA"
        }
        #expect(Set(items) == [item("TITLE", "New"), item("COMMENT", "c"), item("ALBUMARTIST", "AA")])
    }
}
