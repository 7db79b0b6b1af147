#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// DSF (Sony DSD Stream File).
    public static let dsf = FileType(identifier: "dsf", mimeType: "audio/dsf")
}

extension MediaFormat {
    /// DSF: 1-bit DSD audio with an ID3v2 tag at the end. Recognised by its
    /// 'DSD ' chunk with the chunk size 28.
    static let dsf = MediaFormat(
        identifier: FileType.dsf.identifier, name: "DSF (DSD Stream File)", extensions: ["dsf"],
        mimeTypes: [FileType.dsf.mimeType, "audio/x-dsf"], keySpaces: [.id3], reshapedKeys: MetadataKeyMap.id3DateKeys,
        keyTables: [.id3],
        recognizes: { probe in
            probe.starts(with: "DSD ") && probe.head.count >= 12 && probe.head[4] == 28 && probe.head[5..<12].allSatisfy { $0 == 0 }
        },
        parse: DSFParser.parse, planEdit: DSFEditPlanner.plan,
        chapterWriting: .asItems(ID3ChapterWriter.store))
}
