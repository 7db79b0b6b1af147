/// Matroska tag names per normalized field, after TagLib 2.2
/// (`matroskatag.cpp`), the Matroska tagging guidelines (RFC 9559 §5.1.8,
/// matroska.org "Tags") and what ffmpeg writes. The level is the
/// TargetTypeValue (30 track, 50 album). Keys without a level are tags with
/// empty Targets: the spec's default level is 50, and mkvmerge omits a 50
/// for that reason, but ffmpeg writes every global tag there with its own
/// names (`ALBUM`, `ALBUM_ARTIST`, `PART_NUMBER` for the track, `DISC`), so
/// a bare name is read as ffmpeg means it — except `TITLE` (ffmpeg puts the
/// title in the Segment title), which is the album's (or movie's) title.
///
/// | field | Matroska |
/// |---|---|
/// | title | 30/TITLE, then the Segment title `Info/Title` |
/// | artist | 30/ARTIST, ARTIST |
/// | albumArtist | 50/ARTIST, ALBUM_ARTIST, ALBUMARTIST |
/// | album | ALBUM, 50/TITLE, TITLE |
/// | grouping | 30/GROUPING, GROUPING |
/// | composer | 30/COMPOSER, COMPOSER |
/// | comments | 30/COMMENT, COMMENT, 50/COMMENT |
/// | artwork | attachments named cover/small_cover/cover_land/small_cover_land .jpg/.jpeg/.png |
/// | genre | 30/GENRE, GENRE, 50/GENRE |
/// | year | 50/DATE_RELEASED, DATE_RELEASED, 30/DATE_RELEASED, DATE, 50/DATE_RECORDED, 30/DATE_RECORDED |
/// | bpm | 30/BPM, BPM |
/// | track number | 30/PART_NUMBER, PART_NUMBER (ffmpeg: "n/N") |
/// | track count | 50/TOTAL_PARTS, TOTAL_PARTS, PART_NUMBER's "/N" |
/// | disc number | 50/PART_NUMBER, DISC |
/// | disc count | 60/TOTAL_PARTS, DISC's "/N" |
///
/// A new album is a bare `ALBUM` (empty Targets, which RFC 9559 reads as
/// level 50), as ffmpeg writes it: ffprobe (and Jellyfin, Plex and Kodi,
/// which read Matroska through ffmpeg) flattens every Tag without a UID
/// into one dictionary, last name wins, so a `50/TITLE` album became the
/// file's TITLE there; TagLib 2 reads a bare `ALBUM` as its ALBUM property
/// and mkvextract lists it. An album a file keeps in `50/TITLE` (mkvmerge,
/// TagLib) stays there; a new level-50 Tag (an album artist's `50/ARTIST`)
/// goes before the file's track-level and level-less Tags, so ffprobe
/// still shows the track's ARTIST and TITLE (see ``MatroskaEditPlanner``).
///
/// `TOTAL_PARTS` counts the parts of the level below (TagLib 2.2 maps
/// `50/TOTAL_PARTS` to TRACKTOTAL and `60/TOTAL_PARTS` to DISCTOTAL); a count
/// is written there unless the file keeps it in ffmpeg's "n/N". A new
/// field goes to the first key (the track or album level); a title set on a
/// file that has only a Segment title changes the Segment title, as
/// mkvpropedit's `--edit info --set title` does.
extension MetadataKeyMap {
    static let matroskaKeys: [MetadataField: [RawKey]] = {
        func keys(_ names: String...) -> [RawKey] { names.map { RawKey(.matroska, $0) } }
        let covers = ["cover", "small_cover", "cover_land", "small_cover_land"].flatMap { name in
            ["jpg", "png", "jpeg"].map { RawKey(.matroska, "Attachment/\(name).\($0)") }
        }
        return [
            .title: keys("30/TITLE", "Info/Title"),
            .artist: keys("30/ARTIST", "ARTIST"),
            .albumArtist: keys("50/ARTIST", "ALBUM_ARTIST", "ALBUMARTIST"),
            .album: keys("ALBUM", "50/TITLE", "TITLE"),
            .grouping: keys("30/GROUPING", "GROUPING"),
            .composer: keys("30/COMPOSER", "COMPOSER"),
            .comments: keys("30/COMMENT", "COMMENT", "50/COMMENT"),
            .artwork: covers,
            .genre: keys("30/GENRE", "GENRE", "50/GENRE"),
            .date: keys("50/DATE_RELEASED", "DATE_RELEASED", "30/DATE_RELEASED", "DATE", "50/DATE_RECORDED", "30/DATE_RECORDED"),
            .bpm: keys("30/BPM", "BPM"),
            .trackNumber: keys("30/PART_NUMBER", "PART_NUMBER"),
            .trackCount: keys("50/TOTAL_PARTS", "TOTAL_PARTS", "PART_NUMBER"),
            .discNumber: keys("50/PART_NUMBER", "DISC"),
            .discCount: keys("60/TOTAL_PARTS", "DISC"),
        ]
    }()
}

extension MetadataKeyMap.KeyTable {
    /// The rows of `MetadataKeyMap.matroskaKeys`.
    static let matroska = Self("matroska", keySpaces: [.matroska]) { MetadataKeyMap.matroskaKeys }
}
