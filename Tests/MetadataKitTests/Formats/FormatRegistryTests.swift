import Foundation
import Testing

@testable import MetadataKit

/// The format registry: one value per format drives detection, saving, the
/// key checks and the CLI's format list.
@Suite struct FormatRegistryTests {
    static let samples: [(file: String, format: String)] = [
        ("sample.mp3", "mp3"), ("sample.m4a", "mp4"), ("sample.flac", "flac"), ("sample.ogg", "ogg"), ("sample.opus", "ogg"),
    ]

    @Test func identifiersAndExtensionsAreUnique() {
        let identifiers = MediaFormat.all.map(\.identifier)
        #expect(Set(identifiers).count == identifiers.count)
        let extensions = MediaFormat.all.flatMap(\.extensions)
        #expect(Set(extensions).count == extensions.count, "an extension names one format")
        for format in MediaFormat.all {
            #expect(MediaFormat.named(format.identifier)?.identifier == format.identifier)
            #expect(!format.extensions.isEmpty && !format.mimeTypes.isEmpty && !format.keySpaces.isEmpty)
        }
    }

    @Test func everyKeyMapRowLiesInItsFormatsKeySpaces() {
        for format in MediaFormat.all {
            for (field, keys) in format.keyMapRows {
                for key in keys {
                    #expect(format.keySpaces.contains(key.keySpace), "\(format): \(field) → \(key)")
                    // The merged standard map still finds the field from the key.
                    #expect(MetadataKeyMap.standard.keys[field]?.contains(key) == true, "\(key) missing from the standard map")
                }
            }
        }
    }

    @Test func keyTablesHoldDisjointKeys() {
        // The standard map takes a block of rows whole (once), which is the
        // key-by-key merge only while no key sits in two blocks or twice in
        // one field of a block.
        var tables: [String: MetadataKeyMap.KeyTable] = [:]
        for format in MediaFormat.all { for table in format.keyTables { tables[table.name] = table } }
        var owner: [MetadataKeyMap.RawKey: String] = [:]
        for (name, table) in tables {
            var keys: Set<MetadataKeyMap.RawKey> = []
            for (field, rows) in table.rows {
                #expect(Set(rows).count == rows.count, "\(name): \(field) lists a key twice")
                keys.formUnion(rows)
            }
            for key in keys {
                #expect(owner[key] == nil, "\(key) is in the blocks \(owner[key] ?? "") and \(name)")
                owner[key] = name
            }
        }
        #expect(owner.count > 500)
    }

    @Test func keyTablesDeclareTheirKeySpaces() {
        for table in MetadataKeyMap.keyTables(of: MediaFormat.all) {
            for (field, keys) in table.rows {
                for key in keys { #expect(table.keySpaces.contains(key.keySpace), "\(table.name): \(field) → \(key)") }
            }
            #expect(MetadataKeyMap.makeIndex(table.rows).count == Set(table.rows.values.flatMap { $0.map(\.key) }).count, "\(table.name)")
        }
    }

    @Test func theStandardMapsBlocksFindWhatItsMergedTableFinds() throws {
        let standard = MetadataKeyMap.standard
        var merged = MetadataKeyMap(keys: standard.keys)
        merged.uniqueKeySpaces = standard.uniqueKeySpaces
        // Every key of every block, and a key in no block.
        for table in MetadataKeyMap.keyTables(of: MediaFormat.all) {
            for key in Set(table.rows.values.flatMap { $0 }) {
                #expect(standard.field(for: key.keySpace, key: key.key) == merged.field(for: key.keySpace, key: key.key), "\(key)")
            }
        }
        #expect(standard.field(for: .id3, key: "TALB") == .album && standard.field(for: .vorbis, key: "TALB") == nil)
        // The fields of every sample file's items, with each item given twice too
        // (the later one wins in a key space of unique keys).
        let folder = TestSupport.fixtures.appendingPathComponent("valid")
        var checked = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            let url = folder.appendingPathComponent(name)
            guard let format = try? MediaFormat.detect(FileSource(url: url), url: url),
                let items = try? format.parse(FileSource(url: url), url).items, !items.isEmpty
            else { continue }
            for list in [items, items + items.reversed()] {
                #expect(standard.itemsByField(list) == merged.itemsByField(list), "\(name)")
            }
            checked += 1
        }
        #expect(checked >= 8)
    }

