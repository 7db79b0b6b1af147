import Foundation
import Testing

@testable import MetadataKit

private typealias B = ASFBuilder

/// ASF files built byte by byte: every attribute type in every metadata
/// object, the properties, saves (in place and rewritten), where new
/// attributes go, and what is kept.
@Suite struct ASFTests {
    static let fast = SaveOptions(durability: .noSync)

    /// (key, value, data type, language) of each item.
    static func summary(_ items: [MetadataItem]) -> [String] {
        items.map { item in
            let value: String
            switch item.value {
            case .picture(let artwork):
                value = "picture \(artwork.mimeType) \(artwork.pictureType.rawValue) \(artwork.description) \(artwork.byteCount)"
            case .data(let data): value = "bytes " + data.map { String($0) }.joined(separator: ",")
            default: value = item.value.stringValue ?? ""
            }
            return "\(item.key)=\(value) [\(item.dataType)]" + (item.language.map { " @\($0)" } ?? "")
        }
    }

    static let richSummary = [
        "Title=Tïtle ✓ [UTF-16]", "Author=Äuthor [UTF-16]", "Copyright=© me [UTF-16]", "Description=A comment [UTF-16]",
        "Rating=PG [UTF-16]", "WM/AlbumTitle=Älbum 日本 [UTF-16]", "WM/TrackNumber=7 [DWORD]", "WM/PartOfSet=1/2 [UTF-16]",
        "WM/Genre=Shoegaze [UTF-16]", "WM/Year=2021 [UTF-16]", "IsVBR=1 [BOOL]", "WM/Bytes=bytes 1,2,3 [raw]",
        "WM/Big=-16 [QWORD]", "WM/Word=513 [WORD]", "WM/Picture=picture image/png 3 cover ü \(B.tinyPNG.count) [PNG]",
        "WM/StreamThing=per stream [UTF-16]", "WM/Flag=1 [BOOL]", "WM/Mood=Fröhlich [UTF-16] @de-de",
        "WM/ID=bytes " + ASFGUID.padding.bytes.map { String($0) }.joined(separator: ",") + " [GUID]", "WM/Composer=Cömposer [UTF-16]",
    ]

    // MARK: Reading

    @Test func readsEveryAttributeTypeInEveryObject() throws {
        let parsed = try B.parse(B.rich())
        #expect(Self.summary(parsed.items) == Self.richSummary)
        #expect(parsed.warnings.isEmpty)
        #expect(parsed.isEditable)
        #expect(parsed.fileType == .wma)
        let properties = parsed.properties
        #expect(properties.duration.map { abs($0 - 2) < 1e-6 } == true)
        #expect(properties.codec == "WMA v2" && properties.sampleRate == 44_100 && properties.channels == 2)
        #expect(properties.bitrate == 128_000 && properties.bitsPerSample == 16)
        #expect(properties.streams.map(\.id) == [1])
    }

    @Test func normalizedFieldsComeFromTheWMKeys() async throws {
        let url = try B.write(B.rich())
        defer { B.remove(url) }
        let item = try await MediaItem.loaded(url)
        let metadata = item.metadata
        #expect(metadata.title == "Tïtle ✓" && metadata.artist == "Äuthor" && metadata.album == "Älbum 日本")
        #expect(metadata.comments == "A comment" && metadata.genre?.name == "Shoegaze" && metadata.date == "2021")
        #expect(metadata.trackNumber == 7 && metadata.discNumber == 1 && metadata.discCount == 2)
        #expect(metadata.composer == "Cömposer")
        let picture = try #require(metadata.artwork.first)
        #expect(picture.pictureType == .frontCover && picture.description == "cover ü")
        #expect(try await picture.data() == Data(B.tinyPNG))
        #expect(picture.width == 3 && picture.height == 2)
        #expect(item.fileType?.identifier == "asf")
    }

