import Foundation
import Testing

@testable import MetadataKit

enum BroadcastWAVTools {
    static let present = ToolCheck.has("exiftool") && ToolCheck.has("ffmpeg") && ToolCheck.has("ffprobe") && ToolCheck.has("flac")
}

/// Broadcast Wave files made by ffmpeg, by hand and by `flac
/// --keep-foreign-metadata`, read by MetadataKit and by exiftool; files
/// MetadataKit writes, read back by exiftool and ffprobe. Under CI a missing
/// tool fails the suite (``TestSupport/hasTool(_:)``).
@Suite(.enabled(if: BroadcastWAVTools.present, "needs exiftool, ffmpeg, ffprobe and flac"))
struct BroadcastWAVInteropTests {
    static let fast = SaveOptions(durability: .noSync)

    static func exiftool(_ url: URL) throws -> [String: Any] {
        let output = try TestSupport.runChecked("exiftool", ["-j", "-G1", "-charset", "UTF8", url.path])
        let array = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])
        return try #require(array.first)
    }

    /// An exiftool value as text (numbers as exiftool prints them).
    static func text(_ value: Any?) -> String? {
        switch value {
        case let string as String: return string
        case let number as NSNumber: return number.stringValue
        default: return nil
        }
    }

    static func item(_ item: MediaItem, _ space: MetadataKeySpace, _ key: String) -> String? {
        item.metadata.items.first { $0.keySpace == space && $0.key == key }?.value.stringValue
    }

    /// The bext and iXML values exiftool shows, as MetadataKit reads them.
    static func expectAgreement(_ url: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let loaded = try await MediaItem.loaded(url)
        let exif = try exiftool(url)
        func item(_ space: MetadataKeySpace, _ key: String) -> String? { Self.item(loaded, space, key) }
        func same(_ tag: String, _ ours: String?) {
            // exiftool shows an empty field as ""; MetadataKit gives no item.
            let theirs = text(exif[tag]).flatMap { $0.isEmpty ? nil : $0 }
            #expect(theirs == ours, "\(url.lastPathComponent) \(tag)", sourceLocation: sourceLocation)
        }
        same("RIFF:Description", item(.bext, "Description"))
        same("RIFF:Originator", item(.bext, "Originator"))
        same("RIFF:OriginatorReference", item(.bext, "OriginatorReference"))
        same("RIFF:TimeReference", item(.bext, "TimeReference") ?? "0")
        same("RIFF:BWFVersion", item(.bext, "Version"))
        same("RIFF:BWF_UMID", item(.bext, "UMID") ?? String(repeating: "0", count: 64))
        same("RIFF:CodingHistory", item(.bext, "CodingHistory"))
        let date = item(.bext, "OriginationDate")?.replacingOccurrences(of: "-", with: ":")
        same("RIFF:DateTimeOriginal", date.map { "\($0) \(item(.bext, "OriginationTime") ?? "")" })
        for (tag, key) in [("Project", "PROJECT"), ("Scene", "SCENE"), ("Take", "TAKE"), ("Tape", "TAPE"), ("Note", "NOTE")] {
            same("XML:Bwfxml\(tag)", item(.iXML, key))
        }
        if let circled = exif["XML:BwfxmlCircled"] as? Bool {
            #expect(item(.iXML, "CIRCLED")?.lowercased() == String(circled), sourceLocation: sourceLocation)
        }
        if let name = text(exif["XML:BwfxmlTrackListTrackName"]) {
            let names = loaded.metadata.items.first { $0.keySpace == .iXML && $0.key == "TRACK_LIST" }?.value.stringValues
            #expect(names?.first == name, sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: ["bwf-ffmpeg.wav", "bwf-field-recorder.wav", "bwf-field-recorder.flac"])
    func fixturesAgreeWithExiftool(name: String) async throws {
        let url = TestSupport.fixtures.appendingPathComponent("valid").appendingPathComponent(name)
        try await Self.expectAgreement(url)
        #expect(try Self.exiftool(url)["RIFF:Description"] != nil)
    }

    @Test func writesReadBackByExiftoolAndFFprobe() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("take.wav")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.02", "-ar", "48000",
                "-c:a", "pcm_s24le", "-write_bext", "1", "-metadata", "description=old", "-metadata", "originator=ffmpeg",
                "-metadata", "time_reference=1000", url.path,
            ])
        let audio = try BroadcastWAVTests.payload(url, "data")
        var item = try await MediaItem.loaded(url)
        item.metadata[.description] = .text("Scène 4, take 2")
        item.metadata[.originator] = .text("MetadataKit")
        item.metadata[.originationDate] = .text("2026-12-05")
        item.metadata[.originationTime] = .text("06:30:00")
        item.metadata[.timeReference] = .text("1123200000") // 06:30:00 at 48 kHz
        item.metadata.items += [
            MetadataItem(keySpace: .iXML, key: "PROJECT", value: .string("Docs"), dataType: .utf8),
            MetadataItem(keySpace: .iXML, key: "SCENE", value: .string("4"), dataType: .utf8),
            MetadataItem(keySpace: .iXML, key: "TAKE", value: .string("2"), dataType: .utf8),
            MetadataItem(keySpace: .iXML, key: "NOTE", value: .string("<wind> & rain"), dataType: .utf8),
        ]
        try await item.save(options: Self.fast)
        var exif = try Self.exiftool(url)
        #expect(Self.text(exif["RIFF:Description"]) == "Scène 4, take 2")
        #expect(Self.text(exif["RIFF:Originator"]) == "MetadataKit")
        #expect(Self.text(exif["RIFF:DateTimeOriginal"]) == "2026:12:05 06:30:00")
        #expect(Self.text(exif["RIFF:TimeReference"]) == "1123200000")
        #expect(Self.text(exif["XML:BwfxmlScene"]) == "4" && Self.text(exif["XML:BwfxmlNote"]) == "<wind> & rain")
        try await Self.expectAgreement(url)
        let reread = try await MediaItem.loaded(url)
        #expect(Self.item(reread, .broadcastWAV, "TimeReferenceSeconds") == "23400")

        // A field edit of the iXML the first save made.
        var again = reread
        again.metadata[.scene] = .text("5")
        try await again.save(options: Self.fast)
        exif = try Self.exiftool(url)
        #expect(Self.text(exif["XML:BwfxmlScene"]) == "5" && Self.text(exif["XML:BwfxmlProject"]) == "Docs")

        let probe = try TestSupport.runChecked("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", url.path])
        let format = try #require(
            (try JSONSerialization.jsonObject(with: probe.standardOutput) as? [String: Any])?["format"] as? [String: Any])
        let tags = format["tags"] as? [String: String] ?? [:]
        // ffmpeg's WAV demuxer names them comment and encoded_by.
        #expect(tags["comment"] == "Scène 4, take 2" && tags["encoded_by"] == "MetadataKit")
        #expect(tags["time_reference"] == "1123200000")
        #expect(try BroadcastWAVTests.payload(url, "data") == audio)

        // FLAC keeps the edited chunks: flac --keep-foreign-metadata, then a FLAC save.
        let flacURL = directory.appendingPathComponent("take.flac")
        try TestSupport.runChecked("flac", ["-s", "-f", "--keep-foreign-metadata", "-o", flacURL.path, url.path])
        var flac = try await MediaItem.loaded(flacURL)
        flac.metadata.title = "Take 2"
        try await flac.save(options: Self.fast)
        try await Self.expectAgreement(flacURL)
        #expect(Self.text(try Self.exiftool(flacURL)["XML:BwfxmlScene"]) == "5")
        let restored = directory.appendingPathComponent("restored.wav")
        try TestSupport.runChecked("flac", ["-s", "-d", "-f", "--keep-foreign-metadata", "-o", restored.path, flacURL.path])
        for id in ["bext", "iXML"] {
            #expect(try BroadcastWAVTests.payload(restored, id) == (try BroadcastWAVTests.payload(url, id)), "\(id)")
        }
    }
    /// `mdkit read --json --items` on a field recorder's file shows every
    /// bext value exiftool shows, and the iXML document whole (exiftool
    /// shows each of its elements).
    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary"))
    func mdkitReadShowsWhatExiftoolShows() throws {
        let url = TestSupport.fixtures.appendingPathComponent("valid/bwf-field-recorder.wav")
        let mdkit = try #require(TestSupport.mdkitExecutable)
        let output = try TestSupport.runChecked(mdkit.path, ["read", "--json", "--items", url.path])
        let files = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])
        let items = try #require(files.first?["items"] as? [[String: Any]])
        func value(_ space: String, _ key: String) -> String? {
            items.first { $0["keySpace"] as? String == space && $0["key"] as? String == key }.flatMap { Self.text($0["value"]) }
        }
        let exif = try Self.exiftool(url)
        let bext: [(String, String)] = [
            ("Description", "Description"), ("Originator", "Originator"), ("OriginatorReference", "OriginatorReference"),
            ("TimeReference", "TimeReference"), ("BWFVersion", "Version"), ("BWF_UMID", "UMID"), ("CodingHistory", "CodingHistory"),
        ]
        for (tag, key) in bext {
            #expect(Self.text(exif["RIFF:\(tag)"]) == value("bext", key), "\(tag)")
        }
        #expect(Self.text(exif["RIFF:DateTimeOriginal"]) == "2026:11:30 14:05:09")
        #expect(value("bext", "OriginationDate") == "2026-11-30" && value("bext", "OriginationTime") == "14:05:09")
        #expect(exif.keys.filter { $0.hasPrefix("XML:Bwfxml") }.count >= 10)
        let chunk = try BroadcastWAVTests.payload(url, "iXML")
        #expect(value("bwf", "iXML") == String(decoding: IXML.split(chunk).text, as: UTF8.self))
        for (tag, key) in [("Project", "PROJECT"), ("Scene", "SCENE"), ("Take", "TAKE"), ("Tape", "TAPE"), ("Note", "NOTE")] {
            #expect(Self.text(exif["XML:Bwfxml\(tag)"]) == value("ixml", key), "\(tag)")
        }
    }
    @Test func rf64BextGrowsAndReadsBack() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("take.wav")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.02", "-ar", "48000",
                "-c:a", "pcm_s16le", "-rf64", "always", "-write_bext", "1", "-metadata", "description=rf", url.path,
            ])
        let audio = try BroadcastWAVTests.payload(url, "data")
        var item = try await MediaItem.loaded(url)
        item.metadata[.description] = .text("An RF64 take")
        item.metadata.items.append(
            MetadataItem(keySpace: .bext, key: "CodingHistory", value: .string("A=PCM,F=48000,W=16,M=mono\r\n"), dataType: .utf8))
        try await item.save(options: Self.fast)
        let exif = try Self.exiftool(url)
        #expect(Self.text(exif["File:FileType"]) == "WAV (RF64)")
        #expect(Self.text(exif["RIFF:Description"]) == "An RF64 take")
        #expect(Self.text(exif["RIFF:CodingHistory"]) == "A=PCM,F=48000,W=16,M=mono\r\n")
        #expect(try BroadcastWAVTests.payload(url, "data") == audio)
        let probe = try TestSupport.runChecked("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", url.path])
        #expect(probe.text.trimmingCharacters(in: .whitespacesAndNewlines) == "0.020000")
    }
}