    /// A block's index made ahead (`prepare`, which `mdkit read` runs on its
    /// table thread) finds what one made at the first lookup finds, while the
    /// key spaces not prepared are still made when asked.
    @Test func aPreparedBlockFindsWhatAnUnpreparedOneFinds() {
        let tables = MetadataKeyMap.keyTables(of: MediaFormat.all)
        var prepared = MetadataKeyMap(tables: tables)
        prepared.uniqueKeySpaces = MetadataKeyMap.standard.uniqueKeySpaces
        prepared.prepare(.id3)
        prepared.prepare(.vorbis)
        let standard = MetadataKeyMap.standard
        var looked = 0
        for table in tables {
            for key in Set(table.rows.values.flatMap { $0 }) {
                #expect(prepared.field(for: key.keySpace, key: key.key) == standard.field(for: key.keySpace, key: key.key), "\(key)")
                looked += 1
            }
        }
        #expect(looked > 500)
        #expect(prepared.field(for: .id3, key: "TIT2") == .title && prepared.field(for: .vorbis, key: "TITLE") == .title)
    }

    @Test func standardMapIsEveryFormatsRowsMergedKeyByKey() {
        var expected: [MetadataField: [MetadataKeyMap.RawKey]] = [:]
        for format in MediaFormat.all {
            for (field, rows) in format.keyMapRows {
                for key in rows where expected[field]?.contains(key) != true { expected[field, default: []].append(key) }
            }
        }
        #expect(MetadataKeyMap.standard.keys == expected)
    }

    @Test func keysAreNormalizedByTheirKeySpace() {
        #expect(MediaFormat.normalizedKey("Mood", in: .vorbis) == "MOOD")
        #expect(MediaFormat.normalizedKey("TXXX:Mood", in: .id3) == "TXXX:Mood")
        #expect(MediaFormat.allKeySpaces.contains(.riff) && MediaFormat.allKeySpaces.contains(.quickTimeMetadata))
        #expect(!MediaFormat.allKeySpaces.contains(MetadataKeySpace(rawValue: "nospace")))
    }

    /// The content decides, not the name: each sample under a wrong extension
    /// is still read as its own format.
    @Test(arguments: samples) func detectionReadsTheFirstBytes(sample: (file: String, format: String)) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let misnamed = directory.appendingPathComponent("misnamed.wav")
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/\(sample.file)"), to: misnamed)
        let item = try await MediaItem.loaded(misnamed)
        #expect(item.format?.identifier == sample.format)
        #expect(item.fileType?.identifier == sample.format)
        let format = try #require(item.format)
        #expect(format.mimeTypes.contains(try #require(item.fileType).mimeType))
        #expect(format.extensions.contains(URL(fileURLWithPath: sample.file).pathExtension))
    }

    /// Only a format that asks for it is chosen by extension alone (raw MPEG
    /// audio may start with junk); other unknown bytes are refused.
    @Test func extensionOnlyDecidesForFormatsThatAcceptIt() throws {
        let junk = [UInt8](repeating: 0x20, count: 64)
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, expected) in [("junk.mp3", "mp3"), ("junk.flac", nil), ("junk.bin", nil)] as [(String, String?)] {
            let url = directory.appendingPathComponent(name)
            try Data(junk).write(to: url)
            let source = try FileSource(url: url)
            let detected = try? MediaFormat.detect(source, url: url)
            #expect(detected?.identifier == expected, "\(name)")
        }
    }

    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func theCLIListsTheRegistry() throws {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        let help = try TestSupport.run(executable.path, ["--help"]).text
        for format in MediaFormat.all {
            #expect(help.contains("  \(format.identifier) ") && help.contains(format.name), "\(format) missing from --help")
        }
        let writeHelp = try TestSupport.run(executable.path, ["write", "--help"]).text
        for space in MediaFormat.allKeySpaces {
            #expect(writeHelp.contains(space.rawValue))
        }
        let refused = try TestSupport.run(executable.path, ["write", "--set", "nospace:TITLE=x", "a.mp3"])
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("unknown key space 'nospace'"))
    }
}
