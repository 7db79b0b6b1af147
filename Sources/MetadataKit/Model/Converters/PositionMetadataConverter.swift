import Foundation

/// Track and disc number and count: ID3 `TRCK`/`TPOS` text "n/N", MP4
/// `trkn`/`disk` number pairs, ID3v1.1's track byte.
public struct PositionMetadataConverter: MetadataConverter {
    public init() {}

    /// Parses "n", "n/N", " n / N " (and "/N"); nil when neither part is a
    /// number. A part that starts with digits gives its leading number
    /// ("90000A" → 90000, "3 of 12" → 3), as TagLib and mutagen read them;
    /// the stored text is not changed.
    public static func parse(_ text: String) -> (number: Int?, total: Int?)? {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        func number(_ part: Substring?) -> Int? {
            guard let part else { return nil }
            let digits = part.trimmingSpaces.prefix { $0.isASCIIDigit }
            return Int(digits).flatMap { $0 >= 0 ? $0 : nil }
        }
        let result = (number(parts.first), parts.count > 1 ? number(parts[1]) : nil)
        return result.0 == nil && result.1 == nil ? nil : result
    }

    /// Vorbis comment fields that hold only a count (see ``MetadataKeyMap/vorbisKeys``).
    static let vorbisTotalKeys: Set<String> = ["TRACKTOTAL", "TOTALTRACKS", "DISCTOTAL", "TOTALDISCS"]

    /// Whether the item under `key` holds only a count: Vorbis `TRACKTOTAL`
    /// and the like, Matroska `TOTAL_PARTS` (RFC 9559 tagging: the number of
    /// parts at the level below, so `50/TOTAL_PARTS` counts an album's tracks
    /// and `60/TOTAL_PARTS` a set's discs).
    static func holdsCountOnly(_ keySpace: MetadataKeySpace, _ key: String) -> Bool {
        switch keySpace {
        case .vorbis: return vorbisTotalKeys.contains(key)
        case .matroska: return key.hasSuffix("TOTAL_PARTS")
        default: return false
        }
    }

    private static func pair(of item: MetadataItem) -> (number: Int?, total: Int?)? {
        if holdsCountOnly(item.keySpace, item.key) {
            return item.value.stringValue.flatMap(parse).flatMap { $0.number.map { (nil, $0) } }
        }
        switch item.value {
        case .numberPair(let number, let total):
            return (number == 0 ? nil : number, total == 0 ? nil : total)
        case .integer(let number):
            return number > 0 && number <= Int64(Int32.max) ? (Int(number), nil) : nil
        default:
            return item.value.stringValue.flatMap(parse)
        }
    }

    private static func isCount(_ field: MetadataField) -> Bool {
        field == .trackCount || field == .discCount
    }

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items {
            guard let pair = Self.pair(of: item) else { continue }
            if let value = Self.isCount(field) ? pair.total : pair.number { return .integer(value) }
        }
        return nil
    }

    public func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        let current = existing.lazy.compactMap(Self.pair).first ?? (nil, nil)
        var number = current.number
        var total = current.total
        if let value, value.integer == nil {
            throw MediaError(.invalidValue, "\(field.rawValue) must be a whole number, not '\(value.text ?? "")'")
        }
        let newValue = value?.integer
        if let newValue, newValue < 0 {
            throw MediaError(.invalidValue, "\(field.rawValue) must not be negative")
        }
        if Self.isCount(field) { total = newValue } else { number = newValue }
        if number == nil && total == nil { return [] }
        switch key.keySpace {
        case .iTunes:
            guard (number ?? 0) <= 0xFFFF, (total ?? 0) <= 0xFFFF else {
                throw MediaError(.invalidValue, "\(field.rawValue) must be at most 65535 in MP4 '\(key.key)'")
            }
            return [
                MetadataItem(
                    keySpace: key.keySpace, key: key.key,
                    value: .numberPair(number: number ?? 0, total: total), dataType: .numberPair)
            ]
        case .vorbis:
            return Self.vorbisItems(
                field: field, number: number, total: total, key: key,
                inlineTotal: current.total != nil && !Self.vorbisTotalKeys.contains(key.key))
        case .matroska where Self.holdsCountOnly(key.keySpace, key.key):
            return total.map { [MetadataItem(keySpace: key.keySpace, key: key.key, value: .string(String($0)), dataType: .utf8)] } ?? []
        case .id3v1:
            guard let number, number <= 255 else {
                throw MediaError(.invalidValue, "ID3v1 holds a track number from 1 to 255")
            }
            return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .integer(Int64(number)), dataType: .unsignedInteger)]
        default:
            let text = total.map { "\(number.map(String.init) ?? "")/\($0)" } ?? number.map(String.init) ?? ""
            return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .string(text), dataType: .utf8)]
        }
    }

    /// Vorbis comments keep the number and the count apart (`TRACKNUMBER`,
    /// `TRACKTOTAL`), except that a changed number keeps an "n/N" value as
    /// "n/N" (`inlineTotal`). A count goes to the total key the file has
    /// (`key` when it is one), else `TRACKTOTAL`/`DISCTOTAL`.
    private static func vorbisItems(
        field: MetadataField, number: Int?, total: Int?, key: MetadataKeyMap.RawKey,
        inlineTotal: Bool
    ) -> [MetadataItem] {
        let isTrack = field == .trackNumber || field == .trackCount
        let numberKey = isTrack ? "TRACKNUMBER" : "DISCNUMBER"
        let totalKey = vorbisTotalKeys.contains(key.key) ? key.key : isTrack ? "TRACKTOTAL" : "DISCTOTAL"
        func item(_ key: String, _ text: String) -> MetadataItem {
            MetadataItem(keySpace: .vorbis, key: key, value: .string(text), dataType: .utf8)
        }
        if !isCount(field), inlineTotal, let number, let total {
            return [item(numberKey, "\(number)/\(total)")]
        }
        return (number.map { [item(numberKey, String($0))] } ?? []) + (total.map { [item(totalKey, String($0))] } ?? [])
    }
}
