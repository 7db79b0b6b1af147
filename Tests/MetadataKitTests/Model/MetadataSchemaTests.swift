import Foundation
import Testing

@testable import MetadataKit

/// ``MetadataSchema``: custom fields by name, registered once with their
/// key in each key space, read by a load through the schema and written by
/// its saves — and seen by mutagen, which writes and reads the same keys.
struct MetadataSchemaTests {
    static let energyKeys = [
        MetadataKeyMap.RawKey(.id3, "TXXX:ENERGY"), MetadataKeyMap.RawKey(.iTunes, "----:com.apple.iTunes:ENERGY"),
        MetadataKeyMap.RawKey(.vorbis, "ENERGY"),
    ]

    static func schema() throws -> MetadataSchema {
        try MetadataSchema.standard.registeringField("energy", keys: energyKeys)
    }

    @Test func registrationIsStrict() throws {
        var schema = try Self.schema()
        #expect(schema.customFields.map(\.name) == ["energy"] && schema.customField(named: "energy")?.keys == Self.energyKeys)
        #expect(MetadataSchema.standard.customFields.isEmpty)
        func refused(_ name: String, _ keys: [MetadataKeyMap.RawKey]) -> String? {
            do {
                try schema.registerField(name, keys: keys)
                return nil
            } catch let error as MediaError {
                #expect(error.code == .invalidValue)
                return error.message
            } catch {
                return "\(error)"
            }
        }
        let vorbis = [MetadataKeyMap.RawKey(.vorbis, "OCCASION")]
        #expect(refused("mood", vorbis)?.contains("standard field mood") == true, "a standard field's name")
        #expect(refused("isCompilation", vorbis) != nil, "a standard field's Swift name")
        #expect(refused("energy", vorbis)?.contains("registered already") == true)
        #expect(refused("", vorbis) != nil && refused("occasion", []) != nil)
        #expect(refused("occasion", [.init(.vorbis, "")]) != nil)
        #expect(refused("occasion", [.init(.vorbis, "MOOD")])?.contains("holds the field mood") == true, "a key of the key map")
        #expect(refused("occasion", [.init(.id3, "TXXX:ENERGY")])?.contains("custom field 'energy'") == true)
        #expect(refused("occasion", vorbis) == nil && schema.customFields.map(\.name) == ["energy", "occasion"])
    }

    @Test func aCustomFieldReadsFromItsFirstKeyTheItemsHold() {
        var schema = MetadataSchema.standard
        #expect(throws: Never.self) {
            try schema.registerField("occasion", keys: [.init(.vorbis, "OCCASION"), .init(.vorbis, "EVENT")])
        }
        let items = [
            MetadataItem(keySpace: .vorbis, key: "EVENT", value: .string("party"), dataType: .utf8),
            MetadataItem(keySpace: .vorbis, key: "OCCASION", value: .string("wedding"), dataType: .utf8),
            MetadataItem(keySpace: .vorbis, key: "OCCASION", value: .string(""), dataType: .utf8),
            MetadataItem(keySpace: .vorbis, key: "OCCASION", value: .string("dinner"), dataType: .utf8),
        ]
        let metadata = Metadata(items: items, schema: schema)
        #expect(metadata[custom: "occasion"] == .texts(["wedding", "dinner"]))
        #expect(metadata.customFieldNames == ["occasion"])
        #expect(Metadata(items: items)[custom: "occasion"] == nil, "the standard schema has no custom fields")
        #expect(Metadata(items: Array(items.prefix(1)), schema: schema)[custom: "occasion"] == .text("party"))
    }
}

/// Writes text fields in upper case (a converter a caller brings).
private struct UppercaseConverter: MetadataConverter {
    func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        DefaultMetadataConverter().displayValue(for: field, from: items)
    }

    func items(for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey, existing: [MetadataItem]) throws
        -> [MetadataItem]
    {
        try DefaultMetadataConverter().items(
            for: field, value: value.flatMap { $0.text.map { .text($0.uppercased()) } }, key: key, existing: existing)
    }
}

/// A schema's converters and key map reach the save (it used the standard ones).
struct MetadataSchemaSaveTests {
    @Test func theSchemasKeyMapAndConvertersWrite() async throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("sample.flac")
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.flac"), to: url)
        var schema = MetadataSchema.standard
        schema.keyMap.keys[.title] = [MetadataKeyMap.RawKey(.vorbis, "NAME")]
        schema.converters.register(UppercaseConverter(), for: .title)
        let original = try await MediaItem(contentsOf: url).metadata.title
        var item = try await MediaItem(contentsOf: url, schema: schema)
        item.metadata.title = "Loud"
        let plan = try await item.plan()
        #expect(plan.itemChanges.map { "\($0)" }.contains { $0.contains("NAME") && $0.contains("LOUD") }, "\(plan.itemChanges)")
        item = try await item.saving(options: SaveOptions(durability: .noSync))
        #expect(item.metadata.title == "LOUD" && item.schema.keyMap.keys[.title]?.first?.key == "NAME")
        let standard = try await MediaItem(contentsOf: url)
        #expect(standard.metadata.items.contains { $0.key == "NAME" && $0.value == .string("LOUD") })
        #expect(standard.metadata.title == original, "TITLE is not the schema's key: left as it was")
    }
}

private enum SchemaTools {
    static let present = ToolCheck.has("python3:mutagen")
}

