#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// Raw AC-3 (Dolby Digital).
    public static let ac3 = FileType(identifier: "ac3", mimeType: "audio/ac3")
    /// Raw E-AC-3 (Dolby Digital Plus); read as format ``MediaFormat`` `ac3`.
    public static let eac3 = FileType(identifier: "ac3", mimeType: "audio/eac3")
}

extension MediaFormat {
    /// Raw AC-3 and E-AC-3 streams with ID3 tags (and an APEv2 tag at the end) as
    /// in MP3 files: read by ``AC3Parser``; edits planned by ``MP3EditPlanner``
    /// (a leading ID3v2 tag, an APEv2 tag the file has, ID3v1 at the end, the
    /// audio copied untouched); a stream cut short is not written.
    ///
    /// The sync word 0x0B77 is a weak signature, so a file is recognised only
    /// when three frames follow one another (or fewer reach its end) right at
    /// its start or right after a leading ID3v2 tag.
    static let ac3 = MediaFormat(
        identifier: FileType.ac3.identifier, name: "AC-3 / E-AC-3", extensions: ["ac3", "eac3", "ec3"],
        mimeTypes: [FileType.ac3.mimeType, FileType.eac3.mimeType], keySpaces: [.id3, .id3v1, .ape], derivedKeySpaces: [.id3v1],
        reshapedKeys: MetadataKeyMap.id3DateKeys, uppercasedKeySpaces: [.ape], uniqueKeySpaces: [.ape],
        keyTables: [.id3, .ape, .id3v1],
        recognizes: { probe in try RawStreamParser.recognizes(probe, startsStream: AC3Parser.startsStream(in:at:)) },
        parse: AC3Parser.parse, planEdit: RawStreamParser.planner(AC3Parser.scan))
}
