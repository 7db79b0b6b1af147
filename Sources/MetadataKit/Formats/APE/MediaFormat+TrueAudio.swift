#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// TrueAudio.
    public static let trueAudio = FileType(identifier: "tta", mimeType: "audio/x-tta")
}

extension MediaFormat {
    /// TrueAudio with a leading ID3v2 tag, an APEv2 tag and ID3v1 at the end;
    /// properties from ``TrueAudioHeader``. Recognised by `TTA1` at the start
    /// or after leading ID3v2 tags.
    ///
    /// A field held by both tags is read from ID3v2 (TagLib's
    /// `TrueAudio::File` prefers ID3v2, then ID3v1; mutagen reads only ID3),
    /// then APEv2, then ID3v1. A new field is written to the ID3v2 tag (made
    /// when the file has none), where TagLib and mutagen look (neither reads
    /// APE tags in TrueAudio files); a field the APE tag holds is updated
    /// there (``APEFamilyID3EditPlanner``).
    static let trueAudio = MediaFormat(
        identifier: FileType.trueAudio.identifier, name: "TrueAudio", extensions: ["tta"], mimeTypes: ["audio/x-tta"],
        keySpaces: [.id3, .ape, .id3v1], derivedKeySpaces: [.id3v1],
        reshapedKeys: MetadataKeyMap.id3DateKeys, uppercasedKeySpaces: [.ape], uniqueKeySpaces: [.ape],
        keyTables: [.id3, .ape, .id3v1],
        recognizes: { probe in APEFileLayout.recognizes(probe, ["TTA1"]) },
        parse: { source, url in
            try APEFamilyParser.parse(
                source, url: url, fileType: .trueAudio, codec: "TrueAudio", readsID3v2: true,
                header: TrueAudioHeader.properties)
        },
        planEdit: APEFamilyID3EditPlanner.plan)
}
