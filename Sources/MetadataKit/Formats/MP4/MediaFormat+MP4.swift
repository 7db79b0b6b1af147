#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MediaFormat {
    /// The ISO base media file format and QuickTime: `.mp4 .m4a .m4b .m4v
    /// .mov .3gp .3g2`. Recognised by the type of the first box (`ftyp`,
    /// `moov`, `mdat`, …). Its files' MIME type follows the `ftyp` brands
    /// and whether there is video (see ``MP4Parser``).
    static let mp4 = MediaFormat(
        identifier: "mp4", name: "MP4 / QuickTime", extensions: ["mp4", "m4a", "m4b", "m4v", "mov", "3gp", "3g2"],
        mimeTypes: ["video/mp4", "audio/mp4", "video/quicktime", "video/3gpp", "video/3gpp2"],
        keySpaces: MP4EditPlanner.keySpaces, fieldCodecs: [MP4FieldCodec(), QuickTimeUserDataFieldCodec()],
        keyTables: [.mp4],
        recognizes: { probe in probe.fourCC(at: 4).map(MP4Parser.topLevelTypes.contains) ?? false },
        parse: MP4Parser.parse, planEdit: nil, planEditFromBasis: MP4EditPlanner.plan(_:basis:_:_:), chapterWriting: .byPlanner,
        loadAsset: MP4AssetLoader.load)
}
