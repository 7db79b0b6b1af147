import Foundation
import Testing

@testable import MetadataKit

private typealias B = MP4Builder

/// The error code of `body`, or nil when it does not throw a ``MediaError``.
private func errorCode(_ body: () throws -> Void) -> MediaError.Code? {
    do { try body() } catch let error as MediaError { return error.code } catch { return MediaError.Code(rawValue: "non-MediaError") }
    return nil
}

/// Parses `bytes` as an MP4 file and returns the error code, nil when it parses.
private func parseError(_ bytes: [UInt8]) throws -> MediaError.Code? {
    let url = try B.write(bytes)
    defer { try? FileManager.default.removeItem(at: url) }
    let source = try FileSource(url: url)
    return errorCode { _ = try MP4Parser.parse(source, url) }
}

/// Parses `bytes` as an MP4 file that must parse; returns its warnings and editability.
private func parseWarnings(_ bytes: [UInt8]) throws -> (warnings: [MediaWarning], isEditable: Bool) {
    let url = try B.write(bytes)
    defer { try? FileManager.default.removeItem(at: url) }
    let parsed = try MP4Parser.parse(try FileSource(url: url), url)
    return (parsed.warnings, parsed.isEditable)
}

@Suite struct MP4Tests {
    static let cover = B.png(width: 3, height: 2)

    /// The iTunes list of a fully tagged file.
    static var fullList: [UInt8] {
        B.box(
            "ilst",
            children: [
                B.item("©nam", B.text("Title ünïcode")),
                B.item("©ART", B.text("Artist")),
                B.item("aART", B.text("Album Artist")),
                B.item("©alb", B.text("Album")),
                B.item("©grp", B.text("Grouping")),
                B.item("©wrt", B.text("Composer")),
                B.item("©cmt", B.text("Comment")),
                B.item("©gen", B.text("Synthwave")),
                B.item("gnre", B.data(0, B.u16(18))),
                B.item("©day", B.text("2024-05-01")),
                B.item("tmpo", B.data(21, B.u16(120))),
                B.item("trkn", B.data(0, B.u16(0) + B.u16(3) + B.u16(12) + B.u16(0))),
                B.item("disk", B.data(0, B.u16(0) + B.u16(1) + B.u16(2))),
                B.item("cpil", B.data(21, [1])),
                B.item("covr", B.data(14, cover), B.data(0, cover)),
                B.freeform(mean: "com.apple.iTunes", name: "iTunNORM", B.text(" 0000 0001")),
                B.item("©too", B.text("one"), B.text("two")),
                B.item("rtng", B.data(0, [4])),
            ])
    }

    static func taggedFile(metaVersionAndFlags: Bool = true) -> [UInt8] {
        let udta = B.box("udta", children: [B.meta(handler: "mdir", versionAndFlags: metaVersionAndFlags, [fullList])])
        return B.ftyp() + B.audioMovie(extra: [udta]) + B.box("mdat", [UInt8](repeating: 0xAB, count: 1000))
    }

