#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// Shorten.
    public static let shorten = FileType(identifier: "shorten", mimeType: "audio/x-shorten")
}

extension MediaFormat {
    /// Shorten (`.shn`), read-only: properties from ``ShortenHeader`` (the
    /// embedded WAV or AIFF header), and the tags a file may carry read as in
    /// the APE family (a leading ID3v2 tag, APEv2 and ID3v1 at the end).
    /// Recognised by "ajkg" at the start or after leading ID3v2 tags.
    static let shorten = MediaFormat(
        identifier: FileType.shorten.identifier, name: "Shorten", extensions: ["shn"], mimeTypes: [FileType.shorten.mimeType],
        keySpaces: [.ape, .id3, .id3v1], reshapedKeys: MetadataKeyMap.id3DateKeys, uppercasedKeySpaces: [.ape], uniqueKeySpaces: [.ape],
        keyTables: [.ape, .id3, .id3v1],
        recognizes: { probe in APEFileLayout.recognizes(probe, ["ajkg"]) },
        parse: { source, url in
            var parsed = try APEFamilyParser.parse(
                source, url: url, fileType: .shorten, codec: "Shorten", readsID3v2: true, header: ShortenHeader.properties)
            parsed.isEditable = false
            return parsed
        },
        planEdit: nil)
}
