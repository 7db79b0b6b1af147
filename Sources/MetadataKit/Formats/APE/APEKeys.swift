#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MetadataKeySpace {
    /// APEv2 (and APEv1) tag items: the main tag of Monkey's Audio, WavPack,
    /// Musepack, TrueAudio, OptimFROG and TAK files. Keys are
    /// case-insensitive (APEv2 specification, "APE Tag Item") and kept
    /// uppercased, such as `TITLE` or `COVER ART (FRONT)`; a save writes an
    /// unchanged key as the file spelled it.
    public static let ape = MetadataKeySpace(rawValue: "ape")
}

extension MetadataDataType {
    /// An APEv2 item flagged "external locator" (a URL or file name, UTF-8).
    public static let apeLocator = MetadataDataType(rawValue: "APE-locator")
}

/// APEv2 item keys per normalized field.
///
/// The APEv2 specification ("APE key") lists Title, Artist, Album, Comment,
/// Genre, Year, Track and the `Cover Art (…)` items; the rest follow TagLib's
/// property mapping and what Picard, foobar2000 and mutagen users write:
///
/// | field | APEv2 |
/// |---|---|
/// | title | TITLE |
/// | artist | ARTIST |
/// | albumArtist | ALBUM ARTIST, ALBUMARTIST |
/// | album | ALBUM |
/// | grouping | GROUPING |
/// | composer | COMPOSER |
/// | comments | COMMENT |
/// | artwork | COVER ART (FRONT), then the other `COVER ART (…)` items |
/// | genre | GENRE |
/// | year | YEAR |
/// | bpm | BPM |
/// | track n/N | TRACK ("n/N") |
/// | disc n/N | DISC ("n/N") |
extension MetadataKeyMap {
    static let apeKeys: [MetadataField: [RawKey]] = {
        func keys(_ names: String...) -> [RawKey] { names.map { RawKey(.ape, $0) } }
        return [
            .title: keys("TITLE"),
            .artist: keys("ARTIST"),
            .albumArtist: keys("ALBUM ARTIST", "ALBUMARTIST"),
            .album: keys("ALBUM"),
            .grouping: keys("GROUPING"),
            .composer: keys("COMPOSER"),
            .comments: keys("COMMENT"),
            .artwork: APEPictureKeys.all.map { RawKey(.ape, $0) },
            .genre: keys("GENRE"),
            .year: keys("YEAR"),
            .bpm: keys("BPM"),
            .trackNumber: keys("TRACK"),
            .trackCount: keys("TRACK"),
            .discNumber: keys("DISC"),
            .discCount: keys("DISC"),
        ]
    }()
}

/// The binary items that hold pictures, one per picture type (APEv2
/// specification, "APE key": `Cover Art (Other)` … `Cover Art (Publisher
/// Logotype)`, in ID3v2 APIC order). The value is a file name, a zero byte
/// and the image (as TagLib and foobar2000 store it).
enum APEPictureKeys {
    /// Uppercased keys, front cover first (the key a new picture goes to).
    static let all: [String] = ([3] + Array(0...2) + Array(4...20)).map { byType[$0] }
    /// Uppercased keys by picture type (ID3v2 APIC numbering).
    static let byType: [String] = [
        "OTHER", "ICON", "OTHER ICON", "FRONT", "BACK", "LEAFLET", "MEDIA", "LEAD ARTIST", "ARTIST", "CONDUCTOR",
        "BAND", "COMPOSER", "LYRICIST", "RECORDING LOCATION", "DURING RECORDING", "DURING PERFORMANCE",
        "VIDEO CAPTURE", "FISH", "ILLUSTRATION", "BAND LOGOTYPE", "PUBLISHER LOGOTYPE",
    ].map { "COVER ART (\($0))" }

    /// The picture type an uppercased key stands for; nil for other keys.
    static func pictureType(ofKey key: String) -> Artwork.PictureType? {
        byType.firstIndex(of: key).map { Artwork.PictureType(rawValue: UInt8($0)) }
    }

    /// The key of a picture type (types past the list: `COVER ART (OTHER)`).
    static func key(for type: Artwork.PictureType) -> String {
        Int(type.rawValue) < byType.count ? byType[Int(type.rawValue)] : byType[0]
    }
}
