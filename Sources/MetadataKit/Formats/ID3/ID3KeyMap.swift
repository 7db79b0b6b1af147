extension MetadataKeyMap {
    /// ID3v2 frame IDs per field: v2.3/v2.4 IDs first, then the v2.2 ones
    /// (see the table of ``MetadataKeyMap``). The release and original dates
    /// (`TDRL`, `TDOR`, `TORY`) are read as a last resort only (``fallbackKeys``).
    static let id3Keys: [MetadataField: [RawKey]] = {
        func keys(_ ids: String...) -> [RawKey] { ids.map { RawKey(.id3, $0) } }
        let track = keys("TRCK", "TRK"), disc = keys("TPOS", "TPA")
        return [
            .title: keys("TIT2", "TT2"),
            .artist: keys("TPE1", "TP1"),
            .albumArtist: keys("TPE2", "TP2"),
            .album: keys("TALB", "TAL"),
            .grouping: keys("TIT1", "TT1", "GRP1"),
            .composer: keys("TCOM", "TCM"),
            .comments: keys("COMM", "COM") + id3ReplacedKeys.sorted { $0.key < $1.key },
            .artwork: keys("APIC", "PIC"),
            .genre: keys("TCON", "TCO"),
            .date: keys("TDRC", "TYER", "TYE", "TDRL", "TDOR", "TORY", "TDAT", "TIME", "TDA", "TIM"),
            .bpm: keys("TBPM", "TBP"),
            .trackNumber: track, .trackCount: track,
            .discNumber: disc, .discCount: disc,
        ].merging(id3ExtendedKeys) { $0 + $1 }
    }()

    /// The rows of the fields added after the original fifteen, after
    /// Picard's tag mapping (v2.3/v2.4 frames, then v2.2 IDs; `TXXX:` with
    /// Picard's descriptions; see `docs/FIELDS.md`). iTunes' `TCMP`, `TSO2`,
    /// `TSOC`, `GRP1`, `MVNM`, `MVIN` and `PCST` are read and written in v2.3
    /// as in v2.4 (iTunes, Picard and mutagen do).
    static let id3ExtendedKeys: [MetadataField: [RawKey]] = {
        func keys(_ ids: String...) -> [RawKey] { ids.map { RawKey(.id3, $0) } }
        func user(_ descriptions: String...) -> [RawKey] { descriptions.map { RawKey(.id3, "TXXX:\($0)") } }
        let movement = keys("MVIN", "MVI")
        let involved = keys("TIPL", "IPLS", "IPL")
        return [
            .titleSort: keys("TSOT", "TST"), .artistSort: keys("TSOP", "TSP"), .albumSort: keys("TSOA", "TSA"),
            .albumArtistSort: keys("TSO2", "TS2"), .composerSort: keys("TSOC", "TSC"),
            .subtitle: keys("TIT3", "TT3"), .discSubtitle: keys("TSST") + user("DISCSUBTITLE"),
            .work: user("WORK"), .movementName: keys("MVNM", "MVN"),
            .movementNumber: movement, .movementCount: movement, .showsMovement: user("SHOWMOVEMENT"),
            .artists: user("ARTISTS"), .conductor: keys("TPE3", "TP3"), .lyricist: keys("TEXT", "TXT"),
            .remixer: keys("TPE4", "TP4"), .arranger: involved, .engineer: involved, .producer: involved,
            .djMixer: involved, .mixer: involved, .performers: keys("TMCL", "IPLS", "IPL"), .originalArtist: keys("TOPE", "TOA"),
            .originalAlbum: keys("TOAL", "TOT"),
            .label: keys("TPUB", "TPB"), .catalogNumber: user("CATALOGNUMBER"), .barcode: user("BARCODE"),
            .isrc: keys("TSRC", "TRC"), .asin: user("ASIN"), .media: keys("TMED", "TMT"),
            .releaseType: user("MusicBrainz Album Type"), .releaseStatus: user("MusicBrainz Album Status"),
            .releaseCountry: user("MusicBrainz Album Release Country"), .script: user("SCRIPT"),
            .language: keys("TLAN", "TLA"), .mood: keys("TMOO") + user("MOOD"), .initialKey: keys("TKEY", "TKE"),
            .copyright: keys("TCOP", "TCR"), .license: user("LICENSE") + keys("WCOP", "WCP"),
            .encodedBy: keys("TENC", "TEN"), .encoderSettings: keys("TSSE", "TSS"), .website: keys("WOAR", "WAR"),
            .isCompilation: keys("TCMP", "TCP"), .isPodcast: keys("PCST"), .podcastURL: keys("WFED"),
            .podcastCategory: keys("TCAT"),
            .releaseDate: keys("TDRL") + user("RELEASEDATE"), .originalDate: keys("TDOR") + user("ORIGINALDATE") + keys("TORY", "TOR"),
            .originalYear: user("ORIGINALYEAR"), .lyrics: keys("USLT", "ULT"),
            .musicBrainzRecordingID: keys("UFID:http://musicbrainz.org") + user("MusicBrainz Track Id"),
            .musicBrainzReleaseTrackID: user("MusicBrainz Release Track Id"),
            .musicBrainzReleaseID: user("MusicBrainz Album Id"),
            .musicBrainzReleaseGroupID: user("MusicBrainz Release Group Id"),
            .musicBrainzArtistID: user("MusicBrainz Artist Id"),
            .musicBrainzAlbumArtistID: user("MusicBrainz Album Artist Id"),
            .musicBrainzWorkID: user("MusicBrainz Work Id"), .musicBrainzDiscID: user("MusicBrainz Disc Id"),
            .musicBrainzTRMID: user("MusicBrainz TRM Id"),
            .musicBrainzOriginalReleaseID: user("MusicBrainz Original Album Id"),
            .acoustID: user("Acoustid Id"), .acoustIDFingerprint: user("Acoustid Fingerprint"),
            .replayGainTrackGain: user("REPLAYGAIN_TRACK_GAIN", "replaygain_track_gain") + id3VolumeKeys(for: "track"),
            .replayGainTrackPeak: user("REPLAYGAIN_TRACK_PEAK", "replaygain_track_peak") + id3VolumeKeys(for: "track"),
            .replayGainAlbumGain: user("REPLAYGAIN_ALBUM_GAIN", "replaygain_album_gain") + id3VolumeKeys(for: "album"),
            .replayGainAlbumPeak: user("REPLAYGAIN_ALBUM_PEAK", "replaygain_album_peak") + id3VolumeKeys(for: "album"),
            .replayGainReferenceLoudness: user("REPLAYGAIN_REFERENCE_LOUDNESS", "replaygain_reference_loudness"),
            .rating: keys(
                "POPM:Windows Media Player 9 Series", "POPM:users@musicbrainz.org", "POPM:no@email", "POPM:MusicBee",
                "POPM:rating@winamp.com", "POPM:", "POP:Windows Media Player 9 Series", "POP:"),
        ]
    }()

    /// The ReplayGain `RVA2` frames (``ID3RelativeVolume``) of one
    /// identification ("track", "album"), keyed `RVA2:<identification>`: the
    /// spelling mutagen, QuodLibet and mp3gain write ("track"), upper case
    /// and capitalized. Read after the `TXXX` frames, which win (Picard and
    /// foobar2000 write those); see ``fallbackKeys`` and ``syncedFallbackKeys``.
    static func id3VolumeKeys(for identification: String) -> [RawKey] {
        [identification, identification.uppercased(), identification.capitalized].map { RawKey(.id3, "RVA2:\($0)") }
    }

    /// Every ReplayGain `RVA2` key (track, then album).
    static let id3VolumeKeys: [RawKey] = id3VolumeKeys(for: "track") + id3VolumeKeys(for: "album")

    /// The recording-date frames, which a save rebuilds for the tag's version:
    /// v2.4's `TDRC` timestamp, v2.3's `TYER`/`TDAT`/`TIME` (ID3v2.3 §4.2.1,
    /// ID3v2.4 frames §4.2.5). A v2.3 tag holding `TDRC` (written by some
    /// taggers) is saved with `TYER`.
    /// Comments other writers keep in a user text frame (ffmpeg writes an
    /// MP3's `comment` as `TXXX:comment`): read as the comment when no `COMM`
    /// gives one, and replaced by a `COMM` frame when the comment is set.
    static let id3ReplacedKeys: Set<RawKey> = [RawKey(.id3, "TXXX:comment"), RawKey(.id3, "TXXX:COMMENT")]

    static let id3DateKeys: Set<RawKey> = Set(["TDRC", "TYER", "TDAT", "TIME"].map { RawKey(.id3, $0) })

    /// ID3v1 fields per normalized field (ID3v1 holds no album artist,
    /// grouping, composer, picture, BPM or disc).
    static let id3v1Keys: [MetadataField: [RawKey]] = {
        func key(_ name: String) -> [RawKey] { [RawKey(.id3v1, name)] }
        return [
            .title: key("title"), .artist: key("artist"), .album: key("album"), .comments: key("comment"),
            .genre: key("genre"), .date: key("year"), .trackNumber: key("track"), .trackCount: key("track"),
        ]
    }()
}

extension MetadataKeyMap.KeyTable {
    /// The rows of `MetadataKeyMap.id3Keys`.
    static let id3 = Self("id3", keySpaces: [.id3]) { MetadataKeyMap.id3Keys }
    /// The rows of `MetadataKeyMap.id3v1Keys`.
    static let id3v1 = Self("id3v1", keySpaces: [.id3v1]) { MetadataKeyMap.id3v1Keys }
}
