#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Timed metadata groups as JSON — the format `mdkit annotate` reads and
/// `mdkit timed --json` prints — and as a WebVTT metadata track.
///
/// ```json
/// {"describes": 1,
///  "groups": [{"start": 1.5, "duration": 0.5,
///              "items": [{"identifier": "mdta/com.example.circle.center.coordinate",
///                         "dataType": "com.apple.metadata.datatype.PointF32",
///                         "value": [320, 180]}]}]}
/// ```
/// `duration` may be left out (open-ended: until the next group, the last
/// until the end of the movie). Times are seconds on the movie timeline;
/// `timescale` (optional) gives the ticks per second they are exact in — the
/// track is written in it, so that times such as 1/15 s come back exactly;
/// `mediaStart` (optional, per group) is the group's start in the track's
/// media time when an edit list moves it. Data types may be given short (`PointF32`,
/// `UTF-8`). Values: strings for UTF-8/UTF-16, numbers for integers and
/// floats, arrays for PointF32 [x, y], DimensionsF32 [w, h], RectF32
/// [x, y, w, h] and AffineTransformF64 (9 numbers), base64 strings for JPEG,
/// PNG and raw data.
public struct TimedMetadataDocument: Sendable, Hashable {
    /// The track ID of the track the metadata describes.
    public var describes: Int?
    /// The track's samples, in time order.
    public var groups: [TimedMetadataGroup]
    /// Ticks per second in which the times are exact (the track's media
    /// timescale, or the one shared with the movie timescale when an edit
    /// list moves the track); nil to let the writer choose.
    public var timescale: UInt32?

    /// A document of `groups` for the track `describes` (nil: the track describes
    /// no other), in `timescale` ticks per second (nil: the writer chooses).
    public init(describes: Int?, groups: [TimedMetadataGroup], timescale: UInt32? = nil) {
        self.describes = describes
        self.groups = groups
        self.timescale = timescale
    }

    /// Parses the JSON form. Numbers are read exactly (the nearest `Double`
    /// to each decimal), so what ``jsonData()`` prints reads back unchanged.
    /// Throws `invalidValue` naming the group and item that are wrong.
    public init(json: Data) throws {
        guard let root = try TimedMetadataJSON.parse(json).object else {
            throw MediaError(.invalidValue, "annotations must be a JSON object with \"groups\"")
        }
        describes = root["describes"]?.intValue
        if let value = root["timescale"], value != .null {
            guard let number = value.numberValue, let ticks = UInt32(exactly: number), ticks > 0 else {
                throw MediaError(.invalidValue, "\"timescale\" must be a whole number of ticks per second from 1 to \(UInt32.max)")
            }
            timescale = ticks
        }
        guard let groups = root["groups"]?.objects else {
            throw MediaError(.invalidValue, "annotations need a \"groups\" array")
        }
        self.groups = try groups.enumerated().map { index, group in
            guard let start = group["start"]?.numberValue, start >= 0 else {
                throw MediaError(.invalidValue, "group \(index): \"start\" must be a number of seconds ≥ 0")
            }
            let duration = try Self.number(
                group["duration"], where: { $0 > 0 && $0.isFinite }, or: "group \(index): \"duration\" must be a number of seconds > 0")
            guard start.isFinite else { throw MediaError(.invalidValue, "group \(index): \"start\" must be finite") }
            let mediaStart = try Self.number(
                group["mediaStart"], where: { $0 >= 0 && $0.isFinite }, or: "group \(index): \"mediaStart\" must be a number of seconds ≥ 0"
            )
            let items = try (group["items"]?.objects ?? []).enumerated().map { itemIndex, item in
                do {
                    return try Self.item(item)
                } catch let error as MediaError {
                    throw MediaError(.invalidValue, "group \(index), item \(itemIndex): \(error.reason)")
                }
            }
            return TimedMetadataGroup(items: items, start: start, duration: duration, mediaStart: mediaStart)
        }
    }

    /// An optional member's number: nil when it is missing or `null`;
    /// `message` when it is something else (a string, a boolean) or a number `valid` refuses.
    private static func number(
        _ value: TimedMetadataJSON.Value?, where valid: (Double) -> Bool, or message: String
    ) throws(MediaError) -> Double? {
        guard let value, value != .null else { return nil }
        guard let number = value.numberValue, valid(number) else { throw MediaError(.invalidValue, message) }
        return number
    }

