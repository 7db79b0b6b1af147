#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// Musepack.
    public static let musepack = FileType(identifier: "musepack", mimeType: "audio/x-musepack")
}

extension MediaFormat {
    /// Musepack with an APEv2 tag (and ID3v1) at the end, and any leading
    /// ID3v2 tag read and kept in step (``APEFamilyID3EditPlanner``); properties from
    /// ``MusepackHeader``. Recognised by `MPCK` (SV8) or `MP+` (SV7) at the start or after leading ID3v2 tags; SV4–SV6
    /// streams have no marker and are read by their extension.
    static let musepack = MediaFormat(
        identifier: FileType.musepack.identifier, name: "Musepack", extensions: ["mpc", "mp+", "mpp"],
        mimeTypes: ["audio/x-musepack", "audio/x-mpc"],
        keySpaces: [.ape, .id3, .id3v1], derivedKeySpaces: [.id3v1], reshapedKeys: MetadataKeyMap.id3DateKeys,
        uppercasedKeySpaces: [.ape], uniqueKeySpaces: [.ape],
        keyTables: [.ape, .id3, .id3v1],
        recognizes: { probe in APEFileLayout.recognizes(probe, ["MPCK", "MP+"]) }, acceptsByExtension: true,
        parse: { source, url in
            try APEFamilyParser.parse(
                source, url: url, fileType: .musepack, codec: "Musepack", readsID3v2: true, header: MusepackHeader.properties)
        },
        planEdit: APEFamilyID3EditPlanner.plan)
}
