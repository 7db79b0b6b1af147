import Foundation
import Testing

@testable import MetadataKit

/// The multi-field 3GPP asset boxes against ffmpeg, ffprobe and exiftool:
/// the `loci` box ffmpeg's 3gp muxer writes (from its `location` tag) read,
/// changed and read back by ffprobe and exiftool; `kywd`, `clsf` and `rtng`
/// added by MetadataKit read by exiftool; the untouched boxes and the audio
/// packets unchanged.
@Suite(
    .enabled(
        if: TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("ffprobe") && TestSupport.hasTool("exiftool"),
        "needs ffmpeg, ffprobe and exiftool"))
struct MP4AssetBoxInteropTests {
    static func item(_ key: String, _ value: MetadataValue, language: String? = nil) -> MetadataItem {
        MetadataItem(keySpace: .threeGPP, key: key, value: value, dataType: .utf8, language: language)
    }

    static func exiftool(_ url: URL) throws -> [String: Any] {
        let output = try TestSupport.runChecked("exiftool", ["-j", "-a", "-UserData:all", url.path]).text
        return (try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])?.first ?? [:]
    }

    /// ffprobe's `location` tag as latitude, longitude and altitude.
    static func ffprobeLocation(_ url: URL) throws -> [Double] {
        let output = try TestSupport.runChecked(
            "ffprobe", ["-v", "error", "-show_entries", "format_tags=location", "-of", "default=nw=1:nk=1", url.path]
        ).text
        // ISO 6709: "+35.6895+139.6917+40.000000/"
        var numbers: [Double] = []
        var current = ""
        for character in output.trimmingCharacters(in: .whitespacesAndNewlines) {
            if character == "+" || character == "-" || character == "/" {
                if let number = Double(current) { numbers.append(number) }
                current = character == "/" ? "" : String(character)
            } else {
                current.append(character)
            }
        }
        return numbers
    }

    @Test func ffmpegLocationReadChangedAndReadBack() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("clip.3gp")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac", "-metadata", "title=Titel",
                "-metadata", "location=+35.6895+139.6917+40.000/", "-f", "3gp", url.path,
            ])
        var item = try await MediaItem.loaded(url)
        func value(_ key: String) -> String? { item.metadata.items.first { $0.keySpace == .threeGPP && $0.key == key }?.value.stringValue }
        #expect(value("loci") == "")
        #expect(value("loci:role") == "0")
        #expect(value("loci:body") == "earth")
        #expect(abs((value("loci:latitude").flatMap(Double.init) ?? 0) - 35.6895) < 0.0001)
        #expect(abs((value("loci:longitude").flatMap(Double.init) ?? 0) - 139.6917) < 0.0001)
        #expect(value("loci:altitude") == "40")
        let titl = try Self.boxBytes("titl", in: url)

        let audio = try TestSupport.runChecked(
            "ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a", "-c", "copy", "-f", "streamhash", "-"]
        ).text
        item.metadata.items.removeAll { ["loci", "loci:latitude", "loci:longitude"].contains($0.key) }
        item.metadata.items += [
            // English: exiftool 12.57 reads `loci` in other ISO languages as "<err>".
            Self.item("loci", .string("Tour Eiffel ✓"), language: "eng"), Self.item("loci:latitude", .string("48.8584")),
            Self.item("loci:longitude", .string("2.2945")),
            Self.item("kywd", .strings(["Turm", "Reise ü"]), language: "deu"),
            Self.item("clsf", .string("Dokumentation"), language: "deu"), Self.item("clsf:entity", .string("ABCD")),
            Self.item("clsf:table", .string("3")),
            Self.item("rtng", .string("ab 12"), language: "deu"), Self.item("rtng:entity", .string("FSK ")),
            Self.item("rtng:criteria", .string("AGE ")),
        ]
        let written = item.metadata.items.filter { $0.keySpace == .threeGPP }
        try await item.save()

        let reread = try await MediaItem.loaded(url)
        for expected in written {
            #expect(reread.metadata.items.contains(expected), "\(expected.key)")
        }
        #expect(try Self.boxBytes("titl", in: url) == titl)
        let location = try Self.ffprobeLocation(url)
        #expect(location.count == 3)
        #expect(abs((location.first ?? 0) - 48.8584) < 0.0001 && abs((location.dropFirst().first ?? 0) - 2.2945) < 0.0001)
        let tags = try Self.exiftool(url)
        let information = tags["LocationInformation"] as? String ?? ""
        #expect(information.hasPrefix("Tour Eiffel ✓ Role=shooting Lat="), "\(information)")
        #expect(information.contains("Alt=40.00") && information.contains("Body=earth"), "\(information)")
        // exiftool prints five places of the stored 16.16 value (2.2945 is stored as 2.294494…).
        func number(after label: String) -> Double? {
            information.components(separatedBy: " ").first { $0.hasPrefix(label) }.flatMap { Double($0.dropFirst(label.count)) }
        }
        #expect(abs((number(after: "Lat=") ?? 0) - 48.8584) < 0.0001 && abs((number(after: "Lon=") ?? 0) - 2.2945) < 0.0001)
        let keywords = (tags["Keywords"] as? String ?? "").replacingOccurrences(of: "\u{0}", with: "")
        #expect(keywords == "(deu) Turm, Reise ü", "\(keywords)")
        #expect((tags["Classification"] as? String)?.hasPrefix("Entity=ABCD Index=3 ") == true, "\(tags["Classification"] ?? "")")
        #expect((tags["Classification"] as? String)?.contains("Dokumentation") == true)
        #expect((tags["Rating"] as? String)?.hasPrefix("Entity=FSK  Criteria=AGE  ") == true, "\(tags["Rating"] ?? "")")
        #expect((tags["Rating"] as? String)?.contains("ab 12") == true)
        #expect(
            try TestSupport.runChecked("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a", "-c", "copy", "-f", "streamhash", "-"]).text
                == audio)
    }

    /// The whole box of `type` in `moov/udta`.
    static func boxBytes(_ type: FourCC, in url: URL) throws -> [UInt8] {
        let source = try FileSource(url: url)
        let box = try #require(try MP4Movie(source).moov.child("udta")?.child(type))
        return try source.getBytes(at: box.header.offset, count: Int(box.header.size))
    }
}
