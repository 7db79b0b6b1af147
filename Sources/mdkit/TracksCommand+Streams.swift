import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `mdkit tracks` for files that are not MP4: the streams the library lists
/// (``MediaProperties/streams``: Matroska and WebM tracks), in the shape of
/// the MP4 track objects where they mean the same.
extension TracksCommand {
    /// The file loaded as a ``MediaItem`` with streams; `error` (Asset's)
    /// when it has none.
    static func streamsItem(path: String, error: MediaError) async throws -> MediaItem {
        var item = MediaItem(url: URL(fileURLWithPath: path))
        try await item.load()
        guard !item.properties.streams.isEmpty else { throw error }
        return item
    }

    static func json(path: String, item: MediaItem) -> JSON {
        var object: [(String, JSON)] = [("path", .string(path))]
        if let type = item.fileType { object.append(("format", .string(type.identifier))) }
        if let duration = item.properties.duration { object.append(("duration", .number((duration * 1000).rounded() / 1000))) }
        var fields: [(String, JSON)] = []
        for field in MetadataField.allCases where field != .artwork {
            if let value = item.metadata[field]?.text { fields.append((field.rawValue, .string(value))) }
        }
        object.append(("metadata", .object(fields)))
        object.append(("tracks", .array(item.properties.streams.map(track))))
        if !item.warnings.isEmpty {
            let warnings: [JSON] = item.warnings.map { warning in
                var fields: [(String, JSON)] = []
                if let offset = warning.offset { fields.append(("offset", .integer(offset))) }
                fields.append(("message", .string(warning.message)))
                return .object(fields)
            }
            object.append(("warnings", .array(warnings)))
        }
        return .object(object)
    }

    static func track(_ stream: MediaStream) -> JSON {
        var object: [(String, JSON)] = []
        if let id = stream.trackID { object.append(("id", .integer(Int64(id)))) }
        if let uid = stream.uid { object.append(("uid", .string(String(uid)))) }
        object.append(("mediaType", .string(stream.kind.rawValue)))
        if let codec = stream.codec { object.append(("codec", .string(codec))) }
        if let codecID = stream.codecID { object.append(("codecID", .string(codecID))) }
        if let language = stream.language { object.append(("language", .string(language))) }
        if let name = stream.name { object.append(("name", .string(name))) }
        if let flag = stream.isDefault { object.append(("default", .bool(flag))) }
        if let flag = stream.isForced { object.append(("forced", .bool(flag))) }
        if let width = stream.width { object.append(("width", .integer(Int64(width)))) }
        if let height = stream.height { object.append(("height", .integer(Int64(height)))) }
        if let rate = stream.sampleRate { object.append(("sampleRate", .integer(Int64(rate)))) }
        if let channels = stream.channels { object.append(("channels", .integer(Int64(channels)))) }
        if let bits = stream.bitsPerSample { object.append(("bitsPerSample", .integer(Int64(bits)))) }
        return .object(object)
    }

    static func table(path: String, item: MediaItem) -> String {
        var text =
            "\(TerminalText.escape(path)): \(item.fileType?.identifier ?? "?") \(String(cFormat: "%.3f", item.properties.duration ?? 0)) s"
        for warning in item.warnings { text += "\n  warning: \(TerminalText.escape(warning.description))" }
        text += "\n  id  type       codec            lang  details\n"
        for stream in item.properties.streams {
            var details: [String] = []
            if let width = stream.width, let height = stream.height { details.append("\(width)x\(height)") }
            if let rate = stream.sampleRate { details.append("\(rate) Hz") }
            if let channels = stream.channels { details.append("\(channels) ch") }
            if stream.isDefault == true { details.append("default") }
            if stream.isForced == true { details.append("forced") }
            if let name = stream.name { details.append("\"\(TerminalText.escape(name))\"") }
            func pad(_ value: String, _ width: Int, left: Bool = false) -> String {
                let fill = String(repeating: " ", count: max(0, width - value.count))
                return left ? value + fill : fill + value
            }
            text +=
                pad(stream.trackID.map(String.init) ?? "-", 4) + "  " + pad(stream.kind.rawValue, 9, left: true) + "  "
                + pad(stream.codec ?? "-", 15, left: true) + "  " + pad(stream.language ?? "-", 4, left: true) + "  "
                + details.joined(separator: ", ") + "\n"
        }
        return text
    }
}
