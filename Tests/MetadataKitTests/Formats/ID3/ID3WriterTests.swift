import Foundation
import Testing

@testable import MetadataKit

private typealias B = ID3Builder

/// Saving MP3 files: ID3v2 frames, layout, padding, ID3v1, failures.
@Suite struct ID3WriterTests {
    // MARK: Helpers

    /// A file of `tag`, 20 MPEG frames and `trailer`, in its own folder.
    static func makeFile(_ tag: [UInt8], trailer: [UInt8] = [], frames: Int = 20) throws -> URL {
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent("song.mp3")
        try Data(tag + B.mpegFrames(frames) + trailer).write(to: url)
        return url
    }

    static func remove(_ url: URL) { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }

    static func bytes(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    /// The audio bytes: from the end of the leading tags to the first trailing block.
    static func audio(_ url: URL) throws -> [UInt8] {
        let source = try FileSource(url: url)
        var start: Int64 = 0
        while let header = try ID3v2Header.read(from: source, at: start) { start = header.end }
        let trailer = try MP3Trailer(parsing: source, floor: start)
        return try source.getBytes(at: start, count: Int(trailer.audioEnd - start))
    }

    static func inode(_ url: URL) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as! Int
    }

    static func size(_ url: URL) throws -> Int { try bytes(url).count }

    /// True when `needle` occurs in `haystack`.
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    static let fast = SaveOptions(durability: .noSync)

    /// A tag of `version` with a title, artist and comment.
    static func basicTag(version: UInt8, padding: Int = 256) -> [UInt8] {
        var tag = B(version: version)
        if version == 2 {
            tag.frames = [
                B.frame("TT2", B.text(["Old title"], encoding: 0), version: 2),
                B.frame("TP1", B.text(["Old artist"], encoding: 0), version: 2),
                B.frame("COM", B.comment("Old comment", encoding: 0), version: 2),
                B.frame("TYE", B.text(["1999"], encoding: 0), version: 2),
                B.frame("PIC", B.picture(B.tinyPNG, legacyFormat: "PNG"), version: 2),
                B.frame("CRM", [0x61, 0, 1, 2, 3], version: 2),
            ]
        } else {
            tag.frames = [
                B.frame("TIT2", B.text(["Old title"], encoding: 0), version: version),
                B.frame("TPE1", B.text(["Old artist"], encoding: 0), version: version),
                B.frame("COMM", B.comment("Old comment", encoding: 0), version: version),
            ]
        }
        tag.padding = padding
        return tag.bytes()
    }

    static func setEveryField(_ metadata: inout Metadata, _ text: String, artwork: [Artwork]) {
        metadata.title = "Title \(text)"
        metadata.artist = "Artist \(text)"
        metadata.albumArtist = "Album artist \(text)"
        metadata.album = "Album \(text)"
        metadata.grouping = "Grouping \(text)"
        metadata.composer = "Composer \(text)"
        metadata.comments = "Comment \(text)"
        metadata.genre = Genre(name: text == "ASCII" ? "Jazz" : "Genre \(text)")
        metadata.date = "2024"
        metadata.bpm = 128
        metadata.trackNumber = 3
        metadata.trackCount = 12
        metadata.discNumber = 1
        metadata.discCount = 2
        metadata.artwork = artwork
    }

