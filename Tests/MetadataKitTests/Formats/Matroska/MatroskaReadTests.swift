import Foundation
import Testing

@testable import MetadataKit

private typealias B = MatroskaBuilder

/// Reading Matroska files built byte by byte: the key form, the field
/// mapping, the SeekHead and its fallback, and every prefix of a file.
@Suite struct MatroskaReadTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    func parse(_ bytes: [UInt8], _ name: String = "x.mkv") throws -> ParsedFile {
        let url = try B.write(bytes, name, in: directory)
        return try MatroskaParser.parse(FileSource(url: url), url)
    }

    @Test func tagsBecomeItemsKeyedByTargetAndName() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try B.write(B.typical(), "a.mkv", in: directory)
        let item = try await MediaItem.loaded(url)
        #expect(item.format?.identifier == "matroska")
        #expect(item.fileType?.mimeType == "audio/x-matroska")
        #expect(item.metadata.items.map(\.key) == ["Info/Title", "50/TITLE", "30/TITLE", "30/ARTIST"])
        #expect(item.metadata.title == "Song")
        #expect(item.metadata.album == "Album")
        #expect(item.metadata.artist == "Singer")
        #expect(item.properties.duration == 2.0)
        #expect(item.properties.sampleRate == 48000 && item.properties.channels == 2 && item.properties.codec == "Opus")
        #expect(item.warnings.isEmpty)
    }

    @Test func theSegmentTitleIsTheTitleWhenNoTagHasOne() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let parsed = try parse(B.typical(title: "Only Info", tags: [B.tag(target: nil, [("ARTIST", "A"), ("DATE", "1999")])]))
        let metadata = Metadata(items: parsed.items)
        #expect(metadata.title == "Only Info")
        #expect(metadata.artist == "A")
        #expect(metadata.date == "1999")
        #expect(parsed.items.map(\.key) == ["Info/Title", "ARTIST", "DATE"])
    }

    @Test func webmIsItsOwnFormat() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        var bytes = B.typical()
        let header = B.header(docType: "webm")
        bytes.replaceSubrange(0..<B.header().count, with: header)
        let url = try B.write(bytes, "a.webm", in: directory)
        let item = try await MediaItem.loaded(url)
        #expect(item.format?.identifier == "webm")
        #expect(item.fileType?.mimeType == "audio/webm")
        #expect(item.metadata.album == "Album")
    }

    @Test func nestedSimpleTagsAndTargetsUIDsAreInTheKey() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let sort = B.element(
            MatroskaID.simpleTag, B.string(MatroskaID.tagName, "SORT_WITH") + B.string(MatroskaID.tagString, "Singer, The"))
        let artist = B.element(
            MatroskaID.simpleTag,
            B.string(MatroskaID.tagName, "ARTIST") + B.string(MatroskaID.tagLanguageBCP47, "en-GB")
                + B.string(MatroskaID.tagString, "The Singer") + sort)
        let targets = B.element(MatroskaID.targets, B.uint(MatroskaID.targetTypeValue, 30) + B.uint(MatroskaID.tagTrackUID, 77))
        let binary = B.element(MatroskaID.simpleTag, B.string(MatroskaID.tagName, "BLOB") + B.element(MatroskaID.tagBinary, [0, 1, 2]))
        let parsed = try parse(B.typical(tags: [B.element(MatroskaID.tag, targets + artist + binary)]))
        let tags = parsed.items.filter { $0.key != "Info/Title" }
        #expect(tags.map(\.key) == ["30:track=77/ARTIST", "30:track=77/ARTIST/SORT_WITH", "30:track=77/BLOB"])
        #expect(tags[0].language == "en-GB" && tags[1].language == "und")
        #expect(tags[2].value == .data(Data([0, 1, 2])) && tags[2].dataType == .binary)
        let split = try #require(MatroskaTarget.split(tags[1].key))
        #expect(split.target.typeValue == 30 && split.target.trackUIDs == [77] && split.path == ["ARTIST", "SORT_WITH"])
        #expect(split.target.key(split.path) == tags[1].key)
    }

    @Test func withoutASeekHeadTagsAfterTheClustersAreFound() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = B.element(MatroskaID.tags, B.tag(target: 30, [("TITLE", "Late")]))
        let bytes = B.file([B.info(), B.tracks(), B.cluster(), B.cluster(), tags])
        let parsed = try parse(bytes)
        #expect(Metadata(items: parsed.items).title == "Late")
        // An unknown-size Segment and Cluster (a live stream): the Cluster ends at the next top-level ID.
        let cluster = EBML.idBytes(MatroskaID.cluster) + [0xFF] + B.uint(0xE7, 0) + B.element(0xA3, [0x81, 0, 0, 0x80, 9])
        let live = try parse(B.file([B.info(), B.tracks(), cluster, cluster, tags], unknownSize: true), "live.mkv")
        #expect(Metadata(items: live.items).title == "Late")
        #expect(live.warnings.isEmpty)
    }

    @Test func aSeekHeadPointingAtTheWrongPlaceFallsBackToWalking() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = B.element(MatroskaID.tags, B.tag(target: 30, [("TITLE", "Found")]))
        let seekHead = B.element(MatroskaID.seekHead, B.seek(MatroskaID.tags, 3))
        let parsed = try parse(B.file([seekHead, B.info(), B.tracks(), B.cluster(), tags]))
        #expect(Metadata(items: parsed.items).title == "Found")
        #expect(parsed.warnings.contains { $0.message.contains("SeekHead entry") })
    }

    @Test func chaptersAreNestedAndTimed() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        func display(_ text: String, _ language: String) -> [UInt8] {
            B.element(MatroskaID.chapterDisplay, B.string(MatroskaID.chapString, text) + B.string(MatroskaID.chapLanguage, language))
        }
        let inner = B.element(
            MatroskaID.chapterAtom,
            B.uint(MatroskaID.chapterUID, 3) + B.uint(MatroskaID.chapterTimeStart, 500_000_000) + display("Inner", "eng"))
        let first = B.element(
            MatroskaID.chapterAtom,
            B.uint(MatroskaID.chapterUID, 1) + B.uint(MatroskaID.chapterTimeStart, 0) + B.uint(MatroskaID.chapterTimeEnd, 1_000_000_000)
                + display("Eins", "ger") + display("One", "eng") + inner)
        let hidden = B.element(
            MatroskaID.chapterAtom, B.uint(MatroskaID.chapterTimeStart, 1_000_000_000) + B.uint(MatroskaID.chapterFlagHidden, 1))
        let edition = B.element(
            MatroskaID.editionEntry, B.uint(MatroskaID.editionUID, 9) + B.uint(MatroskaID.editionFlagDefault, 1) + first + hidden)
        let parsed = try parse(B.file([B.info(), B.tracks(), B.element(MatroskaID.chapters, edition), B.cluster()]))
        let table = try #require(parsed.chapterTables.first)
        #expect(table.id == "9" && table.isDefault)
        #expect(table.chapters.count == 2)
        let chapter = table.chapters[0]
        #expect(chapter.start == 0 && chapter.end == 1 && chapter.title == "Eins" && chapter.language == "ger")
        #expect(chapter.titles.map(\.text) == ["Eins", "One"])
        #expect(chapter.chapters.map(\.title) == ["Inner"] && chapter.chapters[0].start == 0.5)
        #expect(table.chapters[1].isHidden && table.chapters[1].title == nil)
        #expect(parsed.chapterTables.defaultChapters.count == 2)
    }

    /// Every prefix of a file reads without a crash: an error or a file.
    @Test func everyPrefixReadsOrThrowsAMediaError() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = B.typical()
        let url = directory.appendingPathComponent("prefix.mkv")
        for length in 0...bytes.count {
            try Data(bytes.prefix(length)).write(to: url)
            do {
                _ = try MatroskaParser.parse(FileSource(url: url), url)
            } catch is MediaError {
                // fine: nothing sensible remains
            }
        }
    }
}