    @Test func videoStreamsGiveTheirSizeAndFourCC() throws {
        let parsed = try B.parse(
            B.file([
                B.fileProperties(), B.videoStream(number: 1, width: 320, height: 240, fourCC: "WMV3"),
                B.audioStream(number: 2, codec: 0x162),
            ]))
        #expect(parsed.fileType == .wmv)
        #expect(parsed.properties.width == 320 && parsed.properties.height == 240)
        #expect(parsed.properties.codec == "WMA Pro")
        #expect(parsed.properties.streams.map(\.codecName) == ["WMV3", "WMA Pro"])
        for (codec, name) in [(0x160, "WMA v1"), (0x161, "WMA v2"), (0x163, "WMA Lossless")] {
            #expect(try B.parse(B.file([B.fileProperties(), B.audioStream(codec: codec)])).properties.codec == name)
        }
    }

    // MARK: Writing

    @Test func aSaveChangesOnlyWhatChangedAndKeepsTheRest() async throws {
        let original = B.rich()
        let url = try B.write(original)
        defer { B.remove(url) }
        let headerSize = try ASFHeader(parsing: FileSource(url: url)).size
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Néw ✓"
        item.metadata.trackNumber = 9
        item.metadata.items.removeAll { $0.key == "WM/Bytes" }
        try await item.save(options: Self.fast)
        #expect(item.lastSavePath == .inPlace)

        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(bytes.count == original.count)
        // The Data Object and what follows are untouched.
        #expect(bytes[Int(headerSize)...] == original[Int(headerSize)...])
        let parsed = try ASFParser.parse(try FileSource(url: url), url)
        #expect(parsed.warnings.isEmpty && parsed.isEditable)
        var expected = Self.richSummary
        expected[0] = "Title=Néw ✓ [UTF-16]"
        expected[6] = "WM/TrackNumber=9 [UTF-16]"
        expected.removeAll { $0.hasPrefix("WM/Bytes=") }
        #expect(Self.summary(parsed.items) == expected)
        // Unknown objects byte for byte; the header's count and size right; the stream numbers kept.
        let header = try ASFHeader(parsing: FileSource(url: url))
        let unknown = try #require(header.objects.first { $0.guid == ASFGUID("86D15240-311D-11D0-A3A4-00A0C90348F6") })
        #expect(unknown.bytes == B.object(ASFGUID("86D15240-311D-11D0-A3A4-00A0C90348F6"), [UInt8](repeating: 0x55, count: 30)))
        #expect(Int(header.declaredCount) == header.objects.count && header.size == headerSize)
        #expect(header.attributes.first { $0.name == "WM/StreamThing" }?.stream == 1)
        let mood = try #require(header.attributes.first { $0.name == "WM/Mood" })
        #expect(mood.place == .metadataLibrary && mood.languageIndex == 1)
    }

