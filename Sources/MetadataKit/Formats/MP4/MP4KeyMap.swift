extension MetadataKeyMap {
    /// MP4 keys per field, in order of precedence: the iTunes `ilst` item,
    /// then the QuickTime `mdta` key (`com.apple.quicktime.*`, then the bare
    /// name ffmpeg writes with `use_metadata_tags`), then the `udta` ©-atom
    /// (see the table of ``MetadataKeyMap``).
    static let mp4Keys: [MetadataField: [RawKey]] = {
        func entry(itunes: [String], mdta: [String] = [], udta: [String] = []) -> [RawKey] {
            itunes.map { RawKey(.iTunes, $0) }
                + mdta.flatMap { [RawKey(.quickTimeMetadata, "com.apple.quicktime.\($0)"), RawKey(.quickTimeMetadata, $0)] }
                + udta.map { RawKey(.quickTimeUserData, $0) }
        }
        let track = entry(itunes: ["trkn"], mdta: ["track"])
        let disc = entry(itunes: ["disk"], mdta: ["disc"])
        return [
            .title: entry(itunes: ["©nam"], mdta: ["title"], udta: ["©nam"]),
            .artist: entry(itunes: ["©ART"], mdta: ["artist"], udta: ["©ART"]),
            .albumArtist: entry(itunes: ["aART"], mdta: ["album_artist", "albumArtist"]),
            .album: entry(itunes: ["©alb"], mdta: ["album"], udta: ["©alb"]),
            .grouping: entry(itunes: ["©grp"], mdta: ["grouping"], udta: ["©grp"]),
            .composer: entry(itunes: ["©wrt"], mdta: ["composer"], udta: ["©wrt", "©com"]),
            .comments: entry(itunes: ["©cmt"], mdta: ["comment"], udta: ["©cmt"]),
            .artwork: entry(itunes: ["covr"], mdta: ["artwork"]),
            .genre: entry(itunes: ["©gen", "gnre"], mdta: ["genre"], udta: ["©gen"]),
            .year: entry(itunes: ["©day"], mdta: ["creationdate", "year", "date"], udta: ["©day"]),
            .bpm: entry(itunes: ["tmpo"]),
            .trackNumber: track, .trackCount: track,
            .discNumber: disc, .discCount: disc,
        ]
    }()
}
