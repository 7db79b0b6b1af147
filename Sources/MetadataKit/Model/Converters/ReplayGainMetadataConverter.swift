#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// ReplayGain gains and peaks, as the stored text ("-6.50 dB", "0.988159").
///
/// Text keys (ID3 `TXXX:REPLAYGAIN_*`, Vorbis, MP4, APE) are read and
/// written as ``DefaultMetadataConverter`` does. ID3v2.4 `RVA2` frames
/// (ID3v2.4.0 frames §4.11) are read after them, as
/// ``MetadataKeyMap/fallbackKeys``: the master volume entry of `RVA2:track`
/// or `RVA2:album` gives the gain ("%+.2f dB" of its 1/512 dB steps) and the
/// peak (six decimals; none when the entry stores no peak bits).
///
/// A changed value is written to the text key; a file's `RVA2` frame for
/// that identification is updated in place (``MetadataKeyMap/syncedFallbackKeys``):
/// its master volume's adjustment, or its peak as 16 bits, as mutagen's
/// EasyID3 does. A value the frame can't hold (no number, beyond ±64 dB, a
/// peak outside 0–2) removes the frame instead, and so does removing the
/// field, so the two never disagree. A frame without a master volume entry
/// is no ReplayGain and is left as it is.
public struct ReplayGainMetadataConverter: MetadataConverter {
    public init() {}

    /// Whether `field` is a gain (else a peak).
    private static func isGain(_ field: MetadataField) -> Bool {
        field == .replayGainTrackGain || field == .replayGainAlbumGain
    }

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items {
            if let frame = ID3RelativeVolume(item: item) {
                if let text = Self.isGain(field) ? frame.gainText : frame.peakText { return .text(text) }
                continue
            }
            if let value = DefaultMetadataConverter().displayValue(for: field, from: [item]) { return value }
        }
        return nil
    }

    public func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        guard key.keySpace == .id3, key.key.hasPrefix("RVA2:") else {
            return try DefaultMetadataConverter().items(for: field, value: value, key: key, existing: existing)
        }
        guard let text = value?.text else { return [] }
        let number = Self.isGain(field) ? ID3RelativeVolume.gain(fromText: text) : ID3RelativeVolume.peak(fromText: text)
        return existing.compactMap { (item: MetadataItem) -> MetadataItem? in
            guard let frame = ID3RelativeVolume(item: item), frame.master != nil else { return item }
            let updated = number.flatMap { Self.isGain(field) ? frame.settingGain($0) : frame.settingPeak($0) }
            guard let updated else { return nil }
            return MetadataItem(keySpace: item.keySpace, key: item.key, value: .data(Data(updated.payload)), dataType: .binary)
        }
    }
}