    @Test func readsEveryITunesField() async throws {
        let item = try await B.load(Self.taggedFile())
        let metadata = item.metadata
        #expect(metadata.title == "Title ünïcode")
        #expect(metadata.artist == "Artist")
        #expect(metadata.albumArtist == "Album Artist")
        #expect(metadata.album == "Album")
        #expect(metadata.grouping == "Grouping")
        #expect(metadata.composer == "Composer")
        #expect(metadata.comments == "Comment")
        #expect(metadata.genre?.name == "Synthwave")
        #expect(metadata.date == "2024-05-01")
        #expect(metadata.bpm == 120)
        #expect(metadata.trackNumber == 3)
        #expect(metadata.trackCount == 12)
        #expect(metadata.discNumber == 1)
        #expect(metadata.discCount == 2)
        #expect(metadata.artwork.count == 2)
        let items = metadata.items
        #expect(items.allSatisfy { $0.keySpace == .iTunes })
        #expect(items.first { $0.key == "gnre" }?.value == .integer(18))
        #expect(items.first { $0.key == "cpil" }?.value == .integer(1))
        #expect(items.first { $0.key == "rtng" }?.value == .integer(4))
        #expect(items.first { $0.key == "trkn" }?.dataType == .numberPair)
        #expect(items.first { $0.key == "disk" }?.value == .numberPair(number: 1, total: 2))
        #expect(items.first { $0.key == "----:com.apple.iTunes:iTunNORM" }?.value == .string(" 0000 0001"))
        #expect(items.first { $0.key == "©too" }?.value == .strings(["one", "two"]))
        #expect(items.map(\.key).prefix(3) == ["©nam", "©ART", "aART"])

        #expect(item.fileType == FileType(identifier: "mp4", mimeType: "audio/mp4"))
        #expect(item.isEditable)
        let properties = item.properties
        #expect(properties.duration == 10)
        #expect(properties.sampleRate == 44100)
        #expect(properties.channels == 2)
        #expect(properties.codec == "AAC")
        #expect(properties.bitrate == 128_000)
        #expect(properties.bitsPerSample == nil)
        #expect(properties.width == nil)
    }

    @Test func coverArtIsReadLazily() async throws {
        let (parsed, url) = try B.parse(Self.taggedFile())
        defer { try? FileManager.default.removeItem(at: url) }
        let pictures = parsed.items.filter { $0.key == "covr" }
        #expect(pictures.count == 2)
        for picture in pictures {
            guard case .picture(let artwork) = picture.value else {
                Issue.record("not a picture")
                continue
            }
            #expect(artwork.width == 3)
            #expect(artwork.height == 2)
            #expect(artwork.mimeType == "image/png")
            #expect(artwork.pictureType == .frontCover)
            #expect(artwork.description == "")
            #expect(try await artwork.data() == Data(Self.cover))
            #expect(picture.dataType == .png)
        }
    }

    @Test func trackAndDiscPairsWithoutTotals() throws {
        let ilst = B.box(
            "ilst",
            children: [
                B.item("trkn", B.data(0, B.u16(0) + B.u16(7) + B.u16(0) + B.u16(0))),
                B.item("disk", B.data(0, B.u16(0) + B.u16(2) + B.u16(0) + B.u16(0))),
            ])
        let file = B.ftyp() + B.audioMovie(extra: [B.box("udta", children: [B.meta(handler: "mdir", [ilst])])])
        let (parsed, url) = try B.parse(file)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(parsed.items.map(\.value) == [.numberPair(number: 7, total: nil), .numberPair(number: 2, total: nil)])
    }

