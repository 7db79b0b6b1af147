#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MetadataKeySpace {
    /// iTunes-style items in `moov/udta/meta/ilst`; keys are atom types such as `©nam`,
    /// or `----:mean:name` for freeform items.
    public static let iTunes = MetadataKeySpace(rawValue: "itunes")
    /// QuickTime metadata (`meta` with an `mdta` handler and a `keys` atom);
    /// keys are the key strings, such as `com.apple.quicktime.title`.
    public static let quickTimeMetadata = MetadataKeySpace(rawValue: "mdta")
    /// Classic QuickTime user data (`moov/udta/©xyz` text atoms).
    public static let quickTimeUserData = MetadataKeySpace(rawValue: "udta")
}

extension Genre {
    /// The iTunes genre number (`gnre`): the ID3v1 index plus one.
    public var iTunesID: Int? { id3Index.map { $0 + 1 } }

    /// The listed genre with iTunes number `iTunesID` (1–192).
    public init?(iTunesID: Int) {
        self.init(id3Index: iTunesID - 1)
    }
}

/// How iTunes `ilst` atoms hold the fields whose form is their own: track
/// and disc as a number pair (`trkn`, `disk`, at most 65535), flags and the
/// movement's number and count and the tempo as integers, `gnre` as the
/// iTunes genre number, `©day` as an ISO 8601 timestamp, and `covr`
/// pictures without a picture type (so only front covers are written).
struct MP4FieldCodec: KeySpaceCodec {
    var keySpace: MetadataKeySpace { .iTunes }

    func reading(_ field: MetadataField, from item: MetadataItem, among items: [MetadataItem]) -> FieldReading {
        guard field == .genre, item.key == "gnre", case .integer(let number) = item.value else { return .standard }
        return Genre(iTunesID: Int(number)).map { .value(.genre($0)) } ?? .none
    }

    func items(for field: MetadataField, value: DisplayValue?, key: String, existing: [MetadataItem]) throws -> [MetadataItem]? {
        switch field {
        case .trackNumber, .trackCount, .discNumber, .discCount:
            let (number, total, _) = try PositionMetadataConverter.position(setting: field, to: value, existing: existing)
            guard (number ?? 0) <= 0xFFFF, (total ?? 0) <= 0xFFFF else {
                throw MediaError(.invalidValue, "\(field.rawValue) must be at most 65535 in MP4 '\(key)'")
            }
            return [
                MetadataItem(keySpace: keySpace, key: key, value: .numberPair(number: number ?? 0, total: total), dataType: .numberPair)
            ]
        case .bpm:
            guard let value else { return [] }
            guard let number = value.integer, (0...0xFFFF).contains(number) else {
                throw MediaError(.invalidValue, "bpm must be a whole number from 0 to 65535 for MP4 'tmpo'")
            }
            return [MetadataItem(keySpace: keySpace, key: key, value: .integer(Int64(number)), dataType: .signedInteger)]
        case .movementNumber, .movementCount:
            guard let number = value?.integer else { return [] }
            return [MetadataItem(keySpace: keySpace, key: key, value: .integer(Int64(number)), dataType: .signedInteger)]
        case .genre where key == "gnre":
            guard let value else { return [] }
            guard let genre = value.genre else { throw MediaError(.invalidValue, "genre needs a name") }
            guard let index = genre.id3Index else {
                throw MediaError(.invalidValue, "'\(genre.name)' is not in the ID3v1 genre list")
            }
            return [MetadataItem(keySpace: keySpace, key: key, value: .integer(Int64(index + 1)), dataType: .unsignedInteger)]
        case .date:
            try Self.checkTimestamp(value, key: rawKey(key))
            return nil
        case .artwork:
            // `covr` holds no picture type: every reader takes its pictures for covers.
            if let typed = value?.artwork?.first(where: { ![.frontCover, .other].contains($0.pictureType) }) {
                throw MediaError(
                    .invalidValue,
                    "artwork: MP4 'covr' stores no picture type, so a \(typed.pictureType.name) picture "
                        + "would read back as a front cover; store it as the front cover (--artwork-type front)")
            }
            return nil
        case _ where field.kind == .boolean:
            guard let flag = value?.boolean else { return nil }
            return [MetadataItem(keySpace: keySpace, key: key, value: .integer(flag ? 1 : 0), dataType: .signedInteger)]
        default:
            return nil
        }
    }

    /// Refuses a `©day` value that is no ISO 8601 timestamp.
    static func checkTimestamp(_ value: DisplayValue?, key: MetadataKeyMap.RawKey) throws {
        guard key.key == "©day", let text = value?.text, !DateMetadataConverter.isTimestamp(text) else { return }
        throw MediaError(.invalidValue, "year '\(text)' is not a date \(key) can hold; use \(DateMetadataConverter.acceptedForms)")
    }
}

/// QuickTime user data: `©day` holds an ISO 8601 timestamp, as in `ilst`.
struct QuickTimeUserDataFieldCodec: KeySpaceCodec {
    var keySpace: MetadataKeySpace { .quickTimeUserData }

    func items(for field: MetadataField, value: DisplayValue?, key: String, existing: [MetadataItem]) throws -> [MetadataItem]? {
        if field == .date { try MP4FieldCodec.checkTimestamp(value, key: rawKey(key)) }
        return nil
    }
}
