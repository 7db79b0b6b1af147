/// Vorbis comment field names per normalized field.
///
/// There is no fixed list of names (Vorbis I §5.2.2 suggests a few); these are
/// the ones written by the Xiph tools, ffmpeg, mutagen/Picard, foobar2000 and
/// TagLib:
///
/// | field | Vorbis comment |
/// |---|---|
/// | title | TITLE |
/// | artist | ARTIST |
/// | albumArtist | ALBUMARTIST, ALBUM ARTIST |
/// | album | ALBUM |
/// | grouping | GROUPING |
/// | composer | COMPOSER |
/// | comments | COMMENT, DESCRIPTION |
/// | artwork | METADATA_BLOCK_PICTURE (and FLAC PICTURE blocks) |
/// | genre | GENRE |
/// | year | DATE, YEAR |
/// | bpm | BPM |
/// | track n/N | TRACKNUMBER (may hold "n/N"), TRACKTOTAL, TOTALTRACKS |
/// | disc n/N | DISCNUMBER (may hold "n/N"), DISCTOTAL, TOTALDISCS |
///
/// The counts list the number key first, so a count kept in `TRACKNUMBER`
/// ("3/12") is found, and a changed count is written as `TRACKTOTAL` beside a
/// plain `TRACKNUMBER` (see ``PositionMetadataConverter``).
extension MetadataKeyMap {
    static let vorbisKeys: [MetadataField: [RawKey]] = {
        func keys(_ names: String...) -> [RawKey] { names.map { RawKey(.vorbis, $0) } }
        return [
            .title: keys("TITLE"),
            .artist: keys("ARTIST"),
            .albumArtist: keys("ALBUMARTIST", "ALBUM ARTIST"),
            .album: keys("ALBUM"),
            .grouping: keys("GROUPING"),
            .composer: keys("COMPOSER"),
            .comments: keys("COMMENT", "DESCRIPTION"),
            .artwork: keys(VorbisComment.pictureKey),
            .genre: keys("GENRE"),
            .date: keys("DATE", "YEAR"),
            .bpm: keys("BPM"),
            .trackNumber: keys("TRACKNUMBER"),
            .trackCount: keys("TRACKNUMBER", "TRACKTOTAL", "TOTALTRACKS"),
            .discNumber: keys("DISCNUMBER"),
            .discCount: keys("DISCNUMBER", "DISCTOTAL", "TOTALDISCS"),
        ].merging(vorbisExtendedKeys) { $0 + $1 }
    }()

    /// The rows of the fields added after the original fifteen: Picard's
    /// Vorbis names (the MusicBrainz IDs as `MUSICBRAINZ_*`, ReplayGain as
    /// `REPLAYGAIN_*`, Opus gains as `R128_*` of RFC 7845 §5.2.1), then the
    /// names other taggers use (`UNSYNCEDLYRICS` of foobar2000, `ORGANIZATION`
    /// of the Vorbis I suggestions; not ffmpeg's `ENCODER`, the encoding
    /// software). Several values of a field
    /// are repeated fields (Vorbis I §5.2.2).
    static let vorbisExtendedKeys: [MetadataField: [RawKey]] = {
        func keys(_ names: String...) -> [RawKey] { names.map { RawKey(.vorbis, $0) } }
        return [
            .titleSort: keys("TITLESORT"), .artistSort: keys("ARTISTSORT"), .albumSort: keys("ALBUMSORT"),
            .albumArtistSort: keys("ALBUMARTISTSORT"), .composerSort: keys("COMPOSERSORT"),
            .subtitle: keys("SUBTITLE"), .discSubtitle: keys("DISCSUBTITLE"), .work: keys("WORK"),
            .movementName: keys("MOVEMENTNAME"), .movementNumber: keys("MOVEMENT"), .movementCount: keys("MOVEMENTTOTAL"),
            .showsMovement: keys("SHOWMOVEMENT"), .artists: keys("ARTISTS"), .conductor: keys("CONDUCTOR"),
            .lyricist: keys("LYRICIST"), .remixer: keys("REMIXER"), .arranger: keys("ARRANGER"),
            .engineer: keys("ENGINEER"), .producer: keys("PRODUCER"), .djMixer: keys("DJMIXER"), .mixer: keys("MIXER"),
            .performers: keys("PERFORMER"), .originalArtist: keys("ORIGINALARTIST"), .originalAlbum: keys("ORIGINALALBUM"),
            .label: keys("LABEL", "ORGANIZATION", "PUBLISHER"), .catalogNumber: keys("CATALOGNUMBER"),
            .barcode: keys("BARCODE"), .isrc: keys("ISRC"), .asin: keys("ASIN"), .media: keys("MEDIA"),
            .releaseType: keys("RELEASETYPE"), .releaseStatus: keys("RELEASESTATUS"),
            .releaseCountry: keys("RELEASECOUNTRY"), .script: keys("SCRIPT"), .language: keys("LANGUAGE"),
            .mood: keys("MOOD"), .initialKey: keys("KEY"), .copyright: keys("COPYRIGHT"), .license: keys("LICENSE"),
            .encodedBy: keys("ENCODEDBY"), .encoderSettings: keys("ENCODERSETTINGS"),
            .website: keys("WEBSITE"), .isCompilation: keys("COMPILATION"),
            .releaseDate: keys("RELEASEDATE"), .originalDate: keys("ORIGINALDATE"), .originalYear: keys("ORIGINALYEAR"),
            .lyrics: keys("LYRICS", "UNSYNCEDLYRICS"),
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
            .r128TrackGain: keys("R128_TRACK_GAIN"), .r128AlbumGain: keys("R128_ALBUM_GAIN"),
            .rating: keys("RATING"),
        ]
    }()
}

extension MetadataKeyMap.KeyTable {
    /// The rows of `MetadataKeyMap.vorbisKeys`.
    static let vorbis = Self("vorbis", keySpaces: [.vorbis]) { MetadataKeyMap.vorbisKeys }
}
