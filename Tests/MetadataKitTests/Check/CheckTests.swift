import Foundation
import Testing

@testable import MetadataKit

/// `MediaItem.check()` and `repair(_:)` on files made the way each problem
/// occurs (``CheckFixtures``): each code is found, and a repair leaves a file
/// mdkit, mutagen and ffprobe read without it, with the audio packets
/// byte-identical (ffmpeg's streamhash).
@Suite(.enabled(if: CheckFixtures.available, "needs ffmpeg, ffprobe and mutagen")) struct CheckTests {
    typealias F = CheckFixtures

    /// Repairs `code` in `url`; expects it gone for mdkit, ffprobe reading
    /// cleanly and the audio packets unchanged. Returns the changes.
    @discardableResult
    func repairs(_ code: Finding.Code, in url: URL) async throws -> [Repair] {
        let before = try F.streamHash(url)
        var item = try await MediaItem.loaded(url)
        let found = try #require(try item.check().first { $0.code == code }, "\(code) not found")
        #expect(found.isFixable)
        let changes = try await item.repair([code])
        #expect(changes.contains { $0.code == code })
        #expect(try item.check().allSatisfy { $0.code != code }, "the item, loaded again by the save")
        #expect(try await F.codes(url).allSatisfy { $0 != code }, "a new load")
        #expect(try F.ffprobeReadsCleanly(url))
        #expect(try F.streamHash(url) == before, "the audio packets changed")
        return changes
    }

    @Test func soundFilesHaveNoFindings() async throws {
        let folder = try F.folder()
        let cbr = try F.mp3("cbr.mp3", in: folder)
        let vbr = try F.mp3("vbr.mp3", in: folder, extra: ["-q:a", "4"]) // LAME writes a Xing header
        #expect(try await F.codes(cbr) == [])
        #expect(try await F.codes(vbr) == [])
        var item = try await MediaItem.loaded(cbr)
        #expect(try await item.repair() == [])
    }

    @Test func stackedTagsAreMergedWhenNoFrameIsLost() async throws {
        let folder = try F.folder()
        let url = try F.stacked("stacked.mp3", secondTitle: "New title", in: folder)
        let finding = try #require(try await MediaItem.loaded(url).check().first)
        #expect(finding.code == .id3Stacked)
        #expect(finding.byteOffset == 49) // the second tag's header
        try await repairs(.id3Stacked, in: url)
        let dump = try F.python(
            """
            import sys
            from mutagen.id3 import ID3
            t = ID3(sys.argv[1]); print(t.size, str(t['TIT2']), str(t['TPE1']), str(t['TALB']))
            data = open(sys.argv[1], 'rb').read(); print(data.count(b'ID3\\x04'))
            """, in: folder, [url.path])
        #expect(dump.hasSuffix("New title Artist Album\n1\n"), "one tag holding every frame: \(dump)")
    }

    @Test func stackedTagsThatDisagreeAreLeftAlone() async throws {
        let folder = try F.folder()
        let url = try F.stacked("differ.mp3", secondTitle: "Old title", in: folder)
        let bytes = try Data(contentsOf: url)
        var item = try await MediaItem.loaded(url)
        let finding = try #require(try item.check().first { $0.code == .id3Stacked })
        #expect(!finding.isFixable)
        #expect(finding.fixNote?.contains("TIT2") == true)
        #expect(try await item.repair([.id3Stacked]) == [])
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func v24FrameInAV23TagIsConverted() async throws {
        let folder = try F.folder()
        let url = try F.v23WithTDRC(in: folder)
        let finding = try #require(try await MediaItem.loaded(url).check().first { $0.code == .id3V23HoldsV24Frame })
        #expect(finding.byteOffset == 26) // the TDRC frame
        try await repairs(.id3V23HoldsV24Frame, in: url)
        let frames = try F.python(
            """
            import sys
            from mutagen.id3 import ID3
            t = ID3(sys.argv[1], translate=False); print(t.version, sorted(t.keys()), t['TYER'], t['TDAT'])
            """, in: folder, [url.path])
        #expect(frames == "(2, 3, 0) ['TDAT', 'TIT2', 'TYER'] 2024 0105\n")
        #expect(try await MediaItem.loaded(url).metadata.date == "2024-05-01")
    }

    @Test func v23TagWhoseTYERDisagreesWithTDRCIsNotConverted() async throws {
        let folder = try F.folder()
        let url = try F.v23WithTDRC(in: folder)
        // A TYER naming another year beside the TDRC: converting would lose one of them.
        var bytes = [UInt8](try Data(contentsOf: url))
        let tyer: [UInt8] = Array("TYER".utf8) + [0, 0, 0, 5, 0, 0, 0] + Array("1999".utf8)
        bytes.replaceSubrange(47..<47 + tyer.count, with: tyer) // into the padding after TDRC (26 + 21)
        try Data(bytes).write(to: url)
        let finding = try #require(try await MediaItem.loaded(url).check().first { $0.code == .id3V23HoldsV24Frame })
        #expect(!finding.isFixable)
        #expect(finding.fixNote?.contains("disagree") == true)
    }

    @Test func id3v1IsRewrittenFromID3v2() async throws {
        let folder = try F.folder()
        let url = try F.v1Disagreeing(in: folder)
        let finding = try #require(try await MediaItem.loaded(url).check().first { $0.code == .id3V1Disagrees })
        let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
        #expect(finding.byteOffset == Int64(size - 128))
        #expect(finding.message.contains("title 'Old Title'") && finding.message.contains("year '1999'"))
        #expect(!finding.message.contains("artist"), "the artist agrees")
        try await repairs(.id3V1Disagrees, in: url)
        let v1 = try F.python(
            """
            import sys
            from mutagen.id3 import ParseID3v1
            f = ParseID3v1(open(sys.argv[1], 'rb').read()[-128:]); print(f['TIT2'], f['TPE1'], f['TDRC'])
            """, in: folder, [url.path])
        #expect(v1 == "New Title Artist 2024\n")
    }

    @Test func flacBlockLengthIsWrittenRight() async throws {
        let folder = try F.folder()
        let url = try F.flacBlockLength(in: folder)
        #expect(try !F.ffprobeReadsCleanly(url), "the fixture is broken for ffmpeg")
        let audio = { (url: URL) throws -> Data in
            let layout = try FLACLayout(parsing: FileSource(url: url))
            return try Data(contentsOf: url).dropFirst(Int(layout.audioStart))
        }
        let before = try audio(url)
        var item = try await MediaItem.loaded(url)
        let finding = try #require(try item.check().first)
        #expect(finding.code == .flacBlockLength)
        #expect(finding.isFixable)
        _ = try await item.repair([.flacBlockLength])
        #expect(try await F.codes(url) == [])
        #expect(try audio(url) == before, "the FLAC frames are copied byte for byte")
        #expect(try F.ffprobeReadsCleanly(url))
        #expect(
            try F.python("import sys\nfrom mutagen.flac import FLAC\nprint(FLAC(sys.argv[1])['title'])", in: folder, [url.path])
                == "['Block']\n")
        #expect(try TestSupport.run("flac", ["-t", "-s", url.path]).status == 0)
    }

    @Test(arguments: ["mp3", "flac", "m4a"])
    func pictureMIMETypeIsCorrected(kind: String) async throws {
        let folder = try F.folder()
        let url = try F.mimeMismatch(kind, in: folder)
        #expect(try F.mutagenPicture(url, in: folder).mime == "image/png")
        let finding = try #require(try await MediaItem.loaded(url).check().first { $0.code == .pictureMIMEMismatch })
        #expect(finding.message.contains("says image/png, its bytes are image/jpeg"))
        try await repairs(.pictureMIMEMismatch, in: url)
        let picture = try F.mutagenPicture(url, in: folder)
        #expect(picture.mime == "image/jpeg")
        #expect(picture.sameBytes)
        #expect(try await MediaItem.loaded(url).metadata.artwork.map(\.mimeType) == ["image/jpeg"])
    }

    @Test func audioCutShortIsFound() async throws {
        let folder = try F.folder()
        let mp3 = try F.mp3("whole.mp3", in: folder)
        let wav = folder.appendingPathComponent("whole.wav")
        try F.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=2", wav.path])
        #expect(try await F.codes(mp3) == [])
        #expect(try await F.codes(wav) == [])
        for (url, keep) in [(mp3, 30_000), (wav, 90_000)] {
            let cut = folder.appendingPathComponent("cut-" + url.lastPathComponent)
            try Data(contentsOf: url).prefix(keep).write(to: cut)
            let finding = try #require(try await MediaItem.loaded(cut).check().first { $0.code == .audioTruncated }, "\(cut)")
            #expect(finding.severity == .error)
            #expect(!finding.isFixable)
            #expect(finding.byteOffset != nil)
        }
    }

    @Test func variableBitRateWithoutXingIsInfo() async throws {
        let folder = try F.folder()
        let url = folder.appendingPathComponent("noxing.mp3")
        try F.ffmpeg(
            [
                "-f", "lavfi", "-i", "anoisesrc=d=3:c=pink", "-c:a", "libmp3lame", "-q:a", "2", "-write_xing", "0", "-id3v2_version", "0",
                url.path,
            ])
        let finding = try #require(try await MediaItem.loaded(url).check().first)
        #expect(finding.code == .mp3NoVBRHeader)
        #expect(finding.severity == .info)
        #expect(!finding.isFixable)
        #expect(finding.fixNote?.contains("audio") == true)
    }

    @Test func matroskaTagsNoSeekHeadReachesAreFound() async throws {
        let folder = try F.folder()
        let (plain, moved) = try F.unreachableTags(in: folder)
        #expect(try await F.codes(plain) == [])
        let finding = try #require(try await MediaItem.loaded(moved).check().first)
        #expect(finding.code == .mkvTagsUnreachable)
        #expect(!finding.isFixable)
        #expect(try await MediaItem.loaded(moved).metadata.artist == nil, "MetadataKit doesn't see them either")
        let mkvinfo = try TestSupport.run("mkvinfo", [moved.path])
        #expect(mkvinfo.status == 0 && !mkvinfo.text.contains("Hidden"), "mkvinfo doesn't list them")
    }

    @Test func warningsGetCodes() {
        func code(_ warning: MediaWarning, _ format: String) -> Finding.Code {
            WarningFindings.finding(for: warning, format: format, isEditable: true).code
        }
        #expect(Finding.Code.read(.sizeOutOfRange).rawValue == "read.size-out-of-range")
        #expect(code(MediaWarning(.malformed, "junk between pages"), "ogg") == .read(.malformed))
        #expect(code(MediaWarning(.truncated, "the file ends inside chunk 'data' (3 bytes left)"), "wav") == .audioTruncated)
        #expect(code(MediaWarning(.truncated, "the ID3v2 tag runs past the end of the file"), "mp3") == .read(.truncated))
        let fixable = WarningFindings.finding(
            for: MediaWarning(.sizeOutOfRange, "the RIFF size announces 9 bytes; a save writes the size of the chunks"), format: "wav",
            isEditable: true)
        #expect(fixable.isFixable)
        #expect(!WarningFindings.finding(for: MediaWarning(.malformed, "a save writes it"), format: "wav", isEditable: false).isFixable)
    }

    @Test func plannedRepairsWriteNothing() async throws {
        let folder = try F.folder()
        let url = try F.v1Disagreeing(in: folder)
        let bytes = try Data(contentsOf: url)
        let item = try await MediaItem.loaded(url)
        let planned = try item.plannedRepairs()
        #expect(planned.map(\.change) == ["id3v1:title 'Old Title' → 'New Title'", "id3v1:year '1999' → '2024'"])
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func repairRefusesUnsavedChanges() async throws {
        let folder = try F.folder()
        var item = try await MediaItem.loaded(try F.v1Disagreeing(in: folder))
        item.metadata.title = "Edited"
        await #expect(throws: MediaError.self) { try await item.repair() }
    }
}

extension CheckTests {
    @Test func tyerAndTDRCNamingDifferentYearsAreFound() async throws {
        let folder = try F.folder()
        let url = try F.mp3("dates.mp3", in: folder)
        try F.python(
            """
            import sys
            from mutagen.id3 import ID3, TIT2, TDRC, TYER
            t = ID3(); t.add(TIT2(encoding=3, text='T')); t.add(TDRC(encoding=3, text='2024-05-01'))
            t.add(TYER(encoding=3, text='1999')); t.save(sys.argv[1], v2_version=4)
            """, in: folder, [url.path])
        let finding = try #require(try await MediaItem.loaded(url).check().first)
        #expect(finding.code == .id3DatesDisagree)
        #expect(finding.message == "TYER says 1999, TDRC says 2024-05-01")
        #expect(!finding.isFixable)
        #expect(finding.byteOffset != nil)
        // The same year in both is no finding.
        try F.python(
            """
            import sys
            from mutagen.id3 import ID3, TYER
            t = ID3(sys.argv[1]); t.setall('TYER', [TYER(encoding=3, text='2024')]); t.save(sys.argv[1], v2_version=4)
            """, in: folder, [url.path])
        #expect(try await F.codes(url) == [])
    }
}

extension CheckTests {
    /// An Ogg Vorbis download cut inside a page, and one cut at a page
    /// boundary (no end-of-stream page): both `audio.truncated`.
    @Test func oggCutShortIsFound() async throws {
        let folder = try F.folder()
        let url = folder.appendingPathComponent("whole.ogg")
        try F.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-c:a", "libvorbis", url.path])
        #expect(try await F.codes(url) == [])
        let bytes = try Data(contentsOf: url)
        let lastPage = try #require(bytes.lastRange(of: Data("OggS".utf8))).lowerBound
        let insidePage = folder.appendingPathComponent("inside.ogg"), atBoundary = folder.appendingPathComponent("boundary.ogg")
        try bytes.prefix(lastPage + 100).write(to: insidePage)
        try bytes.prefix(lastPage).write(to: atBoundary)
        let inside = try #require(try await MediaItem.loaded(insidePage).check().first)
        #expect(inside.code == .audioTruncated)
        #expect(inside.severity == .error)
        #expect(inside.byteOffset == Int64(lastPage))
        let boundary = try #require(try await MediaItem.loaded(atBoundary).check().first)
        #expect(boundary.code == .audioTruncated)
        #expect(boundary.severity == .warning)
        #expect(boundary.message.contains("no end-of-stream flag"))
    }
}

extension CheckTests {
    /// FLAC downloads cut short (ffmpeg's fixed 4608-sample frames, flac's
    /// 4096): the last frame headers end before STREAMINFO's total; a whole
    /// file has no finding.
    @Test func flacCutShortIsFound() async throws {
        let folder = try F.folder()
        let wav = folder.appendingPathComponent("noise.wav")
        try F.ffmpeg(["-f", "lavfi", "-i", "anoisesrc=d=5", "-ar", "44100", wav.path])
        let byFFmpeg = folder.appendingPathComponent("ffmpeg.flac")
        try F.ffmpeg(["-i", wav.path, "-c:a", "flac", byFFmpeg.path])
        var files = [byFFmpeg]
        if TestSupport.hasTool("flac") {
            let byFlac = folder.appendingPathComponent("flac.flac")
            try TestSupport.runChecked("flac", ["-s", "-f", "-o", byFlac.path, wav.path])
            files.append(byFlac)
        }
        for url in files {
            #expect(try await F.codes(url) == [], "\(url.lastPathComponent)")
            let bytes = try Data(contentsOf: url)
            let cut = folder.appendingPathComponent("cut-" + url.lastPathComponent)
            try bytes.prefix(bytes.count * 2 / 3).write(to: cut)
            let finding = try #require(try await MediaItem.loaded(cut).check().first, "\(cut.lastPathComponent)")
            #expect(finding.code == .audioTruncated)
            #expect(finding.message.contains("its STREAMINFO counts 220500"))
        }
    }
}
