import Foundation
import Testing

@testable import MetadataKit

private typealias B = FLACOggBuilder

/// Multiplexed and chained Ogg files made by ffmpeg (Theora with Vorbis,
/// Opus, FLAC or Speex; Opus before Theora; `cat a.ogg b.ogg`): streams as
/// ffprobe lists them, the audio stream's tags and length as mutagen's audio
/// class reads them, the Theora comment (`ogg-stream`) as mutagen's
/// `OggTheora` reads it; a save rewrites only the audio stream's comment —
/// every video page the same bytes, each stream's decoded hash unchanged,
/// ffmpeg and ogginfo find nothing wrong.
@Suite(
    .enabled(
        if: Capabilities.ffmpegEncodes("libtheora") && Capabilities.ffmpegEncodes("libvorbis") && Capabilities.ffmpegEncodes("libopus")
            && Capabilities.ffmpegEncodes("libspeex") && ToolCheck.has("ffprobe") && ToolCheck.has("python3:mutagen"),
        "needs ffmpeg with libtheora, libvorbis, libopus and libspeex, ffprobe and python3 mutagen"))
struct OggMultiplexInteropTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// mutagen's reading of `path` with the audio class `audio` and with `OggTheora`.
    static let reader = """
        import sys, json
        import mutagen.oggvorbis, mutagen.oggopus, mutagen.oggflac, mutagen.oggspeex, mutagen.oggtheora
        path, kind = sys.argv[1], sys.argv[2]
        classes = {"Vorbis": mutagen.oggvorbis.OggVorbis, "Opus": mutagen.oggopus.OggOpus,
                   "FLAC": mutagen.oggflac.OggFLAC, "Speex": mutagen.oggspeex.OggSpeex}
        audio = classes[kind](path)
        out = {"length": audio.info.length, "tags": {k.upper(): v for k, v in audio.tags.as_dict().items()}}
        try:
            video = mutagen.oggtheora.OggTheora(path)
            out["theora"] = {k.upper(): v for k, v in video.tags.as_dict().items()}
        except Exception:
            out["theora"] = None
        print(json.dumps(out))
        """

    func mutagen(_ url: URL, _ codec: String) throws -> [String: Any] {
        let output = try TestSupport.runChecked("python3", ["-c", Self.reader, url.path, codec])
        return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
    }

    /// A 2 s Theora video and 2.5 s of audio from ffmpeg, each with its own title.
    func make(_ encoder: String, audioFirst: Bool = false, name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        let video = ["-f", "lavfi", "-i", "testsrc=size=96x64:rate=12:duration=2"]
        let audio = ["-f", "lavfi", "-i", "sine=frequency=440:duration=2.5:sample_rate=48000"]
        var arguments = ["-nostdin", "-v", "error", "-y"] + (audioFirst ? audio + video : video + audio)
        arguments += ["-c:v", "libtheora", "-c:a", encoder] + (encoder == "libspeex" ? ["-ar", "16000"] : [])
        arguments += ["-metadata:s:v", "title=Vïdeo", "-metadata:s:a", "title=Äudio ✓", url.path]
        try TestSupport.runChecked("ffmpeg", arguments)
        return url
    }

    /// ffprobe's streams, in file order: codec name, sample rate, channels, width, height.
    func probe(_ url: URL) throws -> [[String]] {
        let output = try TestSupport.runChecked(
            "ffprobe",
            ["-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels,width,height", "-of", "compact=p=0:nk=0", url.path])
        return output.text.split(separator: "\n").map { $0.split(separator: "|").map(String.init).sorted() }
    }

    static let names = ["theora": "Theora", "vorbis": "Vorbis", "opus": "Opus", "flac": "FLAC", "speex": "Speex"]

    @Test(arguments: [("libvorbis", "Vorbis"), ("libopus", "Opus"), ("flac", "FLAC"), ("libspeex", "Speex")])
    func theoraWithEachAudioCodec(encoder: String, codec: String) async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        for audioFirst in [false, true] {
            let url = try make(encoder, audioFirst: audioFirst, name: "\(codec)-\(audioFirst).ogv")
            let item = try await MediaItem.loaded(url)
            #expect(item.warnings.isEmpty && item.isEditable, "\(codec): \(item.warnings)")
            #expect(item.properties.codec == codec && item.properties.width == 96 && item.properties.height == 64)
            // The streams as ffprobe lists them.
            let ours = item.properties.streams.map { stream -> [String] in
                var fields = ["codec_name=" + (Self.names.first { $0.value == stream.codec }?.key ?? "?")]
                if stream.kind == .audio {
                    fields += ["sample_rate=\(stream.sampleRate ?? 0)", "channels=\(stream.channels ?? 0)"]
                } else {
                    fields += ["width=\(stream.width ?? 0)", "height=\(stream.height ?? 0)"]
                }
                return fields.sorted()
            }
            #expect(ours == (try probe(url)), "\(codec) audio first: \(audioFirst)")
            // mutagen's audio class and OggTheora.
            let info = try mutagen(url, codec)
            #expect(abs((item.properties.duration ?? 0) - (info["length"] as? Double ?? -1)) < 0.001, "\(codec)")
            let tags = try #require(info["tags"] as? [String: [String]])
            #expect(item.metadata.title == "Äudio ✓" && tags["TITLE"] == ["Äudio ✓"], "\(codec)")
            let theora = try #require(info["theora"] as? [String: [String]])
            let other = item.metadata.items.filter { $0.keySpace == .oggStream }
            #expect(theora["TITLE"] == ["Vïdeo"] && other.first { $0.key == "Theora/TITLE" }?.value == .string("Vïdeo"))
            #expect(Set(other.map(\.key)) == Set(theora.keys.map { "Theora/\($0)" }), "\(codec)")
        }
    }

    /// ffmpeg's per-stream hashes of the decoded frames.
    func streamHashes(_ url: URL) throws -> String {
        try TestSupport.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0", "-f", "streamhash", "-"]).text
    }

    @Test(arguments: ["libvorbis", "libopus"])
    func savingRewritesOnlyTheAudioComment(encoder: String) async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        let url = try make(encoder, name: "save-\(encoder).ogv")
        let loaded = try await MediaItem.loaded(url)
        let serial = try #require(loaded.properties.streams.first { $0.kind == .video }?.uid.map { UInt32($0) })
        let videoPages = try OggMultiplexTests.pageBytes(of: serial, in: url)
        let hashes = try streamHashes(url)
        var item = loaded
        item.metadata.title = "Néw ✓"
        item.metadata.comments = String(repeating: "grow the header pages ", count: 4000)
        try await item.save()
        #expect(try B.pageProblems(url).isEmpty)
        #expect(try OggMultiplexTests.pageBytes(of: serial, in: url) == videoPages)
        #expect(try streamHashes(url) == hashes)
        let errors = try TestSupport.run("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-f", "null", "-"]).standardError
        #expect(errors.isEmpty, "\(errors)")
        let codec = encoder == "libopus" ? "Opus" : "Vorbis"
        let info = try mutagen(url, codec)
        #expect((info["tags"] as? [String: [String]])?["TITLE"] == ["Néw ✓"])
        #expect((info["theora"] as? [String: [String]])?["TITLE"] == ["Vïdeo"])
        let reread = try await MediaItem.loaded(url)
        #expect(reread.properties == item.properties && reread.warnings.isEmpty)
    }

    /// ogginfo (vorbis-tools) checks the page interleaving of the saved file.
    @Test(.enabled(if: ToolCheck.has("ogginfo"), "needs ogginfo (Debian: vorbis-tools)"))
    func ogginfoFindsTheSavedFileValid() async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        let url = try make("libvorbis", name: "ogginfo.ogv")
        var item = try await MediaItem.loaded(url)
        item.metadata.title = String(repeating: "Lönger ", count: 2000)
        try await item.save()
        let output = try TestSupport.run("ogginfo", [url.path])
        let text = output.text + output.standardError
        #expect(output.status == 0 && !text.contains("WARNING") && !text.contains("ERROR"), "\(text)")
        #expect(text.contains("type theora") && text.contains("type vorbis"), "\(text)")
    }

    /// Chained files (`cat a.ogg b.ogg`, a link after itself, a link before
    /// one of more than a MiB): read
    /// without refusal or warning, the first link's tags and mutagen's length;
    /// a save keeps the later link byte for byte.
    @Test func chainedFiles() async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        func sine(_ name: String, _ seconds: String, _ title: String, source: String = "sine=frequency=440", quality: [String] = []) throws
            -> [UInt8]
        {
            let url = directory.appendingPathComponent(name)
            try TestSupport.runChecked(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "\(source):duration=\(seconds)", "-c:a", "libvorbis",
                ] + quality + [
                    "-metadata", "title=\(title)", url.path,
                ])
            return [UInt8](try Data(contentsOf: url))
        }
        let a = try sine("a.ogg", "1.5", "First"), b = try sine("b.ogg", "2", "Second")
        // Noise at the best quality: more than a MiB in 25 s.
        let long = try sine("long.ogg", "25", "Long", source: "anoisesrc=amplitude=0.5", quality: ["-ac", "2", "-q:a", "10"])
        #expect(long.count > 1 << 20)
        for (name, links) in [("ab.ogg", [a, b]), ("aa.ogg", [a, a]), ("along.ogg", [a, long])] {
            let url = try B.write(links.flatMap { $0 }, name, in: directory)
            let audio = try MediaChecks.decodedMD5(url)
            var item = try await MediaItem.loaded(url)
            #expect(item.warnings.isEmpty && item.isEditable, "\(name): \(item.warnings)")
            let info = try mutagen(url, "Vorbis")
            #expect(item.metadata.title == "First" && (info["tags"] as? [String: [String]])?["TITLE"] == ["First"])
            #expect(abs((item.properties.duration ?? 0) - (info["length"] as? Double ?? -1)) < 0.001, "\(name)")
            item.metadata.title = String(repeating: "Chained ", count: 500)
            try await item.save()
            let after = [UInt8](try Data(contentsOf: url))
            #expect(after.suffix(links[1].count).elementsEqual(links[1]), "\(name): the second link changed")
            let tags = try #require(try mutagen(url, "Vorbis")["tags"] as? [String: [String]])
            #expect(tags["TITLE"] == [String(repeating: "Chained ", count: 500)], "\(name)")
            #expect(try MediaChecks.decodedMD5(url) == audio, "\(name)")
            if name != "aa.ogg" { #expect(try B.pageProblems(url).isEmpty) }
        }
    }
}
