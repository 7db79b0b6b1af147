#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// WavPack.
    public static let wavPack = FileType(identifier: "wavpack", mimeType: "audio/x-wavpack")
}

extension MediaFormat {
    /// WavPack with an APEv2 tag (and ID3v1) at the end; properties from
    /// ``WavPackHeader``. Recognised by `wvpk` at the start or after leading ID3v2 tags.
    static let wavPack = MediaFormat(
        identifier: FileType.wavPack.identifier, name: "WavPack", extensions: ["wv"], mimeTypes: ["audio/x-wavpack"],
        keySpaces: [.ape, .id3, .id3v1], derivedKeySpaces: [.id3v1], reshapedKeys: MetadataKeyMap.id3DateKeys,
        uppercasedKeySpaces: [.ape], uniqueKeySpaces: [.ape],
        keyTables: [.ape, .id3, .id3v1],
        recognizes: { probe in APEFileLayout.recognizes(probe, ["wvpk"]) },
        parse: { source, url in
            try APEFamilyParser.parse(
                source, url: url, fileType: .wavPack, codec: "WavPack", readsID3v2: true, header: WavPackHeader.properties)
        },
        planEdit: APEFamilyID3EditPlanner.plan)
}
