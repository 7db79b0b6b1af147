import Foundation
import Testing

@testable import MetadataKit

/// Files with the problems `check` finds, made the way such files occur:
/// encoded by ffmpeg, tagged by mutagen, then damaged as the tools that
/// cause each problem damage them.
enum CheckFixtures {
    /// Whether the tools the fixtures need are there (see ``TestSupport/hasTool(_:)``).
    static var available: Bool {
        TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("ffprobe") && TestSupport.hasPythonModule("mutagen")
    }

    /// A new folder with a 32×32 JPEG (`cover.jpg`) in it.
    static func folder() throws -> URL {
        let folder = try TestSupport.makeTemporaryDirectory()
        try ffmpeg(["-f", "lavfi", "-i", "color=c=red:s=32x32", "-frames:v", "1", folder.appendingPathComponent("cover.jpg").path])
        return folder
    }

    static func ffmpeg(_ arguments: [String]) throws {
        try TestSupport.runChecked("ffmpeg", ["-v", "error", "-y"] + arguments)
    }

    /// Runs a Python script in `folder` (mutagen is imported by it).
    @discardableResult
    static func python(_ script: String, in folder: URL, _ arguments: [String] = []) throws -> String {
        let output = try TestSupport.run("python3", ["-c", script] + arguments, in: folder)
        guard output.status == 0 else { throw TestSupport.ToolFailure(description: "python3 failed: \(output.standardError)") }
        return output.text
    }

