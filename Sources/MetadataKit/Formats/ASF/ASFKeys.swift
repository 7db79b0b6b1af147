/// ASF attribute names per normalized field, as TagLib
/// (`asftag.cpp`'s key translation) and mutagen/Picard use them:
///
/// | field | ASF attribute |
/// |---|---|
/// | title | Title (Content Description), title (ffmpeg) |
/// | artist | Author (Content Description) |
/// | albumArtist | WM/AlbumArtist |
/// | album | WM/AlbumTitle |
/// | grouping | WM/ContentGroupDescription |
/// | composer | WM/Composer |
/// | comments | Description (Content Description) |
/// | artwork | WM/Picture |
/// | genre | WM/Genre |
/// | year | WM/Year, date (ffmpeg) |
/// | bpm | WM/BeatsPerMinute |
/// | track n/N | WM/TrackNumber (1-based; may hold "n/N") |
/// | disc n/N | WM/PartOfSet ("n/N") |
///
/// ffmpeg's muxer writes `-metadata title=…` and `date=…` a second time as
/// Extended Content Description attributes `title` and `date`, which
/// ffmpeg's demuxer prefers: they are read after the standard names, and a
/// change of the field replaces them with the standard name
/// (``asfReplacedKeys``), which TagLib and mutagen read.
///
/// The old `WM/Track` (0-based) is read and kept as a raw item, not mapped:
/// its number is one less than the track's.
extension MetadataKeyMap {
    /// ffmpeg's `title` and `date`, replaced by `Title` and `WM/Year` when the field is set.
    static let asfReplacedKeys: Set<RawKey> = [RawKey(.asf, "title"), RawKey(.asf, "date")]

    static let asfKeys: [MetadataField: [RawKey]] = {
        func keys(_ names: String...) -> [RawKey] { names.map { RawKey(.asf, $0) } }
        return [
            .title: keys("Title", "title"),
            .artist: keys("Author"),
            .albumArtist: keys("WM/AlbumArtist"),
            .album: keys("WM/AlbumTitle"),
            .grouping: keys("WM/ContentGroupDescription"),
            .composer: keys("WM/Composer"),
            .comments: keys("Description"),
            .artwork: keys(ASFAttribute.pictureName),
            .genre: keys("WM/Genre"),
            .year: keys("WM/Year", "date"),
            .bpm: keys("WM/BeatsPerMinute"),
            .trackNumber: keys("WM/TrackNumber"),
            .trackCount: keys("WM/TrackNumber"),
            .discNumber: keys("WM/PartOfSet"),
            .discCount: keys("WM/PartOfSet"),
        ]
    }()
}
