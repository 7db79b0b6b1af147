import Foundation

@testable import MetadataKit

/// Builds small ASF files byte by byte (ASF Specification §3), for the
/// tests that need exact layouts and damage no encoder makes.
enum ASFBuilder {
    static func le16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    static func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
    static func utf16(_ text: String) -> [UInt8] { ASFAttribute.encodedText(text) }

    /// An object of type `guid` around `data`; `size` overrides the declared size.
    static func object(_ guid: ASFGUID, _ data: [UInt8], size: UInt64? = nil) -> [UInt8] {
        guid.bytes + le64(size ?? UInt64(24 + data.count)) + data
    }

    /// A File Properties Object: `duration` in seconds (plus `preroll` ms), the file size field.
    static func fileProperties(duration: Double = 2, preroll: Int = 3000, fileSize: UInt64 = 0, flags: Int = 2) -> [UInt8] {
        let play = UInt64((duration + Double(preroll) / 1000) * 1e7)
        let data =
            [UInt8](repeating: 0xAB, count: 16) + le64(fileSize) + le64(0) + le64(1) + le64(play) + le64(play) + le64(UInt64(preroll))
            + le32(flags) + le32(3200) + le32(3200) + le32(128_000)
        return object(.fileProperties, data)
    }

    /// An audio Stream Properties Object with a `WAVEFORMATEX`.
    static func audioStream(number: Int = 1, codec: Int = 0x161, channels: Int = 2, rate: Int = 44_100, bytesPerSecond: Int = 16_000)
        -> [UInt8]
    {
        let format =
            le16(codec) + le16(channels) + le32(rate) + le32(bytesPerSecond) + le16(2973) + le16(16) + le16(10)
            + [UInt8](repeating: 0, count: 10)
        let data =
            ASFGUID.audioMedia.bytes + [UInt8](repeating: 0, count: 16) + le64(0) + le32(format.count) + le32(0) + le16(number) + le32(0)
            + format
        return object(.streamProperties, data)
    }

    /// A video Stream Properties Object with a `BITMAPINFOHEADER`.
    static func videoStream(number: Int = 2, width: Int = 64, height: Int = 48, fourCC: String = "WMV2") -> [UInt8] {
        let bitmap = le32(40) + le32(width) + le32(height) + le16(1) + le16(24) + Array(fourCC.utf8) + [UInt8](repeating: 0, count: 20)
        let specific = le32(width) + le32(height) + [2] + le16(bitmap.count) + bitmap
        let data =
            ASFGUID.videoMedia.bytes + [UInt8](repeating: 0, count: 16) + le64(0) + le32(specific.count) + le32(0) + le16(number) + le32(0)
            + specific
        return object(.streamProperties, data)
    }

    static func contentDescription(_ values: [String?]) -> [UInt8] {
        let encoded = (0..<5).map { index in index < values.count ? values[index].map(utf16) ?? [] : [] }
        return object(.contentDescription, encoded.flatMap { le16($0.count) } + encoded.flatMap { $0 })
    }

    /// An Extended Content Description of (name, type, value bytes).
    static func extendedContent(_ attributes: [(String, Int, [UInt8])], count: Int? = nil) -> [UInt8] {
        var data = le16(count ?? attributes.count)
        for (name, type, value) in attributes { data += le16(utf16(name).count) + utf16(name) + le16(type) + le16(value.count) + value }
        return object(.extendedContentDescription, data)
    }

    /// A Metadata (`library` false) or Metadata Library object of (language, stream, name, type, value).
    static func metadata(_ attributes: [(Int, Int, String, Int, [UInt8])], library: Bool) -> [UInt8] {
        var data = le16(attributes.count)
        for (language, stream, name, type, value) in attributes {
            data += le16(language) + le16(stream) + le16(utf16(name).count) + le16(type) + le32(value.count) + utf16(name) + value
        }
        return object(library ? .metadataLibrary : .metadata, data)
    }

    static func languageList(_ languages: [String]) -> [UInt8] {
        object(.languageList, le16(languages.count) + languages.flatMap { [UInt8(utf16($0).count)] + utf16($0) })
    }