    static func checkEveryField(_ metadata: Metadata, _ text: String, artwork: [Artwork]) async throws {
        #expect(metadata.title == "Title \(text)")
        #expect(metadata.artist == "Artist \(text)")
        #expect(metadata.albumArtist == "Album artist \(text)")
        #expect(metadata.album == "Album \(text)")
        #expect(metadata.grouping == "Grouping \(text)")
        #expect(metadata.composer == "Composer \(text)")
        #expect(metadata.comments == "Comment \(text)")
        #expect(metadata.genre?.name == (text == "ASCII" ? "Jazz" : "Genre \(text)"))
        #expect(metadata.date == "2024")
        #expect(metadata.bpm == 128)
        #expect(metadata.trackNumber == 3 && metadata.trackCount == 12)
        #expect(metadata.discNumber == 1 && metadata.discCount == 2)
        #expect(metadata.artwork.count == artwork.count)
        for (read, written) in zip(metadata.artwork, artwork) {
            #expect(read.mimeType == written.mimeType && read.pictureType == written.pictureType)
            #expect(read.description == written.description)
            #expect(try await read.data() == written.data())
        }
    }

    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xFF, 0xD9]

    // MARK: Round trips

    @Test(arguments: [
        (UInt8(2), "ASCII"), (2, "Ünïcødé 日本語 🎵"), (3, "ASCII"), (3, "Ünïcødé 日本語 🎵"),
        (4, "ASCII"), (4, "Björk Guðmundsdóttir"), (4, "Ünïcødé 日本語 🎵"),
    ])
    func everyFieldRoundTrips(version: UInt8, text: String) async throws {
        let url = try Self.makeFile(Self.basicTag(version: version))
        defer { Self.remove(url) }
        let audio = try Self.audio(url)
        var item = try await MediaItem.loaded(url)
        if version == 2 {
            // CRM has no v2.3/v2.4 equivalent: the upgrade can't keep it, so the
            // file is read-only and the save is refused until the item is removed.
            #expect(!item.isEditable)
            let before = try Self.bytes(url)
            item.metadata.title = "x"
            let error = await #expect(throws: MediaError.self) { try await item.save(options: Self.fast) }
            #expect(error?.code == .unsupportedFeature)
            #expect(try Self.bytes(url) == before)
            item.metadata.items.removeAll { $0.key == "CRM" }
        } else {
            #expect(item.isEditable)
        }
        let artwork = [
            Artwork(data: Data(B.tinyPNG), pictureType: .frontCover, description: "Front \(text)"),
            Artwork(data: Data(Self.jpeg), mimeType: "image/jpeg", pictureType: .backCover),
        ]
        Self.setEveryField(&item.metadata, text, artwork: artwork)
        try await item.save(options: Self.fast)
        try await Self.checkEveryField(item.metadata, text, artwork: artwork)
        let reread = try await MediaItem.loaded(url)
        try await Self.checkEveryField(reread.metadata, text, artwork: artwork)
        #expect(try Self.audio(url) == audio)
        let written = try Self.bytes(url)
        #expect(written[3] == (version == 3 ? 3 : 4), "v2.2 is upgraded to v2.4, the others kept")
        if version == 2 {
            #expect(reread.item("TT2") == nil && reread.item("TIT2") != nil)
            #expect(reread.item("CRM") == nil, "CRM was removed by the user")
            #expect(reread.item("TYER")?.value == nil && reread.item("TDRC")?.value == .string("2024"))
        }
        let title = reread.item("TIT2")
        let expectedType: MetadataDataType = text == "ASCII" || text.hasPrefix("Björk") ? .latin1 : (version == 3 ? .utf16 : .utf8)
        #expect(title?.dataType == expectedType)
    }

    @Test func version22PictureBecomesAPICWithAMIMEType() async throws {
        let url = try Self.makeFile(Self.basicTag(version: 2))
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "New"
        item.metadata.items.removeAll { $0.key == "CRM" }
        try await item.save(options: Self.fast)
        let apic = try #require(item.item("APIC"))
        guard case .picture(let artwork) = apic.value else {
            Issue.record("no picture")
            return
        }
        #expect(artwork.mimeType == "image/png" && artwork.pictureType == .frontCover)
        #expect(try await artwork.data() == Data(B.tinyPNG))
        #expect(item.metadata.comments == "Old comment" && item.item("COMM")?.language == "eng")
        #expect(item.metadata.date == "1999" && item.item("TDRC")?.value == .string("1999"))
    }

    @Test func artworkAddReplaceRemove() async throws {
        let url = try Self.makeFile(Self.basicTag(version: 4))
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.artwork = [Artwork(data: Data(B.tinyPNG))]
        try await item.save(options: Self.fast)
        #expect(item.metadata.artwork.count == 1 && item.metadata.artwork[0].mimeType == "image/png")

        item.metadata.artwork = [Artwork(data: Data(Self.jpeg), mimeType: "image/jpeg", pictureType: .artist, description: "me")]
        try await item.save(options: Self.fast)
        #expect(item.metadata.artwork.map(\.pictureType) == [.artist])
        #expect(try await item.metadata.artwork[0].data() == Data(Self.jpeg))

        item.metadata.artwork.append(Artwork(data: Data(B.tinyPNG), pictureType: .backCover))
        try await item.save(options: Self.fast)
        #expect(item.metadata.artwork.map(\.pictureType) == [.artist, .backCover])
        #expect(try await item.metadata.artwork[0].data() == Data(Self.jpeg), "the kept picture survives")

        item.metadata.artwork = []
        try await item.save(options: Self.fast)
        #expect(item.metadata.artwork.isEmpty && item.item("APIC") == nil)
        #expect(item.metadata.title == "Old title")
    }

    @Test func rawItemEdits() async throws {
        let url = try Self.makeFile(Self.basicTag(version: 3))
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.items.append(MetadataItem(keySpace: .id3, key: "TXXX:MOOD", value: .string("calm ☕"), dataType: .utf8))
        item.metadata.items.append(
            MetadataItem(keySpace: .id3, key: "WXXX:shop", value: .string("https://example.com/"), dataType: .latin1))
        item.metadata.items.append(MetadataItem(keySpace: .id3, key: "USLT", value: .string("la la"), dataType: .latin1, language: "deu"))
        item.metadata.items.append(MetadataItem(keySpace: .id3, key: "PRIV:owner", value: .data(Data([1, 2, 0, 3])), dataType: .binary))
        item.metadata.items.append(MetadataItem(keySpace: .id3, key: "WOAR", value: .string("https://artist.example/"), dataType: .latin1))
        item.metadata.items.append(MetadataItem(keySpace: .id3, key: "TPE1", value: .strings(["A", "B"]), dataType: .latin1))
        item.metadata.items.removeAll { $0.key == "TPE1" && $0.value == .string("Old artist") }
        try await item.save(options: Self.fast)
        #expect(item.item("TXXX:MOOD")?.value == .string("calm ☕"))
        #expect(item.item("TXXX:MOOD")?.dataType == .utf16)
        #expect(item.item("WXXX:shop")?.value == .string("https://example.com/"))
        #expect(item.item("USLT")?.value == .string("la la") && item.item("USLT")?.language == "deu")
        #expect(item.item("PRIV:owner")?.value == .data(Data([1, 2, 0, 3])))
        #expect(item.item("WOAR")?.value == .string("https://artist.example/"))
        #expect(item.item("TPE1")?.value == .string("A/B"), "v2.3 joins several values with /")
        item.metadata.items.removeAll { $0.key == "TXXX:MOOD" }
        try await item.save(options: SaveOptions(id3v2Version: .v2_4, durability: .noSync))
        #expect(item.item("TXXX:MOOD") == nil && item.item("WXXX:shop") != nil)

        var bad = item
        bad.metadata.items.append(MetadataItem(keySpace: .id3, key: "mood", value: .string("x"), dataType: .utf8))
        await #expect(throws: MediaError.self) { try await bad.save(options: Self.fast) }
    }

    // MARK: Frames kept byte for byte

    @Test func unknownPrivateEncryptedAndCompressedFramesSurvive() async throws {
        let compressedText = B.text(["Compressed album"], encoding: 0)
        let compressed = B.compress(compressedText)
        let kept: [[UInt8]] = [
            B.frame("XYZW", [0x81, 1, 2, 3, 4, 5], flags: 0x2040), // file-alter flag, group 0x81
            B.frame("PRIV", Array("com.example.x".utf8) + [0, 0xDE, 0xAD, 0xBE, 0xEF]),
            B.frame("TPE3", [0x05, 0x99, 0x98, 0x97], flags: 0x0004), // encrypted, method 5
            B.frame("TALB", B.syncsafe(UInt32(compressedText.count)) + compressed, flags: 0x0009),
            B.frame("COMM", B.comment(" 0000044E 00000211", description: "iTunNORM", encoding: 0)),
            B.frame("POPM", Array("me@example.com".utf8) + [0, 196, 0, 0, 0, 7]),
        ]
        var tag = B(version: 4)
        tag.frames = [B.frame("TIT2", B.text(["Old"], encoding: 0))] + kept
        tag.padding = 64
        let url = try Self.makeFile(tag.bytes())
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "A new title that is longer than the padding of sixty-four bytes allows, so the tag grows"
        item.metadata.comments = "Hello"
        try await item.save(options: Self.fast)
        let written = try Self.bytes(url)
        for frame in kept {
            #expect(Self.contains(written, frame), "\(String(decoding: frame[0..<4], as: UTF8.self)) kept byte for byte")
        }
        #expect(item.metadata.album == "Compressed album")
        #expect(item.item("COMM:iTunNORM")?.value == .string(" 0000044E 00000211"))

        // Converting to v2.3: the encrypted frame can't be re-encoded, so the save is
        // refused (nothing written) until the item is removed; the others are re-encoded.
        let before = try Self.bytes(url)
        let error = await #expect(throws: MediaError.self) {
            try await item.save(options: SaveOptions(id3v2Version: .v2_3, durability: .noSync))
        }
        #expect(error?.code == .unsupportedFeature && error?.offset != nil)
        #expect(try Self.bytes(url) == before)
        item.metadata.items.removeAll { $0.key == "TPE3" }
        try await item.save(options: SaveOptions(id3v2Version: .v2_3, durability: .noSync))
        let converted = try Self.bytes(url)
        #expect(converted[3] == 3)
        #expect(item.item("TPE3") == nil)
        #expect(item.item("XYZW")?.value == .data(Data([1, 2, 3, 4, 5])))
        #expect(item.item("PRIV:com.example.x")?.value == .data(Data([0xDE, 0xAD, 0xBE, 0xEF])))
        #expect(item.metadata.album == "Compressed album")
        #expect(
            Self.contains(converted, Array("POPM".utf8) + B.be32(20) + [0, 0] + Array("me@example.com".utf8) + [0, 196, 0, 0, 0, 7]),
            "POPM keeps its play counter across versions")
    }

    // MARK: Layout

    @Test func inPlaceWhenTheTagFitsRewriteWhenItGrows() async throws {
        let url = try Self.makeFile(Self.basicTag(version: 4, padding: 512))
        defer { Self.remove(url) }
        let audio = try Self.audio(url)
        let size = try Self.size(url), inode = try Self.inode(url)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Fits in the padding"
        try await item.save(options: Self.fast)
        #expect(try Self.size(url) == size && Self.inode(url) == inode, "in place")

        item.metadata.comments = String(repeating: "long comment ", count: 100)
        try await item.save(options: Self.fast)
        let grown = try Self.size(url)
        // Without fsync, a small file's new layout is written in place (a tail
        // replacement with the old tail in the journal); with fsync, through a
        // temporary file (a new inode).
        #expect(try grown > size + 1300 - 512 && Self.inode(url) == inode, "grown in place with padding (no fsync, small file)")
        let header = try #require(try ID3v2Header.read(from: FileSource(url: url), at: 0))
        let frames = try ID3v2TagParser(source: FileSource(url: url), url: url, header: header).frames()
        let used = try #require(frames.last).range.upperBound - header.bodyOffset
        #expect(header.size - used == 1024, "1 KiB of padding for a small file")
        #expect(try Self.audio(url) == audio)
        #expect(item.metadata.title == "Fits in the padding")

        item.metadata.comments = String(repeating: "longer comment ", count: 200)
        try await item.save(options: SaveOptions(durability: .full))
        #expect(try Self.size(url) > grown && Self.inode(url) != inode, "rewritten through a temporary file (fsync)")
        #expect(try Self.audio(url) == audio)
    }

    @Test func growAndShrinkManyTimesDoesNotDrift() async throws {
        let url = try Self.makeFile(Self.basicTag(version: 3, padding: 0))
        defer { Self.remove(url) }
        let audio = try Self.audio(url)
        var item = try await MediaItem.loaded(url)
        var sizes: Set<Int> = []
        var inPlace = 0, rewrites = 0
        for round in 0..<100 {
            let inode = try Self.inode(url), before = try Self.size(url)
            item.metadata.comments = round % 2 == 0 ? String(repeating: "grow ", count: 200 + round % 7) : "short"
            item.metadata.artwork = round % 4 == 0 ? [Artwork(data: Data(B.tinyPNG))] : []
            try await item.save(options: Self.fast)
            if try Self.inode(url) == inode && Self.size(url) == before { inPlace += 1 } else { rewrites += 1 }
            sizes.insert(try Self.size(url))
        }
        #expect(sizes.count == 1, "sizes seen: \(sizes.sorted())")
        #expect(rewrites == 1 && inPlace == 99)
        #expect(try Self.audio(url) == audio)
    }

    @Test func shrinkingALotRewritesSmaller() async throws {
        let url = try Self.makeFile(Self.basicTag(version: 4, padding: 0))
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.artwork = [Artwork(data: Data(B.tinyPNG + [UInt8](repeating: 0, count: 200_000)))]
        try await item.save(options: Self.fast)
        let big = try Self.size(url)
        item.metadata.artwork = []
        try await item.save(options: Self.fast)
        #expect(try Self.size(url) < big - 190_000)
        // Saving again without changes is in place.
        let size = try Self.size(url), inode = try Self.inode(url)
        item.metadata.title = "x"
        try await item.save(options: Self.fast)
        #expect(try Self.size(url) == size && Self.inode(url) == inode)
    }

    @Test func saveToAnotherFileLeavesTheOriginal() async throws {
        let url = try Self.makeFile(Self.basicTag(version: 3), trailer: B.id3v1(title: "Old"))
        defer { Self.remove(url) }
        let original = try Self.bytes(url)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Copy"
        let destination = url.deletingLastPathComponent().appendingPathComponent("copy.mp3")
        try await item.save(to: destination, options: Self.fast)
        #expect(try Self.bytes(url) == original)
        let copy = try await MediaItem.loaded(destination)
        #expect(copy.metadata.title == "Copy" && copy.item("title", .id3v1)?.value == .string("Copy"))
        #expect(try Self.audio(destination) == Self.audio(url) && Self.size(destination) == original.count)
    }

    @Test func untaggedFileGetsAVersion24Tag() async throws {
        let url = try Self.makeFile([])
        defer { Self.remove(url) }
        let audio = try Self.audio(url)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "New"
        try await item.save(options: Self.fast)
        #expect(try Self.bytes(url)[0..<4].elementsEqual(Array("ID3".utf8) + [4]))
        #expect(item.metadata.title == "New")
        #expect(try Self.audio(url) == audio)
    }

    @Test func appendedTagIsMergedIntoTheLeadingTag() async throws {
        var appended = B(version: 4)
        appended.frames = [B.frame("TXXX", B.text(["MOOD", "calm"], encoding: 0)), B.frame("TPE2", B.text(["Band"], encoding: 0))]
        appended.footer = true
        let ape =
            Array("APETAGEX".utf8) + [0xD0, 0x07, 0, 0] + [32, 0, 0, 0] + [0, 0, 0, 0] + [0, 0, 0, 0] + [UInt8](repeating: 0, count: 8)
        let url = try Self.makeFile(Self.basicTag(version: 4), trailer: appended.bytes() + ape + B.id3v1(title: "v1"))
        defer { Self.remove(url) }
        let audio = try Self.audio(url)
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.albumArtist == "Band")
        item.metadata.title = "Merged"
        try await item.save(options: Self.fast)
        let written = try Self.bytes(url)
        #expect(!Self.contains(written, Array("3DI".utf8)), "no appended tag left")
        #expect(Self.contains(written, ape), "the APE tag is kept")
        #expect(item.item("TXXX:MOOD")?.value == .string("calm") && item.metadata.albumArtist == "Band")
        #expect(item.item("title", .id3v1)?.value == .string("Merged"))
        #expect(try Self.audio(url) == audio)
    }

    @Test(arguments: [3, 4] as [UInt8])
    func aSavePlannedFromTheLoadsLayoutWritesWhatAFreshParseWould(version: UInt8) async throws {
        // Stacked and appended tags, APE and ID3v1: every part the layout holds.
        var stacked = B(version: 3)
        stacked.frames = [B.frame("TALB", B.text(["Second tag"], encoding: 0)), B.frame("TIT2", B.text(["Shadowed"], encoding: 0))]
        var appended = B(version: 4)
        appended.frames = [B.frame("TPE2", B.text(["Band"], encoding: 0))]
        appended.footer = true
        let ape =
            Array("APETAGEX".utf8) + [0xD0, 0x07, 0, 0] + [32, 0, 0, 0] + [0, 0, 0, 0] + [0, 0, 0, 0] + [UInt8](repeating: 0, count: 8)
        let url = try Self.makeFile(
            Self.basicTag(version: version) + stacked.bytes(), trailer: appended.bytes() + ape + B.id3v1(title: "v1"))
        defer { Self.remove(url) }
        let loaded = try MP3Parser.parse(FileSource(url: url), url)
        #expect(loaded.editBasis is MP3Layout)
        var item = try await MediaItem.loaded(url)
        for options in [Self.fast, SaveOptions(id3v2Version: .v2_3, durability: .noSync)] {
            for (edit, edited) in TestSupport.sampleEdits(of: item.metadata, commentLength: 1_000).enumerated() {
                let items = try MetadataChanges().resolvedItems(
                    loaded: item.metadata, edited: edited, keySpaces: [.id3, .id3v1, .ape], derived: [.id3v1])
                let source = try FileSource(url: url)
                let fromBasis = try MP3EditPlanner.plan(source, basis: loaded.editBasis, items, options)
                let fromFile = try MP3EditPlanner.plan(source, items, options)
                #expect(
                    try TestSupport.bytes(after: fromBasis, of: source) == TestSupport.bytes(after: fromFile, of: source),
                    "v2.\(version), edit \(edit)")
            }
        }
        // And through the item: its save plans from the load's layout.
        let audio = try Self.audio(url)
        item.metadata.title = "Saved"
        try await item.save(options: Self.fast)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "Saved" && reread.metadata.albumArtist == "Band" && reread.metadata.album == "Second tag")
        #expect(try Self.audio(url) == audio)
    }

    @Test func inPlacePatchCoversOnlyTheChangedBytes() async throws {
        var tag = B(version: 4)
        tag.frames = [
            B.frame("TIT2", B.text(["Old"], encoding: 0)),
            B.frame("APIC", B.picture(B.tinyPNG + [UInt8](repeating: 7, count: 100_000))),
        ]
        tag.padding = 100
        let url = try Self.makeFile(tag.bytes())
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "New"
        let items = try MetadataChanges().resolvedItems(
            loaded: try await MediaItem.loaded(url).metadata, edited: item.metadata,
            keySpaces: [.id3, .id3v1])
        guard case .inPlace(let patches) = try MP3EditPlanner.plan(FileSource(url: url), items, Self.fast) else {
            Issue.record("expected an in-place plan")
            return
        }
        #expect(patches.count == 1 && patches[0].offset == 21 && patches[0].bytes == Array("New".utf8))
    }

    @Test func paddingPolicy() {
        let policy = ID3v2PaddingPolicy.standard
        #expect(policy.padding(audioBytes: 8_000) == 1024)
        #expect(policy.padding(audioBytes: 10 << 20) == 1024 + 2560)
        #expect(policy.padding(audioBytes: 1 << 30) == 65_536)
        #expect(policy.reuses(space: 2000, content: 2000) && !policy.reuses(space: 1999, content: 2000))
        #expect(policy.reuses(space: 100_000, content: 40_000), "leftover above 64 KiB but below the frames")
        #expect(!policy.reuses(space: 100_000, content: 30_000), "leftover above 64 KiB and above the frames")
    }

    // MARK: Versions and dates

    @Test func version24To23To24KeepsEveryValue() async throws {
        let url = try Self.makeFile(Self.basicTag(version: 4))
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        let text = "Ünïcødé 日本語"
        let artwork = [Artwork(data: Data(B.tinyPNG), description: "Cover \(text)")]
        Self.setEveryField(&item.metadata, text, artwork: artwork)
        item.metadata.items.append(MetadataItem(keySpace: .id3, key: "TXXX:MOOD", value: .string(text), dataType: .utf8))
        try await item.save(options: Self.fast)
        item.metadata.items.removeAll { $0.key == "TDRC" }
        item.metadata.items.append(MetadataItem(keySpace: .id3, key: "TDRC", value: .string("2024-05-01T12:30"), dataType: .latin1))
        item.metadata.items.append(MetadataItem(keySpace: .id3, key: "TDOR", value: .string("1987-02-03"), dataType: .latin1))
        try await item.save(options: Self.fast)
        let before = item.metadata

        try await item.save(options: SaveOptions(id3v2Version: .v2_3, durability: .noSync))
        #expect(try Self.bytes(url)[3] == 3)
        #expect(item.item("TDRC") == nil && item.item("TDOR") == nil)
        #expect(item.item("TYER")?.value == .string("2024") && item.item("TDAT")?.value == .string("0105"))
        #expect(item.item("TIME")?.value == .string("1230") && item.item("TORY")?.value == .string("1987"))
        #expect(item.item("TXXX:MOOD")?.value == .string(text))

        try await item.save(options: SaveOptions(id3v2Version: .v2_4, durability: .noSync))
        #expect(try Self.bytes(url)[3] == 4)
        #expect(item.item("TDRC")?.value == .string("2024-05-01T12:30") && item.item("TYER") == nil)
        #expect(item.item("TDAT") == nil && item.item("TIME") == nil && item.item("TDOR")?.value == .string("1987"))
        for field in MetadataField.allCases where field != .artwork {
            #expect(item.metadata[field] == before[field], "\(field)")
        }
        try await Self.checkEveryField(item.metadata.with(year: "2024"), text, artwork: artwork)
    }

    @Test func timestampSplitsIntoV23Fields() {
        let date = ID3v2FrameMapping.Timestamp("2024-05-01T12:30:15")
        #expect(date?.year == "2024" && date?.dayMonth == "0105" && date?.hourMinute == "1230")
        #expect(ID3v2FrameMapping.Timestamp("2024")?.dayMonth == nil)
        #expect(ID3v2FrameMapping.Timestamp("2024-05")?.dayMonth == nil)
        #expect(ID3v2FrameMapping.Timestamp("May 2024") == nil)
    }

    // MARK: ID3v1

    @Test func id3v1UpdateAddRemove() async throws {
        let url = try Self.makeFile(Self.basicTag(version: 4), trailer: B.id3v1(title: "Old", genre: 17))
        defer { Self.remove(url) }
        let size = try Self.size(url), inode = try Self.inode(url)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Ünïcødé 日本 and a title far longer than thirty characters"
        item.metadata.trackNumber = 7
        item.metadata.date = "2024-05-01"
        item.metadata.genre = Genre(name: "Jazz")
        try await item.save(options: Self.fast)
        #expect(try Self.size(url) == size && Self.inode(url) == inode, "both tags patched in place")
        let tail = Array(try Self.bytes(url).suffix(128))
        // Only the changed fields: the artist and comment (unchanged) stay empty in ID3v1.
        #expect(tail == B.id3v1(title: "Ünïcødé ?? and a title far lon", year: "2024", track: 7, genre: 8))

        try await item.save(options: SaveOptions(id3v1: .remove, durability: .noSync))
        #expect(try Self.size(url) == size - 128 && item.item("title", .id3v1) == nil)

        item.metadata.artist = "Again"
        try await item.save(options: Self.fast)
        #expect(item.item("title", .id3v1) == nil, ".updateExisting adds none")
        try await item.save(options: SaveOptions(id3v1: .add, durability: .noSync))
        #expect(item.item("artist", .id3v1)?.value == .string("Again"))
        #expect(item.item("title", .id3v1)?.value == .string("Ünïcødé ?? and a title far lon"))
        // The genre went into ID3v2 (a new ID3v1 tag gets every normalized field), so it survived.
        #expect(item.item("TCON")?.value == .string("Jazz"))
        #expect(item.item("genre", .id3v1)?.value == .integer(8))
    }

    @Test func removesAllTagsKeepsAudioAPEAndLyrics() async throws {
        let lyrics = Array("LYRICSBEGIN".utf8) + Array("IND00002".utf8) + Array("10".utf8)
        let lyricsBlock = lyrics + Array(String(format: "%06d", lyrics.count).utf8) + Array("LYRICS200".utf8)
        let ape =
            Array("APETAGEX".utf8) + [0xD0, 0x07, 0, 0] + [32, 0, 0, 0] + [0, 0, 0, 0] + [0, 0, 0, 0] + [UInt8](repeating: 0, count: 8)
        let enhanced = Array("TAG+".utf8) + [UInt8](repeating: 0x41, count: 223)
        let url = try Self.makeFile(Self.basicTag(version: 3), trailer: ape + lyricsBlock + enhanced + B.id3v1(title: "v1"))
        defer { Self.remove(url) }
        let audio = try Self.audio(url)
        var item = try await MediaItem.loaded(url)
        try await item.save(options: SaveOptions(removesAllTags: true, durability: .noSync))
        #expect(try Self.bytes(url) == audio + ape + lyricsBlock)
        #expect(item.metadata.items.isEmpty)
    }

    // MARK: Failures

    @Test func invalidValueLeavesTheFileUntouched() async throws {
        let url = try Self.makeFile(Self.basicTag(version: 4))
        defer { Self.remove(url) }
        let original = try Self.bytes(url)
        var item = try await MediaItem.loaded(url)
        item.metadata.trackNumber = -1
        do {
            try await item.save(options: Self.fast)
            Issue.record("saved a negative track number")
        } catch {
            #expect(error.code == .invalidValue)
        }
        var rating = try await MediaItem.loaded(url)
        rating.metadata.items.append(MetadataItem(keySpace: .id3, key: "POPM:x", value: .integer(300), dataType: .unsignedInteger))
        await #expect(throws: MediaError.self) { try await rating.save(options: Self.fast) }
        var structured = try await MediaItem.loaded(url)
        structured.metadata.items.append(MetadataItem(keySpace: .id3, key: "ETCO", value: .string("x"), dataType: .latin1))
        await #expect(throws: MediaError.self) { try await structured.save(options: Self.fast) }
        #expect(try Self.bytes(url) == original)
    }

    @Test func changedFileIsRefused() async throws {
        let url = try Self.makeFile(Self.basicTag(version: 4))
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        let changed = try Self.bytes(url)
        item.metadata.title = "x"
        do {
            try await item.save(options: Self.fast)
            Issue.record("saved over a changed file")
        } catch {
            #expect(error.code == .fileChanged)
        }
        #expect(try Self.bytes(url) == changed)
    }

    // MARK: Dates and ID3v1

    /// v2.3 stores a full date as TYER + TDAT + TIME; it reads back whole.
    @Test func fullDateInAVersion23File() async throws {
        let url = try Self.makeFile(Self.basicTag(version: 3))
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.date = "2024-05-01T12:30"
        try await item.save(options: Self.fast)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.date == "2024-05-01T12:30")
        #expect(Set(reread.metadata.items.map(\.key)).isSuperset(of: ["TYER", "TDAT", "TIME"]))
    }

    /// A genre outside the ID3v1 list goes to ID3v2; the ID3v1 tag keeps no genre for it.
    @Test func customGenreWithAnID3v1Genre() async throws {
        let url = try Self.makeFile(Self.basicTag(version: 4), trailer: B.id3v1(title: "Old", genre: 17))
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.genre = Genre(name: "Chiptune Ünïcødé")
        try await item.save(options: Self.fast)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.genre?.name == "Chiptune Ünïcødé")
        #expect(reread.metadata.items.first { $0.keySpace == .id3v1 && $0.key == "genre" } == nil)
    }

    /// Setting the year keeps the release and original dates.
    @Test func yearEditKeepsOtherDates() async throws {
        let url = try Self.makeFile(Self.basicTag(version: 4))
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.items.append(MetadataItem(keySpace: .id3, key: "TDOR", value: .string("1999"), dataType: .utf8))
        try await item.save(options: Self.fast)
        item.metadata.date = "2025"
        try await item.save(options: Self.fast)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.date == "2025")
        #expect(reread.metadata.items.contains { $0.key == "TDOR" && $0.value == .string("1999") })
    }

    @Test func languageCodes() {
        #expect(ID3v2FrameEncoder.language(nil) == Array("eng".utf8))
        #expect(ID3v2FrameEncoder.language("DEU") == Array("DEU".utf8), "kept as read")
        #expect(ID3v2FrameEncoder.language("XXX") == Array("XXX".utf8))
        #expect(ID3v2FrameEncoder.language("") == [0, 0, 0])
        #expect(ID3v2FrameEncoder.language("en") == Array("XXX".utf8))
        #expect(ID3v2FrameEncoder.language("日本語") == Array("XXX".utf8))
    }
}

extension Metadata {
    func with(year: String) -> Metadata {
        var copy = self
        copy.date = year
        return copy
    }
}
