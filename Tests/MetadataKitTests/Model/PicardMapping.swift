import Foundation

@testable import MetadataKit

/// The keys MusicBrainz Picard (and mutagen, which it writes with) uses for
/// each field, written out by hand from Picard's "Tag mapping" table — not
/// taken from the library's key map, so a wrong key there fails the tests.
/// Keys are mutagen's: ID3 `HashKey`s (`TXXX:<desc>`, `USLT::eng`), MP4 atom
/// names and `----:com.apple.iTunes:<name>`, Vorbis names upper-cased.
enum PicardMapping {
    struct Keys {
        var id3: String?
        var mp4: String?
        var vorbis: String?
    }

    private static func k(_ id3: String?, _ mp4: String?, _ vorbis: String?) -> Keys { Keys(id3: id3, mp4: mp4, vorbis: vorbis) }
    private static func free(_ name: String) -> String { "----:com.apple.iTunes:\(name)" }

    static let keys: [MetadataField: Keys] = [
        .title: k("TIT2", "©nam", "TITLE"), .artist: k("TPE1", "©ART", "ARTIST"),
        .albumArtist: k("TPE2", "aART", "ALBUMARTIST"), .album: k("TALB", "©alb", "ALBUM"),
        .grouping: k("TIT1", "©grp", "GROUPING"), .composer: k("TCOM", "©wrt", "COMPOSER"),
        .comments: k("COMM::eng", "©cmt", "COMMENT"), .genre: k("TCON", "©gen", "GENRE"),
        .titleSort: k("TSOT", "sonm", "TITLESORT"), .artistSort: k("TSOP", "soar", "ARTISTSORT"),
        .albumSort: k("TSOA", "soal", "ALBUMSORT"), .albumArtistSort: k("TSO2", "soaa", "ALBUMARTISTSORT"),
        .composerSort: k("TSOC", "soco", "COMPOSERSORT"), .subtitle: k("TIT3", free("SUBTITLE"), "SUBTITLE"),
        .discSubtitle: k("TSST", free("DISCSUBTITLE"), "DISCSUBTITLE"), .work: k("TXXX:WORK", "©wrk", "WORK"),
        .movementName: k("MVNM", "©mvn", "MOVEMENTNAME"), .movementNumber: k("MVIN", "©mvi", "MOVEMENT"),
        .movementCount: k("MVIN", "©mvc", "MOVEMENTTOTAL"), .showsMovement: k("TXXX:SHOWMOVEMENT", "shwm", "SHOWMOVEMENT"),
        .artists: k("TXXX:ARTISTS", free("ARTISTS"), "ARTISTS"), .conductor: k("TPE3", free("CONDUCTOR"), "CONDUCTOR"),
        .lyricist: k("TEXT", free("LYRICIST"), "LYRICIST"), .remixer: k("TPE4", free("REMIXER"), "REMIXER"),
        .arranger: k(nil, free("ARRANGER"), "ARRANGER"), .engineer: k(nil, free("ENGINEER"), "ENGINEER"),
        .producer: k(nil, free("PRODUCER"), "PRODUCER"), .djMixer: k(nil, free("DJMIXER"), "DJMIXER"),
        .mixer: k(nil, free("MIXER"), "MIXER"), .performers: k(nil, nil, "PERFORMER"),
        .originalArtist: k("TOPE", nil, "ORIGINALARTIST"), .originalAlbum: k("TOAL", nil, "ORIGINALALBUM"),
        .label: k("TPUB", free("LABEL"), "LABEL"), .catalogNumber: k("TXXX:CATALOGNUMBER", free("CATALOGNUMBER"), "CATALOGNUMBER"),
        .barcode: k("TXXX:BARCODE", free("BARCODE"), "BARCODE"), .isrc: k("TSRC", free("ISRC"), "ISRC"),
        .asin: k("TXXX:ASIN", free("ASIN"), "ASIN"), .media: k("TMED", free("MEDIA"), "MEDIA"),
        .releaseType: k("TXXX:MusicBrainz Album Type", free("MusicBrainz Album Type"), "RELEASETYPE"),
        .releaseStatus: k("TXXX:MusicBrainz Album Status", free("MusicBrainz Album Status"), "RELEASESTATUS"),
        .releaseCountry: k("TXXX:MusicBrainz Album Release Country", free("MusicBrainz Album Release Country"), "RELEASECOUNTRY"),
        .script: k("TXXX:SCRIPT", free("SCRIPT"), "SCRIPT"), .language: k("TLAN", free("LANGUAGE"), "LANGUAGE"),
        .mood: k("TMOO", free("MOOD"), "MOOD"), .initialKey: k("TKEY", free("initialkey"), "KEY"),
        .copyright: k("TCOP", "cprt", "COPYRIGHT"), .license: k("TXXX:LICENSE", free("LICENSE"), "LICENSE"),
        .encodedBy: k("TENC", "©too", "ENCODEDBY"), .encoderSettings: k("TSSE", nil, "ENCODERSETTINGS"),
        .website: k("WOAR", free("WEBSITE"), "WEBSITE"), .isCompilation: k("TCMP", "cpil", "COMPILATION"),
        .isGapless: k(nil, "pgap", nil), .isPodcast: k("PCST", "pcst", nil), .podcastURL: k("WFED", "purl", nil),
        .podcastCategory: k("TCAT", "catg", nil),
        .releaseDate: k("TDRL", free("RELEASEDATE"), "RELEASEDATE"), .originalDate: k("TDOR", free("ORIGINALDATE"), "ORIGINALDATE"),
        .originalYear: k("TXXX:ORIGINALYEAR", free("ORIGINALYEAR"), "ORIGINALYEAR"), .lyrics: k("USLT::eng", "©lyr", "LYRICS"),
        .musicBrainzRecordingID: k("UFID:http://musicbrainz.org", free("MusicBrainz Track Id"), "MUSICBRAINZ_TRACKID"),
        .musicBrainzReleaseTrackID: k(
            "TXXX:MusicBrainz Release Track Id", free("MusicBrainz Release Track Id"), "MUSICBRAINZ_RELEASETRACKID"),
        .musicBrainzReleaseID: k("TXXX:MusicBrainz Album Id", free("MusicBrainz Album Id"), "MUSICBRAINZ_ALBUMID"),
        .musicBrainzReleaseGroupID: k(
            "TXXX:MusicBrainz Release Group Id", free("MusicBrainz Release Group Id"), "MUSICBRAINZ_RELEASEGROUPID"),
        .musicBrainzArtistID: k("TXXX:MusicBrainz Artist Id", free("MusicBrainz Artist Id"), "MUSICBRAINZ_ARTISTID"),
        .musicBrainzAlbumArtistID: k(
            "TXXX:MusicBrainz Album Artist Id", free("MusicBrainz Album Artist Id"), "MUSICBRAINZ_ALBUMARTISTID"),
        .musicBrainzWorkID: k("TXXX:MusicBrainz Work Id", free("MusicBrainz Work Id"), "MUSICBRAINZ_WORKID"),
        .musicBrainzDiscID: k("TXXX:MusicBrainz Disc Id", free("MusicBrainz Disc Id"), "MUSICBRAINZ_DISCID"),
        .musicBrainzTRMID: k("TXXX:MusicBrainz TRM Id", free("MusicBrainz TRM Id"), "MUSICBRAINZ_TRMID"),
        .musicBrainzOriginalReleaseID: k(
            "TXXX:MusicBrainz Original Album Id", free("MusicBrainz Original Album Id"), "MUSICBRAINZ_ORIGINALALBUMID"),
        .acoustID: k("TXXX:Acoustid Id", free("Acoustid Id"), "ACOUSTID_ID"),
        .acoustIDFingerprint: k("TXXX:Acoustid Fingerprint", free("Acoustid Fingerprint"), "ACOUSTID_FINGERPRINT"),
        .replayGainTrackGain: k("TXXX:REPLAYGAIN_TRACK_GAIN", free("replaygain_track_gain"), "REPLAYGAIN_TRACK_GAIN"),
        .replayGainTrackPeak: k("TXXX:REPLAYGAIN_TRACK_PEAK", free("replaygain_track_peak"), "REPLAYGAIN_TRACK_PEAK"),
        .replayGainAlbumGain: k("TXXX:REPLAYGAIN_ALBUM_GAIN", free("replaygain_album_gain"), "REPLAYGAIN_ALBUM_GAIN"),
        .replayGainAlbumPeak: k("TXXX:REPLAYGAIN_ALBUM_PEAK", free("replaygain_album_peak"), "REPLAYGAIN_ALBUM_PEAK"),
        .replayGainReferenceLoudness: k(
            "TXXX:REPLAYGAIN_REFERENCE_LOUDNESS", free("replaygain_reference_loudness"), "REPLAYGAIN_REFERENCE_LOUDNESS"),
        .r128TrackGain: k(nil, nil, "R128_TRACK_GAIN"), .r128AlbumGain: k(nil, nil, "R128_ALBUM_GAIN"),
        .rating: k("POPM:Windows Media Player 9 Series", "rate", "RATING"),
    ]

