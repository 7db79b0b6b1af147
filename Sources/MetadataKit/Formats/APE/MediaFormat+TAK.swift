#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// TAK.
    public static let tak = FileType(identifier: "tak", mimeType: "audio/x-tak")
}

extension MediaFormat {
    /// TAK with an APEv2 tag (and ID3v1) at the end; properties from
    /// ``TAKStreamInfo``. Recognised by `tBaK` at the start or after leading ID3v2 tags.
    static let tak = MediaFormat(
        identifier: FileType.tak.identifier, name: "TAK", extensions: ["tak"], mimeTypes: ["audio/x-tak"],
        keySpaces: [.ape, .id3, .id3v1], derivedKeySpaces: [.id3v1], reshapedKeys: MetadataKeyMap.id3DateKeys,
        uppercasedKeySpaces: [.ape], uniqueKeySpaces: [.ape],
        keyTables: [.ape, .id3, .id3v1],
        recognizes: { probe in APEFileLayout.recognizes(probe, ["tBaK"]) },
        parse: { source, url in
            try APEFamilyParser.parse(
                source, url: url, fileType: .tak, codec: "TAK", readsID3v2: true, header: TAKStreamInfo.properties)
        },
        planEdit: APEFamilyID3EditPlanner.plan)
}
