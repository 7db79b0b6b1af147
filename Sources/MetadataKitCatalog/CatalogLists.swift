import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A file's lists as its `files` row holds them (schema version 2): the
/// normalized fields as one JSON object, the raw items, streams, pictures
/// and warnings as JSON arrays of objects whose keys are the columns of the
/// views `fields`, `items`, `streams`, `artwork` and `warnings`
/// (docs/CATALOG.md). An empty list is NULL. One row per file, whatever the
/// number of items: a scan's writer inserts one row instead of twenty.
///
/// The texts are RFC 8259 JSON: strings escaped (`"`, `\`, and control
/// characters as `\u00XX`), numbers as integers, keys without a value left
/// out. NUL characters are dropped from the texts: SQLite's JSON functions
/// end a text at one, and PostgreSQL's `jsonb` refuses them (as its text does).
struct CatalogLists: Sendable, Equatable {
    /// `{"title":"…","trackNumber":"3",…}`: every normalized field but artwork, as text.
    var fields: String? = nil
    /// `[{"key_space":"id3","key":"TIT2","values":["…"],"type":"UTF-8","language":"eng"},…]`;
    /// binary values are `null` with a `byte_count`.
    var items: String? = nil
    /// `[{"kind":"audio","track_id":1,"codec":"mp4a",…},…]`.
    var streams: String? = nil
    /// `[{"picture_type":"front cover","mime_type":"image/jpeg","description":"","byte_count":…,"sha256":"…"},…]`.
    var artwork: String? = nil
    /// `[{"code":"truncated","byte_offset":…,"message":"…"},…]`.
    var warnings: String? = nil
    /// `[{"code":"id3.stacked","severity":"warning","byte_offset":…,"message":"…","fixable":true},…]` (schema version 3).
    var findings: String? = nil

    init() {}

    /// The lists of `record`.
    init(_ record: CatalogRecord) {
        var writer = Writer()
        for (field, value) in record.fields { writer.objectMember(field, value) }
        fields = writer.finish(object: true)
        for item in record.items {
            writer.item(
                keySpace: item.keySpace, key: item.key, values: item.values, byteCount: item.byteCount, type: item.type,
                language: item.language)
        }
        items = writer.finish()
        for stream in record.properties.streams {
            writer.stream(
                kind: stream.mediaType.rawValue, trackID: stream.id == 0 ? nil : Int64(stream.id), codec: stream.codecName,
                bitrate: stream.bitrate.map(Int64.init), sampleRate: stream.sampleRate.map(Int64.init),
                channels: stream.channels.map(Int64.init), width: stream.width.map(Int64.init), height: stream.height.map(Int64.init),
                bitsPerSample: stream.bitsPerSample.map(Int64.init), language: stream.language, name: stream.name)
        }
        streams = writer.finish()
        for picture in record.pictures {
            writer.picture(
                pictureType: picture.pictureType, mimeType: picture.mimeType, description: picture.description,
                byteCount: Int64(picture.byteCount), width: picture.width.map(Int64.init), height: picture.height.map(Int64.init),
                sha256: picture.sha256)
        }
        artwork = writer.finish()
        for warning in record.warnings {
            writer.warning(code: warning.code.rawValue, byteOffset: warning.offset, message: warning.message)
        }
        warnings = writer.finish()
        for finding in record.findings {
            writer.finding(
                code: finding.code.rawValue, severity: finding.severity.rawValue, byteOffset: finding.byteOffset,
                message: finding.message, fixable: finding.isFixable)
        }
        findings = writer.finish()
    }

    /// Builds one list with the package's ``JSONWriter`` (one line, NUL
    /// characters dropped): its elements (or an object's members) appended,
    /// then ``finish(object:)``.
    struct Writer {
        private var json = JSONWriter(options: .dropNUL)
        private var count = 0

        init() {}

        /// The list written since the last call, as `[…]` (or `{…}` when
        /// `object`), nil when it is empty; the writer is empty again.
        mutating func finish(object: Bool = false) -> String? {
            defer {
                json.removeAll()
                count = 0
            }
            guard count > 0 else { return nil }
            json.end(array: !object)
            return String(decoding: json.bytes, as: UTF8.self)
        }

        /// A member of the list's object (``finish(object:)`` with `object`).
        mutating func objectMember(_ name: String, _ value: String) {
            nextElement(object: true)
            json.member(name, value)
        }

        mutating func item(keySpace: String, key: String, values: [String?], byteCount: Int?, type: String, language: String?) {
            begin()
            json.member("key_space", keySpace)
            json.member("key", key)
            json.key("values")
            json.beginArray()
            for value in values {
                if let value { json.string(value) } else { json.null() }
            }
            json.end(array: true)
            json.member("byte_count", ifPresent: byteCount.map(Int64.init))
            json.member("type", type)
            json.member("language", ifPresent: language)
            json.end(array: false)
        }

        mutating func stream(
            kind: String, trackID: Int64?, codec: String?, bitrate: Int64?, sampleRate: Int64?, channels: Int64?, width: Int64?,
            height: Int64?, bitsPerSample: Int64?, language: String?, name: String?
        ) {
            begin()
            json.member("kind", kind)
            json.member("track_id", ifPresent: trackID)
            json.member("codec", ifPresent: codec)
            json.member("bitrate", ifPresent: bitrate)
            json.member("sample_rate", ifPresent: sampleRate)
            json.member("channels", ifPresent: channels)
            json.member("width", ifPresent: width)
            json.member("height", ifPresent: height)
            json.member("bits_per_sample", ifPresent: bitsPerSample)
            json.member("language", ifPresent: language)
            json.member("name", ifPresent: name)
            json.end(array: false)
        }

        mutating func picture(
            pictureType: String, mimeType: String, description: String, byteCount: Int64, width: Int64?, height: Int64?,
            sha256: String?
        ) {
            begin()
            json.member("picture_type", pictureType)
            json.member("mime_type", mimeType)
            json.member("description", description)
            json.member("byte_count", byteCount)
            json.member("width", ifPresent: width)
            json.member("height", ifPresent: height)
            json.member("sha256", ifPresent: sha256)
            json.end(array: false)
        }

        mutating func warning(code: String, byteOffset: Int64?, message: String) {
            begin()
            json.member("code", code)
            json.member("byte_offset", ifPresent: byteOffset)
            json.member("message", message)
            json.end(array: false)
        }

        mutating func finding(code: String, severity: String, byteOffset: Int64?, message: String, fixable: Bool) {
            begin()
            json.member("code", code)
            json.member("severity", severity)
            json.member("byte_offset", ifPresent: byteOffset)
            json.member("message", message)
            json.member("fixable", fixable)
            json.end(array: false)
        }

        /// Opens the list (an array, or the object when `object`) before its first element.
        private mutating func nextElement(object: Bool = false) {
            if count == 0 {
                if object { json.beginObject() } else { json.beginArray() }
            }
            count += 1
        }

        /// Opens an element of the list (an object).
        private mutating func begin() {
            nextElement()
            json.beginObject()
        }
    }
}
