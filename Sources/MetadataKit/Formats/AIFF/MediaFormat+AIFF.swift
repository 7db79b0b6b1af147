#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// AIFF and AIFF-C.
    public static let aiff = FileType(identifier: "aiff", mimeType: "audio/aiff")
}

extension MediaFormat {
    /// AIFF and AIFF-C, with text chunks and an `ID3 ` chunk. Recognised by
    /// its 12-byte `FORM` header.
    static let aiff = MediaFormat(
        identifier: FileType.aiff.identifier, name: "AIFF / AIFF-C", extensions: ["aiff", "aif", "aifc"],
        mimeTypes: [FileType.aiff.mimeType], keySpaces: AIFFEditPlanner.keySpaces, reshapedKeys: MetadataKeyMap.id3DateKeys,
        fillsNewPrimaryTag: true, keyTables: [.id3, .aiff],
        recognizes: { probe in probe.starts(with: "FORM") && (probe.fourCC(at: 8) == "AIFF" || probe.fourCC(at: 8) == "AIFC") },
        parse: AIFFParser.parse, planEdit: AIFFEditPlanner.plan,
        chapterWriting: .asItems(ID3ChapterWriter.store))
}
