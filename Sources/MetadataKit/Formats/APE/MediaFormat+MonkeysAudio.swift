#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// Monkey's Audio.
    public static let monkeysAudio = FileType(identifier: "ape", mimeType: "audio/ape")
}

extension MediaFormat {
    /// Monkey's Audio with an APEv2 tag (and ID3v1) at the end; properties from
    /// ``MonkeysAudioHeader``. Recognised by `MAC ` at the start or after leading ID3v2 tags.
    static let monkeysAudio = MediaFormat(
        identifier: FileType.monkeysAudio.identifier, name: "Monkey's Audio", extensions: ["ape"], mimeTypes: ["audio/ape", "audio/x-ape"],
        keySpaces: [.ape, .id3, .id3v1], derivedKeySpaces: [.id3v1], reshapedKeys: MetadataKeyMap.id3DateKeys,
        uppercasedKeySpaces: [.ape], uniqueKeySpaces: [.ape],
        keyTables: [.ape, .id3, .id3v1],
        recognizes: { probe in APEFileLayout.recognizes(probe, ["MAC "]) },
        parse: { source, url in
            try APEFamilyParser.parse(
                source, url: url, fileType: .monkeysAudio, codec: "Monkey's Audio", readsID3v2: true, header: MonkeysAudioHeader.properties)
        },
        planEdit: APEFamilyID3EditPlanner.plan)
}