/// Custom fields written by MetadataKit and read by mutagen, and the other
/// way round, in MP3 (ID3 `TXXX`), M4A (iTunes freeform atom), FLAC, Ogg
/// Vorbis and Opus (Vorbis comments).
@Suite(.enabled(if: SchemaTools.present, "needs python3 mutagen")) struct MetadataSchemaInteropTests {
    static let fixtures = ["sample.mp3", "sample.m4a", "sample.flac", "sample.ogg", "sample.opus"]

    /// Prints the values mutagen reads for the custom key `argv[2]` as a JSON list.
    static let reader = """
        import json, sys, mutagen
        from mutagen.id3 import ID3
        from mutagen.mp4 import MP4Tags
        f = mutagen.File(sys.argv[1]); t = f.tags; k = sys.argv[2]
        if t is None: values = []
        elif isinstance(t, ID3): values = [str(s) for frame in t.getall('TXXX:' + k) for s in frame.text]
        elif isinstance(t, MP4Tags): values = [bytes(v).decode('utf-8') for v in t.get('----:com.apple.iTunes:' + k, [])]
        else: values = list(t.get(k, []))
        print(json.dumps(values))
        """

    /// Sets the custom key `argv[2]` to the values `argv[3...]`.
    static let writer = """
        import sys, mutagen
        from mutagen.id3 import ID3, TXXX
        from mutagen.mp4 import MP4Tags, MP4FreeForm
        f = mutagen.File(sys.argv[1]); k = sys.argv[2]; values = sys.argv[3:]
        if f.tags is None: f.add_tags()
        t = f.tags
        if isinstance(t, ID3): t.add(TXXX(encoding=3, desc=k, text=values))
        elif isinstance(t, MP4Tags): t['----:com.apple.iTunes:' + k] = [MP4FreeForm(v.encode('utf-8')) for v in values]
        else: t[k] = values
        f.save()
        """

    func mutagenValues(_ url: URL) throws -> [String] {
        let output = try TestSupport.runChecked("python3", ["-c", Self.reader, url.path, "ENERGY"])
        return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String])
    }

    @Test(arguments: fixtures) func aCustomFieldIsWrittenAndReadByName(_ fixture: String) async throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent(fixture)
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/\(fixture)"), to: url)
        let schema = try MetadataSchemaTests.schema()

        // mutagen writes it; a load through the schema reads it by name, a standard load as a raw item only.
        try TestSupport.runChecked("python3", ["-c", Self.writer, url.path, "ENERGY", "low"])
        var item = try await MediaItem(contentsOf: url, schema: schema)
        #expect(item.metadata[custom: "energy"] == .text("low"), "\(fixture)")
        let standard = try await MediaItem(contentsOf: url)
        #expect(standard.metadata[custom: "energy"] == nil && standard.metadata.items.contains { $0.key.hasSuffix("ENERGY") })

        // Changed by name: the plan shows the raw item, and mutagen reads the new values.
        item.metadata[custom: "energy"] = .texts(["high ü", "max"])
        item.metadata.title = "Energetic"
        let plan = try await item.plan(options: SaveOptions(durability: .noSync))
        #expect(plan.itemChanges.contains { "\($0)".contains("ENERGY") }, "\(fixture): \(plan.itemChanges)")
        item = try await item.saving(options: SaveOptions(durability: .noSync))
        let written = try mutagenValues(url)
        // ID3v2.3 has no lists: the values are joined with "/" there, as for every text field.
        #expect(written == ["high ü", "max"] || written == ["high ü/max"], "\(fixture): \(written)")
        #expect(item.metadata.title == "Energetic" && !item.hasChanges)
        let reread = try await MediaItem(contentsOf: url, schema: schema)
        #expect(reread.metadata[custom: "energy"] == item.metadata[custom: "energy"], "\(fixture)")
        #expect(reread.metadata[custom: "energy"]?.texts.joined(separator: "/") == "high ü/max", "\(fixture)")

        // Removed by name: gone for mutagen too, and the title stays.
        item.metadata[custom: "energy"] = nil
        item = try await item.saving(options: SaveOptions(durability: .noSync))
        #expect(try mutagenValues(url) == [], "\(fixture)")
        #expect(item.metadata[custom: "energy"] == nil && item.metadata.title == "Energetic")
    }

    @Test func aNameTheSchemaDoesNotRegisterIsRefused() async throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("sample.flac")
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.flac"), to: url)
        let before = try Data(contentsOf: url)
        var item = try await MediaItem(contentsOf: url)
        item.metadata[custom: "energy"] = .text("high")
        await #expect(throws: MediaError.self) { try await item.save(options: SaveOptions(durability: .noSync)) }
        do {
            try await item.save(options: SaveOptions(durability: .noSync))
        } catch {
            #expect(error.code == .invalidValue && error.message.contains("no custom field 'energy'"))
        }
        #expect(try Data(contentsOf: url) == before, "nothing is written")
        // A key space the format has no key of the field in: refused, not dropped.
        let id3Only = try MetadataSchema.standard.registeringField("energy", keys: [.init(.id3, "TXXX:ENERGY")])
        var flac = try await MediaItem(contentsOf: url, schema: id3Only)
        flac.metadata[custom: "energy"] = .text("high")
        await #expect(throws: MediaError.self) { try await flac.plan() }
        #expect(try Data(contentsOf: url) == before)
    }
}
