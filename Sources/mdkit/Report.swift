import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Renders loaded items as JSON or as a readable table.
enum Report {
    /// Raw values of at most this many bytes are shown in base64; longer ones by size only.
    static let inlineDataLimit = 4096

    static func errorMessage(_ error: any Error) -> String {
        if let error = error as? MediaError { return error.message }
        return String(describing: error)
    }

    // MARK: JSON

    /// Writes the object of one file of `mdkit read --json` (see README).
    static func json(path: String, result: Result<MediaItem, any Error>, includeItems: Bool, to json: inout JSONWriter) {
        json.beginObject()
        json.member("path", path)
        switch result {
        case .failure(let error):
            json.member("error", errorMessage(error))
        case .success(let item):
            if let type = item.fileType {
                json.member("format", type.identifier)
                json.member("mimeType", type.mimeType)
            }
            json.member("editable", item.isEditable)
            json.key("properties")
            properties(item.properties, to: &json)
            json.key("metadata")
            let values = item.metadata.fieldValues
            metadata(values, to: &json)
            lists(values, to: &json)
            if !item.chapters.isEmpty {
                json.key("chapters")
                chapters(item.chapters, to: &json)
            }
            if !item.warnings.isEmpty {
                json.key("warnings")
                json.beginArray()
                for warning in item.warnings {
                    json.beginObject()
                    if let offset = warning.offset { json.member("offset", offset) }
                    json.member("message", warning.message)
                    json.end(array: false)
                }
                json.end(array: true)
            }
            if includeItems {
                json.key("items")
                json.beginArray()
                for raw in item.metadata.items { rawItem(raw, to: &json) }
                json.end(array: true)
            }
        }
        json.end(array: false)
    }

    static func properties(_ properties: MediaProperties, to json: inout JSONWriter) {
        json.beginObject()
        if let value = properties.duration {
            json.key("duration")
            json.number((value * 1000).rounded() / 1000)
        }
        if let value = properties.bitrate { json.member("bitrate", value) }
        if let value = properties.sampleRate { json.member("sampleRate", value) }
        if let value = properties.channels { json.member("channels", value) }
        if let value = properties.bitsPerSample { json.member("bitsPerSample", value) }
        if let value = properties.codec { json.member("codec", value) }
        if let value = properties.width { json.member("width", value) }
        if let value = properties.height { json.member("height", value) }
        if let value = properties.opusOutputGain {
            json.key("opusOutputGain")
            json.number(value)
        }
        if let module = properties.module {
            json.key("module")
            json.beginObject()
            if let value = module.trackerName { json.member("trackerName", value) }
            if let value = module.trackerVersion { json.member("trackerVersion", value) }
            json.member("lengthInPatterns", module.lengthInPatterns)
            json.member("patternCount", module.patternCount)
            json.member("instrumentCount", module.instrumentCount)
            json.member("sampleCount", module.sampleCount)
            json.end(array: false)
        }
        if !properties.streams.isEmpty {
            json.key("streams")
            json.beginArray()
            for stream in properties.streams {
                json.beginObject()
                if stream.id != 0 { json.member("trackID", Int(stream.id)) }
                json.member("kind", stream.mediaType.rawValue)
                if let value = stream.codecName { json.member("codec", value) }
                if let value = stream.bitrate { json.member("bitrate", value) }
                if let value = stream.sampleRate { json.member("sampleRate", value) }
                if let value = stream.channels { json.member("channels", value) }
                if let value = stream.width { json.member("width", value) }
                if let value = stream.height { json.member("height", value) }
                json.end(array: false)
            }
            json.end(array: true)
        }
        json.end(array: false)
    }

