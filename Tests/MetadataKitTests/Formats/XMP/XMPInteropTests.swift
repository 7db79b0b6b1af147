import Foundation
import Testing

@testable import MetadataKit

enum XMPTools {
    static let present = TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("exiftool") && TestSupport.hasPythonModule("mutagen")
}

/// XMP packets written by exiftool (MP4 `uuid`, MOV `udta/XMP_`), mutagen
/// (an MP3's ID3 `PRIV` frame) and by hand in the containers exiftool can't
/// write (WAV `_PMX`, AIFF `APPL`), read by MetadataKit and compared with
/// exiftool's values; packets replaced, added and removed through the model
/// and read back by exiftool, with every other item and byte kept.
@Suite(.enabled(if: XMPTools.present, "needs ffmpeg, exiftool and python3 with mutagen"))
struct XMPInteropTests {
    /// What exiftool writes into every test file.
    static let exiftoolArguments = [
        "-XMP-dc:Title=XMP Tïtle", "-XMP-dc:Creator=One", "-XMP-dc:Creator+=Two", "-XMP-xmpDM:Album=XMP Album",
        "-XMP-xmpDM:Genre=Jazz", "-XMP-xmpDM:TrackNumber=7", "-XMP-xmp:CreateDate=2021:03:04 05:06:07",
    ]

