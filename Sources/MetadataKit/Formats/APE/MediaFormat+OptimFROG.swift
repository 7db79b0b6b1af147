#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// OptimFROG.
    public static let optimFROG = FileType(identifier: "optimfrog", mimeType: "audio/x-optimfrog")
}

extension MediaFormat {
    /// OptimFROG with an APEv2 tag (and ID3v1) at the end; properties from
    /// ``OptimFROGHeader``. Recognised by `OFR ` at the start or after leading ID3v2 tags.
    static let optimFROG = MediaFormat(
        identifier: FileType.optimFROG.identifier, name: "OptimFROG", extensions: ["ofr", "ofs"], mimeTypes: ["audio/x-optimfrog"],
        keySpaces: [.ape, .id3, .id3v1], derivedKeySpaces: [.id3v1], reshapedKeys: MetadataKeyMap.id3DateKeys,
        uppercasedKeySpaces: [.ape], uniqueKeySpaces: [.ape],
        keyTables: [.ape, .id3, .id3v1],
        recognizes: { probe in APEFileLayout.recognizes(probe, ["OFR "]) },
        parse: { source, url in
            try APEFamilyParser.parse(
                source, url: url, fileType: .optimFROG, codec: "OptimFROG", readsID3v2: true, header: OptimFROGHeader.properties)
        },
        planEdit: APEFamilyID3EditPlanner.plan)
}