    /// One table line for a stream: "video, H.264, 1280×720" or "audio, AAC, 44100 Hz, 2 ch, 128 kbit/s".
    static func streamLine(_ stream: AssetTrack) -> String {
        var parts = [stream.mediaType.rawValue]
        if let codec = stream.codecName { parts.append(codec) }
        if let width = stream.width, let height = stream.height { parts.append("\(width)×\(height)") }
        if let rate = stream.sampleRate { parts.append("\(rate) Hz") }
        if let channels = stream.channels { parts.append("\(channels) ch") }
        if let bitrate = stream.bitrate { parts.append("\(bitrate / 1000) kbit/s") }
        return parts.joined(separator: ", ")
    }

    static func metadata(_ values: [(field: MetadataField, value: DisplayValue)], to json: inout JSONWriter) {
        json.beginObject()
        for (field, value) in values {
            switch value {
            case .integer(let number) where field.kind == .boolean: json.member(field.rawValue, number != 0)
            case .text(let text): json.member(field.rawValue, text)
            case .texts(let texts):
                // One JSON type per field: several values are one string here (joined by "; ", as
                // the tables show them) and an array in "lists" (see `lists(_:to:)`).
                json.member(field.rawValue, texts.joined(separator: DisplayValue.separator))
            case .integer(let number): json.member(field.rawValue, number)
            case .genre(let genre): json.member(field.rawValue, genre.name)
            case .artwork(let pictures):
                json.key(field.rawValue)
                json.beginArray()
                for picture in pictures { artwork(picture, to: &json) }
                json.end(array: true)
            }
        }
        json.end(array: false)
    }

    /// `"lists"`: each text field the file holds several values of, as an
    /// array of them (absent when there is none).
    static func lists(_ values: [(field: MetadataField, value: DisplayValue)], to json: inout JSONWriter) {
        let lists = values.compactMap { field, value -> (MetadataField, [String])? in
            if case .texts(let texts) = value { return (field, texts) }
            return nil
        }
        guard !lists.isEmpty else { return }
        json.key("lists")
        json.beginObject()
        for (field, texts) in lists {
            json.key(field.rawValue)
            json.beginArray()
            for text in texts { json.string(text) }
            json.end(array: true)
        }
        json.end(array: false)
    }

    static func artwork(_ picture: Artwork, to json: inout JSONWriter) {
        json.beginObject()
        json.member("mimeType", picture.mimeType)
        json.member("pictureType", picture.pictureType.name)
        json.member("description", picture.description)
        if let width = picture.width { json.member("width", width) }
        if let height = picture.height { json.member("height", height) }
        json.member("byteCount", picture.byteCount)
        json.end(array: false)
    }

    static func value(_ value: MetadataValue, to json: inout JSONWriter) {
        switch value {
        case .string(let text): json.string(text)
        case .strings(let texts):
            json.beginArray()
            for text in texts { json.string(text) }
            json.end(array: true)
        case .integer(let number): json.integer(number)
        case .double(let number): json.number(number)
        case .numberPair(let number, let total):
            json.beginObject()
            json.member("number", number)
            if let total { json.member("total", total) }
            json.end(array: false)
        case .picture(let picture): artwork(picture, to: &json)
        case .data(let data):
            if data.count <= inlineDataLimit {
                json.string(data.base64EncodedString())
            } else {
                json.beginObject()
                json.member("byteCount", data.count)
                json.end(array: false)
            }
        }
    }

    static func rawItem(_ item: MetadataItem, to json: inout JSONWriter) {
        json.beginObject()
        json.member("keySpace", item.keySpace.rawValue)
        json.member("key", item.key)
        json.key("value")
        value(item.value, to: &json)
        json.member("dataType", item.dataType.rawValue)
        if let language = item.language { json.member("language", language) }
        json.end(array: false)
    }

    // MARK: Lyrics

