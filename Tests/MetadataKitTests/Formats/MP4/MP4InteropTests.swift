import Foundation
import Testing

@testable import MetadataKit

/// Files written by ffmpeg, mutagen and AtomicParsley, read back field by field.
@Suite(.serialized) struct MP4InteropTests {
    /// ffmpeg arguments that make one second of 44.1 kHz mono sine.
    static let sine = ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=1"]

    /// Stream facts as mutagen reports them: bitrate, sample rate, channels, length.
    static func mutagenInfo(_ url: URL) throws -> (bitrate: Int, sampleRate: Int, channels: Int, length: Double) {
        let script = "import sys, mutagen.mp4\ni = mutagen.mp4.MP4(sys.argv[1]).info\nprint(i.bitrate, i.sample_rate, i.channels, i.length)"
        let fields = try MP4Tools.run("python3", ["-c", script, url.path]).split(separator: " ")
            .map { String($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return (Int(fields[0]) ?? -1, Int(fields[1]) ?? -1, Int(fields[2]) ?? -1, Double(fields[3]) ?? -1)
    }

    @Test(.enabled(if: TestSupport.hasTool("ffmpeg"))) func ffmpegM4A() async throws {
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("x.m4a")
        try MP4Tools.run(
            "ffmpeg",
            Self.sine + [
                "-c:a", "aac", "-b:a", "96k",
                "-metadata", "title=Tïtle 日本", "-metadata", "artist=Artist", "-metadata", "album_artist=Album Artist",
                "-metadata", "album=Album", "-metadata", "genre=Synthwave", "-metadata", "date=2024",
                "-metadata", "track=3/12", "-metadata", "disc=1/2", "-metadata", "comment=A comment",
                "-metadata", "composer=Composer", "-metadata", "grouping=Group", file.path,
            ])
        let item = try await MediaItem.loaded(file)
        let metadata = item.metadata
        #expect(metadata.title == "Tïtle 日本")
        #expect(metadata.artist == "Artist")
        #expect(metadata.albumArtist == "Album Artist")
        #expect(metadata.album == "Album")
        #expect(metadata.genre?.name == "Synthwave")
        #expect(metadata.date == "2024")
        #expect(metadata.trackNumber == 3)
        #expect(metadata.trackCount == 12)
        #expect(metadata.discNumber == 1)
        #expect(metadata.discCount == 2)
        #expect(metadata.comments == "A comment")
        #expect(metadata.composer == "Composer")
        #expect(metadata.grouping == "Group")
        #expect(metadata.items.contains { $0.key == "©too" && $0.value.stringValue?.hasPrefix("Lavf") == true })
        #expect(metadata.items.allSatisfy { $0.keySpace == .iTunes })
        #expect(item.fileType?.mimeType == "audio/mp4")
        let properties = item.properties
        #expect(properties.codec == "AAC")
        #expect(properties.sampleRate == 44100)
        #expect(properties.channels == 1)
        if MP4Tools.hasMutagen {
            // mutagen reads esds avgBitrate too.
            #expect(properties.bitrate == (try Self.mutagenInfo(file).bitrate))
        }
        if MP4Tools.has("ffprobe") {
            // The movie (mvhd) duration, which excludes the encoder delay that
            // the audio track's mdhd duration (mutagen's length) includes.
            let probed = try MP4Tools.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file.path])
            #expect(abs((properties.duration ?? 0) - (Double(probed.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1)) < 0.001)
        } else {
            #expect(abs((properties.duration ?? 0) - 1) < 0.1)
        }
    }