    static func headerExtension(_ objects: [[UInt8]], dataSize: Int? = nil) -> [UInt8] {
        let inner = objects.flatMap { $0 }
        return object(.headerExtension, ASFGUID.headerExtensionReserved.bytes + le16(6) + le32(dataSize ?? inner.count) + inner)
    }

    static func padding(_ count: Int) -> [UInt8] { object(.padding, [UInt8](repeating: 0, count: count)) }

    /// A WM/Picture value.
    static func picture(type: UInt8 = 3, mime: String = "image/png", description: String = "", image: [UInt8]) -> [UInt8] {
        [type] + le32(image.count) + utf16(mime) + utf16(description) + image
    }

    /// A whole file: the header of `objects`, then a Data Object of `payload`
    /// bytes and an unknown trailing object (a stand-in for an index).
    static func file(_ objects: [[UInt8]], declaredCount: Int? = nil, headerSize: UInt64? = nil, payload: Int = 300) -> [UInt8] {
        let body = objects.flatMap { $0 }
        let header =
            ASFGUID.header.bytes + le64(headerSize ?? UInt64(30 + body.count)) + le32(declaredCount ?? objects.count) + [1, 2] + body
        let data = object(.data, (0..<payload).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let index = object(ASFGUID("D6E229D3-35DA-11D1-9034-00A0C90349BE"), [UInt8](repeating: 9, count: 40))
        return header + data + index
    }

    /// A file with every kind of attribute in every metadata object, a
    /// picture, a language list, an unknown header object and padding.
    static func rich(fileSizeField: Bool = true) -> [UInt8] {
        let unknown = object(ASFGUID("86D15240-311D-11D0-A3A4-00A0C90348F6"), [UInt8](repeating: 0x55, count: 30))
        let objects: [[UInt8]] = [
            fileProperties(),
            audioStream(),
            contentDescription(["Tïtle ✓", "Äuthor", "© me", "A comment", "PG"]),
            extendedContent([
                ("WM/AlbumTitle", 0, utf16("Älbum 日本")),
                ("WM/TrackNumber", 3, le32(7)),
                ("WM/PartOfSet", 0, utf16("1/2")),
                ("WM/Genre", 0, utf16("Shoegaze")),
                ("WM/Year", 0, utf16("2021")),
                ("IsVBR", 2, le32(1)),
                ("WM/Bytes", 1, [1, 2, 3]),
                ("WM/Big", 4, le64(0xFFFF_FFFF_FFFF_FFF0)),
                ("WM/Word", 5, le16(513)),
                (ASFAttribute.pictureName, 1, picture(description: "cover ü", image: tinyPNG)),
            ]),
            unknown,
            headerExtension([
                languageList(["en-us", "de-de"]),
                metadata([(0, 1, "WM/StreamThing", 0, utf16("per stream")), (0, 0, "WM/Flag", 2, le16(1))], library: false),
                metadata(
                    [
                        (1, 0, "WM/Mood", 0, utf16("Fröhlich")), (0, 0, "WM/ID", 6, ASFGUID.padding.bytes),
                        (0, 0, "WM/Composer", 0, utf16("Cömposer")),
                    ],
                    library: true),
            ]),
            padding(100),
        ]
        var bytes = file(objects)
        if fileSizeField {
            let size = le64(UInt64(bytes.count))
            let at = 30 + 24 + 16
            bytes.replaceSubrange(at..<at + 8, with: size)
        }
        return bytes
    }

    /// A 3×2 PNG.
    static let tinyPNG: [UInt8] = ID3Builder.tinyPNG

    /// Writes `bytes` to a new file in a new folder.
    static func write(_ bytes: [UInt8], ext: String = "wma") throws -> URL {
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent("t.\(ext)")
        try Data(bytes).write(to: url)
        return url
    }

    /// Parses `bytes` as an ASF file.
    static func parse(_ bytes: [UInt8]) throws -> ParsedFile {
        let url = try write(bytes)
        defer { remove(url) }
        return try ASFParser.parse(try FileSource(url: url), url)
    }

    /// Removes the file and the folder ``write(_:ext:)`` made for it.
    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
        try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
    }
}
