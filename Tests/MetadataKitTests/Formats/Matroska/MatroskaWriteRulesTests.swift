import Foundation
import Testing

@testable import MetadataKit

private typealias B = MatroskaBuilder
private typealias ID = MatroskaID

/// What a save may write by the file's DocType and DocTypeVersion (built
/// files): WebM gets only WebM's chapter elements and no attachments; an
/// edition's name is an EditionDisplay that raises DocTypeVersion to 5 in
/// place; what can't be written is refused before anything is written.
@Suite struct MatroskaWriteRulesTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// The chapter elements WebM allows (the `webm` flag of the Matroska schema).
    static let webMChapterIDs: Set<UInt32> = [
        ID.editionEntry, ID.chapterAtom, ID.chapterUID, ID.chapterStringUID, ID.chapterTimeStart, ID.chapterTimeEnd,
        ID.chapterDisplay, ID.chapString, ID.chapLanguage, 0x437E, // ChapCountry
    ]
    static let masters: Set<UInt32> = [ID.editionEntry, ID.chapterAtom, ID.chapterDisplay, ID.editionDisplay]

    /// Every element ID under the file's Chapters element, nested ones included.
    static func chapterIDs(_ url: URL) throws -> [UInt32] {
        let source = try FileSource(url: url)
        let element = try #require(try MatroskaLayout(parsing: source).first(ID.chapters))
        var ids: [UInt32] = []
        func walk(_ bytes: [UInt8]) throws {
            var reader = ByteReader(bytes)
            while !reader.isAtEnd {
                let child = try EBMLElement(parsing: &reader)
                let data = try reader.readBytes(Int(try #require(child.dataSize)))
                ids.append(child.id)
                if masters.contains(child.id) { try walk(data) }
            }
        }
        try walk(try source.getBytes(at: element.dataOffset, count: Int(element.dataSize ?? 0)))
        return ids
    }

    /// A file of `docType` whose EBML header holds DocTypeVersion `version` (none: nil).
    func file(docType: String = "matroska", version: UInt64?, name: String) throws -> URL {
        var header = B.uint(ID.ebmlVersion, 1) + B.uint(ID.ebmlReadVersion, 1) + B.string(ID.docType, docType)
        if let version { header += B.uint(ID.docTypeVersion, version) }
        header += B.uint(ID.docTypeReadVersion, 2)
        let segment = EBML.element(ID.segment, B.info(title: "T") + B.tracks() + B.cluster(), minimumSizeLength: 8)
        return try B.write(B.element(ID.ebml, header) + segment, name, in: directory)
    }

    static let nested = [
        Chapter(
            start: 0, end: 1, titles: [Chapter.Title("Eins", language: "ger")],
            chapters: [Chapter(start: 0.5, titles: [Chapter.Title("Innen")])]),
        Chapter(start: 1, titles: [Chapter.Title("Zwei")]),
    ]

    @Test func anEditionNameBecomesEditionDisplayAndRaisesTheDocTypeVersionInPlace() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try file(version: 4, name: "v4.mkv")
        var item = try await MediaItem.loaded(url)
        item.chapterTables = [ChapterTable(title: "Fassung B", isDefault: true, chapters: Self.nested)]
        try await item.save()
        let reread = try await MediaItem.loaded(url)
        #expect(reread.chapterTables.map(\.title) == ["Fassung B"])
        #expect(reread.chapterTables.first?.isDefault == true)
        let header = try MatroskaLayout(parsing: FileSource(url: url)).header
        #expect(header.docTypeVersion == 5 && header.docTypeReadVersion == 2)
        #expect(try Self.chapterIDs(url).contains(ID.editionDisplay))
        // A header without DocTypeVersion can't be raised in place: the name is left out, the chapters written.
        let old = try file(version: nil, name: "v1.mkv")
        var plain = try await MediaItem.loaded(old)
        plain.chapterTables = [ChapterTable(title: "Fassung B", chapters: Self.nested)]
        try await plain.save()
        let readPlain = try await MediaItem.loaded(old)
        #expect(readPlain.chapterTables.count == 1 && readPlain.chapterTables[0].title == nil)
        #expect(ChapterComparison.difference(expected: [ChapterTable(chapters: Self.nested)], actual: readPlain.chapterTables) == nil)
        #expect(!(try Self.chapterIDs(old)).contains(ID.editionDisplay))
        // … and a BCP 47 language (version 4) is refused there, the file untouched.
        let before = try Data(contentsOf: old)
        var swiss = readPlain
        swiss.chapterTables[0].chapters[1].titles = [Chapter.Title("Zwei", language: "de-CH")]
        let error = await #expect(throws: MediaError.self) { try await swiss.save() }
        #expect(error?.code == .unsupportedFeature)
        #expect(try Data(contentsOf: old) == before)
    }

    @Test func aBCP47LanguageRaisesAVersion2FileTo4() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try file(version: 2, name: "v2.mkv")
        var item = try await MediaItem.loaded(url)
        item.chapterTables = [ChapterTable(chapters: [Chapter(start: 0, titles: [Chapter.Title("Eins", language: "de-CH")])])]
        item.metadata.items.append(
            MetadataItem(keySpace: .matroska, key: "30/TITLE", value: .string("Titel"), dataType: .utf8, language: "de-AT"))
        try await item.save()
        let reread = try await MediaItem.loaded(url)
        #expect(reread.chapters.first?.language == "de-CH")
        #expect(reread.metadata.items.first { $0.key == "30/TITLE" }?.language == "de-AT")
        #expect(try MatroskaLayout(parsing: FileSource(url: url)).header.docTypeVersion == 4)
    }

    @Test func webMChaptersUseOnlyTheElementsWebMAllows() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try file(docType: "webm", version: 4, name: "a.webm")
        var item = try await MediaItem.loaded(url)
        item.chapterTables = [ChapterTable(id: "77", isDefault: true, chapters: Self.nested)]
        try await item.save()
        let ids = try Self.chapterIDs(url)
        #expect(
            Set(ids).isSubset(of: Self.webMChapterIDs),
            "not WebM: \(Set(ids).subtracting(Self.webMChapterIDs).map { String($0, radix: 16) })")
        #expect(ids.filter { $0 == ID.chapterAtom }.count == 3)
        let reread = try await MediaItem.loaded(url)
        #expect(ChapterComparison.difference(expected: [ChapterTable(chapters: Self.nested)], actual: reread.chapterTables) == nil)
        #expect(reread.chapters.first?.language == "ger")
        #expect(try MatroskaLayout(parsing: FileSource(url: url)).header.docTypeVersion == 4)
    }

    @Test func whatWebMCantHoldIsRefusedBeforeAnythingIsWritten() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try file(docType: "webm", version: 4, name: "b.webm")
        let before = try Data(contentsOf: url)
        var generator = SplitMix64(state: 0x7765_626D)
        let picture = Data([0xFF, 0xD8, 0xFF, 0xE0] + (0..<500).map { _ in UInt8.random(in: 0...255, using: &generator) } + [0xFF, 0xD9])
        var changes: [(String, (inout MediaItem) -> Void)] = [
            ("a hidden chapter", { $0.chapters = [Chapter(start: 0, titles: [Chapter.Title("x")], isHidden: true)] }),
            ("an ordered table", { $0.chapterTables = [ChapterTable(isOrdered: true, chapters: [Chapter(start: 0)])] }),
            ("a hidden table", { $0.chapterTables = [ChapterTable(isHidden: true, chapters: [Chapter(start: 0)])] }),
            (
                "a second default table",
                {
                    $0.chapterTables = [
                        ChapterTable(chapters: [Chapter(start: 0)]), ChapterTable(isDefault: true, chapters: [Chapter(start: 1)]),
                    ]
                }
            ),
            ("a BCP 47 chapter language", { $0.chapters = [Chapter(start: 0, titles: [Chapter.Title("x", language: "en-GB")])] }),
            (
                "a BCP 47 tag language",
                {
                    $0.metadata.items.append(
                        MetadataItem(keySpace: .matroska, key: "30/TITLE", value: .string("x"), dataType: .utf8, language: "en-GB"))
                }
            ),
        ]
        changes.append(("a cover", { $0.metadata.artwork = [Artwork(data: picture, mimeType: "image/jpeg")] }))
        for (what, change) in changes {
            var item = try await MediaItem.loaded(url)
            change(&item)
            let error = await #expect(throws: MediaError.self, "\(what)") { try await item.save() }
            #expect(error?.code == .unsupportedFeature, "\(what): \(String(describing: error))")
            #expect(try Data(contentsOf: url) == before, "\(what) changed the file")
        }
    }
}
