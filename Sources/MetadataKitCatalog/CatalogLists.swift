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
                kind: stream.kind.rawValue, trackID: stream.trackID.map(Int64.init), codec: stream.codec,
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
    }

    /// Builds one list: its elements (or an object's members) appended, then ``finish(object:)``.
    struct Writer {
        private var bytes: [UInt8] = []
        private var count = 0
        /// Whether the element being written has a member yet.
        private var open = false

        init() { bytes.reserveCapacity(1024) }

        /// The list written since the last call, as `[…]` (or `{…}` when
        /// `object`), nil when it is empty; the writer is empty again.
        mutating func finish(object: Bool = false) -> String? {
            defer {
                bytes.removeAll(keepingCapacity: true)
                count = 0
            }
            guard count > 0 else { return nil }
            bytes.append(object ? 0x7D : 0x5D) // } ]
            bytes[0] = object ? 0x7B : 0x5B // { [
            return String(decoding: bytes, as: UTF8.self)
        }

        /// A member of the list's object (``finish(object:)`` with `object`).
        mutating func objectMember(_ name: String, _ value: String) {
            nextElement()
            string(name)
            bytes.append(0x3A)
            string(value)
        }

        mutating func item(keySpace: String, key: String, values: [String?], byteCount: Int?, type: String, language: String?) {
            begin()
            member("key_space", keySpace)
            member("key", key)
            memberName("values")
            bytes.append(0x5B)
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(0x2C) }
                if let value { string(value) } else { bytes += "null".utf8 }
            }
            bytes.append(0x5D)
            member("byte_count", byteCount.map(Int64.init))
            member("type", type)
            member("language", language)
            end()
        }

        mutating func stream(
            kind: String, trackID: Int64?, codec: String?, bitrate: Int64?, sampleRate: Int64?, channels: Int64?, width: Int64?,
            height: Int64?, bitsPerSample: Int64?, language: String?, name: String?
        ) {
            begin()
            member("kind", kind)
            member("track_id", trackID)
            member("codec", codec)
            member("bitrate", bitrate)
            member("sample_rate", sampleRate)
            member("channels", channels)
            member("width", width)
            member("height", height)
            member("bits_per_sample", bitsPerSample)
            member("language", language)
            member("name", name)
            end()
        }

        mutating func picture(
            pictureType: String, mimeType: String, description: String, byteCount: Int64, width: Int64?, height: Int64?,
            sha256: String?
        ) {
            begin()
            member("picture_type", pictureType)
            member("mime_type", mimeType)
            member("description", description)
            member("byte_count", byteCount)
            member("width", width)
            member("height", height)
            member("sha256", sha256)
            end()
        }

        mutating func warning(code: String, byteOffset: Int64?, message: String) {
            begin()
            member("code", code)
            member("byte_offset", byteOffset)
            member("message", message)
            end()
        }

        // MARK: Pieces

        /// Starts the list's next element: a comma, or before the first a
        /// placeholder that ``finish(object:)`` makes the opening bracket.
        private mutating func nextElement() {
            bytes.append(count == 0 ? 0 : 0x2C)
            count += 1
        }

        /// Opens an element of the list (an object).
        private mutating func begin() {
            nextElement()
            bytes.append(0x7B)
            open = false
        }

        private mutating func end() { bytes.append(0x7D) }

        private mutating func memberName(_ name: String) {
            if open { bytes.append(0x2C) }
            open = true
            string(name)
            bytes.append(0x3A)
        }

        private mutating func member(_ name: String, _ value: String?) {
            guard let value else { return }
            memberName(name)
            string(value)
        }

        private mutating func member(_ name: String, _ value: Int64?) {
            guard let value else { return }
            memberName(name)
            bytes += String(value).utf8
        }

        /// `text` as a JSON string (without NUL characters): runs of bytes that need no escape appended whole.
        private mutating func string(_ text: String) {
            bytes.append(0x22)
            var text = text
            text.withUTF8 { utf8 in
                var start = 0
                for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                    start = index + 1
                    switch byte {
                    case 0x00: continue
                    case 0x22: bytes += [0x5C, 0x22]
                    case 0x5C: bytes += [0x5C, 0x5C]
                    case 0x0A: bytes += [0x5C, 0x6E]
                    case 0x09: bytes += [0x5C, 0x74]
                    case 0x0D: bytes += [0x5C, 0x72]
                    default: bytes += [0x5C, 0x75, 0x30, 0x30, Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0xF)]]
                    }
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
            }
            bytes.append(0x22)
        }

        private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
    }
}
