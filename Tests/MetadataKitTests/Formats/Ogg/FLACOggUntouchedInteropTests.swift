import Foundation
import Testing

@testable import MetadataKit

private typealias B = FLACOggBuilder

private enum UntouchedTools {
    static let present = ToolCheck.has("ffmpeg") && ToolCheck.has("python3:mutagen")
    static let exiftool = ToolCheck.has("exiftool")
}

/// Files tagged by mutagen with an odd comment (mixed-case and repeated
/// names, an empty value, its own vendor string) and a picture stored as a
/// `METADATA_BLOCK_PICTURE` field (FLAC: also a PICTURE block), both saying
/// width 30 for a 3-pixel-wide image (so a re-encoded one would differ): after a
/// title save, mutagen reads the same vendor, the same fields in the same
/// order with only the title changed, and the same pictures in the same
/// places. New pictures carry width, height, colour depth and palette size
/// from the image header (checked against exiftool). Skipped without ffmpeg
/// and mutagen.
@Suite(.enabled(if: UntouchedTools.present, "needs ffmpeg and python3 mutagen"))
struct FLACOggUntouchedInteropTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    func make(_ kind: String) throws -> URL {
        try FLACOggBuilder.ffmpegSine(kind, in: directory)
    }

    static let tagger = """
        import sys, base64
        import mutagen
        from mutagen.flac import Picture
        f = mutagen.File(sys.argv[1])
        if f.tags is None: f.add_tags()
        f.tags.clear()
        f.tags.vendor = "odd vendor ✓ 2.0"
        for key, value in [("Artist", "a"), ("title", "Old title"), ("genre", ""), ("ARTIST", "b"), ("custom", "x"), ("Custom", "y")]:
            f.tags.append((key, value))
        pic = Picture()
        pic.type = 3; pic.mime = "image/png"; pic.desc = "as a field"; pic.width = 30; pic.height = 2; pic.depth = 24
        pic.data = open(sys.argv[2], "rb").read()
        f.tags.append(("metadata_block_picture", base64.b64encode(pic.write()).decode("ascii")))
        f.tags.append(("zzz", "last"))
        if hasattr(f, "add_picture"):
            block = Picture()
            block.type = 4; block.mime = "image/png"; block.desc = "as a block"; block.width = 30; block.height = 2; block.depth = 24
            block.data = pic.data
            f.add_picture(block)
        f.save()
        """

    /// Vendor, fields in order (names as stored), and every picture with all its fields.
    static let dumper = """
        import sys, json, base64, hashlib
        import mutagen
        from mutagen.flac import Picture
        f = mutagen.File(sys.argv[1])
        def pic(p, where):
            return [where, p.type, p.mime, p.desc, p.width, p.height, p.depth, p.colors, hashlib.sha1(p.data).hexdigest()]
        fields = [[k, v] for k, v in f.tags]
        pictures = [pic(Picture(base64.b64decode(v)), "field") for k, v in f.tags if k.lower() == "metadata_block_picture"]
        pictures += [pic(p, "block") for p in getattr(f, "pictures", [])]
        print(json.dumps({"vendor": f.tags.vendor, "fields": fields, "pictures": pictures}))
        """

    func dump(_ url: URL) throws -> [String: Any] {
        let output = try TestSupport.runChecked("python3", ["-c", Self.dumper, url.path])
        return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
    }

    @Test(.enabled(if: Capabilities.ffmpegEncodes("libvorbis"), "needs ffmpeg with libvorbis (Homebrew's has none)"))
    func aTitleSaveKeepsEveryOtherFieldAndEveryPictureWhereItWasInVorbis() async throws {
        try await aTitleSaveKeepsEveryOtherFieldAndEveryPictureWhereItWas(kind: "vorbis")
    }

    @Test(.enabled(if: Capabilities.ffmpegEncodes("libopus"), "needs ffmpeg with libopus"))
    func aTitleSaveKeepsEveryOtherFieldAndEveryPictureWhereItWasInOpus() async throws {
        try await aTitleSaveKeepsEveryOtherFieldAndEveryPictureWhereItWas(kind: "opus")
    }

    @Test(arguments: ["flac", "oggflac"])
    func aTitleSaveKeepsEveryOtherFieldAndEveryPictureWhereItWas(kind: String) async throws {
        let url = try make(kind)
        let cover = directory.appendingPathComponent("cover.png")
        try Data(ID3Builder.tinyPNG).write(to: cover)
        try TestSupport.runChecked("python3", ["-c", Self.tagger, url.path, cover.path])
        let before = try dump(url)
        let fieldsBefore = try #require(before["fields"] as? [[String]])
        #expect(fieldsBefore.count == 8)
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "Old title")
        #expect(item.metadata.artwork.count == (kind == "flac" ? 2 : 1))
        item.metadata.title = "New title"
        try await item.save()
        let after = try dump(url)
        #expect(after["vendor"] as? String == "odd vendor ✓ 2.0")
        let expected = fieldsBefore.map { $0[0] == "title" ? ["title", "New title"] : $0 }
        #expect(after["fields"] as? [[String]] == expected)
        let picturesBefore = try #require(before["pictures"] as? [[Any]])
        let picturesAfter = try #require(after["pictures"] as? [[Any]])
        #expect(picturesAfter.map { $0.map { "\($0)" } } == picturesBefore.map { $0.map { "\($0)" } })
        #expect(picturesAfter.first?.first as? String == "field")
    }

    /// Images made by ffmpeg in several pixel formats; after they are added
    /// to a FLAC and an Opus file, mutagen reads width, height, depth and
    /// colours that agree with exiftool's reading of the image header.
    @Test(.enabled(if: UntouchedTools.exiftool && Capabilities.ffmpegEncodes("libopus"), "needs exiftool and ffmpeg with libopus"))
    func newPicturesStateTheirDepthFromTheImageHeader() async throws {
        // (file, ffmpeg pixel format, expected depth, indexed)
        let images: [(String, String, Int, Bool)] = [
            ("rgb.png", "rgb24", 24, false), ("rgba.png", "rgba", 32, false), ("grey.png", "gray", 8, false),
            ("pal.png", "pal8", 8, true), ("colour.jpg", "yuvj420p", 24, false),
            ("pal.gif", "pal8", 8, true),
        ]
        for kind in ["flac", "opus"] {
            let url = try make(kind)
            var item = try await MediaItem.loaded(url)
            for (name, format, _, _) in images {
                let image = directory.appendingPathComponent(name)
                try TestSupport.runChecked(
                    "ffmpeg",
                    [
                        "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=17x9",
                        "-frames:v", "1", "-pix_fmt", format, image.path,
                    ])
                item.metadata.artwork.append(Artwork(data: try Data(contentsOf: image), description: name))
            }
            try await item.save()
            let pictures = try #require(try dump(url)["pictures"] as? [[Any]])
            #expect(pictures.count == images.count)
            for (picture, (name, _, depth, indexed)) in zip(pictures, images) {
                let exif = try TestSupport.runChecked("exiftool", ["-j", "-n", directory.appendingPathComponent(name).path])
                let tags = try #require((try JSONSerialization.jsonObject(with: exif.standardOutput) as? [[String: Any]])?.first)
                #expect(picture[3] as? String == name)
                #expect(picture[4] as? Int == tags["ImageWidth"] as? Int && picture[4] as? Int == 17, "\(name)")
                #expect(picture[5] as? Int == tags["ImageHeight"] as? Int && picture[5] as? Int == 9, "\(name)")
                // exiftool: PNG BitDepth × samples of its ColorType; JPEG BitsPerSample × ColorComponents; GIF BitsPerPixel.
                let exifDepth: Int? =
                    switch name.split(separator: ".").last {
                    case "png":
                        (tags["BitDepth"] as? Int).map { $0 * [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][tags["ColorType"] as? Int ?? -1, default: 0] }
                    case "jpg": (tags["BitsPerSample"] as? Int).flatMap { bits in (tags["ColorComponents"] as? Int).map { bits * $0 } }
                    default: tags["BitsPerPixel"] as? Int
                    }
                #expect(picture[6] as? Int == exifDepth && exifDepth == depth, "\(name): \(picture[6]) vs exiftool \(exifDepth ?? -1)")
                let colours = picture[7] as? Int ?? -1
                #expect(indexed ? colours > 0 && colours <= 256 : colours == 0, "\(name): \(colours) colours")
            }
        }
    }
}
