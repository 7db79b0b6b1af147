#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// MPEG audio (MP3, MP2, MP1).
    public static let mp3 = FileType(identifier: "mp3", mimeType: "audio/mpeg")
}

extension MediaFormat {
    /// MPEG-1/2 audio layers I–III with ID3v2 tags at the start (and,
    /// rarely, the end) and an ID3v1 tag at the end. Recognised by an `ID3`
    /// tag or an MPEG frame sync at the start, or by its extension.
    static let mp3 = MediaFormat(
        identifier: FileType.mp3.identifier, name: "MPEG audio (MP3)", extensions: ["mp3", "mp2", "mpga"],
        mimeTypes: [FileType.mp3.mimeType], keySpaces: [.id3, .id3v1, .ape], derivedKeySpaces: [.id3v1],
        reshapedKeys: MetadataKeyMap.id3DateKeys, uppercasedKeySpaces: [.ape], uniqueKeySpaces: [.ape],
        fieldCodecs: [ID3FieldCodec(), ID3v1FieldCodec()],
        keyTables: [.id3, .ape, .id3v1],
        recognizes: { probe in
            probe.starts(with: "ID3") || (probe.head.count >= 2 && probe.head[0] == 0xFF && probe.head[1] & 0xE0 == 0xE0)
        },
        acceptsByExtension: true, parse: MP3Parser.parse, planEdit: nil,
        planEditFromBasis: MP3EditPlanner.plan(_:basis:_:_:),
        chapterWriting: .asItems(ID3ChapterWriter.store))
}
