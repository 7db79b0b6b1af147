import Foundation
import Testing

@testable import MetadataKit

/// APEv2 tags and codec headers on hand-built files (``APEBuilder``): what
/// each header says, every kind of item, ID3v1 and Lyrics3 beside the tag,
/// and saves that keep what nobody changed byte for byte.
@Suite struct APETests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }

    @Test(arguments: APEBuilder.streams)
    func headersGiveTheProperties(stream: APEBuilder.Stream) async throws {
        let tag = APEBuilder.tag([APEBuilder.text("Title", "x")])
        let url = try write(stream.bytes + tag, "a.\(stream.pathExtension)")
        let item = try await MediaItem.loaded(url)
        #expect(item.format?.identifier == stream.format)
        #expect(item.properties.sampleRate == stream.rate)
        #expect(item.properties.channels == stream.channels)
        #expect(item.properties.bitsPerSample == stream.bits)
        let duration = try #require(item.properties.duration)
        #expect(abs(duration - Double(stream.samples) / Double(stream.rate)) < 1e-9)
        let bitrate = try #require(item.properties.bitrate)
        if stream.name == "musepack-sv5" {
            #expect(bitrate == 128_000)
        } else {
            #expect(bitrate == Int((Double(stream.bytes.count) * 8 / duration).rounded()))
        }
        #expect(item.properties.codec != nil)
        #expect(item.metadata.title == "x")
        #expect(item.warnings.isEmpty, "\(item.warnings)")
    }

    @Test func everyKindOfItemIsRead() async throws {
        let png = ID3Builder.tinyPNG
        let url = try write(APEBuilder.monkeysAudio() + APEBuilder.richTag(picture: png) + APEBuilder.id3v1(title: "v1 title"), "a.ape")
        let item = try await MediaItem.loaded(url)
        #expect(item.warnings.isEmpty, "\(item.warnings)")
        func raw(_ key: String) -> MetadataItem? { item.metadata.items.first { $0.keySpace == .ape && $0.key == key } }
        #expect(raw("TITLE")?.value == .string("Tïtle ✓ 日本"))
        #expect(raw("ARTIST")?.value == .strings(["Ärtist One", "Artist Two"]))
        #expect(raw("CUSTOM THING")?.value == .string("keep me"))
        #expect(raw("BLOB")?.value == .data(Data([0, 1, 2, 255])) && raw("BLOB")?.dataType == .binary)
        #expect(raw("LINK")?.value == .string("http://example.com/ü") && raw("LINK")?.dataType == .apeLocator)
        let m = item.metadata
        #expect(m.title == "Tïtle ✓ 日本" && m.album == "Album" && m.date == "2021" && m.genre?.name == "Shoegaze")
        #expect(m.trackNumber == 3 && m.trackCount == 12 && m.discNumber == 1 && m.discCount == 2)
        let picture = try #require(m.artwork.first)
        #expect(picture.pictureType == .frontCover && picture.description == "cover.png" && picture.mimeType == "image/png")
        #expect(try await picture.data() == Data(png))
        // ID3v1 is read too, after the APE tag in precedence.
        #expect(item.metadata.items.contains { $0.keySpace == .id3v1 && $0.key == "title" && $0.value == .string("v1 title") })
    }

    /// APEv2 keys are unique and case-insensitive: a tag that holds one twice
    /// gives the field from the later item, as mutagen and TagLib read it
    /// (each replaces the earlier item), and both stay raw items; a save
    /// that sets the field leaves one item.
    @Test func aKeyGivenTwiceTakesTheLaterItem() async throws {
        let tag = APEBuilder.tag([
            APEBuilder.text("Title", "first"), APEBuilder.text("Artist", "one"), APEBuilder.text("TITLE", "second"),
            APEBuilder.text("Track", "1/9"), APEBuilder.text("ARTIST", "two"), APEBuilder.text("artist", "three"),
            APEBuilder.text("TRACK", "4/10"),
        ])
        let url = try write(APEBuilder.monkeysAudio() + tag, "a.ape")
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "second" && item.metadata.artist == "three")
        #expect(item.metadata.trackNumber == 4 && item.metadata.trackCount == 10)
        #expect(item.metadata.items.filter { $0.key == "TITLE" }.map(\.value) == [.string("first"), .string("second")])
        #expect(item.metadata.items.filter { $0.key == "ARTIST" }.count == 3)
        item.metadata.title = "new"
        try await item.save()
        let saved = try await MediaItem.loaded(url)
        #expect(saved.metadata.items.filter { $0.key == "TITLE" }.map(\.value) == [.string("new")])
        #expect(saved.metadata.title == "new" && saved.metadata.artist == "three" && saved.metadata.trackNumber == 4)
        #expect(saved.metadata.items.filter { $0.key == "ARTIST" }.count == 3)
    }

    @Test func apev1FooterOnlyAndLyrics3BeforeID3v1AreRead() async throws {
        let lyrics = Array("LYRICSBEGIN".utf8) + Array("IND00003110".utf8)
        let size = String(format: "%06d", lyrics.count)
        let block = lyrics + Array(size.utf8) + Array("LYRICS200".utf8)
        let tag = APEBuilder.tag([APEBuilder.text("Title", "one")], version: 1000, header: false)
        let url = try write(APEBuilder.optimFROG() + tag + block + APEBuilder.id3v1(title: "v1"), "a.ofr")
        let item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "one")
        #expect(item.properties.duration == 2)
        #expect(item.warnings.isEmpty, "\(item.warnings)")
    }

    /// A leading ID3v2 tag is read (as `id3` items) and kept in step: a
    /// field both tags hold is changed in both, in place here.
    @Test func leadingID3v2IsReadAndUpdated() async throws {
        var builder = ID3Builder(version: 4)
        builder.frames = [ID3Builder.frame("TIT2", ID3Builder.text(["id3 title"], encoding: 3))]
        builder.padding = 20
        let id3 = builder.bytes()
        let audio = APEBuilder.musepackSV7()
        let url = try write(id3 + audio + APEBuilder.tag([APEBuilder.text("Title", "ape")]), "a.mpc")
        var item = try await MediaItem.loaded(url)
        #expect(item.format?.identifier == "musepack")
        #expect(item.metadata.items.contains { $0.keySpace == .id3 && $0.key == "TIT2" && $0.value == .string("id3 title") })
        #expect(item.properties.sampleRate == 48000 && item.warnings.isEmpty)
        item.metadata.title = "new"
        try await item.save()
        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(bytes.count == id3.count + audio.count + APEBuilder.tag([APEBuilder.text("Title", "new")]).count)
        #expect(Array(bytes[id3.count..<id3.count + audio.count]) == audio)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "new")
        #expect(reread.metadata.items.filter { $0.key == "TIT2" || $0.key == "TITLE" }.map(\.value) == [.string("new"), .string("new")])
    }

    /// Every field with non-ASCII text and two pictures; unknown items keep
    /// their bytes (flags, key spelling); the audio and ID3v1 stay in place.
    @Test(arguments: APEBuilder.streams)
    func fullRoundTripKeepsUntouchedItems(stream: APEBuilder.Stream) async throws {
        let png = ID3Builder.tinyPNG
        let url = try write(stream.bytes + APEBuilder.richTag(picture: png) + APEBuilder.id3v1(title: "v1"), "a.\(stream.pathExtension)")
        var item = try await MediaItem.loaded(url)
        let before = item.properties
        item.metadata.title = "Tïtel ✓ 新"
        item.metadata.artist = "Ärtist"
        item.metadata.albumArtist = "Älbum Ärtist"
        item.metadata.album = "Älbum"
        item.metadata.grouping = "Gröup"
        item.metadata.composer = "Cömposer"
        item.metadata.comments = "Cömment\nline 2"
        item.metadata.genre = Genre(name: "Jäzz")
        item.metadata.date = "1999"
        item.metadata.bpm = 120
        item.metadata.trackNumber = 4
        item.metadata.trackCount = 9
        item.metadata.discNumber = 2
        item.metadata.discCount = 3
        item.metadata.artwork = [
            Artwork(data: Data(png), pictureType: .frontCover, description: "front.png"),
            Artwork(data: Data(png + [0]), mimeType: "image/png", pictureType: .backCover, description: "back ü.png"),
        ]
        try await item.save()

        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(Array(bytes.prefix(stream.bytes.count)) == stream.bytes, "audio bytes changed")
        #expect(bytes.suffix(128).starts(with: Array("TAG".utf8)), "the ID3v1 tag is no longer last")
        for untouched in [
            APEBuilder.text("Custom Thing", "keep me", flags: 1), APEBuilder.item("Blob", [0, 1, 2, 255], flags: 2),
            APEBuilder.item("Link", Array("http://example.com/ü".utf8), flags: 4),
        ] {
            #expect(bytes.firstRange(of: untouched) != nil, "an untouched item lost its bytes")
        }
        let reread = try await MediaItem.loaded(url)
        let m = reread.metadata
        #expect(m.title == "Tïtel ✓ 新" && m.artist == "Ärtist" && m.albumArtist == "Älbum Ärtist" && m.album == "Älbum")
        #expect(m.grouping == "Gröup" && m.composer == "Cömposer" && m.comments == "Cömment\nline 2")
        #expect(m.genre?.name == "Jäzz" && m.date == "1999" && m.bpm == 120)
        #expect(m.trackNumber == 4 && m.trackCount == 9 && m.discNumber == 2 && m.discCount == 3)
        #expect(m.artwork.map(\.pictureType) == [.frontCover, .backCover])
        #expect(m.artwork.map(\.description) == ["front.png", "back ü.png"])
        #expect(try await m.artwork.asyncMap { try await $0.data() } == [Data(png), Data(png + [0])])
        #expect(reread.properties == before)
        #expect(reread.warnings.isEmpty, "\(reread.warnings)")
        // Keys keep the file's spelling when their value changes.
        #expect(bytes.firstRange(of: Array("Title".utf8) + [0]) != nil)
        // The ID3v1 title follows the change.
        let v1Title = reread.metadata.items.first { $0.keySpace == .id3v1 && $0.key == "title" }?.value.stringValue
        #expect(v1Title?.hasPrefix("T") == true && v1Title != "v1")
    }

    @Test func rawItemsAreSetByKeyAndRemovingEveryItemDropsTheTag() async throws {
        let audio = APEBuilder.optimFROG()
        let url = try write(audio, "a.ofr")
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.items.isEmpty && item.isEditable)
        item.metadata.items.append(MetadataItem(keySpace: .ape, key: "MOOD", value: .strings(["a", "b"]), dataType: .utf8))
        item.metadata.title = "t"
        try await item.save()
        var reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.items.first { $0.key == "MOOD" }?.value == .strings(["a", "b"]))
        #expect(reread.metadata.title == "t")
        let saved = [UInt8](try Data(contentsOf: url))
        let footer = try #require(APETagFooter(parsing: Array(saved.suffix(32))))
        #expect(footer.version == 2000 && footer.itemCount == 2 && footer.flags == 0x8000_0000)
        #expect(Array(saved[audio.count..<audio.count + 8]) == Array("APETAGEX".utf8))
        #expect(APETagFooter(parsing: Array(saved[audio.count..<audio.count + 32]))?.flags == 0xA000_0000)

        reread.metadata.items.removeAll()
        reread.metadata = Metadata(items: [])
        try await reread.save()
        #expect([UInt8](try Data(contentsOf: url)) == audio)
    }

    @Test func invalidKeysAndDuplicatesAreRefusedBeforeWriting() async throws {
        let url = try write(APEBuilder.optimFROG() + APEBuilder.tag([APEBuilder.text("Title", "x")]), "a.ofr")
        let original = try Data(contentsOf: url)
        for key in ["X", "TAG", "ID3", "KÉY", String(repeating: "K", count: 256)] {
            var item = try await MediaItem.loaded(url)
            item.metadata.items.append(MetadataItem(keySpace: .ape, key: key, value: .string("v"), dataType: .utf8))
            await #expect(throws: MediaError.self, "\(key)") { try await item.save() }
        }
        var item = try await MediaItem.loaded(url)
        item.metadata.items.append(MetadataItem(keySpace: .ape, key: "TITLE", value: .string("again"), dataType: .utf8))
        await #expect(throws: MediaError.self) { try await item.save() }
        #expect(try Data(contentsOf: url) == original)
    }
}
