import Foundation
import Testing

@testable import MetadataKit

private typealias B = ID3Builder

/// Values a save changed although nobody asked (issues 16 and 17): ID3v1
/// fields rebuilt from ID3v2, comment languages, year text, empty frames,
/// RVA, genre names, track numbers with letters, multiple values.
@Suite struct ID3FidelityValueTests {
    static let fast = SaveOptions(durability: .noSync)

    static func bytes(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    // MARK: 3. ID3v1: only the changed fields

    /// A v2.3 tag and an ID3v1.0 tag that disagree on everything but the
    /// title and artist; the v1 album is space-padded (as some writers do).
    static func v1File() -> [UInt8] {
        var tag = B(version: 3)
        tag.frames = [
            B.frame("TIT2", B.text(["Old title"], encoding: 0), version: 3),
            B.frame("TPE1", B.text(["Old artist"], encoding: 0), version: 3),
            B.frame("TALB", B.text(["An album whose name is longer than thirty"], encoding: 0), version: 3),
            B.frame("TCON", B.text(["Jazz"], encoding: 0), version: 3),
            B.frame("COMM", B.comment("v2 comment", encoding: 0), version: 3),
            B.frame("TYER", B.text(["2001"], encoding: 0), version: 3),
            B.frame("TRCK", B.text(["4"], encoding: 0), version: 3),
        ]
        tag.padding = 100
        var v1 = B.id3v1(title: "Old title", artist: "Old artist", year: "1999", comment: "A v1 comment of thirty chars!!", genre: 17)
        let album = Array("An album whose name is".utf8)
        v1.replaceSubrange(63..<93, with: album + [UInt8](repeating: 0x20, count: 30 - album.count))
        return tag.bytes() + B.mpegFrames(10) + v1
    }

    @Test func id3v1KeepsEveryFieldNobodyChanged() async throws {
        let url = try B.file(Self.v1File())
        defer { try? FileManager.default.removeItem(at: url) }
        let oldV1 = Array(try Self.bytes(url).suffix(128))
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Łódź"
        item.metadata.artist = "Ærø € “quoted” ✓"

        let updates = try item.id3v1Updates()
        #expect(updates.map(\.field) == ["title", "artist"])
        #expect(updates[0].description == "title 'Łódź' → 'Lódz' (not Latin-1)", "ó is Latin-1 and stays")
        #expect(updates[1].written == "Ærø EUR \"quoted\" ?" && updates[1].loss == "not Latin-1")

        try await item.save(options: Self.fast)
        let newV1 = Array(try Self.bytes(url).suffix(128))
        #expect(Array(newV1[3..<33]) == [0x4C, 0xF3, 0x64, 0x7A] + [UInt8](repeating: 0, count: 26))
        #expect(Array(newV1[33..<63]) == ID3v1Writer.latin1("Ærø EUR \"quoted\" ?").bytes + [UInt8](repeating: 0, count: 12))
        #expect(
            Array(newV1[0..<3]) == Array(oldV1[0..<3]) && Array(newV1[63...]) == Array(oldV1[63...]),
            "album (space-padded), year, 30-byte comment and genre keep their bytes")
        #expect(item.item("genre", .id3v1)?.value == .integer(17) && item.item("year", .id3v1)?.value == .string("1999"))
        #expect(item.metadata.title == "Łódź", "ID3v2 holds the whole title")

        // A changed genre outside the list and a track: reported, and the
        // 30-byte comment is cut to make room for the track.
        item.metadata.genre = Genre(name: "Vaporwave")
        item.metadata.trackNumber = 5
        let more = try item.id3v1Updates()
        #expect(more.first { $0.field == "genre" }?.loss == "not in the ID3v1 genre list")
        #expect(more.first { $0.field == "comment" }?.loss == "cut to 28 bytes to make room for the track")
        try await item.save(options: Self.fast)
        let last = Array(try Self.bytes(url).suffix(128))
        #expect(last[125] == 0 && last[126] == 5 && last[127] == 255)
        #expect(Array(last[97..<125]) == Array(oldV1[97..<125]) && Array(last[3..<97]) == Array(newV1[3..<97]))
    }

    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func dryRunShowsWhatID3v1Loses() throws {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        let url = try B.file(Self.v1File())
        defer { try? FileManager.default.removeItem(at: url) }
        let before = try Self.bytes(url)
        let output = try TestSupport.run(executable.path, ["write", url.path, "--set", "title=Łukasz Œ", "--dry-run"])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.text.contains("title: 'Old title' → 'Łukasz Œ'"), "\(output.text)")
        #expect(output.text.contains("id3v1: title 'Łukasz Œ' → 'Lukasz OE' (not Latin-1)"), "\(output.text)")
        #expect(try Self.bytes(url) == before)
    }

    @Test func transliteration() {
        #expect(ID3v1Writer.latin1("Łódź Straße").bytes == ID3v1Writer.latin1("Lódz Straße").bytes)
        #expect(ID3v1Writer.latin1("Şişli Œuvre 5€…").bytes == Array("Sisli OEuvre 5EUR...".utf8))
        #expect(ID3v1Writer.latin1("Björk").isLossy == false && ID3v1Writer.latin1("東京").bytes == [0x3F, 0x3F])
    }

    // MARK: 4. Values nobody changed

    /// A v2.3 tag with the values other writers lost: comment languages
    /// "XXX" and zeros, a year that is no year, empty frames, RVAD.
    static func oddValuesTag() -> (tag: [UInt8], kept: [[UInt8]], rvad: [UInt8]) {
        let rvad: [UInt8] = [0x03, 0x10, 0x12, 0x34, 0x23, 0x45, 0x00, 0x00, 0x00, 0x00]
        let kept = [B.frame("PRIV", [], version: 3), B.frame("MCDI", [], version: 3), B.frame("TXXX", [], version: 3)]
        var tag = B(version: 3)
        tag.frames =
            [
                B.frame("TIT2", B.text(["Title"], encoding: 1), version: 3),
                B.frame("COMM", B.comment("unknown language", language: "XXX", encoding: 0), version: 3),
                B.frame("COMM", [1, 0, 0, 0] + B.encode("zero", encoding: 1) + [0, 0] + B.encode("no language", encoding: 1), version: 3),
                B.frame("TYER", B.text(["Test Year"], encoding: 0), version: 3),
                B.frame("RVAD", rvad, version: 3),
            ] + kept
        tag.padding = 50
        return (tag.bytes(), kept, rvad)
    }

    @Test func untouchedValuesSurviveAVersionChange() async throws {
        let (tag, kept, rvad) = Self.oddValuesTag()
        let url = try B.file(tag + B.mpegFrames(5))
        defer { try? FileManager.default.removeItem(at: url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.item("COMM")?.language == "XXX" && item.item("COMM:zero")?.language == "")
        // "Test Year" is no timestamp: no year field (as TagLib and mutagen read it), the frame kept.
        #expect(item.metadata.date == nil && item.metadata.items.count == 8)

        // Same version: every frame byte for byte.
        item.metadata.artist = "Someone"
        try await item.save(options: Self.fast)
        var written = try Self.bytes(url)
        for frame in kept + [B.frame("RVAD", rvad, version: 3)] { #expect(ID3WriterTests.contains(written, frame)) }
        #expect(
            ID3WriterTests.contains(written, Array(tag[10..<(tag.count - 50 - kept.joined().count - 20)])),
            "the frames before RVAD are unchanged")

        // v2.4: converted, values, languages and encodings kept.
        try await item.save(options: SaveOptions(id3v2Version: .v2_4, durability: .noSync))
        written = try Self.bytes(url)
        #expect(written[3] == 4)
        #expect(item.item("COMM")?.language == "XXX" && item.item("COMM:zero")?.language == "")
        #expect(item.item("COMM:zero")?.dataType == .utf16, "UTF-16 stays UTF-16 where v2.4 has it")
        #expect(item.item("TIT2")?.dataType == .utf16)
        #expect(item.item("TDRC")?.value == .string("Test Year") && item.metadata.date == nil)
        #expect(ID3WriterTests.contains(written, Array("TDRC".utf8) + B.syncsafe(10) + [0, 0, 0] + Array("Test Year".utf8)))
        for id in ["PRIV", "MCDI", "TXXX"] {
            #expect(ID3WriterTests.contains(written, Array(id.utf8) + [0, 0, 0, 0, 0, 0]), "empty \(id) kept")
        }
        #expect(ID3WriterTests.contains(written, Array("RVAD".utf8) + B.syncsafe(UInt32(rvad.count)) + [0, 0] + rvad))
        #expect(item.metadata.items.count == 9, "\(item.metadata.items.map(\.key))")

        if ToolCheck.has("python3:mutagen") {
            let dump = try ID3FidelityTests.dump(url)
            #expect(dump["COMM::XXX"] == ["unknown language", "lang='XXX'"], "\(dump)")
            #expect(dump["COMM:zero:\u{0}\u{0}\u{0}"]?.first == "no language", "\(dump)")
            #expect(dump["TPE1"] == ["Someone"], "\(dump)") // (mutagen reads TDRC as a timestamp: "Test Year" is none)
        }

        // Back to v2.3: the year text whole again.
        try await item.save(options: SaveOptions(id3v2Version: .v2_3, durability: .noSync))
        #expect(item.item("TYER")?.value == .string("Test Year") && item.item("COMM")?.language == "XXX")
    }

    @Test func version22RVAIsKeptInTheUpgrade() async throws {
        let rva: [UInt8] = [0x03, 0x10, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00]
        var tag = B(version: 2)
        tag.frames = [B.frame("TT2", B.text(["Title"], encoding: 0), version: 2), B.frame("RVA", rva, version: 2)]
        let url = try B.file(tag.bytes() + B.mpegFrames(5))
        defer { try? FileManager.default.removeItem(at: url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.isEditable)
        item.metadata.title = "New"
        try await item.save(options: Self.fast)
        #expect(try Self.bytes(url)[3] == 4)
        #expect(item.item("RVAD")?.value == .data(Data(rva)), "RVA becomes RVAD with its payload")
    }

    // MARK: 5. Genre names and track numbers

    @Test func genreTextAndTrackWithLettersAreKept() async throws {
        var tag = B(version: 4)
        tag.frames = [
            B.frame("TCON", B.text(["NEW AGE"], encoding: 0)),
            B.frame("TRCK", B.text(["90000A"], encoding: 0)),
        ]
        tag.padding = 40
        let url = try B.file(tag.bytes() + B.mpegFrames(5))
        defer { try? FileManager.default.removeItem(at: url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.genre?.name == "NEW AGE" && item.metadata.genre?.id3Index == 10)
        #expect(item.metadata.trackNumber == 90000)
        item.metadata.title = "t"
        try await item.save(options: Self.fast)
        #expect(item.item("TCON")?.value == .string("NEW AGE") && item.item("TRCK")?.value == .string("90000A"))
        #expect(item.metadata.genre?.name == "NEW AGE")
        // Numeric references are still mapped.
        #expect(GenreMetadataConverter.parseID3("(17)").map(\.name) == ["Rock"])
        #expect(GenreMetadataConverter.parseID3("10").map(\.name) == ["New Age"])
        #expect(GenreMetadataConverter.parseID3("(RX)(CR)").map(\.name) == ["Remix", "Cover"])
        #expect(PositionMetadataConverter.parse("3 of 12")?.number == 3 && PositionMetadataConverter.parse("A1") == nil)
    }

    // MARK: 6. Several values

    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func multipleValuesStayAListAndKeepTheirBytes() async throws {
        var tag = B(version: 4)
        let artists = B.frame("TPE1", B.text(["One", "Two"], encoding: 3))
        tag.frames = [B.frame("TIT2", B.text(["Title"], encoding: 0)), artists]
        tag.padding = 40
        let url = try B.file(tag.bytes() + B.mpegFrames(5))
        defer { try? FileManager.default.removeItem(at: url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.item("TPE1")?.value == .strings(["One", "Two"]) && item.metadata.artist == "One; Two")
        let executable = try #require(TestSupport.mdkitExecutable)
        let output = try TestSupport.run(executable.path, ["read", "--json", "--items", url.path])
        let objects = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])
        let items = try #require(objects.first?["items"] as? [[String: Any]])
        #expect(items.first { $0["key"] as? String == "TPE1" }?["value"] as? [String] == ["One", "Two"])
        item.metadata.title = "Other"
        try await item.save(options: Self.fast)
        #expect(ID3WriterTests.contains(try Self.bytes(url), artists), "written back as they were")
        // v2.3 has no list: joined with "/", as documented.
        try await item.save(options: SaveOptions(id3v2Version: .v2_3, durability: .noSync))
        #expect(item.item("TPE1")?.value == .string("One/Two"))
    }
}
