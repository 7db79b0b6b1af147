#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MetadataKeySpace {
    /// Vorbis comments (Ogg Vorbis/Opus/Speex, FLAC); keys are the field names
    /// uppercased, such as `TITLE`; pictures are `METADATA_BLOCK_PICTURE`.
    public static let vorbis = MetadataKeySpace(rawValue: "vorbis")
}

/// How Vorbis comments keep track and disc numbers: the number and the
/// count apart (`TRACKNUMBER`, `TRACKTOTAL`; `TOTALTRACKS` and `TOTALDISCS`
/// as some taggers write them), except that a number written as "n/N"
/// stays "n/N" when it changes.
struct VorbisFieldCodec: KeySpaceCodec {
    var keySpace: MetadataKeySpace { .vorbis }

    /// Fields that hold only a count (see ``MetadataKeyMap/vorbisKeys``); a
    /// list, not a set: four short strings compare faster than one hashes.
    static let totalKeys = ["TRACKTOTAL", "TOTALTRACKS", "DISCTOTAL", "TOTALDISCS"]

    func reading(_ field: MetadataField, from item: MetadataItem, among items: [MetadataItem]) -> FieldReading {
        guard Self.totalKeys.contains(item.key) else { return .standard }
        return Self.countReading(field, from: item)
    }

    /// A count-only item's reading: its leading number as the count, no number.
    static func countReading(_ field: MetadataField, from item: MetadataItem) -> FieldReading {
        switch field {
        case .trackCount, .discCount:
            let count = item.value.stringValue.flatMap(PositionMetadataConverter.parse)?.number
            return count.map { .value(.integer($0)) } ?? .none
        case .trackNumber, .discNumber: return .none
        default: return .standard
        }
    }

    func items(for field: MetadataField, value: DisplayValue?, key: String, existing: [MetadataItem]) throws -> [MetadataItem]? {
        guard [.trackNumber, .trackCount, .discNumber, .discCount].contains(field) else { return nil }
        let (number, total, current) = try PositionMetadataConverter.position(setting: field, to: value, existing: existing)
        let isCount = field == .trackCount || field == .discCount
        let isTrack = field == .trackNumber || field == .trackCount
        let numberKey = isTrack ? "TRACKNUMBER" : "DISCNUMBER"
        let totalKey = Self.totalKeys.contains(key) ? key : isTrack ? "TRACKTOTAL" : "DISCTOTAL"
        func item(_ key: String, _ text: String) -> MetadataItem {
            MetadataItem(keySpace: keySpace, key: key, value: .string(text), dataType: .utf8)
        }
        if !isCount, current.total != nil, !Self.totalKeys.contains(key), let number, let total {
            return [item(numberKey, "\(number)/\(total)")]
        }
        return (number.map { [item(numberKey, String($0))] } ?? []) + (total.map { [item(totalKey, String($0))] } ?? [])
    }
}