    @Test func valuesByDataType() throws {
        let ilst = B.box(
            "ilst",
            children: [
                B.item("xid ", B.data(0, [1, 2, 3])),
                B.item("©lyr", B.data(2, [0xFE, 0xFF, 0x00, 0x4C, 0x00, 0x61])),
                B.item("akID", B.data(0, [0xFF])),
                B.item("plID", B.data(21, B.u64(UInt64(bitPattern: -5)))),
                B.item("ownr", B.data(1, Array("me\0".utf8))),
                B.item("zzzz", B.data(24, B.u64(Double(2.25).bitPattern))),
                B.item("yyyy", B.data(22, B.u32(0xFFFF_FFFF))),
                B.item("empt"),
            ])
        let file = B.ftyp() + B.audioMovie(extra: [B.box("udta", children: [B.meta(handler: "mdir", [ilst])])])
        let (parsed, url) = try B.parse(file)
        defer { try? FileManager.default.removeItem(at: url) }
        let values = parsed.items.map { "\($0.key) \($0.value) \($0.dataType)" }
        #expect(
            values == [
                "xid  data(3 bytes) raw", "©lyr string(\"La\") UTF-16BE", "akID integer(-1) BE-signed-integer",
                "plID integer(-5) BE-signed-integer", "ownr string(\"me\") UTF-8", "zzzz double(2.25) float64",
                "yyyy integer(4294967295) BE-unsigned-integer",
            ])
    }

    @Test func metaWithoutVersionAndFlags() async throws {
        let item = try await B.load(Self.taggedFile(metaVersionAndFlags: false))
        #expect(item.metadata.title == "Title ünïcode")
        #expect(item.metadata.trackNumber == 3)
    }

    @Test func moovAfterMdatAndLargeSizes() async throws {
        let mdat = B.largeBox("mdat", [UInt8](repeating: 1, count: 500))
        let udta = B.box("udta", children: [B.meta(handler: "mdir", [B.box("ilst", children: [B.item("©nam", B.text("Late"))])])])
        let moov = B.audioMovie(extra: [udta])
        let largeMoov = B.largeBox("moov", Array(moov.dropFirst(8)))
        let item = try await B.load(B.ftyp() + B.box("free", []) + mdat + largeMoov)
        #expect(item.metadata.title == "Late")
        #expect(item.properties.duration == 10)
        // Size 0: the last box runs to the end of the file.
        let open = try await B.load(B.ftyp() + moov + B.openBox("mdat", [UInt8](repeating: 2, count: 300)))
        #expect(open.metadata.title == "Late")
        let openMoov = try await B.load(B.ftyp() + B.box("mdat", [1, 2, 3]) + B.openBox("moov", Array(moov.dropFirst(8))))
        #expect(openMoov.metadata.title == "Late")
    }

    @Test func bitrateFromMediaDataWhenTheConfigHasNone() async throws {
        let file = B.ftyp() + B.audioMovie(duration: 2, averageBitrate: 0) + B.box("mdat", [UInt8](repeating: 0, count: 32000))
        let item = try await B.load(file)
        #expect(item.properties.bitrate == 128_000)
        #expect(item.properties.codec == "AAC")
    }

    @Test func quickTimeMetadataKeys() async throws {
        let keys = B.keys([
            "com.apple.quicktime.title", "com.apple.quicktime.artist", "com.apple.quicktime.artwork",
            "com.apple.quicktime.rating", "com.example.float",
        ])
        let ilst = B.box(
            "ilst",
            children: [
                B.indexedItem(1, B.data(1, Array("QT Title".utf8), language: 0x15C7)),
                B.indexedItem(2, B.data(2, [0x00, 0x41, 0x00, 0xE9])),
                B.indexedItem(3, B.data(14, Self.cover)),
                B.indexedItem(4, B.data(66, B.u16(0xFFFE))),
                B.indexedItem(5, B.data(23, B.u32(0x3FC0_0000))),
                B.indexedItem(0, B.text("index 0")),
                B.indexedItem(9, B.text("past the table")),
            ])
        // Apple: moov/meta without version/flags.
        let movie = B.audioMovie(extra: [B.meta(handler: "mdta", versionAndFlags: false, [keys, ilst])])
        let item = try await B.load(B.ftyp("qt  ", ["qt  "]) + movie + B.box("mdat", []), ext: "mov")
        #expect(item.fileType?.mimeType == "video/quicktime")
        #expect(item.metadata.title == "QT Title")
        #expect(item.metadata.artist == "Aé")
        #expect(item.metadata.artwork.first?.width == 3)
        let items = item.metadata.items
        #expect(items.count == 5)
        #expect(items.allSatisfy { $0.keySpace == .quickTimeMetadata })
        #expect(items[0].language == "eng")
        #expect(items[3].value == .integer(-2))
        #expect(items[3].dataType == .signedInteger)
        #expect(items[4].value == .double(1.5))
        #expect(items[4].dataType == .float32)

        // ffmpeg use_metadata_tags: udta/meta with version/flags and bare key names.
        let ffmpegStyle = B.box(
            "udta",
            children: [
                B.meta(
                    handler: "mdta",
                    [
                        B.keys(["title", "album_artist"]),
                        B.box(
                            "ilst",
                            children: [
                                B.indexedItem(1, B.text("Bare")), B.indexedItem(2, B.text("AA")),
                            ]),
                    ])
            ])
        let bare = try await B.load(B.ftyp("isom", ["isom"]) + B.audioMovie(extra: [ffmpegStyle]))
        #expect(bare.metadata.title == "Bare")
        #expect(bare.metadata.albumArtist == "AA")
    }

    @Test func userDataTextAtoms() throws {
        var twoStrings = B.userDataText("English", language: "eng") + B.userDataText("Deutsch", language: "deu")
        twoStrings += [0, 0] // padding
        let udta = B.box(
            "udta",
            children: [
                B.box("©nam", twoStrings),
                B.box("©ART", B.userDataText("Mac", language: nil, macLanguage: 0)),
                B.box("©day", B.text("2021")), // data-atom layout
                B.box("©cmt", B.u16(200) + B.u16(0) + [1, 2]), // broken: skipped
                B.box("name", Array("not a ©-atom".utf8)),
                B.u32(0), // QuickTime terminator
            ])
        let iTunes = B.box("udta", children: [B.meta(handler: "mdir", [B.box("ilst", children: [B.item("©nam", B.text("iTunes"))])])])
        let mdta = B.meta(
            handler: "mdta", versionAndFlags: false, [B.keys(["title"]), B.box("ilst", children: [B.indexedItem(1, B.text("mdta"))])])
        let (parsed, url) = try B.parse(B.ftyp("qt  ", []) + B.audioMovie(extra: [udta, mdta, iTunes]))
        defer { try? FileManager.default.removeItem(at: url) }
        let summary = parsed.items.map { "\($0.keySpace):\($0.key)=\($0.value.stringValue ?? "-")@\($0.language ?? "nil")" }
        #expect(
            summary == [
                "itunes:©nam=iTunes@nil", "mdta:title=mdta@nil",
                "udta:©nam=English@eng", "udta:©nam=Deutsch@deu", "udta:©ART=Mac@nil", "udta:©day=2021@nil",
            ])
        #expect(Metadata(items: parsed.items).title == "iTunes")
    }

    @Test func fileTypes() {
        #expect(MP4Parser.mimeType(brands: nil, hasVideo: false) == "video/quicktime")
        #expect(MP4Parser.mimeType(brands: ["qt  "], hasVideo: false) == "video/quicktime")
        #expect(MP4Parser.mimeType(brands: ["3gp5", "isom"], hasVideo: true) == "video/3gpp")
        #expect(MP4Parser.mimeType(brands: ["M4B "], hasVideo: false) == "audio/mp4")
        #expect(MP4Parser.mimeType(brands: ["isom", "iso2", "avc1", "mp41"], hasVideo: true) == "video/mp4")
        #expect(MP4Parser.mimeType(brands: ["isom", "iso2", "mp41"], hasVideo: false) == "audio/mp4")
    }

    @Test func videoAndOtherAudioCodecs() async throws {
        let video = B.trak(handler: "vide", timescale: 600, duration: 600, entry: B.videoEntry("avc1", width: 640, height: 360))
        let moov = B.box("moov", children: [B.mvhd(timescale: 600, duration: 600, version: 1), video])
        let item = try await B.load(B.ftyp("isom", ["isom", "avc1"]) + moov, ext: "mp4")
        #expect(item.fileType?.mimeType == "video/mp4")
        #expect(item.properties.codec == "H.264")
        #expect(item.properties.width == 640)
        #expect(item.properties.height == 360)
        #expect(item.properties.duration == 1)
        #expect(item.properties.bitrate == nil)

        // ALAC: the 'alac' child box gives depth, channels, bit rate, rate.
        let cookie = B.u32(4096) + [0, 24, 40, 10, 14, 2] + B.u16(255) + B.u32(0) + B.u32(1_411_200) + B.u32(96000)
        let alac = B.audioEntry("alac", sampleSize: 24, sampleRate: 0, children: [B.fullBox("alac", cookie)])
        let alacMovie = B.box("moov", children: [B.trak(handler: "soun", timescale: 96000, duration: 96000 * 3, entry: alac)])
        let lossless = try await B.load(B.ftyp() + alacMovie)
        #expect(lossless.properties.codec == "ALAC")
        #expect(lossless.properties.sampleRate == 96000)
        #expect(lossless.properties.bitsPerSample == 24)
        #expect(lossless.properties.channels == 2)
        #expect(lossless.properties.bitrate == 1_411_200)
        #expect(lossless.properties.duration == 3) // from mdhd: no mvhd

        // QuickTime sound description v2: float64 rate, u32 channels, bits.
        let v2 =
            B.u32(72) + B.u64(Double(192000).bitPattern) + B.u32(6) + B.u32(0x7F00_0000) + B.u32(32)
            + B.u32(0) + B.u32(24) + B.u32(1)
        let lpcm = B.audioEntry("lpcm", channels: 3, sampleSize: 16, sampleRate: 1, version: 2, extra: v2)
        let pcmMovie = B.box("moov", children: [B.trak(handler: "soun", timescale: 192000, duration: 192000, entry: lpcm)])
        let pcm = try await B.load(B.ftyp("qt  ", []) + pcmMovie + B.box("mdat", [UInt8](repeating: 0, count: 1000)), ext: "mov")
        #expect(pcm.properties.codec == "PCM")
        #expect(pcm.properties.sampleRate == 192000)
        #expect(pcm.properties.channels == 6)
        #expect(pcm.properties.bitsPerSample == 32)
        #expect(pcm.properties.bitrate == 8000)

        // HE-AAC v2 (AOT 29, 24 kHz core, 48 kHz output, mono core → stereo), 4-byte descriptor lengths.
        let heAAC = B.audioEntry(
            "mp4a", channels: 1, sampleRate: 24000,
            children: [B.esds(averageBitrate: 32000, audioSpecificConfig: [0xEB, 0x09, 0x88, 0x00], longLength: true)])
        let heMovie = B.box("moov", children: [B.trak(handler: "soun", timescale: 48000, duration: 48000, entry: heAAC)])
        let he = try await B.load(B.ftyp() + heMovie)
        #expect(he.properties.codec == "AAC")
        #expect(he.properties.sampleRate == 48000)
        #expect(he.properties.channels == 2)
        #expect(he.properties.bitrate == 32000)

        let mp3 = B.audioEntry("mp4a", children: [B.esds(objectType: 0x6B, averageBitrate: 192_000, audioSpecificConfig: [])])
        let mp3Movie = B.box("moov", children: [B.trak(handler: "soun", timescale: 44100, duration: 44100, entry: mp3)])
        #expect(try await B.load(B.ftyp() + mp3Movie).properties.codec == "MP3")
    }

    // MARK: Hostile input

    /// A file cut inside `moov` either fails or is read up to the cut, with
    /// a warning and not editable.
    @Test func everyPrefixInsideMoovFailsOrWarns() throws {
        let moov = B.audioMovie(extra: [
            B.box(
                "udta",
                children: [
                    B.meta(
                        handler: "mdir",
                        [
                            B.box(
                                "ilst",
                                children: [
                                    B.item("©nam", B.text("x")), B.item("trkn", B.data(0, B.u16(0) + B.u16(1) + B.u16(2) + B.u16(0))),
                                ])
                        ])
                ])
        ])
        let head = B.ftyp() + B.box("mdat", [1, 2, 3, 4])
        let file = head + moov
        #expect(try parseError(file) == nil)
        let url = try B.write([])
        defer { try? FileManager.default.removeItem(at: url) }
        for length in head.count..<file.count {
            try Data(file[0..<length]).write(to: url)
            let source = try FileSource(url: url)
            var parsed: ParsedFile?
            let code = errorCode { parsed = try MP4Parser.parse(source, url) }
            #expect(code != MediaError.Code(rawValue: "non-MediaError"))
            if let parsed {
                #expect(!parsed.isEditable && parsed.warnings.contains { $0.code == .truncated }, "prefix of \(length) bytes")
            } else {
                #expect(code != nil)
            }
        }
    }

    /// A bad child of `udta` is read around: a warning at its offset, the
    /// file stays editable (a save keeps the bad bytes).
    @Test func childLargerThanParent() throws {
        let bad = B.box("udta", children: [B.box("©ART", B.userDataText("kept")), B.box("©nam", B.userDataText("x"), declaredSize: 400)])
        let file = B.ftyp() + B.audioMovie(extra: [bad])
        let (warnings, isEditable) = try parseWarnings(file)
        #expect(warnings.map(\.code) == [.sizeOutOfRange])
        #expect(warnings.first?.offset == Int64(file.count - bad.count + 8 + B.box("©ART", B.userDataText("kept")).count))
        #expect(isEditable)
    }

    @Test func sizeSmallerThanHeader() throws {
        let bad = B.box("udta", children: [B.box("©nam", B.userDataText("x"), declaredSize: 4)])
        #expect(try parseWarnings(B.ftyp() + B.audioMovie(extra: [bad])).warnings.map(\.code) == [.malformed])
        #expect(try parseError(B.ftyp() + B.largeBox("moov", [], declaredSize: 12)) == .malformed)
    }

    @Test func largeSizeBeyondTheEnd() throws {
        #expect(try parseError(B.ftyp() + B.largeBox("moov", Array(B.audioMovie().dropFirst(8)), declaredSize: .max)) == .truncated)
        let inner = B.box("udta", children: [B.largeBox("©nam", [1, 2, 3], declaredSize: 1 << 40)])
        #expect(try parseWarnings(B.ftyp() + B.audioMovie(extra: [inner])).warnings.map(\.code) == [.sizeOutOfRange])
    }

    @Test func deepNesting() throws {
        var nested = B.box("trak", [])
        for _ in 0..<40 { nested = B.box("trak", nested) }
        #expect(try parseError(B.ftyp() + B.box("moov", nested)) == .tooDeep)
    }

    @Test func hugeKeyCount() throws {
        let keys = B.fullBox("keys", B.u32(UInt32.max) + B.u32(12) + Array("mdtatitle".utf8))
        let meta = B.meta(handler: "mdta", versionAndFlags: false, [keys, B.box("ilst", children: [B.indexedItem(1, B.text("x"))])])
        #expect(try parseWarnings(B.ftyp() + B.audioMovie(extra: [meta])).warnings.map(\.code) == [.sizeOutOfRange])
    }

    @Test func manyEmptyBoxesEndQuickly() throws {
        let empty = B.box("free", [])
        let many = [UInt8]((0..<200_000).lazy.flatMap { _ in empty })
        let clock = ContinuousClock()
        let start = clock.now
        #expect(try parseError(B.ftyp() + B.box("moov", many)) == .sizeOutOfRange)
        #expect(try parseError(many + B.ftyp() + B.audioMovie()) == .sizeOutOfRange)
        let ilst = B.box("ilst", [UInt8]((0..<50_000).lazy.flatMap { _ in B.box("©nam", []) }))
        let udta = B.box("udta", children: [B.meta(handler: "mdir", [ilst])])
        #expect(try parseError(B.ftyp() + B.audioMovie(extra: [udta])) == nil)
        // A guard against quadratic work (hours), not a speed test: generous for a loaded machine.
        #expect(clock.now - start < .seconds(30))
    }

    @Test func noMoovAndGarbage() throws {
        #expect(try parseError(B.ftyp("qt  ", []) + B.box("moov", children: [B.box("cmov", [0, 0, 0, 0])])) == .unsupportedFeature)
        #expect(try parseError(B.ftyp() + B.box("mdat", [1, 2, 3])) == .malformed)
        #expect(try parseError(B.ftyp() + [0, 0, 0]) == .truncated)
        // Bytes after moov that are not boxes are not read (a warning; kept by a save).
        let garbage = try parseWarnings(B.ftyp() + B.audioMovie() + [0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4, 5])
        #expect(garbage.warnings.map(\.code) == [.truncated] && garbage.isEditable)
        // A data atom too small for its type and locale: the item is skipped.
        let ilst = B.box("ilst", children: [B.item("©nam", B.box("data", [0, 0, 0, 1]))])
        #expect(
            try parseWarnings(B.ftyp() + B.audioMovie(extra: [B.box("udta", children: [B.meta(handler: "mdir", [ilst])])]))
                .warnings.map(\.code) == [.malformed])
        // A descriptor length longer than its esds.
        let esds = B.fullBox("esds", [0x03, 0x7F, 0x00])
        let entry = B.audioEntry("mp4a", children: [esds])
        let movie = B.box("moov", children: [B.trak(handler: "soun", timescale: 1000, duration: 1000, entry: entry)])
        #expect(try parseWarnings(B.ftyp() + movie).warnings.map(\.code) == [.sizeOutOfRange])
        // A movie header too short for its fields: no duration, the rest is read.
        let shortHeader = B.box("moov", children: [B.fullBox("mvhd", [0, 0, 0, 0]), Self.udtaList("Still read")])
        let (parsed, url) = try B.parse(B.ftyp() + shortHeader)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(parsed.warnings.map(\.code) == [.truncated] && parsed.properties.duration == nil)
        #expect(Metadata(items: parsed.items).title == "Still read")
    }

    static func udtaList(_ title: String) -> [UInt8] {
        B.box("udta", children: [B.meta(handler: "mdir", [B.box("ilst", children: [B.item("©nam", B.text(title))])])])
    }

    @Test func fragmentedMovieDurationFromMehd() async throws {
        let moov = B.box(
            "moov",
            children: [
                B.mvhd(timescale: 1000, duration: 0),
                B.trak(
                    handler: "soun", timescale: 48000, duration: 0, entry: B.audioEntry("mp4a", children: [B.esds(averageBitrate: 64000)])),
                B.box("mvex", children: [B.fullBox("mehd", version: 1, B.u64(12_500))]),
            ])
        let item = try await B.load(B.ftyp("iso6", ["iso6", "dash"]) + moov + B.box("moof", []) + B.box("mdat", [1]))
        #expect(item.properties.duration == 12.5)
        #expect(item.fileType?.mimeType == "audio/mp4")
    }

    /// Random byte changes inside a valid file's moov: every result must parse
    /// or throw a MediaError, never crash or hang.
    @Test func randomCorruptionNeverCrashes() throws {
        let file = Self.taggedFile()
        let moovStart = B.ftyp().count
        var generator = SplitMix64(state: 0x9E37_79B9_7F4A_7C15)
        func next() -> UInt64 { generator.next() }
        let url = try B.write([])
        defer { try? FileManager.default.removeItem(at: url) }
        var outcomes: [String: Int] = [:]
        for _ in 0..<1500 {
            var bytes = file
            for _ in 0..<Int(1 + next() % 3) {
                let position = moovStart + Int(next() % UInt64(file.count - 1000 - moovStart))
                bytes[position] = next() % 4 == 0 ? [0x00, 0xFF, 0x01, 0x7F][Int(next() % 4)] : UInt8(truncatingIfNeeded: next())
            }
            try Data(bytes).write(to: url)
            let source = try FileSource(url: url)
            let code = errorCode { _ = try MP4Parser.parse(source, url) }
            outcomes[code?.rawValue ?? "parsed", default: 0] += 1
        }
        #expect(outcomes["non-MediaError"] == nil)
        #expect(outcomes["parsed", default: 0] > 0)
    }
}
