import Foundation
import Testing

@testable import MetadataKit

private typealias B = MP4Builder

/// 3GPP asset boxes (3GPP TS 26.244 §8) in `moov/udta`: read from ffmpeg's
/// 3gp muxer into the `3gpp` key space and the fields, written back in
/// place (exiftool reads the result), and hostile boxes read around.
@Suite struct MP4AssetBoxTests {
    @Test(.enabled(if: TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("exiftool"), "needs ffmpeg and exiftool"))
    func ffmpeg3gpReadAndWritten() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("clip.3gp")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac", "-metadata", "title=Tïtle",
                "-metadata", "artist=Perf", "-metadata", "author=Auth", "-metadata", "genre=Rock", "-metadata", "comment=Desc",
                "-metadata", "copyright=Cpy", "-metadata", "album=Alb", "-metadata", "track=7", "-metadata", "date=2019",
                "-f", "3gp", url.path,
            ])
        var item = try await MediaItem.loaded(url)
        let raw = item.metadata.items.filter { $0.keySpace == .threeGPP }
        #expect(raw.map(\.key) == ["perf", "titl", "auth", "gnre", "dscp", "albm", "cprt", "yrrc"])
        #expect(raw.first { $0.key == "titl" }?.language == "eng")
        #expect(item.metadata[.title]?.text == "Tïtle")
        #expect(item.metadata[.artist]?.text == "Perf")
        #expect(item.metadata[.album]?.text == "Alb")
        #expect(item.metadata[.comments]?.text == "Desc")
        #expect(item.metadata[.copyright]?.text == "Cpy")
        #expect(item.metadata[.date]?.text == "2019")

        let audio = try TestSupport.runChecked(
            "ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a", "-c", "copy", "-f", "streamhash", "-"]
        ).text
        item.metadata[.title] = .text("Neu — Ü")
        item.metadata[.album] = .text("Album Zwei")
        item.metadata[.comments] = nil
        try await item.save()

        let reread = try await MediaItem.loaded(url)
        let after = reread.metadata.items.filter { $0.keySpace == .threeGPP }
        #expect(after.first { $0.key == "titl" }?.value == .string("Neu — Ü"))
        #expect(after.first { $0.key == "titl" }?.language == "eng")
        #expect(after.first { $0.key == "dscp" } == nil)
        #expect(after.first { $0.key == "perf" } == raw.first { $0.key == "perf" })
        let source = try FileSource(url: url)
        let movie = try MP4Movie(source)
        let albm = try #require(movie.moov.child("udta")?.child("albm"))
        #expect(MP4AssetBoxes.trailer(albm.header, source: source) == [7])
        let exif = try TestSupport.runChecked("exiftool", ["-j", "-UserData:all", url.path]).text
        let tags = (try JSONSerialization.jsonObject(with: Data(exif.utf8)) as? [[String: Any]])?.first ?? [:]
        #expect(tags["Title"] as? String == "Neu — Ü")
        #expect(tags["Performer"] as? String == "Perf")
        #expect(tags["Description"] == nil)
        #expect((tags["Album"] as? String)?.hasPrefix("Album Zwei") == true)
        #expect("\(tags["Year"] ?? "")" == "2019")
        #expect(
            try TestSupport.runChecked("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a", "-c", "copy", "-f", "streamhash", "-"]).text
                == audio)
    }

    /// UTF-16 strings with a byte-order mark, a short `yrrc`, and every cut of
    /// an asset box: read or skipped, never a crash.
    @Test func hostileAndUTF16Boxes() throws {
        let utf16: [UInt8] = [0, 0, 0, 0, 0x15, 0xC7, 0xFE, 0xFF, 0, 0x48, 0, 0xE9, 0, 0]
        let boxes = [B.box("titl", utf16), B.box("yrrc", [0, 0, 0, 0, 7]), B.box("perf", [0, 0, 0, 0, 0x15, 0xC7] + Array("P".utf8))]
        let (parsed, url) = try B.parse(B.ftyp() + B.audioMovie(extra: [B.box("udta", children: boxes)]))
        defer { try? FileManager.default.removeItem(at: url) }
        let items = parsed.items.filter { $0.keySpace == .threeGPP }
        #expect(items.map(\.key) == ["titl", "perf"])
        #expect(items.first?.value == .string("Hé"))
        #expect(items.first?.dataType == .utf16)
        #expect(try MP4AssetBoxes.box(items[0]) == B.box("titl", utf16))
        #expect(items.last?.value == .string("P"))

        let whole = B.box("albm", [0, 0, 0, 0, 0x15, 0xC7] + Array("Album".utf8) + [0, 3])
        for length in 8..<whole.count {
            var cut = Array(whole[0..<length])
            cut.replaceSubrange(0..<4, with: B.u32(length))
            let (file, fileURL) = try B.parse(B.ftyp() + B.audioMovie(extra: [B.box("udta", children: [cut])]))
            try? FileManager.default.removeItem(at: fileURL)
            let read = file.items.filter { $0.keySpace == .threeGPP }
            #expect(read.count <= 1, "cut at \(length)")
        }
    }
}