    /// `read --lyrics`/`--lrc` for one file (headed by its path when several are read).
    static func lyrics(of item: MediaItem, as output: ReadCommand.LyricsOutput, path: String?) -> String {
        var text = path.map { "\(TerminalText.escape($0))\n" } ?? ""
        switch output {
        case .lrc:
            text += item.lrcLyrics?.text ?? ""
        case .lines:
            if let lines = item.timedLyrics {
                // "[mm:ss.xx] text" per line.
                text += LRCLyrics(lines: lines.map { TimedLyricLine(time: $0.time, text: " " + $0.text) }).text
            } else if let plain = item.metadata.lyrics {
                text += plain + (plain.hasSuffix("\n") ? "" : "\n")
            }
        }
        return TerminalText.escape(text, keepingLineFeeds: true) + (path == nil ? "" : "\n")
    }

    // MARK: Table

    static func table(path: String, item: MediaItem, includeItems: Bool) -> String {
        var rows: [(String, String)] = []
        let type = item.fileType.map { "\($0.identifier), \($0.mimeType)" } ?? "unknown"
        rows.append(("format", type + (item.isEditable ? ", editable" : ", read-only")))
        for warning in item.warnings { rows.append(("warning", warning.description)) }
        let p = item.properties
        if let value = p.duration { rows.append(("duration", String(cFormat: "%.3f s", value))) }
        if let value = p.bitrate { rows.append(("bitrate", "\(value / 1000) kbit/s")) }
        if let value = p.sampleRate { rows.append(("sampleRate", "\(value) Hz")) }
        if let value = p.channels { rows.append(("channels", String(value))) }
        if let value = p.codec { rows.append(("codec", value)) }
        if let width = p.width, let height = p.height { rows.append(("video", "\(width)×\(height)")) }
        if let value = p.opusOutputGain { rows.append(("opusOutputGain", String(cFormat: "%.2f dB", value))) }
        if let module = p.module {
            if let name = module.trackerName { rows.append(("tracker", name + (module.trackerVersion.map { " \($0)" } ?? ""))) }
            rows.append(
                (
                    "module",
                    "\(module.lengthInPatterns) positions, \(module.patternCount) patterns, \(module.instrumentCount) instruments, \(module.sampleCount) samples"
                ))
        }
        for (index, stream) in p.streams.enumerated() {
            rows.append(("stream \(stream.id == 0 ? index + 1 : Int(stream.id))", streamLine(stream)))
        }
        for (field, value) in item.metadata.fieldValues {
            switch value {
            case .artwork(let pictures):
                for picture in pictures {
                    let size = picture.width.flatMap { w in picture.height.map { "\(w)×\($0), " } } ?? ""
                    rows.append(("artwork", "\(picture.mimeType) \(size)\(picture.pictureType.name), \(picture.byteCount) bytes"))
                }
            default: rows.append((field.rawValue, value.text ?? ""))
            }
        }
        if includeItems {
            for raw in item.metadata.items {
                var shown: String
                if let text = raw.value.stringValue, raw.value.stringValues.count <= 1 {
                    shown = text
                } else {
                    var json = JSONWriter()
                    value(raw.value, to: &json)
                    shown = String(decoding: json.bytes, as: UTF8.self)
                }
                if shown.count > 80 { shown = String(shown.prefix(77)) + "..." }
                let language = raw.language.map { " (\($0))" } ?? ""
                rows.append(("\(raw.keySpace.rawValue):\(raw.key)", "\(shown)  [\(raw.dataType.rawValue)]\(language)"))
            }
        }
        return table(title: path, rows: rows)
    }

    /// `title` then one line per row, names aligned: every name and value
    /// through ``TerminalText`` (a line feed in a value shown as `\n`).
    static func table(title: String, rows: [(String, String)]) -> String {
        let shownRows = rows.map { (TerminalText.escape($0.0), TerminalText.escape($0.1)) }
        let width = shownRows.map(\.0.count).max() ?? 0
        var text = TerminalText.escape(title) + "\n"
        for (name, value) in shownRows {
            text += "  " + name + String(repeating: " ", count: width - name.count + 2) + value + "\n"
        }
        return text + "\n"
    }
}
