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
            .year: keys("DATE", "YEAR"),
            .bpm: keys("BPM"),
            .trackNumber: keys("TRACKNUMBER"),
            .trackCount: keys("TRACKNUMBER", "TRACKTOTAL", "TOTALTRACKS"),
            .discNumber: keys("DISCNUMBER"),
            .discCount: keys("DISCNUMBER", "DISCTOTAL", "TOTALDISCS"),
        ]
    }()
}
