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
/// | year | YEAR, DATE |
/// | bpm | BPM |
/// | track n/N | TRACK ("n/N") |
/// | disc n/N | DISC ("n/N") |
///
/// The year is read from `YEAR` (the specification's, TagLib's and
/// Picard's) or `DATE` (foobar2000's, and mutagen users'); a change is
/// written where the file keeps it (a `DATE`-only file keeps `DATE`, and a
/// second key of the field in the tag goes), so no reader is left with
/// the old year. The fields added after the first fifteen use the names
/// TagLib's APE property map and Picard write (``apeExtendedKeys``).
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
            .date: keys("YEAR", "DATE"),
            .bpm: keys("BPM"),
            .trackNumber: keys("TRACK"),
            .trackCount: keys("TRACK"),
            .discNumber: keys("DISC"),
            .discCount: keys("DISC"),
        ].merging(apeExtendedKeys) { $0 + $1 }
    }()

    /// The rows of the fields added after the original fifteen, by the names
    /// TagLib (`apetag.cpp`: `MIXARTIST` for the remixer) and Picard
    /// (`Weblink`, `Original Artist`, `MUSICBRAINZ_ALBUMTYPE` and
    /// `MUSICBRAINZ_ALBUMSTATUS` for the release type and status, the
    /// MusicBrainz IDs as in Vorbis comments) give them; keys are kept
    /// uppercased (they are case-insensitive).
    static let apeExtendedKeys: [MetadataField: [RawKey]] = {
        func keys(_ names: String...) -> [RawKey] { names.map { RawKey(.ape, $0) } }
        return [
            .titleSort: keys("TITLESORT"), .artistSort: keys("ARTISTSORT"), .albumSort: keys("ALBUMSORT"),
            .albumArtistSort: keys("ALBUMARTISTSORT"), .composerSort: keys("COMPOSERSORT"),
            .subtitle: keys("SUBTITLE"), .discSubtitle: keys("DISCSUBTITLE"), .work: keys("WORK"),
            .movementName: keys("MOVEMENTNAME"), .movementNumber: keys("MOVEMENT"), .movementCount: keys("MOVEMENTTOTAL"),
            .showsMovement: keys("SHOWMOVEMENT"), .artists: keys("ARTISTS"), .conductor: keys("CONDUCTOR"),
            .lyricist: keys("LYRICIST"), .remixer: keys("MIXARTIST"), .arranger: keys("ARRANGER"),
            .engineer: keys("ENGINEER"), .producer: keys("PRODUCER"), .djMixer: keys("DJMIXER"), .mixer: keys("MIXER"),
            .originalArtist: keys("ORIGINAL ARTIST", "ORIGINALARTIST"), .originalAlbum: keys("ORIGINALALBUM"),
            .label: keys("LABEL", "PUBLISHER"), .catalogNumber: keys("CATALOGNUMBER"),
            .barcode: keys("BARCODE"), .isrc: keys("ISRC"), .asin: keys("ASIN"), .media: keys("MEDIA"),
            .releaseType: keys("MUSICBRAINZ_ALBUMTYPE", "RELEASETYPE"),
            .releaseStatus: keys("MUSICBRAINZ_ALBUMSTATUS", "RELEASESTATUS"),
            .releaseCountry: keys("RELEASECOUNTRY"), .script: keys("SCRIPT"), .language: keys("LANGUAGE"),
            .mood: keys("MOOD"), .initialKey: keys("KEY"), .copyright: keys("COPYRIGHT"), .license: keys("LICENSE"),
            .encodedBy: keys("ENCODEDBY"), .encoderSettings: keys("ENCODERSETTINGS"),
            .website: keys("WEBLINK"), .isCompilation: keys("COMPILATION"),
            .releaseDate: keys("RELEASEDATE"), .originalDate: keys("ORIGINALDATE"), .originalYear: keys("ORIGINALYEAR"),
            .lyrics: keys("LYRICS"),
            .musicBrainzRecordingID: keys("MUSICBRAINZ_TRACKID"),
            .musicBrainzReleaseTrackID: keys("MUSICBRAINZ_RELEASETRACKID"),
            .musicBrainzReleaseID: keys("MUSICBRAINZ_ALBUMID"),
            .musicBrainzReleaseGroupID: keys("MUSICBRAINZ_RELEASEGROUPID"),
            .musicBrainzArtistID: keys("MUSICBRAINZ_ARTISTID"),
            .musicBrainzAlbumArtistID: keys("MUSICBRAINZ_ALBUMARTISTID"),
            .musicBrainzWorkID: keys("MUSICBRAINZ_WORKID"), .musicBrainzDiscID: keys("MUSICBRAINZ_DISCID"),
            .musicBrainzTRMID: keys("MUSICBRAINZ_TRMID"),
            .musicBrainzOriginalReleaseID: keys("MUSICBRAINZ_ORIGINALALBUMID"),
            .acoustID: keys("ACOUSTID_ID"), .acoustIDFingerprint: keys("ACOUSTID_FINGERPRINT"),
            .replayGainTrackGain: keys("REPLAYGAIN_TRACK_GAIN"), .replayGainTrackPeak: keys("REPLAYGAIN_TRACK_PEAK"),
            .replayGainAlbumGain: keys("REPLAYGAIN_ALBUM_GAIN"), .replayGainAlbumPeak: keys("REPLAYGAIN_ALBUM_PEAK"),
            .replayGainReferenceLoudness: keys("REPLAYGAIN_REFERENCE_LOUDNESS"),
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

extension MetadataKeyMap.KeyTable {
    /// The rows of `MetadataKeyMap.apeKeys`.
    static let ape = Self("ape", keySpaces: [.ape]) { MetadataKeyMap.apeKeys }
}