    private static func item(_ object: [String: TimedMetadataJSON.Value]) throws -> TimedMetadataItem {
        guard let identifier = object["identifier"]?.string else { throw MediaError(.invalidValue, "\"identifier\" is missing") }
        guard let typeName = object["dataType"]?.string else { throw MediaError(.invalidValue, "\"dataType\" is missing") }
        let type = TimedMetadataDataType(name: typeName)
        let raw = object["value"]
        let value: TimedMetadataValue
        switch type {
        case .utf8, .utf16:
            guard let text = raw?.string else { throw MediaError(.invalidValue, "\(type.shortName) needs a string value") }
            value = .string(text)
        case .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint64, .float32, .float64:
            guard let raw, let number = raw.numberValue else {
                throw MediaError(.invalidValue, "\(type.shortName) needs a number value")
            }
            if [.float32, .float64].contains(type) {
                value = .number(number)
            } else if case .integer(let integer) = raw {
                value = .integer(integer)
            } else if case .number(let double) = raw, let integer = Int64(exactly: double) {
                value = .integer(integer)
            } else {
                // A fraction, or a whole number beyond Int64 (printed as it was read).
                let text: String =
                    switch raw {
                    case .unsignedInteger(let unsigned): unsigned.description
                    default: number.description
                    }
                throw MediaError(.invalidValue, "\(type.shortName) needs a whole number, not \(text)")
            }
        case .pointF32, .dimensionsF32, .rectF32, .affineTransformF64:
            guard case .array(let elements) = raw, case let numbers = elements.compactMap(\.numberValue), numbers.count == elements.count
            else { throw MediaError(.invalidValue, "\(type.shortName) needs an array of numbers") }
            value = .numbers(numbers)
        default:
            guard let text = raw?.string else { throw MediaError(.invalidValue, "\(type.shortName) needs a base64 string") }
            if let data = Data(base64Encoded: text) {
                value = .data(data)
            } else if type.wellKnownCode == nil {
                value = .string(text)
            } else {
                throw MediaError(.invalidValue, "\(type.shortName) value is not valid base64")
            }
        }
        return try TimedMetadataItem(identifier: identifier, dataType: type, value: value)
    }

    /// The JSON form (full data type names, sorted keys). Times are printed
    /// as the shortest decimals that read back as the same `Double`s. Empty
    /// when a value is not finite (NaN or an infinity, which JSON lacks).
    public func jsonData() -> Data {
        var root: [String: TimedMetadataJSON.Value] = ["groups": .array(groups.map(Self.object))]
        if let describes { root["describes"] = .integer(Int64(describes)) }
        if let timescale { root["timescale"] = .integer(Int64(timescale)) }
        return TimedMetadataJSON.serialize(.object(root), pretty: true).map { Data($0) } ?? Data()
    }

    static func object(_ group: TimedMetadataGroup) -> TimedMetadataJSON.Value {
        var object: [String: TimedMetadataJSON.Value] = ["start": .number(group.start), "items": .array(group.items.map(object))]
        if let duration = group.duration { object["duration"] = .number(duration) }
        if let mediaStart = group.mediaStart { object["mediaStart"] = .number(mediaStart) }
        return .object(object)
    }

    static func object(_ item: TimedMetadataItem) -> TimedMetadataJSON.Value {
        .object(["identifier": .string(item.identifier), "dataType": .string(item.dataType.rawValue), "value": jsonValue(item.value)])
    }

    static func jsonValue(_ value: TimedMetadataValue) -> TimedMetadataJSON.Value {
        switch value {
        case .string(let text): .string(text)
        case .integer(let number): .integer(number)
        case .unsignedInteger(let number): .unsignedInteger(number)
        case .number(let number): .number(number)
        case .numbers(let numbers): .array(numbers.map { .number($0) })
        case .data(let data): .string(data.base64EncodedString())
        }
    }

    /// A WebVTT file with one cue per group (an open-ended group ends where
    /// the next starts, the last at `movieDuration`); each cue's text is the
    /// group's items as a JSON array on one line, with `<`, `>` and `&`
    /// written as `\u003c`, `\u003e` and `\u0026`: no value can end a cue
    /// (a line with `-->`, an empty line) or read as markup or an entity, so
    /// a WebVTT parser gives exactly these cues and `JSON.parse` of a cue's
    /// text gives the items.
    public func webVTT(movieDuration: Double) -> String {
        var text = "WEBVTT\n\n"
        for (index, group) in groups.enumerated() {
            let end =
                group.duration.map { group.start + $0 }
                ?? (index + 1 < groups.count ? groups[index + 1].start : max(movieDuration, group.start))
            let items = TimedMetadataJSON.serialize(.array(group.items.map(Self.object)), pretty: false, options: .escapeMarkup) ?? []
            text += "\(index + 1)\n\(Self.timestamp(group.start)) --> \(Self.timestamp(end))\n"
            text += String(decoding: items, as: UTF8.self) + "\n\n"
        }
        return text
    }

    /// `hh:mm:ss.ttt` (hours as many digits as they take). A time past what
    /// 64-bit milliseconds hold (a document may give any finite start) is
    /// written as the largest they hold, not trapped on.
    static func timestamp(_ seconds: Double) -> String {
        let total = (max(0, seconds) * 1000).rounded()
        let milliseconds = total < 0x1p63 ? Int64(total) : Int64.max
        return String(
            cFormat: "%02lld:%02lld:%02lld.%03lld", milliseconds / 3_600_000, milliseconds / 60_000 % 60,
            milliseconds / 1000 % 60, milliseconds % 1000)
    }
}
