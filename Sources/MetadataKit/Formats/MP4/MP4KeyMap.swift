extension MetadataKeyMap {
    /// MP4 keys per field, in order of precedence: the iTunes `ilst` item,
    /// then the QuickTime `mdta` key (`com.apple.quicktime.*`, then the bare
    /// name ffmpeg writes with `use_metadata_tags`), then the `udta` ©-atom
    /// (see the table of ``MetadataKeyMap``).
    /// The keys of one field: iTunes atoms, QuickTime `mdta` keys
    /// (`com.apple.quicktime.<name>`, then the bare name), `udta` ©-atoms.
    private static func entry(itunes: [String], mdta: [String] = [], udta: [String] = []) -> [RawKey] {
        itunes.map { RawKey(.iTunes, $0) }
            + mdta.flatMap { [RawKey(.quickTimeMetadata, "com.apple.quicktime.\($0)"), RawKey(.quickTimeMetadata, $0)] }
            + udta.map { RawKey(.quickTimeUserData, $0) }
    }

    static let mp4Keys: [MetadataField: [RawKey]] = {
        let track = entry(itunes: ["trkn"], mdta: ["track"])
        let disc = entry(itunes: ["disk"], mdta: ["disc"])
        return [
            .title: entry(itunes: ["©nam"], mdta: ["title"], udta: ["©nam"]) + [RawKey(.threeGPP, "titl")],
            .artist: entry(itunes: ["©ART"], mdta: ["artist"], udta: ["©ART"]) + [RawKey(.threeGPP, "perf")],
            .albumArtist: entry(itunes: ["aART"], mdta: ["album_artist", "albumArtist"]),
            .album: entry(itunes: ["©alb"], mdta: ["album"], udta: ["©alb"]) + [RawKey(.threeGPP, "albm")],
            .grouping: entry(itunes: ["©grp"], mdta: ["grouping"], udta: ["©grp"]),
            .composer: entry(itunes: ["©wrt"], mdta: ["composer"], udta: ["©wrt", "©com"]),
            .comments: entry(itunes: ["©cmt"], mdta: ["comment"], udta: ["©cmt"]) + [RawKey(.threeGPP, "dscp")],
            .artwork: entry(itunes: ["covr"], mdta: ["artwork"]),
            .genre: entry(itunes: ["©gen", "gnre"], mdta: ["genre"], udta: ["©gen"]) + [RawKey(.threeGPP, "gnre")],
            .date: entry(itunes: ["©day"], mdta: ["creationdate", "year", "date"], udta: ["©day"]) + [RawKey(.threeGPP, "yrrc")],
            .bpm: entry(itunes: ["tmpo"]),
            .trackNumber: track, .trackCount: track,
            .discNumber: disc, .discCount: disc,
        ].merging(mp4ExtendedKeys) { $0 + $1 }
    }()

    /// The rows of the fields added after the original fifteen: iTunes atoms
    /// where iTunes has one (`sonm`, `cpil`, `©wrk`, `©lyr`, …), otherwise
    /// freeform `----:com.apple.iTunes:<name>` items with Picard's names
    /// (see `docs/FIELDS.md`).
    static let mp4ExtendedKeys: [MetadataField: [RawKey]] = {
        func atoms(_ types: String...) -> [RawKey] { types.map { RawKey(.iTunes, $0) } }
        func free(_ names: String...) -> [RawKey] { names.map { RawKey(.iTunes, "----:com.apple.iTunes:\($0)") } }
        return [
            .titleSort: atoms("sonm"), .artistSort: atoms("soar"), .albumSort: atoms("soal"),
            .albumArtistSort: atoms("soaa"), .composerSort: atoms("soco"),
            .subtitle: free("SUBTITLE"), .discSubtitle: free("DISCSUBTITLE"), .work: atoms("\u{A9}wrk"),
            .movementName: atoms("\u{A9}mvn"), .movementNumber: atoms("\u{A9}mvi"), .movementCount: atoms("\u{A9}mvc"),
            .showsMovement: atoms("shwm"), .artists: free("ARTISTS"), .conductor: free("CONDUCTOR"),
            .lyricist: free("LYRICIST"), .remixer: free("REMIXER"), .arranger: free("ARRANGER"),
            .engineer: free("ENGINEER"), .producer: free("PRODUCER"), .djMixer: free("DJMIXER"), .mixer: free("MIXER"),
            .label: free("LABEL"), .catalogNumber: free("CATALOGNUMBER"), .barcode: free("BARCODE"), .isrc: free("ISRC"),
            .asin: free("ASIN"), .media: free("MEDIA"), .releaseType: free("MusicBrainz Album Type"),
            .releaseStatus: free("MusicBrainz Album Status"), .releaseCountry: free("MusicBrainz Album Release Country"),
            .script: free("SCRIPT"), .language: free("LANGUAGE"), .mood: free("MOOD"), .initialKey: free("initialkey"),
            .copyright: atoms("cprt") + entry(itunes: [], mdta: ["copyright"], udta: ["\u{A9}cpy"]) + [RawKey(.threeGPP, "cprt")],
            .license: free("LICENSE"), .encodedBy: atoms("\u{A9}too"), .website: free("WEBSITE"),
            .isCompilation: atoms("cpil"), .isGapless: atoms("pgap"), .isPodcast: atoms("pcst"), .podcastURL: atoms("purl"),
            .podcastCategory: atoms("catg"),
            .releaseDate: free("RELEASEDATE"), .originalDate: free("ORIGINALDATE"), .originalYear: free("ORIGINALYEAR"),
            .lyrics: atoms("\u{A9}lyr"),
            .musicBrainzRecordingID: free("MusicBrainz Track Id"),
            .musicBrainzReleaseTrackID: free("MusicBrainz Release Track Id"),
            .musicBrainzReleaseID: free("MusicBrainz Album Id"),
            .musicBrainzReleaseGroupID: free("MusicBrainz Release Group Id"),
            .musicBrainzArtistID: free("MusicBrainz Artist Id"),
            .musicBrainzAlbumArtistID: free("MusicBrainz Album Artist Id"),
            .musicBrainzWorkID: free("MusicBrainz Work Id"), .musicBrainzDiscID: free("MusicBrainz Disc Id"),
            .musicBrainzTRMID: free("MusicBrainz TRM Id"),
            .musicBrainzOriginalReleaseID: free("MusicBrainz Original Album Id"),
            .acoustID: free("Acoustid Id"), .acoustIDFingerprint: free("Acoustid Fingerprint"),
            .replayGainTrackGain: free("replaygain_track_gain", "REPLAYGAIN_TRACK_GAIN"),
            .replayGainTrackPeak: free("replaygain_track_peak", "REPLAYGAIN_TRACK_PEAK"),
            .replayGainAlbumGain: free("replaygain_album_gain", "REPLAYGAIN_ALBUM_GAIN"),
            .replayGainAlbumPeak: free("replaygain_album_peak", "REPLAYGAIN_ALBUM_PEAK"),
            .replayGainReferenceLoudness: free("replaygain_reference_loudness", "REPLAYGAIN_REFERENCE_LOUDNESS"),
            .rating: atoms("rate"),
        ]
    }()
}

extension MetadataKeyMap.KeyTable {
    /// The rows of `MetadataKeyMap.mp4Keys`.
    static let mp4 = Self("mp4", keySpaces: [.iTunes, .quickTimeMetadata, .quickTimeUserData, .threeGPP]) { MetadataKeyMap.mp4Keys }
}
