#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// DSDIFF (Philips DSD Interchange File Format, `.dff`).
    public static let dsdiff = FileType(identifier: "dsdiff", mimeType: "audio/x-dff")
}

extension MediaFormat {
    /// DSDIFF: DSD or DST audio in a big-endian 'FRM8' form with 64-bit
    /// chunk sizes; an 'ID3 ' chunk and the 'DIIN' text. Recognised by
    /// 'FRM8' and the form type 'DSD '.
    static let dsdiff = MediaFormat(
        identifier: FileType.dsdiff.identifier, name: "DSDIFF (DSD Interchange File Format)", extensions: ["dff"],
        mimeTypes: [FileType.dsdiff.mimeType], keySpaces: DSDIFFEditPlanner.keySpaces, reshapedKeys: MetadataKeyMap.id3DateKeys,
        fillsNewPrimaryTag: true, keyTables: [.id3, .dsdiff],
        recognizes: { probe in
            guard probe.starts(with: "FRM8"), probe.source.size >= 16 else { return false }
            return try probe.source.getBytes(at: 12, count: 4).elementsEqual("DSD ".utf8)
        },
        parse: DSDIFFParser.parse, planEdit: DSDIFFEditPlanner.plan,
        chapterWriting: .asItems(ID3ChapterWriter.store))
}