    /// Three seconds of a sine as MP3 (CBR 128k, no ID3 tag, no Xing header) at `name`.
    static func mp3(_ name: String, in folder: URL, extra: [String] = ["-b:a", "128k", "-write_xing", "0"]) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try ffmpeg(
            ["-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-c:a", "libmp3lame"] + extra + ["-id3v2_version", "0", url.path])
        return url
    }

    /// The SHA-256 of each audio packet, as ffmpeg demuxes them.
    static func streamHash(_ url: URL) throws -> String {
        try TestSupport.runChecked("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a", "-c", "copy", "-f", "streamhash", "-"]).text
    }

    /// Whether ffprobe reads the file without a complaint.
    static func ffprobeReadsCleanly(_ url: URL) throws -> Bool {
        let output = try TestSupport.run("ffprobe", ["-v", "error", "-show_format", "-show_streams", url.path])
        return output.status == 0 && output.standardError.isEmpty
    }

    /// The codes of the findings of the file.
    static func codes(_ url: URL) async throws -> [Finding.Code] {
        try await MediaItem.loaded(url).check().map(\.code)
    }

    /// Two complete ID3v2.4 tags in a row, as taggers that prepend a new tag
    /// to a file that had one leave them: the second repeats the first's
    /// TIT2 (`secondTitle`) and adds TALB.
    static func stacked(_ name: String, secondTitle: String, in folder: URL) throws -> URL {
        let url = try mp3("base-\(name)", in: folder)
        try python(
            """
            import io, sys
            from mutagen.id3 import ID3, TIT2, TPE1, TALB
            def tag(frames):
                t = ID3()
                for f in frames: t.add(f)
                b = io.BytesIO(); t.save(b, v2_version=4, padding=lambda info: 0)
                return b.getvalue()
            audio = open(sys.argv[1], 'rb').read()
            first = tag([TIT2(encoding=3, text='New title'), TPE1(encoding=3, text='Artist')])
            second = tag([TIT2(encoding=3, text=sys.argv[3]), TALB(encoding=3, text='Album')])
            open(sys.argv[2], 'wb').write(first + second + audio)
            """, in: folder, [url.path, folder.appendingPathComponent(name).path, secondTitle])
        return folder.appendingPathComponent(name)
    }

    /// An ID3v2.3 tag holding TDRC, as taggers that write v2.4 frame IDs
    /// into whatever version the file has leave it.
    static func v23WithTDRC(in folder: URL) throws -> URL {
        let base = try mp3("base-v23.mp3", in: folder)
        let url = folder.appendingPathComponent("v23-tdrc.mp3")
        try python(
            """
            import struct, sys
            def frame(fid, payload): return fid.encode() + struct.pack('>I', len(payload)) + b'\\0\\0' + payload
            def syncsafe(n): return bytes([(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f])
            body = frame('TIT2', b'\\0Title') + frame('TDRC', b'\\x002024-05-01')
            audio = open(sys.argv[1], 'rb').read()
            open(sys.argv[2], 'wb').write(b'ID3\\x03\\x00\\x00' + syncsafe(len(body) + 100) + body + b'\\0' * 100 + audio)
            """, in: folder, [base.path, url.path])
        return url
    }

    /// ID3v1 left behind by a tagger that changed only ID3v2: mutagen writes
    /// both, then the title and date change in ID3v2 with the old ID3v1 bytes kept.
    static func v1Disagreeing(in folder: URL) throws -> URL {
        let url = try mp3("v1.mp3", in: folder)
        try python(
            """
            import sys
            from mutagen.mp3 import MP3
            from mutagen.id3 import TIT2, TPE1, TDRC
            f = MP3(sys.argv[1]); f.add_tags()
            f.tags.add(TIT2(encoding=3, text='Old Title')); f.tags.add(TPE1(encoding=3, text='Artist'))
            f.tags.add(TDRC(encoding=3, text='1999')); f.save(v1=2)
            v1 = open(sys.argv[1], 'rb').read()[-128:]
            f = MP3(sys.argv[1]); f.tags.setall('TIT2', [TIT2(encoding=3, text='New Title')])
            f.tags.setall('TDRC', [TDRC(encoding=3, text='2024-05-01')]); f.save(v1=0)
            open(sys.argv[1], 'ab').write(v1)
            """, in: folder, [url.path])
        return url
    }

    /// A FLAC whose VORBIS_COMMENT length field is 9 bytes short of its
    /// fields (a tagger that miscounted the block).
    static func flacBlockLength(in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("block-length.flac")
        try ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "flac", url.path])
        try python(
            """
            import sys
            from mutagen.flac import FLAC
            f = FLAC(sys.argv[1]); f['title'] = 'Block'; f.save(padding=lambda info: 0)
            data = bytearray(open(sys.argv[1], 'rb').read())
            pos = 4
            while True:
                length = int.from_bytes(data[pos + 1:pos + 4], 'big')
                if data[pos] & 0x7f == 4:
                    data[pos + 1:pos + 4] = (length - 9).to_bytes(3, 'big'); break
                pos += 4 + length
            open(sys.argv[1], 'wb').write(data)
            """, in: folder, [url.path])
        return url
    }

    /// A JPEG cover declared as PNG, written by mutagen into an MP3 (APIC),
    /// a FLAC (PICTURE) or an M4A (`covr` of type PNG).
    static func mimeMismatch(_ kind: String, in folder: URL) throws -> URL {
        let url: URL
        switch kind {
        case "mp3": url = try mp3("mime.mp3", in: folder)
        default:
            url = folder.appendingPathComponent("mime.\(kind)")
            try ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", kind == "flac" ? "flac" : "aac", url.path])
        }
        try python(
            """
            import sys
            jpeg = open('cover.jpg', 'rb').read()
            path = sys.argv[1]
            if path.endswith('.mp3'):
                from mutagen.mp3 import MP3
                from mutagen.id3 import APIC, TIT2
                f = MP3(path); f.add_tags(); f.tags.add(TIT2(encoding=3, text='T'))
                f.tags.add(APIC(encoding=3, mime='image/png', type=3, desc='', data=jpeg)); f.save()
            elif path.endswith('.flac'):
                from mutagen.flac import FLAC, Picture
                f = FLAC(path); p = Picture(); p.type = 3; p.mime = 'image/png'; p.data = jpeg
                f.add_picture(p); f['title'] = 'T'; f.save()
            else:
                from mutagen.mp4 import MP4, MP4Cover
                f = MP4(path); f['covr'] = [MP4Cover(jpeg, imageformat=MP4Cover.FORMAT_PNG)]; f['\\xa9nam'] = 'T'; f.save()
            """, in: folder, [url.path])
        return url
    }

    /// The MIME type and bytes of the first picture, as mutagen reads them.
    static func mutagenPicture(_ url: URL, in folder: URL) throws -> (mime: String, sameBytes: Bool) {
        let output = try python(
            """
            import sys
            jpeg = open('cover.jpg', 'rb').read()
            path = sys.argv[1]
            if path.endswith('.mp3'):
                from mutagen.id3 import ID3
                p = ID3(path).getall('APIC')[0]; print(p.mime, p.data == jpeg)
            elif path.endswith('.flac'):
                from mutagen.flac import FLAC
                p = FLAC(path).pictures[0]; print(p.mime, p.data == jpeg)
            else:
                from mutagen.mp4 import MP4
                c = MP4(path)['covr'][0]
                print({13: 'image/jpeg', 14: 'image/png'}.get(c.imageformat, '?'), bytes(c) == jpeg)
            """, in: folder, [url.path])
        let parts = output.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        return (parts.first ?? "", parts.last == "True")
    }

    /// A Matroska file whose Tags were moved after the Clusters with no
    /// SeekHead entry (as a muxer that appends tags at the end without
    /// indexing them leaves it): the Tags' old place and their Seek become Voids.
    static func unreachableTags(in folder: URL) throws -> (plain: URL, moved: URL) {
        let plain = folder.appendingPathComponent("tags.mka")
        let moved = folder.appendingPathComponent("unreachable.mka")
        try ffmpeg(
            ["-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "libvorbis", "-metadata", "artist=Hidden", plain.path])
        try python(
            """
            import sys
            def vint(d, p):
                b = d[p]; n = 1; m = 0x80
                while not b & m: m >>= 1; n += 1
                v = b & (m - 1)
                for i in range(1, n): v = (v << 8) | d[p + i]
                return v, n
            def ident(d, p):
                b = d[p]; n = 1; m = 0x80
                while not b & m: m >>= 1; n += 1
                return int.from_bytes(d[p:p + n], 'big'), n
            d = bytearray(open(sys.argv[1], 'rb').read())
            eid, n = ident(d, 0); size, sn = vint(d, n); p = n + sn + size
            eid, n = ident(d, p); assert eid == 0x18538067
            size_at = p + n; segment_size, segment_sn = vint(d, size_at); q = size_at + segment_sn
            tags = seek = None
            while q < len(d):
                eid, n = ident(d, q); size, sn = vint(d, q + n); end = q + n + sn + size
                if eid == 0x1254C367: tags = (q, end)
                if eid == 0x114D9B74:
                    r = q + n + sn
                    while r < end:
                        cid, cn = ident(d, r); csize, csn = vint(d, r + cn)
                        if cid == 0x4DBB and bytes([0x12, 0x54, 0xC3, 0x67]) in d[r:r + cn + csn + csize]:
                            seek = (r, r + cn + csn + csize)
                        r += cn + csn + csize
                q = end
            blob = bytes(d[tags[0]:tags[1]])
            d[seek[0]:seek[1]] = bytes([0xEC, 0x80 | (seek[1] - seek[0] - 2)]) + bytes(seek[1] - seek[0] - 2)
            length = tags[1] - tags[0]
            d[tags[0]:tags[1]] = bytes([0xEC, 0x01]) + (length - 9).to_bytes(7, 'big') + bytes(length - 9)
            d += blob
            marker = 1 << (7 * segment_sn)
            if segment_size != marker - 1:
                d[size_at:size_at + segment_sn] = (marker | (segment_size + len(blob))).to_bytes(segment_sn, 'big')
            open(sys.argv[2], 'wb').write(d)
            """, in: folder, [plain.path, moved.path])
        return (plain, moved)
    }
}
