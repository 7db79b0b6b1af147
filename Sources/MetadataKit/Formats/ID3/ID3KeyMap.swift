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
            .comments: keys("COMM", "COM"),
            .artwork: keys("APIC", "PIC"),
            .genre: keys("TCON", "TCO"),
            .year: keys("TDRC", "TYER", "TYE", "TDRL", "TDOR", "TORY", "TDAT", "TIME", "TDA", "TIM"),
            .bpm: keys("TBPM", "TBP"),
            .trackNumber: track, .trackCount: track,
            .discNumber: disc, .discCount: disc,
        ]
    }()

    /// The recording-date frames, which a save rebuilds for the tag's version:
    /// v2.4's `TDRC` timestamp, v2.3's `TYER`/`TDAT`/`TIME` (ID3v2.3 §4.2.1,
    /// ID3v2.4 frames §4.2.5). A v2.3 tag holding `TDRC` (written by some
    /// taggers) is saved with `TYER`.
    static let id3DateKeys: Set<RawKey> = Set(["TDRC", "TYER", "TDAT", "TIME"].map { RawKey(.id3, $0) })

    /// ID3v1 fields per normalized field (ID3v1 holds no album artist,
    /// grouping, composer, picture, BPM or disc).
    static let id3v1Keys: [MetadataField: [RawKey]] = {
        func key(_ name: String) -> [RawKey] { [RawKey(.id3v1, name)] }
        return [
            .title: key("title"), .artist: key("artist"), .album: key("album"), .comments: key("comment"),
            .genre: key("genre"), .year: key("year"), .trackNumber: key("track"), .trackCount: key("track"),
        ]
    }()
}