    /// Fields a test sets to several values.
    static let multiValued: Set<MetadataField> = [
        .artist, .composer, .genre, .artists, .lyricist, .performers, .musicBrainzArtistID, .musicBrainzAlbumArtistID,
    ]

    /// The value a test gives `field`, as the texts a file stores (non-ASCII,
    /// several for ``multiValued``; `seed` varies them).
    static func values(_ field: MetadataField, seed: UInt64) -> [String] {
        let tag = String(seed % 1000)
        switch field {
        case .isCompilation, .isGapless, .isPodcast, .showsMovement: return ["1"]
        case .movementNumber: return [String(2 + seed % 7)]
        case .movementCount: return [String(10 + seed % 5)]
        case .rating: return [String(20 * (1 + seed % 5))]
        case .releaseDate: return ["2021-03-0\(1 + seed % 9)"]
        case .originalDate: return ["1999-01-0\(1 + seed % 9)"]
        case .originalYear: return ["19\(70 + seed % 29)"]
        case .replayGainTrackGain, .replayGainAlbumGain: return ["-6.\(10 + seed % 80) dB"]
        case .replayGainTrackPeak, .replayGainAlbumPeak: return ["0.98\(seed % 10)"]
        case .replayGainReferenceLoudness: return ["89.0 dB"]
        case .r128TrackGain, .r128AlbumGain: return ["-\(seed % 900)"]
        case .website, .podcastURL: return ["https://example.com/\(tag)"]
        case .lyrics: return ["Zeile eins ü \(tag)\nline two 日本"]
        case .performers: return ["Ann Ö (piano)", "Bob \(tag) (vocals)"]
        case .isrc: return ["USRC1760\(String(format: "%04d", seed % 10000))"]
        case .acoustID: return ["0f2b5a7e-8c1d-4e3f-9a6b-\(String(format: "%012d", seed % 1_000_000))"]
        case _ where field.rawValue.hasPrefix("musicBrainz"):
            let base = "89ad4ac3-39f7-470e-963a-56509c54\(String(format: "%04d", seed % 10000))"
            return multiValued.contains(field) ? [base, "f27ec8db-af05-4f36-916e-3d57f91ecf5e"] : [base]
        default:
            let text = "\(field.rawValue) ü 日本 \(tag)"
            return multiValued.contains(field) ? [text, "Zweite \(field.rawValue) é"] : [text]
        }
    }
}
