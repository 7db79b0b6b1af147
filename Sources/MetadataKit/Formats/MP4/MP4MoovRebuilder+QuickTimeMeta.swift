extension MP4MoovRebuilder {
    /// The `mdta` `meta` of `moov/udta` that this save moves to `moov/meta`,
    /// if any: the one in a `udta` that also holds an iTunes (`mdir`) `meta`
    /// or gets one now (ffmpeg's `-movflags use_metadata_tags` writes its
    /// `mdta` list in `udta`).
    ///
    /// Two `meta` boxes in one `udta` are read by nobody in full: mutagen and
    /// TagLib take the first `moov/udta/meta/ilst` only (and read no `keys`
    /// at all), and QTFF allows one metadata atom per location, the `mdta`
    /// one belonging in `moov` (or a track), where iPhones and QuickTime
    /// write it. So the iTunes `meta` stays the only `meta` of `udta`, and
    /// the `mdta` one goes after the `udta`, as `moov/meta` in Apple's
    /// layout (no version and flags: exiftool and mediainfo read no `keys`
    /// from a `moov/meta` that has them; ffmpeg reads either). Not when
    /// `moov` already has a `meta` (one per location): then it stays where
    /// it is, after the iTunes `meta`.
    func relocatedQuickTimeMeta(in moov: MP4Box) throws -> MP4Box? {
        guard moov.children("meta").isEmpty, let udta = moov.child("udta") else { return nil }
        let metas = udta.children("meta")
        guard let quickTime = try metas.first(where: isQuickTimeMeta) else { return nil }
        let holdsITunes = try metas.contains { meta in
            try !isQuickTimeMeta(meta) && (reader.handlerType(of: meta) ?? "mdir") == "mdir"
        }
        return holdsITunes || !iTunes.isEmpty ? quickTime : nil
    }
}
