import Foundation
import MetadataKit

/// Renders loaded items as JSON or as a readable table.
enum Report {
    /// Raw values of at most this many bytes are shown in base64; longer ones by size only.
    static let inlineDataLimit = 4096

    static func errorMessage(_ error: any Error) -> String {
        if let error = error as? MediaError { return error.message }
        return String(describing: error)
    }

    // MARK: JSON

    static func json(path: String, result: Result<MediaItem, any Error>, includeItems: Bool) -> JSON {
        let item: MediaItem
        switch result {
        case .failure(let error):
            return .object([("path", .string(path)), ("error", .string(errorMessage(error)))])
        case .success(let loaded):
            item = loaded
        }
        var object: [(String, JSON)] = [("path", .string(path))]
        if let type = item.fileType {
            object.append(("format", .string(type.identifier)))
            object.append(("mimeType", .string(type.mimeType)))
        }
        object.append(("editable", .bool(item.isEditable)))
        object.append(("properties", properties(item.properties)))
        object.append(("metadata", metadata(item.metadata)))
        if includeItems {
            object.append(("items", .array(item.metadata.items.map(rawItem))))
        }
        return .object(object)
    }

    static func properties(_ properties: MediaProperties) -> JSON {
        var object: [(String, JSON)] = []
        if let value = properties.duration { object.append(("duration", .number((value * 1000).rounded() / 1000))) }
        if let value = properties.bitrate { object.append(("bitrate", .integer(Int64(value)))) }
        if let value = properties.sampleRate { object.append(("sampleRate", .integer(Int64(value)))) }
        if let value = properties.channels { object.append(("channels", .integer(Int64(value)))) }
        if let value = properties.bitsPerSample { object.append(("bitsPerSample", .integer(Int64(value)))) }
        if let value = properties.codec { object.append(("codec", .string(value))) }
        if let value = properties.width { object.append(("width", .integer(Int64(value)))) }
        if let value = properties.height { object.append(("height", .integer(Int64(value)))) }
        return .object(object)
    }

    static func metadata(_ metadata: Metadata) -> JSON {
        var object: [(String, JSON)] = []
        for field in MetadataField.allCases {
            switch metadata[field] {
            case nil: continue
            case .text(let text)?: object.append((field.rawValue, .string(text)))
            case .integer(let number)?: object.append((field.rawValue, .integer(Int64(number))))
            case .genre(let genre)?: object.append((field.rawValue, .string(genre.name)))
            case .artwork(let pictures)?: object.append((field.rawValue, .array(pictures.map(artwork))))
            }
        }
        return .object(object)
    }

    static func artwork(_ picture: Artwork) -> JSON {
        var object: [(String, JSON)] = [
            ("mimeType", .string(picture.mimeType)),
            ("pictureType", .string(picture.pictureType.name)),
            ("description", .string(picture.description)),
        ]
        if let width = picture.width { object.append(("width", .integer(Int64(width)))) }
        if let height = picture.height { object.append(("height", .integer(Int64(height)))) }
        object.append(("byteCount", .integer(Int64(picture.byteCount))))
        return .object(object)
    }

    static func value(_ value: MetadataValue) -> JSON {
        switch value {
        case .string(let text): return .string(text)
        case .strings(let texts): return .array(texts.map(JSON.string))
        case .integer(let number): return .integer(number)
        case .double(let number): return .number(number)
        case .numberPair(let number, let total):
            var pair: [(String, JSON)] = [("number", .integer(Int64(number)))]
            if let total { pair.append(("total", .integer(Int64(total)))) }
            return .object(pair)
        case .picture(let picture): return artwork(picture)
        case .data(let data):
            return data.count <= inlineDataLimit ? .string(data.base64EncodedString())
                : .object([("byteCount", .integer(Int64(data.count)))])
        }
    }

    static func rawItem(_ item: MetadataItem) -> JSON {
        var object: [(String, JSON)] = [
            ("keySpace", .string(item.keySpace.rawValue)),
            ("key", .string(item.key)),
            ("value", value(item.value)),
            ("dataType", .string(item.dataType.rawValue)),
        ]
        if let language = item.language { object.append(("language", .string(language))) }
        return .object(object)
    }

    // MARK: Table

    static func table(path: String, result: Result<MediaItem, any Error>, includeItems: Bool) -> String {
        var rows: [(String, String)] = []
        switch result {
        case .failure(let error):
            return "\(path)\n  error: \(errorMessage(error))\n\n"
        case .success(let item):
            let type = item.fileType.map { "\($0.identifier), \($0.mimeType)" } ?? "unknown"
            rows.append(("format", type + (item.isEditable ? ", editable" : ", read-only")))
            let p = item.properties
            if let value = p.duration { rows.append(("duration", String(format: "%.3f s", value))) }
            if let value = p.bitrate { rows.append(("bitrate", "\(value / 1000) kbit/s")) }
            if let value = p.sampleRate { rows.append(("sampleRate", "\(value) Hz")) }
            if let value = p.channels { rows.append(("channels", String(value))) }
            if let value = p.codec { rows.append(("codec", value)) }
            if let width = p.width, let height = p.height { rows.append(("video", "\(width)×\(height)")) }
            for field in MetadataField.allCases {
                switch item.metadata[field] {
                case nil: continue
                case .artwork(let pictures)?:
                    for picture in pictures {
                        let size = picture.width.flatMap { w in picture.height.map { "\(w)×\($0), " } } ?? ""
                        rows.append(("artwork", "\(picture.mimeType) \(size)\(picture.pictureType.name), \(picture.byteCount) bytes"))
                    }
                case let value?: rows.append((field.rawValue, value.text ?? ""))
                }
            }
            if includeItems {
                for raw in item.metadata.items {
                    var shown: String
                    if let text = raw.value.stringValue, raw.value.stringValues.count <= 1 {
                        shown = text
                    } else {
                        var json = ""
                        value(raw.value).write(to: &json)
                        shown = json
                    }
                    if shown.count > 80 { shown = String(shown.prefix(77)) + "..." }
                    let language = raw.language.map { " (\($0))" } ?? ""
                    rows.append(("\(raw.keySpace.rawValue):\(raw.key)", "\(shown)  [\(raw.dataType.rawValue)]\(language)"))
                }
            }
        }
        let width = rows.map(\.0.count).max() ?? 0
        var text = "\(path)\n"
        for (name, value) in rows {
            text += "  " + name + String(repeating: " ", count: width - name.count + 2) + value.replacingOccurrences(of: "\n", with: " ") + "\n"
        }
        return text + "\n"
    }
}
