import Foundation

extension FileType {
    /// Ogg, whatever the codec (``MediaProperties/codec`` tells it).
    public static let ogg = FileType(identifier: "ogg", mimeType: "audio/ogg")
}

extension MediaFormat {
    /// Ogg Vorbis, Opus, Speex and Ogg FLAC, with their Vorbis comment.
    /// Recognised by the `OggS` capture pattern at the start.
    static let ogg = MediaFormat(
        identifier: FileType.ogg.identifier, name: "Ogg (Vorbis, Opus, Speex, FLAC)", extensions: ["ogg", "oga", "opus", "spx"],
        mimeTypes: [FileType.ogg.mimeType], keySpaces: [.vorbis], uppercasedKeySpaces: [.vorbis],
        keyMapRows: MetadataKeyMap.vorbisKeys,
        recognizes: { probe in probe.starts(with: "OggS") },
        parse: OggParser.parse, planEdit: OggEditPlanner.plan,
        chapterWriting: .asItems(VorbisChapters.storing))
}
