import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `mdkit tracks` for files whose tracks have no sample tables (Matroska,
/// WebM, Ogg and ASF files with several streams): the tracks as described,
/// in the shape of the MP4 track objects where they mean the same.
extension TracksCommand {
    static func describedJSON(path: String, asset: Asset) -> JSON {
        var object: [(String, JSON)] = [("path", .string(path))]
        if let type = asset.fileType?.identifier ?? asset.format?.identifier { object.append(("format", .string(type))) }
        if asset.durationSeconds > 0 { object.append(("duration", .number((asset.durationSeconds * 1000).rounded() / 1000))) }
        var fields: [(String, JSON)] = []
        let metadata = asset.metadata
        for field in MetadataField.allCases where field != .artwork {
            if let value = metadata[field]?.text { fields.append((field.rawValue, .string(value))) }
        }
        object.append(("metadata", .object(fields)))
        object.append(("tracks", .array(asset.tracks.map(describedTrack))))
        if !asset.warnings.isEmpty {
            let warnings: [JSON] = asset.warnings.map { warning in
                var fields: [(String, JSON)] = []
                if let offset = warning.offset { fields.append(("offset", .integer(offset))) }
                fields.append(("message", .string(warning.message)))
                return .object(fields)
            }
            object.append(("warnings", .array(warnings)))
        }
        return .object(object)
    }

    static func describedTrack(_ stream: AssetTrack) -> JSON {
        var object: [(String, JSON)] = []
        if stream.id != 0 { object.append(("id", .integer(Int64(stream.id)))) }
        if let uid = stream.uid { object.append(("uid", .string(String(uid)))) }
        object.append(("mediaType", .string(stream.mediaType.rawValue)))
        if let codec = stream.codecName { object.append(("codec", .string(codec))) }
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

    static func describedTable(path: String, asset: Asset) -> String {
        let type = asset.fileType?.identifier ?? asset.format?.identifier ?? "?"
        var text = "\(TerminalText.escape(path)): \(type) \(String(cFormat: "%.3f", asset.durationSeconds)) s"
        for warning in asset.warnings { text += "\n  warning: \(TerminalText.escape(warning.description))" }
        text += "\n  id  type       codec            lang  details\n"
        for stream in asset.tracks {
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
                pad(stream.id == 0 ? "-" : String(stream.id), 4) + "  " + pad(stream.mediaType.rawValue, 9, left: true) + "  "
                + pad(stream.codecName ?? "-", 15, left: true) + "  " + pad(stream.language ?? "-", 4, left: true) + "  "
                + details.joined(separator: ", ") + "\n"
        }
        return text
    }
}