    @Test(.enabled(if: TestSupport.hasTool("ffmpeg") && TestSupport.hasPythonModule("mutagen"))) func mutagenTags() async throws {
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("m.m4a")
        let png = directory.appendingPathComponent("c.png")
        let jpeg = directory.appendingPathComponent("c.jpg")
        try MP4Tools.run("ffmpeg", Self.sine + ["-c:a", "aac", file.path])
        try MP4Tools.run("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=red:s=16x8", "-frames:v", "1", png.path])
        try MP4Tools.run("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=blue:s=20x10", "-frames:v", "1", jpeg.path])
        let script = """
            import sys
            from mutagen.mp4 import MP4, MP4Cover, MP4FreeForm
            f = MP4(sys.argv[1])
            f['\\xa9nam'] = ['Ünïcödé 日本語 🎵']
            f['\\xa9ART'] = ['Ärtist', 'Second Artist']
            f['aART'] = ['Album Ärtist']
            f['\\xa9alb'] = ['Albüm']
            f['\\xa9wrt'] = ['Cömposer']
            f['\\xa9cmt'] = ['Cömment']
            f['\\xa9day'] = ['1999-12-31']
            f['\\xa9grp'] = ['Gröuping']
            f['\\xa9gen'] = ['Rock']
            f['tmpo'] = [128]
            f['cpil'] = True
            f['trkn'] = [(5, 9)]
            f['disk'] = [(2, 3)]
            f['covr'] = [MP4Cover(open(sys.argv[2], 'rb').read(), MP4Cover.FORMAT_PNG),
                         MP4Cover(open(sys.argv[3], 'rb').read(), MP4Cover.FORMAT_JPEG)]
            f['----:com.apple.iTunes:MOOD'] = [MP4FreeForm(b'Calm')]
            f.save()
            """
        try MP4Tools.run("python3", ["-c", script, file.path, png.path, jpeg.path])
        let item = try await MediaItem.loaded(file)
        let metadata = item.metadata
        #expect(metadata.title == "Ünïcödé 日本語 🎵")
        #expect(metadata.artist == "Ärtist; Second Artist")
        #expect(metadata.items.first { $0.key == "©ART" }?.value == .strings(["Ärtist", "Second Artist"]))
        #expect(metadata.albumArtist == "Album Ärtist")
        #expect(metadata.album == "Albüm")
        #expect(metadata.composer == "Cömposer")
        #expect(metadata.comments == "Cömment")
        #expect(metadata.date == "1999-12-31")
        #expect(metadata.grouping == "Gröuping")
        #expect(metadata.genre?.name == "Rock")
        #expect(metadata.bpm == 128)
        #expect(metadata.trackNumber == 5)
        #expect(metadata.trackCount == 9)
        #expect(metadata.discNumber == 2)
        #expect(metadata.discCount == 3)
        #expect(metadata.items.first { $0.key == "cpil" }?.value == .integer(1))
        #expect(metadata.items.first { $0.key == "----:com.apple.iTunes:MOOD" }?.value == .string("Calm"))
        #expect(metadata.artwork.count == 2)
        if metadata.artwork.count == 2 {
            let (first, second) = (metadata.artwork[0], metadata.artwork[1])
            #expect(first.mimeType == "image/png")
            #expect(first.width == 16 && first.height == 8)
            #expect(try await first.data() == Data(contentsOf: png))
            #expect(second.mimeType == "image/jpeg")
            #expect(second.width == 20 && second.height == 10)
            #expect(try await second.data() == Data(contentsOf: jpeg))
        }
        let info = try Self.mutagenInfo(file)
        #expect(item.properties.bitrate == info.bitrate)
        #expect(item.properties.sampleRate == info.sampleRate)
        // mutagen reports the sample entry's channel count (ffmpeg writes 2 there);
        // the AudioSpecificConfig, which ffprobe and this reader use, says mono.
        #expect(item.properties.channels == 1)
    }

    @Test(.enabled(if: TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("AtomicParsley"))) func atomicParsleyTags() async throws {
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("ap.m4a")
        let png = directory.appendingPathComponent("art.png")
        try MP4Tools.run("ffmpeg", Self.sine + ["-c:a", "aac", file.path])
        try MP4Tools.run("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=green:s=12x6", "-frames:v", "1", png.path])
        try MP4Tools.run(
            "AtomicParsley",
            [
                file.path, "--title", "AP Tïtle", "--artist", "AP Artist", "--albumArtist", "AP AA",
                "--album", "AP Album", "--genre", "Jazz", "--tracknum", "4/10", "--disk", "1/3",
                "--comment", "AP comment", "--year", "2023", "--bpm", "90", "--composer", "AP Comp",
                "--grouping", "AP Group", "--artwork", png.path, "--overWrite",
            ])
        let item = try await MediaItem.loaded(file)
        let metadata = item.metadata
        #expect(metadata.title == "AP Tïtle")
        #expect(metadata.artist == "AP Artist")
        #expect(metadata.albumArtist == "AP AA")
        #expect(metadata.album == "AP Album")
        #expect(metadata.genre?.name == "Jazz")
        #expect(metadata.trackNumber == 4)
        #expect(metadata.trackCount == 10)
        #expect(metadata.discNumber == 1)
        #expect(metadata.discCount == 3)
        #expect(metadata.comments == "AP comment")
        #expect(metadata.date == "2023")
        #expect(metadata.bpm == 90)
        #expect(metadata.composer == "AP Comp")
        #expect(metadata.grouping == "AP Group")
        #expect(metadata.artwork.count == 1)
        #expect(metadata.artwork.first?.width == 12)
        #expect(try await metadata.artwork.first?.data() == Data(contentsOf: png))
        #expect(item.properties.codec == "AAC")
    }

    @Test(.enabled(if: TestSupport.hasTool("ffmpeg"))) func ffmpegMovUserDataAndKeys() async throws {
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = [
            "-metadata", "title=Mov Tïtle", "-metadata", "artist=Mov Artist", "-metadata", "album=Mov Album",
            "-metadata", "comment=Mov comment", "-metadata", "genre=Pop", "-metadata", "composer=Mov Comp",
        ]
        let video = ["-f", "lavfi", "-i", "testsrc=duration=1:size=64x48:rate=10", "-c:v", "mpeg4", "-c:a", "aac", "-shortest"]

        // Default .mov: udta ©-atoms.
        let mov = directory.appendingPathComponent("u.mov")
        try MP4Tools.run("ffmpeg", Self.sine + video + tags + [mov.path])
        let item = try await MediaItem.loaded(mov)
        #expect(item.fileType?.mimeType == "video/quicktime")
        #expect(item.metadata.title == "Mov Tïtle")
        #expect(item.metadata.artist == "Mov Artist")
        #expect(item.metadata.album == "Mov Album")
        #expect(item.metadata.comments == "Mov comment")
        #expect(item.metadata.genre?.name == "Pop")
        let title = item.metadata.items.first { $0.key == "©nam" }
        #expect(title?.keySpace == .quickTimeUserData)
        #expect(title?.language == "und")
        #expect(item.properties.codec == "AAC")
        #expect(item.properties.width == 64)
        #expect(item.properties.height == 48)
        #expect(item.properties.sampleRate == 44100)
        #expect(abs((item.properties.duration ?? 0) - 1) < 0.1)

        // use_metadata_tags: mdta keys in udta/meta.
        let keyed = directory.appendingPathComponent("k.mov")
        try MP4Tools.run(
            "ffmpeg",
            Self.sine + video + tags + [
                "-metadata", "album_artist=Keyed AA",
                "-movflags", "use_metadata_tags", keyed.path,
            ])
        let keyedItem = try await MediaItem.loaded(keyed)
        #expect(keyedItem.metadata.title == "Mov Tïtle")
        #expect(keyedItem.metadata.artist == "Mov Artist")
        #expect(keyedItem.metadata.albumArtist == "Keyed AA")
        #expect(keyedItem.metadata.comments == "Mov comment")
        #expect(keyedItem.metadata.items.contains { $0.keySpace == .quickTimeMetadata && $0.key == "title" })
    }

    @Test(.enabled(if: TestSupport.hasTool("ffmpeg"))) func ffmpegFaststartMP4() async throws {
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("f.mp4")
        try MP4Tools.run(
            "ffmpeg",
            Self.sine + [
                "-f", "lavfi", "-i", "testsrc=duration=1:size=32x16:rate=5", "-c:v", "mpeg4",
                "-c:a", "aac", "-shortest", "-metadata", "title=Fast", "-movflags", "+faststart", file.path,
            ])
        let head = try FileSource(url: file)
        let first = try MP4BoxHeader(parsing: head, at: 0, containerEnd: head.size, isTopLevel: true)
        let second = try MP4BoxHeader(parsing: head, at: first.end, containerEnd: head.size, isTopLevel: true)
        #expect(second.type == "moov")
        let item = try await MediaItem.loaded(file)
        #expect(item.metadata.title == "Fast")
        #expect(item.fileType?.mimeType == "video/mp4")
        #expect(item.properties.codec == "AAC")
        #expect(item.properties.width == 32)
        #expect(item.properties.height == 16)
    }

    @Test(.enabled(if: TestSupport.hasTool("ffmpeg"))) func ffmpegLosslessCodecs() async throws {
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let alac = directory.appendingPathComponent("a.m4a")
        try MP4Tools.run("ffmpeg", Self.sine + ["-ar", "48000", "-c:a", "alac", "-sample_fmt", "s32p", alac.path])
        let lossless = try await MediaItem.loaded(alac).properties
        #expect(lossless.codec == "ALAC")
        #expect(lossless.sampleRate == 48000)
        #expect(lossless.channels == 1)
        #expect(lossless.bitsPerSample == 24) // ffmpeg's s32p ALAC is 24-bit
        #expect(abs((lossless.duration ?? 0) - 1) < 0.05)

        let pcm = directory.appendingPathComponent("p.mov")
        try MP4Tools.run("ffmpeg", Self.sine + ["-ac", "2", "-c:a", "pcm_s24le", pcm.path])
        let raw = try await MediaItem.loaded(pcm)
        #expect(raw.properties.codec == "PCM")
        #expect(raw.properties.bitsPerSample == 24)
        #expect(raw.properties.channels == 2)
        #expect(raw.properties.sampleRate == 44100)
        // Audio only, no bit rate in the configuration: media data × 8 / duration.
        let expected: Double = 44100 * 24 * 2
        let bitrate = Double(raw.properties.bitrate ?? 0)
        #expect(abs(bitrate - expected) < expected * 0.01)
        #expect(raw.fileType?.mimeType == "video/quicktime")
    }
}