    /// An MP4/MOV/MP3/WAV/AIFF of 0.2 s made by ffmpeg with no tags.
    static func plainFile(_ ext: String, in folder: URL, title: String? = nil) throws -> URL {
        let url = folder.appendingPathComponent("plain-\(UUID().uuidString).\(ext)")
        let codec = ["mp4": ["-c:a", "aac"], "mov": ["-c:a", "aac"], "mp3": ["-c:a", "libmp3lame"]][ext] ?? []
        let metadata = title.map { ["-metadata", "title=\($0)"] } ?? []
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "sine=d=0.2", "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:a",
                "+bitexact",
            ]
                + codec + metadata + [url.path])
        return url
    }

    /// The packet exiftool writes for ``exiftoolArguments``.
    static func exiftoolPacket(in folder: URL) throws -> [UInt8] {
        let url = try plainFile("mp4", in: folder)
        try TestSupport.runChecked("exiftool", ["-q", "-overwrite_original"] + exiftoolArguments + [url.path])
        return [UInt8](try TestSupport.runChecked("exiftool", ["-b", "-XMP", url.path]).standardOutput)
    }

    /// A file of kind `ext` holding the packet as its writer puts it (see the type).
    static func tagged(_ ext: String, in folder: URL, title: String? = nil) throws -> URL {
        let url = try plainFile(ext, in: folder, title: title)
        switch ext {
        case "mp4", "mov":
            try TestSupport.runChecked("exiftool", ["-q", "-overwrite_original"] + exiftoolArguments + [url.path])
        case "mp3":
            let packet = folder.appendingPathComponent("packet.xml")
            try Data(try exiftoolPacket(in: folder)).write(to: packet)
            try TestSupport.runChecked(
                "python3",
                [
                    "-c",
                    "import sys; from mutagen.id3 import ID3, PRIV, ID3NoHeaderError\ntry: t = ID3(sys.argv[1])\nexcept ID3NoHeaderError: t = ID3()\nt.add(PRIV(owner='XMP', data=open(sys.argv[2],'rb').read())); t.save(sys.argv[1])",
                    url.path, packet.path,
                ])
        case "wav", "aiff":
            let packet = try exiftoolPacket(in: folder)
            try Data(appendingChunk(to: [UInt8](try Data(contentsOf: url)), ext: ext, packet: packet)).write(to: url)
        default:
            Issue.record("no writer for \(ext)")
        }
        return url
    }

    /// `file` with an XMP chunk added at the end and its container size fixed.
    static func appendingChunk(to file: [UInt8], ext: String, packet: [UInt8]) -> [UInt8] {
        let isWAV = ext == "wav"
        let payload = isWAV ? packet : Array("XMP ".utf8) + packet
        var bytes = file + RIFFBuilder.chunk(isWAV ? "_PMX" : "APPL", payload, bigEndian: !isWAV)
        let size = UInt32(bytes.count - 8)
        let encoded = isWAV ? RIFFBuilder.le32(size) : RIFFBuilder.be32(size)
        bytes.replaceSubrange(4..<8, with: encoded)
        return bytes
    }

    static let keys = ["mp4": "xmp:uuid", "mov": "xmp:udta/XMP_", "mp3": "id3:PRIV:XMP", "wav": "xmp:_PMX", "aiff": "xmp:APPL"]

    static func packetItem(_ item: MediaItem) -> MetadataItem? {
        item.metadata.items.first { $0.keySpace == .xmp || $0.key == XMPFields.id3Key }
    }

    static func exiftoolXMP(_ url: URL) throws -> [String: Any] {
        let output = try TestSupport.runChecked("exiftool", ["-j", "-G1", "-XMP:all", url.path])
        let array = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])
        return try #require(array.first)
    }

    @Test(arguments: ["mp4", "mov", "mp3", "wav", "aiff"])
    func readsThePacketAndItsFieldsAsExiftoolDoes(_ ext: String) async throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try Self.tagged(ext, in: folder)
        let item = try await MediaItem.loaded(url)
        let packet = try #require(Self.packetItem(item))
        #expect("\(packet.keySpace):\(packet.key)" == Self.keys[ext])
        #expect(packet.value.stringValue?.contains("XMP Tïtle") == true)
        // exiftool reads XMP in every one of these but AIFF (it has no reader for APPL 'XMP ').
        let expected: [String: Any] =
            ext == "aiff"
            ? ["XMP-dc:Title": "XMP Tïtle", "XMP-dc:Creator": ["One", "Two"], "XMP-xmpDM:Album": "XMP Album", "XMP-xmpDM:Genre": "Jazz"]
            : try Self.exiftoolXMP(url)
        #expect(item.metadata.title == expected["XMP-dc:Title"] as? String)
        #expect(item.metadata.artist == (expected["XMP-dc:Creator"] as? [String])?.joined(separator: "; "))
        #expect(item.metadata.album == expected["XMP-xmpDM:Album"] as? String)
        #expect(item.metadata.genre?.name == expected["XMP-xmpDM:Genre"] as? String)
        #expect(item.metadata.trackNumber == 7)
        #expect(item.metadata.date == "2021-03-04T05:06:07")
    }

    @Test(arguments: ["mp4", "mov", "mp3", "wav", "aiff"])
    func aReplacedPacketReadsBackAndNothingElseChanges(_ ext: String) async throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try Self.tagged(ext, in: folder, title: "Native")
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "Native") // the native tag wins
        #expect(item.metadata.album == "XMP Album") // XMP fills what it leaves empty
        let index = try #require(item.metadata.items.firstIndex { $0 == Self.packetItem(item) })
        let others = item.metadata.items.filter { $0 != item.metadata.items[index] }
        let old = try #require(item.metadata.items[index].value.stringValue)
        let new = old.replacingOccurrences(of: "XMP Album", with: "A much longer replaced album &amp; more")
        item.metadata.items[index].value = .string(new)
        let before = try Data(contentsOf: url)
        try await item.save()

        let reread = try await MediaItem.loaded(url)
        #expect(Self.packetItem(reread)?.value == .string(new))
        #expect(reread.metadata.items.filter { $0 != Self.packetItem(reread) } == others)
        #expect(reread.metadata.album == "A much longer replaced album & more")
        if ext != "aiff" { #expect(try Self.exiftoolXMP(url)["XMP-xmpDM:Album"] as? String == "A much longer replaced album & more") }
        try Self.expectSameAudio(before, url, ext: ext, in: folder)
    }

    @Test(arguments: ["mp4", "mov", "wav", "aiff", "mp3"])
    func aPacketIsAddedAndRemoved(_ ext: String) async throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try Self.plainFile(ext, in: folder)
        let text = String(decoding: try Self.exiftoolPacket(in: folder), as: UTF8.self)
        let key = try #require(Self.keys[ext]).split(separator: ":", maxSplits: 1)
        var item = try await MediaItem.loaded(url)
        #expect(Self.packetItem(item) == nil)
        item.metadata.items.append(
            MetadataItem(keySpace: MetadataKeySpace(rawValue: String(key[0])), key: String(key[1]), value: .string(text), dataType: .utf8))
        try await item.save()
        var reread = try await MediaItem.loaded(url)
        #expect(Self.packetItem(reread)?.value == .string(text))
        #expect(reread.metadata.title == "XMP Tïtle")
        if ext != "aiff" { #expect(try Self.exiftoolXMP(url)["XMP-dc:Title"] as? String == "XMP Tïtle") }

        let added = Self.packetItem(reread)
        reread.metadata.items.removeAll { $0 == added }
        try await reread.save()
        let emptied = try await MediaItem.loaded(url)
        #expect(Self.packetItem(emptied) == nil)
        #expect(emptied.metadata.title == nil)
        if ext != "aiff" { #expect(try Self.exiftoolXMP(url)["XMP-dc:Title"] == nil) }
    }

    /// A title set on a file whose only title is in XMP goes to the native
    /// tag; the packet stays byte for byte, and no other XMP field is copied.
    @Test(arguments: ["mp4", "mov", "mp3", "wav", "aiff"])
    func settingAFieldWritesTheNativeTagAndKeepsThePacket(_ ext: String) async throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try Self.tagged(ext, in: folder)
        var item = try await MediaItem.loaded(url)
        let packet = try #require(Self.packetItem(item))
        let bytesBefore = try XMPFields.bytes(of: packet)
        #expect(item.metadata.title == "XMP Tïtle")
        item.metadata.title = "Native title"
        try await item.save()

        let reread = try await MediaItem.loaded(url)
        #expect(try XMPFields.bytes(of: try #require(Self.packetItem(reread))) == bytesBefore)
        #expect(reread.metadata.title == "Native title")
        let native = reread.metadata.items.filter { $0 != Self.packetItem(reread) }
        let nativeOnly = Metadata(items: native)
        #expect(nativeOnly.title == "Native title")
        #expect(nativeOnly.album == nil)
        #expect(nativeOnly.artist == nil)
        #expect(nativeOnly.date == nil)
        if ext != "aiff" { #expect(try Self.exiftoolXMP(url)["XMP-dc:Title"] as? String == "XMP Tïtle") }
    }

    @Test func anXMPKeyTheFormatDoesNotStoreIsRefused() async throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (ext, key) in [("wav", "APPL"), ("aiff", "_PMX"), ("mp4", "_PMX")] {
            let url = try Self.plainFile(ext, in: folder)
            var item = try await MediaItem.loaded(url)
            item.metadata.items.append(MetadataItem(keySpace: .xmp, key: key, value: .string("<x/>"), dataType: .utf8))
            await #expect(throws: MediaError.self) { try await item.save() }
        }
    }

    /// The decoded audio is the same as before the save (ffmpeg's MD5 of the samples).
    static func expectSameAudio(_ before: Data, _ url: URL, ext: String, in folder: URL) throws {
        let copy = folder.appendingPathComponent("before.\(ext)")
        try before.write(to: copy)
        func md5(_ file: URL) throws -> String {
            try TestSupport.runChecked("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:a", "-f", "md5", "-"]).text
        }
        #expect(try md5(copy) == md5(url))
    }
}
