#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// Raw AAC in ADTS (or ADIF) framing.
    public static let aac = FileType(identifier: "aac", mimeType: "audio/aac")
}

extension MediaFormat {
    /// Raw AAC streams (ADTS, or ADIF) with ID3 tags (and an APEv2 tag at the end) as
    /// in MP3 files: read by ``ADTSParser``; edits planned by ``MP3EditPlanner``
    /// (a leading ID3v2 tag, an APEv2 tag the file has, ID3v1 at the end, the
    /// audio copied untouched); a stream cut short is not written.
    ///
    /// An ADTS sync word is a weak signature, so a file is recognised only
    /// when three frames follow one another (or fewer reach its end) right at
    /// its start or right after a leading ID3v2 tag; the format is asked after
    /// every container format and before MP3 (whose frame sync `FF Ex` an
    /// ADTS header also matches). An ADIF stream starts with "ADIF" there.
    static let aac = MediaFormat(
        identifier: FileType.aac.identifier, name: "AAC (ADTS, ADIF)", extensions: ["aac", "adts"],
        mimeTypes: [FileType.aac.mimeType, "audio/aacp", "audio/x-aac"], keySpaces: [.id3, .id3v1, .ape], derivedKeySpaces: [.id3v1],
        reshapedKeys: MetadataKeyMap.id3DateKeys, uppercasedKeySpaces: [.ape], uniqueKeySpaces: [.ape],
        keyTables: [.id3, .ape, .id3v1],
        recognizes: { probe in try RawStreamParser.recognizes(probe, startsStream: ADTSParser.startsStream(in:at:)) },
        parse: ADTSParser.parse, planEdit: RawStreamParser.planner(ADTSParser.properties))
}
