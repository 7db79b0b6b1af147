import Foundation

extension FileType {
    /// TrueAudio.
    public static let trueAudio = FileType(identifier: "tta", mimeType: "audio/x-tta")
}

extension MediaFormat {
    /// TrueAudio with an APEv2 tag (and ID3v1) at the end; properties from
    /// ``TrueAudioHeader``. Recognised by `TTA1` at the start or after leading ID3v2 tags.
    static let trueAudio = MediaFormat(
        identifier: FileType.trueAudio.identifier, name: "TrueAudio", extensions: ["tta"], mimeTypes: ["audio/x-tta"],
        keySpaces: [.ape, .id3v1], derivedKeySpaces: [.id3v1], uppercasedKeySpaces: [.ape],
        keyMapRows: MetadataKeyMap.concatenated(MetadataKeyMap.apeKeys, MetadataKeyMap.id3v1Keys),
        recognizes: { probe in APEFileLayout.recognizes(probe, ["TTA1"]) },
        parse: { source, url in
            try APEFamilyParser.parse(source, url: url, fileType: .trueAudio, codec: "TrueAudio", header: TrueAudioHeader.properties)
        },
        planEdit: APEFamilyEditPlanner.plan)
}