    @Test func aGrowingHeaderIsRewrittenWithPaddingAndTheFileSizeField() async throws {
        let original = B.rich()
        let url = try B.write(original)
        defer { B.remove(url) }
        let oldHeader = try ASFHeader(parsing: FileSource(url: url))
        var item = try await MediaItem.loaded(url)
        let big = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0) })
        item.metadata.items.append(MetadataItem(keySpace: .asf, key: "WM/Huge", value: .data(big), dataType: .binary))
        try await item.save(options: Self.fast)
        let bytes = [UInt8](try Data(contentsOf: url))
        let header = try ASFHeader(parsing: FileSource(url: url))
        #expect(bytes[Int(header.size)...] == original[Int(oldHeader.size)...])
        // Over 64 KiB: the Metadata Library.
        let huge = try #require(header.attributes.last)
        #expect(huge.name == "WM/Huge" && huge.place == .metadataLibrary && huge.data.count == 70_000)
        let padding = try #require(header.objects.last)
        #expect(padding.guid == .padding && padding.bytes.count >= ASFEditPlanner.growthPadding)
        // File Properties' file size is the new size.
        let properties = try #require(header.objects.first { $0.guid == .fileProperties })
        var reader = ByteReader(Array(properties.bytes[40..<48]))
        #expect(try reader.readUInt64(.little) == UInt64(bytes.count))

        #expect(bytes.count > original.count + 70_000)
        // The next small change fits in the padding: same-size patches.
        item = try await MediaItem.loaded(url)
        item.metadata.album = "Another album"
        let source = try FileSource(url: url)
        var items = item.metadata.items
        items[items.firstIndex { $0.key == "WM/AlbumTitle" }!].value = .string("Another album")
        guard case .inPlace = try ASFEditPlanner.plan(source, items, Self.fast) else {
            Issue.record("a change that fits in the padding is not planned in place")
            return
        }
        try await item.save(options: Self.fast)
        #expect(try await MediaItem.loaded(url).metadata.album == "Another album")
    }

    @Test func newAttributesGoWhereMutagenPutsThem() async throws {
        let url = try B.write(B.file([B.fileProperties(), B.audioStream()]))
        defer { B.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "T"
        item.metadata.album = "A"
        item.metadata.comments = "C"
        try await item.save(options: Self.fast)
        item = try await MediaItem.loaded(url)
        item.metadata.items += [
            MetadataItem(keySpace: .asf, key: "WM/Album", value: .string("x"), dataType: .utf16, language: "fr-fr"),
            MetadataItem(keySpace: .asf, key: "WM/Id", value: .data(Data(repeating: 7, count: 16)), dataType: .asfGUID),
            MetadataItem(keySpace: .asf, key: "WM/AlbumTitle", value: .string("second"), dataType: .utf16),
            MetadataItem(keySpace: .asf, key: "Title", value: .string("second title"), dataType: .utf16),
            MetadataItem(keySpace: .asf, key: "WM/IsCompilation", value: .integer(1), dataType: .asfBool),
            MetadataItem(keySpace: .asf, key: "WM/Q", value: .integer(1 << 40), dataType: .asfQWORD),
            MetadataItem(keySpace: .asf, key: "WM/W", value: .integer(65_535), dataType: .asfWORD),
            MetadataItem(keySpace: .asf, key: "WM/D", value: .integer(4_000_000_000), dataType: .asfDWORD),
        ]
        try await item.save(options: Self.fast)
        let header = try ASFHeader(parsing: FileSource(url: url))
        let places = Dictionary(header.attributes.map { ("\($0.name)=\(ASFAttribute.text($0.data))", $0.place) }) { first, _ in first }
        #expect(places["Title=T"] == .contentDescription && places["Description=C"] == .contentDescription)
        #expect(places["WM/AlbumTitle=A"] == .extendedContentDescription)
        #expect(places["WM/AlbumTitle=second"] == .metadataLibrary)
        #expect(places["Title=second title"] == .metadataLibrary)
        #expect(header.attributes.first { $0.name == "WM/Id" }?.place == .metadataLibrary)
        let album = try #require(header.attributes.first { $0.name == "WM/Album" })
        #expect(album.place == .metadataLibrary && header.languages[Int(album.languageIndex)] == "fr-fr")
        #expect(header.attributes.first { $0.name == "WM/IsCompilation" }?.data == [1, 0, 0, 0])
        let reread = try ASFParser.parse(try FileSource(url: url), url)
        let expected = Self.summary(item.metadata.items.filter { $0.key != "WM/Album" })
        #expect(Set(Self.summary(reread.items)).isSuperset(of: expected.map { $0.replacingOccurrences(of: "[UTF-8]", with: "[UTF-16]") }))
        #expect(reread.items.first { $0.key == "WM/Album" }?.language == "fr-fr")
        // Values a type can't hold are refused before anything is written.
        item = try await MediaItem.loaded(url)
        item.metadata.items.append(MetadataItem(keySpace: .asf, key: "WM/W2", value: .integer(70_000), dataType: .asfWORD))
        await #expect(throws: MediaError.self) { try await item.save(options: Self.fast) }
    }

    @Test func removingEveryTagLeavesTheOtherObjects() async throws {
        let url = try B.write(B.rich())
        defer { B.remove(url) }
        var item = try await MediaItem.loaded(url)
        var options = Self.fast
        options.removesAllTags = true
        try await item.save(options: options)
        let header = try ASFHeader(parsing: FileSource(url: url))
        #expect(header.attributes.isEmpty)
        // File and stream properties, the unknown object, the extension.
        #expect(header.objects.map(\.guid).filter { $0 != .padding }.count == 4)
        #expect(header.extensionObjects.map(\.guid) == [.languageList])
    }

    // MARK: Damage

    /// A DWORD, WORD or QWORD whose value is not its type's length (the fuzz
    /// smoke run found a DWORD of 8 bytes 0xFF… trapping the conversion):
    /// kept as its bytes, written back unchanged.
    @Test func numbersOfTheWrongLengthAreKeptAsTheirBytes() async throws {
        let attributes: [(String, Int, [UInt8])] = [
            ("Long DWORD", 3, [UInt8](repeating: 0xFF, count: 8)), ("Short QWORD", 4, [1, 2, 3]),
            ("Long WORD", 5, [UInt8](repeating: 0xFF, count: 4)), ("Fine DWORD", 3, B.le32(7)),
        ]
        let bytes = B.file([B.fileProperties(), B.audioStream(), B.extendedContent(attributes)])
        let parsed = try B.parse(bytes)
        let values = parsed.items.map { "\($0.key)=\($0.value)" }
        #expect(values.contains("Fine DWORD=\(MetadataValue.integer(7))"))
        for (name, _, value) in attributes.prefix(3) {
            #expect(parsed.items.contains { $0.key == name && $0.value == .data(Data(value)) }, "\(name)")
        }
        let url = try B.write(bytes)
        defer { B.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Changed"
        try await item.save(options: Self.fast)
        let again = try B.parse([UInt8](try Data(contentsOf: url)))
        for (name, _, value) in attributes.prefix(3) {
            #expect(again.items.contains { $0.key == name && $0.value == .data(Data(value)) }, "\(name) after a save")
        }
    }

    /// Every prefix of a file either fails with a MediaError or reads; a
    /// prefix that cuts the header reads only what is whole and can't be saved.
    @Test func everyPrefixFailsOrReadsWhatIsWhole() throws {
        let whole = B.rich()
        let headerSize = ASFHeaderSize(whole)
        let url = try B.write([])
        defer { B.remove(url) }
        for length in 0...headerSize + 30 {
            try Data(whole.prefix(length)).write(to: url)
            do {
                let parsed = try ASFParser.parse(try FileSource(url: url), url)
                if length < headerSize {
                    #expect(!parsed.isEditable && !parsed.warnings.isEmpty, "prefix of \(length) bytes")
                    #expect(parsed.items.count <= Self.richSummary.count)
                } else {
                    #expect(parsed.isEditable && Self.summary(parsed.items) == Self.richSummary, "prefix of \(length) bytes")
                }
            } catch {
                #expect(error is MediaError, "prefix of \(length) bytes")
                #expect(length < 30, "prefix of \(length) bytes: \(error)")
            }
        }
    }

    /// The declared size of the Header Object of `bytes`.
    private func ASFHeaderSize(_ bytes: [UInt8]) -> Int {
        Int(bytes[16...23].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    @Test func hostileSizesAndCountsAreReadAround() async throws {
        let properties = B.fileProperties(), audio = B.audioStream()
        let description = B.contentDescription(["T"])
        let cases: [(String, [UInt8], [MediaError.Code], Int, Bool)] = [
            (
                "object past the header", B.file([properties, audio, description, B.object(.padding, [], size: 1 << 40)]),
                [.sizeOutOfRange], 1, false
            ),
            (
                "object smaller than its header", B.file([properties, description, B.object(.padding, [], size: 3)]), [.sizeOutOfRange], 1,
                false
            ),
            ("header larger than the file", B.file([properties, description], headerSize: 1 << 62), [.truncated], 1, false),
            ("wrong object count", B.file([properties, description], declaredCount: 7), [.malformed], 1, true),
            (
                "huge attribute count", B.file([properties, B.extendedContent([("A", 0, B.utf16("a"))], count: 65_535)]), [.truncated], 1,
                true
            ),
            (
                "extension size lying",
                B.file([
                    properties, description,
                    B.headerExtension([B.metadata([(0, 0, "X", 0, B.utf16("x"))], library: true)], dataSize: 1 << 30),
                ]),
                [.sizeOutOfRange], 1, true
            ),
        ]
        for (name, bytes, codes, count, editable) in cases {
            let parsed = try B.parse(bytes)
            #expect(parsed.warnings.map(\.code) == codes, "\(name): \(parsed.warnings)")
            #expect(parsed.items.count == count, "\(name)")
            #expect(parsed.isEditable == editable, "\(name)")
        }
        // A library record declaring 4 GiB: the records before it are kept.
        var library = B.metadata([(0, 0, "A", 0, B.utf16("a")), (0, 0, "B", 0, B.utf16("b"))], library: true)
        let second = 24 + 2 + 12 + B.utf16("A").count + B.utf16("a").count
        library.replaceSubrange(second + 8..<second + 12, with: [0xFF, 0xFF, 0xFF, 0xFF])
        let parsed = try B.parse(B.file([properties, B.headerExtension([library])]))
        #expect(parsed.items.map(\.key) == ["A"] && parsed.warnings.map(\.code) == [.truncated])
        // A WM/Picture declaring more image bytes than it holds stays bytes.
        var picture = B.picture(image: B.tinyPNG)
        picture.replaceSubrange(1..<5, with: B.le32(1 << 30))
        let bad = try B.parse(B.file([properties, B.extendedContent([(ASFAttribute.pictureName, 1, picture)])]))
        #expect(bad.items.first?.value == .data(Data(picture)))
    }

    @Test func aDamagedObjectIsKeptWhileUnchangedAndRefusedWhenChanged() async throws {
        let damaged = B.extendedContent([("WM/A", 0, B.utf16("a"))], count: 3)
        let url = try B.write(B.file([B.fileProperties(), B.contentDescription(["T"]), damaged, B.padding(50)]))
        defer { B.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "New title"
        try await item.save(options: Self.fast)
        #expect([UInt8](try Data(contentsOf: url)).firstRange(of: damaged) != nil)
        item = try await MediaItem.loaded(url)
        item.metadata.items.append(MetadataItem(keySpace: .asf, key: "WM/B", value: .string("b"), dataType: .utf16))
        await #expect(throws: MediaError.self) { try await item.save(options: Self.fast) }
        // A header cut by an object that overruns it is never written.
        let broken = try B.write(B.file([B.fileProperties(), B.contentDescription(["T"]), B.object(.padding, [], size: 1 << 20)]))
        defer { B.remove(broken) }
        var other = try await MediaItem.loaded(broken)
        other.metadata.title = "x"
        await #expect(throws: MediaError.self) { try await other.save(options: Self.fast) }
    }

    /// Header Extension Objects nested 2000 deep: read in one pass, kept as
    /// they are (only the first level is looked into).
    @Test func nestedHeaderExtensionsAreNoBomb() async throws {
        var nested = B.metadata([(0, 0, "Deep", 0, B.utf16("d"))], library: true)
        for _ in 0..<2000 { nested = B.headerExtension([nested]) }
        let url = try B.write(B.file([B.fileProperties(), B.audioStream(), nested]))
        defer { B.remove(url) }
        let parsed = try ASFParser.parse(try FileSource(url: url), url)
        #expect(parsed.items.isEmpty && parsed.warnings.isEmpty)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Top"
        try await item.save(options: Self.fast)
        #expect([UInt8](try Data(contentsOf: url)).firstRange(of: nested) != nil)
    }

    /// Random bytes of the header set to random or extreme values: every
    /// read ends (a MediaError or a parse), and saving an editable result
    /// gives a file that reads again.
    @Test func randomDamageNeverCrashes() async throws {
        let original = B.rich()
        let headerSize = ASFHeaderSize(original)
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var generator = SplitMix64(state: seed)
        let url = try B.write([])
        defer { B.remove(url) }
        let extremes: [UInt8] = [0, 0xFF, 0x7F, 0x80, 1]
        for round in 0..<200 {
            var bytes = original
            for _ in 0..<Int(generator.next() % 4 + 1) {
                let at = 30 + Int(generator.next() % UInt64(headerSize - 30))
                bytes[at] = generator.next() % 2 == 0 ? extremes[Int(generator.next() % 5)] : UInt8(truncatingIfNeeded: generator.next())
            }
            try Data(bytes).write(to: url)
            do {
                let parsed = try ASFParser.parse(try FileSource(url: url), url)
                guard parsed.isEditable else { continue }
                var item = try await MediaItem.loaded(url)
                item.metadata.title = "Round \(round)"
                do { try await item.save(options: Self.fast) } catch {
                    #expect(error.code != .verificationFailed, "seed \(seed), round \(round): \(error)")
                    continue
                }
                let reloaded = try await MediaItem.loaded(url)
                #expect(reloaded.metadata.title == "Round \(round)", "seed \(seed), round \(round)")
            } catch {
                #expect(error is MediaError, "seed \(seed), round \(round): \(error)")
            }
        }
    }
}
