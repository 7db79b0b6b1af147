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
    /// The Content Description object's strings, which hold one value each.
    static let asfSingleValueKeys: Set<RawKey> = Set(["Title", "Author", "Description", "Copyright"].map { RawKey(.asf, $0) })

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
            .date: keys("WM/Year", "date"),
            .bpm: keys("WM/BeatsPerMinute"),
            .trackNumber: keys("WM/TrackNumber"),
            .trackCount: keys("WM/TrackNumber"),
            .discNumber: keys("WM/PartOfSet"),
            .discCount: keys("WM/PartOfSet"),
            // The fields added after the original fifteen: Picard's WMA names (TagLib's asftag.cpp maps the same).
            .conductor: keys("WM/Conductor"), .lyricist: keys("WM/Writer"), .remixer: keys("WM/ModifiedBy"),
            .producer: keys("WM/Producer"), .subtitle: keys("WM/SubTitle"), .discSubtitle: keys("WM/SetSubTitle"),
            .mood: keys("WM/Mood"), .media: keys("WM/Media"), .catalogNumber: keys("WM/CatalogNo"),
            .barcode: keys("WM/Barcode"), .encodedBy: keys("WM/EncodedBy"), .titleSort: keys("WM/TitleSortOrder"),
            .artistSort: keys("WM/ArtistSortOrder"), .albumSort: keys("WM/AlbumSortOrder"),
            .albumArtistSort: keys("WM/AlbumArtistSortOrder"), .composerSort: keys("WM/ComposerSortOrder"),
            .initialKey: keys("WM/InitialKey"), .language: keys("WM/Language"), .script: keys("WM/Script"),
            .artists: keys("WM/ARTISTS"), .website: keys("WM/AuthorURL"), .originalAlbum: keys("WM/OriginalAlbumTitle"),
            .originalArtist: keys("WM/OriginalArtist"), .originalYear: keys("WM/OriginalReleaseYear"),
            .label: keys("WM/Publisher"), .isrc: keys("WM/ISRC"), .lyrics: keys("WM/Lyrics"), .copyright: keys("Copyright"),
            .musicBrainzRecordingID: keys("MusicBrainz/Track Id"), .musicBrainzReleaseID: keys("MusicBrainz/Album Id"),
            .musicBrainzArtistID: keys("MusicBrainz/Artist Id"), .musicBrainzAlbumArtistID: keys("MusicBrainz/Album Artist Id"),
            .musicBrainzReleaseGroupID: keys("MusicBrainz/Release Group Id"), .musicBrainzWorkID: keys("MusicBrainz/Work Id"),
            .musicBrainzReleaseTrackID: keys("MusicBrainz/Release Track Id"), .musicBrainzDiscID: keys("MusicBrainz/Disc Id"),
            .musicBrainzOriginalReleaseID: keys("MusicBrainz/Original Album Id"),
            .releaseType: keys("MusicBrainz/Album Type"), .releaseStatus: keys("MusicBrainz/Album Status"),
            .releaseCountry: keys("MusicBrainz/Album Release Country"), .acoustID: keys("Acoustid/Id"),
            .acoustIDFingerprint: keys("Acoustid/Fingerprint"), .asin: keys("ASIN"),
        ]
    }()
}

/// ASF attributes need no conversion of their own; the codec names the
/// keys whose place holds one text and ffmpeg's duplicates.
struct ASFFieldCodec: KeySpaceCodec {
    var keySpace: MetadataKeySpace { .asf }
    var replacedKeys: Set<String> { Set(MetadataKeyMap.asfReplacedKeys.map(\.key)) }
    var singleValueKeys: Set<String> { Set(MetadataKeyMap.asfSingleValueKeys.map(\.key)) }
}

extension MetadataKeyMap.KeyTable {
    /// The rows of `MetadataKeyMap.asfKeys`.
    static let asf = Self("asf", keySpaces: [.asf]) { MetadataKeyMap.asfKeys }
}
