import Foundation
import Testing

@testable import MetadataKit

private typealias B = FLACOggBuilder

/// Multiplexed and chained Ogg files made by ffmpeg (Theora with Vorbis,
/// Opus, FLAC or Speex, the video first and the audio first; `cat a.ogg
/// b.ogg`): streams as ffprobe lists them; the main stream as `mutagen.File`
/// chooses it (the Theora stream whose header starts in the first 128 bytes,
/// else the audio stream), its tags and length as mutagen reads them, the
/// other stream's comment (`ogg-stream`) as mutagen's class for it reads it;
/// a save rewrites only the main stream's comment — every page of the other
/// stream the same bytes, each stream's decoded hash unchanged, ffmpeg and
/// ogginfo find nothing wrong — and a change to the other comment is refused
/// before anything is written; every prefix of a Theora + Vorbis file reads.
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

    /// mutagen's reading of `path`: `mutagen.File`'s class, tags and length,
    /// the audio class `kind`'s tags and length, and `OggTheora`'s tags.
    static let reader = """
        import sys, json
        import mutagen, mutagen.oggvorbis, mutagen.oggopus, mutagen.oggflac, mutagen.oggspeex, mutagen.oggtheora
        path, kind = sys.argv[1], sys.argv[2]
        classes = {"Vorbis": mutagen.oggvorbis.OggVorbis, "Opus": mutagen.oggopus.OggOpus,
                   "FLAC": mutagen.oggflac.OggFLAC, "Speex": mutagen.oggspeex.OggSpeex}
        def tags(f):
            return {k.upper(): v for k, v in f.tags.as_dict().items()}
        audio = classes[kind](path)
        out = {"audioLength": audio.info.length, "audio": tags(audio)}
        main = mutagen.File(path)
        out.update({"class": type(main).__name__, "length": main.info.length, "tags": tags(main)})
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
        // The streams in the order of the inputs (without -map, ffmpeg puts the video first).
        var arguments = ["-nostdin", "-v", "error", "-y"] + (audioFirst ? audio + video : video + audio) + ["-map", "0", "-map", "1"]
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
            let info = try mutagen(url, codec)
            // The Theora stream is the main one when it leads the file, and after a Vorbis, Opus or FLAC
            // first page (its header still starts in the first 128 bytes); Speex's first page is too long.
            let theoraMain = !audioFirst || codec != "Speex"
            let main = theoraMain ? "Theora" : codec
            #expect(info["class"] as? String == "Ogg" + main, "\(codec) audio first: \(audioFirst): \(info)")
            #expect(item.warnings.isEmpty && item.isEditable, "\(codec): \(item.warnings)")
            #expect(item.properties.codec == main && item.properties.width == 96 && item.properties.height == 64)
            // The streams as ffprobe lists them.
            let ours = item.properties.streams.map { stream -> [String] in
                var fields = ["codec_name=" + (Self.names.first { $0.value == stream.codecName }?.key ?? "?")]
                if stream.mediaType == .audio {
                    fields += ["sample_rate=\(stream.sampleRate ?? 0)", "channels=\(stream.channels ?? 0)"]
                } else {
                    fields += ["width=\(stream.width ?? 0)", "height=\(stream.height ?? 0)"]
                }
                return fields.sorted()
            }
            #expect(ours == (try probe(url)), "\(codec) audio first: \(audioFirst)")
            // mutagen.File's tags and length; the other stream's comment as mutagen's class for it reads it.
            #expect(abs((item.properties.duration ?? 0) - (info["length"] as? Double ?? -1)) < 0.001, "\(codec) \(audioFirst)")
            let tags = try #require(info["tags"] as? [String: [String]])
            let title = theoraMain ? "Vïdeo" : "Äudio ✓"
            #expect(item.metadata.title == title && tags["TITLE"] == [title], "\(codec) \(audioFirst)")
            #expect(Set(item.metadata.items.filter { $0.keySpace == .vorbis }.map(\.key)) == Set(tags.keys), "\(codec) \(audioFirst)")
            let otherTags = try #require(info[theoraMain ? "audio" : "theora"] as? [String: [String]])
            let label = theoraMain ? codec : "Theora", otherTitle = theoraMain ? "Äudio ✓" : "Vïdeo"
            let other = item.metadata.items.filter { $0.keySpace == .oggStream }
            #expect(otherTags["TITLE"] == [otherTitle] && other.first { $0.key == "\(label)/TITLE" }?.value == .string(otherTitle))
            #expect(Set(other.map(\.key)) == Set(otherTags.keys.map { "\(label)/\($0)" }), "\(codec) \(audioFirst)")
        }
    }

    /// ffmpeg's per-stream hashes of the decoded frames.
    func streamHashes(_ url: URL) throws -> String {
        try TestSupport.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0", "-f", "streamhash", "-"]).text
    }

    /// A Theora-first file (and a Vorbis-first one, whose Theora header is
    /// in the first 128 bytes too): the Theora comment is rewritten, a small
    /// change in place and one that grows the header pages; the audio
    /// stream's pages are the same bytes, and its comment too. (The grown
    /// comment stays under 64 KiB: ffmpeg's Theora decoder takes the header
    /// packets with 16-bit lengths and refuses a longer one, whoever wrote
    /// it — mutagen's save of such a comment too.)
    @Test(arguments: [("libvorbis", false), ("libopus", false), ("libvorbis", true)])
    func savingRewritesOnlyTheTheoraComment(encoder: String, audioFirst: Bool) async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        let url = try make(encoder, audioFirst: audioFirst, name: "save-\(encoder)-\(audioFirst).ogv")
        let loaded = try await MediaItem.loaded(url)
        #expect(loaded.properties.codec == "Theora" && loaded.isEditable)
        let serial = try #require(loaded.properties.streams.first { $0.mediaType == .audio }?.uid.map { UInt32($0) })
        let audioPages = try OggMultiplexTests.pageBytes(of: serial, in: url)
        let hashes = try streamHashes(url)
        let codec = encoder == "libopus" ? "Opus" : "Vorbis"
        for (title, comments) in [("Néw", nil), ("Néw ✓", String(repeating: "grow the header pages ", count: 2000))] {
            var item = try await MediaItem.loaded(url)
            item.metadata.title = title
            item.metadata.comments = comments
            try await item.save()
            #expect(try B.pageProblems(url).isEmpty)
            #expect(try OggMultiplexTests.pageBytes(of: serial, in: url) == audioPages, "\(title)")
            #expect(try streamHashes(url) == hashes)
            let errors = try TestSupport.run("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-f", "null", "-"]).standardError
            #expect(errors.isEmpty, "\(errors)")
            let info = try mutagen(url, codec)
            #expect(info["class"] as? String == "OggTheora" && (info["tags"] as? [String: [String]])?["TITLE"] == [title])
            #expect((info["audio"] as? [String: [String]])?["TITLE"] == ["Äudio ✓"])
            let reread = try await MediaItem.loaded(url)
            #expect(reread.properties == item.properties && reread.warnings.isEmpty && reread.metadata.title == title)
            #expect(reread.metadata.items.first { $0.key == "\(codec)/TITLE" }?.value == .string("Äudio ✓"))
        }
        // A change to the audio stream's comment is refused before anything is written.
        let before = try Data(contentsOf: url)
        var item = try await MediaItem.loaded(url)
        let index = try #require(item.metadata.items.firstIndex { $0.key == "\(codec)/TITLE" })
        item.metadata.items[index].value = .string("changed")
        item.metadata.title = "also changed"
        await #expect(throws: MediaError.self) { try await item.save() }
        #expect(try Data(contentsOf: url) == before)
    }

    /// Every prefix of a Theora + Vorbis file from ffmpeg (each byte through
    /// the header pages and a little after, then every 13th, and every page
    /// boundary ± 1) reads or fails with a MediaError, never crashes; every
    /// warning names an offset inside the prefix.
    @Test func everyPrefixOfATheoraVorbisFileReads() async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        let url = directory.appendingPathComponent("cut-source.ogv")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=32x24:rate=5:duration=0.6", "-f", "lavfi", "-i",
                "sine=frequency=440:duration=0.6:sample_rate=8000", "-c:v", "libtheora", "-c:a", "libvorbis", "-ac", "1",
                "-metadata:s:v", "title=Vïdeo", "-metadata:s:a", "title=Äudio", url.path,
            ])
        let full = [UInt8](try Data(contentsOf: url))
        let pages = try B.pages(url)
        let headerEnd = Int(try OggHeaderScan.read(FileSource(url: url)).end)
        var lengths = Set(0...min(full.count, headerEnd + 256))
        lengths.formUnion(stride(from: 0, through: full.count, by: 13))
        for page in pages { lengths.formUnion([Int(page.offset) - 1, Int(page.offset), Int(page.offset) + 1].filter { $0 >= 0 }) }
        lengths.insert(full.count)
        let cut = directory.appendingPathComponent("cut.ogv")
        var read = 0
        for length in lengths.sorted() where length <= full.count {
            try Data(full.prefix(length)).write(to: cut)
            do {
                let parsed = try OggParser.parse(try FileSource(url: cut), cut)
                read += 1
                for warning in parsed.warnings {
                    let offset = try #require(warning.offset, "prefix \(length): \(warning)")
                    #expect(offset >= 0 && offset <= Int64(length), "prefix \(length): \(warning)")
                }
                if length >= headerEnd {
                    #expect(
                        parsed.properties.codec == "Theora" && parsed.items.contains { $0.value == .string("Vïdeo") }, "prefix \(length)")
                }
            } catch is MediaError {
                #expect(length < 28 + 42, "prefix \(length) of \(full.count) was refused")
            }
        }
        #expect(read > lengths.count / 2)
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
