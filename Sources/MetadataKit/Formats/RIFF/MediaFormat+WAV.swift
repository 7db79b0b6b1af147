#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// WAVE in a RIFF, RF64 or BW64 container.
    public static let wav = FileType(identifier: "wav", mimeType: "audio/wav")
}

extension MediaFormat {
    /// WAVE audio in a RIFF, RF64 or BW64 container, with `LIST`/`INFO` text,
    /// an `id3 ` chunk and the Broadcast Wave `bext`, `iXML` and `cart`
    /// chunks. Recognised by its 12-byte header.
    static let wav = MediaFormat(
        identifier: FileType.wav.identifier, name: "WAV (RIFF, RF64, BW64)", extensions: ["wav", "wave", "rf64", "bw64"],
        mimeTypes: [FileType.wav.mimeType], keySpaces: WAVEditPlanner.keySpaces, derivedKeySpaces: [.broadcastWAV],
        reshapedKeys: MetadataKeyMap.id3DateKeys,
        fillsNewPrimaryTag: true,
        keyTables: [.id3, .riff, .broadcastWAV],
        recognizes: { probe in
            (probe.starts(with: "RIFF") || probe.starts(with: "RF64") || probe.starts(with: "BW64")) && probe.fourCC(at: 8) == "WAVE"
        },
        parse: WAVParser.parse, planEdit: WAVEditPlanner.plan,
        chapterWriting: .asItems(ID3ChapterWriter.store))
}
