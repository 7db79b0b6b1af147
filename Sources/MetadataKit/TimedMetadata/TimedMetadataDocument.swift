import Foundation

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
    public var groups: [TimedMetadataGroup]
    /// Ticks per second in which the times are exact (the track's media
    /// timescale, or the one shared with the movie timescale when an edit
    /// list moves the track); nil to let the writer choose.
    public var timescale: UInt32?

    public init(describes: Int?, groups: [TimedMetadataGroup], timescale: UInt32? = nil) {
        self.describes = describes
        self.groups = groups
        self.timescale = timescale
    }

    /// Parses the JSON form. Numbers are read exactly (the nearest `Double`
    /// to each decimal), so what ``jsonData()`` prints reads back unchanged.
    /// Throws `invalidValue` naming the group and item that are wrong.
    public init(json: Data) throws {
        guard let root = try TimedMetadataJSON.parse(json) as? [String: Any] else {
            throw MediaError(.invalidValue, "annotations must be a JSON object with \"groups\"")
        }
        describes = root["describes"] as? Int
        if let value = root["timescale"] {
            guard let number = value as? NSNumber, !Self.isBoolean(value), let ticks = UInt32(exactly: number.doubleValue), ticks > 0 else {
                throw MediaError(.invalidValue, "\"timescale\" must be a whole number of ticks per second from 1 to \(UInt32.max)")
            }
            timescale = ticks
        }
        guard let groups = root["groups"] as? [[String: Any]] else {
            throw MediaError(.invalidValue, "annotations need a \"groups\" array")
        }
        self.groups = try groups.enumerated().map { index, group in
            guard let start = (group["start"] as? NSNumber)?.doubleValue, start >= 0 else {
                throw MediaError(.invalidValue, "group \(index): \"start\" must be a number of seconds ≥ 0")
            }
            let duration = (group["duration"] as? NSNumber)?.doubleValue
            if let duration, !(duration > 0 && duration.isFinite) {
                throw MediaError(.invalidValue, "group \(index): \"duration\" must be positive")
            }
            guard start.isFinite else { throw MediaError(.invalidValue, "group \(index): \"start\" must be finite") }
            let mediaStart = (group["mediaStart"] as? NSNumber)?.doubleValue
            if let mediaStart, !(mediaStart >= 0 && mediaStart.isFinite) {
                throw MediaError(.invalidValue, "group \(index): \"mediaStart\" must be a number of seconds ≥ 0")
            }
            let items = try (group["items"] as? [[String: Any]] ?? []).enumerated().map { itemIndex, item in
                do {
                    return try Self.item(item)
                } catch let error as MediaError {
                    throw MediaError(.invalidValue, "group \(index), item \(itemIndex): \(error.reason)")
                }
            }
            return TimedMetadataGroup(items: items, start: start, duration: duration, mediaStart: mediaStart)
        }
    }

    /// True for JSON `true`/`false`. (`is Bool` is also true of the numbers
    /// 0 and 1 that JSONSerialization returns as NSNumber.)
    static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return value is Bool }
        return String(cString: number.objCType) == "c"
    }

    private static func item(_ object: [String: Any]) throws -> TimedMetadataItem {
        guard let identifier = object["identifier"] as? String else { throw MediaError(.invalidValue, "\"identifier\" is missing") }
        guard let typeName = object["dataType"] as? String else { throw MediaError(.invalidValue, "\"dataType\" is missing") }
        let type = TimedMetadataDataType(name: typeName)
        let raw = object["value"]
        let value: TimedMetadataValue
        switch type {
        case .utf8, .utf16:
            guard let text = raw as? String else { throw MediaError(.invalidValue, "\(type.shortName) needs a string value") }
            value = .string(text)
        case .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint64, .float32, .float64:
            guard let number = raw as? NSNumber, !Self.isBoolean(number) else {
                throw MediaError(.invalidValue, "\(type.shortName) needs a number value")
            }
            value = [.float32, .float64].contains(type) ? .number(number.doubleValue) : .integer(number.int64Value)
            if value == .integer(number.int64Value), Double(number.int64Value) != number.doubleValue {
                throw MediaError(.invalidValue, "\(type.shortName) needs a whole number, not \(number)")
            }
        case .pointF32, .dimensionsF32, .rectF32, .affineTransformF64:
            guard let numbers = raw as? [NSNumber] else { throw MediaError(.invalidValue, "\(type.shortName) needs an array of numbers") }
            value = .numbers(numbers.map(\.doubleValue))
        default:
            guard let text = raw as? String else { throw MediaError(.invalidValue, "\(type.shortName) needs a base64 string") }
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
    /// as the shortest decimals that read back as the same `Double`s.
    public func jsonData() -> Data {
        var root: [String: Any] = ["groups": groups.map(Self.object)]
        if let describes { root["describes"] = describes }
        if let timescale { root["timescale"] = Int(timescale) }
        return (try? JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
    }

    static func object(_ group: TimedMetadataGroup) -> [String: Any] {
        var object: [String: Any] = ["start": group.start, "items": group.items.map(object)]
        if let duration = group.duration { object["duration"] = duration }
        if let mediaStart = group.mediaStart { object["mediaStart"] = mediaStart }
        return object
    }

    static func object(_ item: TimedMetadataItem) -> [String: Any] {
        ["identifier": item.identifier, "dataType": item.dataType.rawValue, "value": jsonValue(item.value)]
    }

    static func jsonValue(_ value: TimedMetadataValue) -> Any {
        switch value {
        case .string(let text): return text
        case .integer(let number): return number
        case .unsignedInteger(let number): return number
        case .number(let number): return number
        case .numbers(let numbers): return numbers
        case .data(let data): return data.base64EncodedString()
        }
    }

    /// A WebVTT file with one cue per group (an open-ended group ends where
    /// the next starts, the last at `movieDuration`); each cue's text is the
    /// group's items as a JSON array.
    public func webVTT(movieDuration: Double) -> String {
        var text = "WEBVTT\n\n"
        for (index, group) in groups.enumerated() {
            let end =
                group.duration.map { group.start + $0 }
                ?? (index + 1 < groups.count ? groups[index + 1].start : max(movieDuration, group.start))
            let items =
                (try? JSONSerialization.data(
                    withJSONObject: group.items.map(Self.object),
                    options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            text += "\(index + 1)\n\(Self.timestamp(group.start)) --> \(Self.timestamp(end))\n"
            text += String(decoding: items, as: UTF8.self) + "\n\n"
        }
        return text
    }

    static func timestamp(_ seconds: Double) -> String {
        let milliseconds = Int((max(0, seconds) * 1000).rounded())
        return String(
            format: "%02d:%02d:%02d.%03d", milliseconds / 3_600_000, milliseconds / 60_000 % 60,
            milliseconds / 1000 % 60, milliseconds % 1000)
    }
}
