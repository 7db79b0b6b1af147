import Foundation
import Testing

@testable import MetadataKit

/// The full field set through real files: made by ffmpeg, written by
/// MetadataKit and read back by mutagen value for value (keys from
/// ``PicardMapping``, written out by hand); and tagged by mutagen with
/// Picard's keys, then read by MetadataKit field by field.
@Suite struct FieldSetInteropTests {
    enum Family: String, CaseIterable { case id3, mp4, vorbis }

    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var fileExtension: String
        var codec: [String]
        var id3Version: Int?
        var encoder: String?
        var description: String { name }
        var family: Family {
            switch fileExtension {
            case "mp3": return .id3
            case "m4a": return .mp4
            default: return .vorbis
            }
        }
    }

    static let cases: [Case] = [
        Case(name: "MP3 ID3v2.4", fileExtension: "mp3", codec: ["-c:a", "libmp3lame"], id3Version: 4),
        Case(name: "MP3 ID3v2.3", fileExtension: "mp3", codec: ["-c:a", "libmp3lame", "-id3v2_version", "3"], id3Version: 3),
        Case(name: "M4A", fileExtension: "m4a", codec: ["-c:a", "aac"]),
        Case(name: "FLAC", fileExtension: "flac", codec: ["-c:a", "flac"]),
        Case(name: "Ogg Vorbis", fileExtension: "ogg", codec: ["-c:a", "libvorbis"], encoder: "libvorbis"),
        Case(name: "Ogg Opus", fileExtension: "opus", codec: ["-c:a", "libopus"], encoder: "libopus"),
    ]

    static let toolsPresent = TestSupport.hasTool("ffmpeg") && TestSupport.hasPythonModule("mutagen")

    /// A 1 s file of `testCase`'s codec made by ffmpeg in a new folder.
    static func makeFile(_ testCase: Case) throws -> URL {
        if let encoder = testCase.encoder { #expect(Capabilities.ffmpegEncodes(encoder)) }
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent("x.\(testCase.fileExtension)")
        try TestSupport.runChecked(
            "ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1"] + testCase.codec + [url.path])
        return url
    }

    /// Prints every tag of a file as {key: [text, ...]} in mutagen's terms.
    static let dumper = """
        import sys, json, mutagen
        from mutagen.id3 import ID3
        from mutagen.mp4 import MP4, MP4FreeForm
        path = sys.argv[1]
        out = {}
        def text(value):
            if isinstance(value, bool): return "1" if value else "0"
            if isinstance(value, MP4FreeForm) or isinstance(value, bytes): return bytes(value).decode("utf-8")
            if isinstance(value, tuple): return "/".join(str(v) for v in value)
            return str(value)
        if path.endswith(".mp3"):
            tags = ID3(path)
            out["version"] = [str(tags.version[1])]
            for frame in tags.values():
                if frame.FrameID == "UFID": out[frame.HashKey] = [frame.data.decode("utf-8")]
                elif frame.FrameID == "POPM": out[frame.HashKey] = [str(frame.rating)]
                elif frame.FrameID == "PCST": out[frame.HashKey] = [str(frame.value)]
                elif frame.FrameID.startswith("W") and frame.FrameID != "WXXX": out[frame.FrameID] = [frame.url]
                elif hasattr(frame, "text"):
                    out[frame.HashKey] = [str(t) for t in frame.text] if isinstance(frame.text, list) else [frame.text]
        else:
            tags = mutagen.File(path).tags
            for key, values in tags.items():
                values = values if isinstance(values, list) else [values]
                out.setdefault(key if path.endswith(".m4a") else key.upper(), []).extend(text(v) for v in values)
        print(json.dumps(out))
        """

    /// Tags a file with Picard's keys from {key: [text, ...]} (as ``dumper`` prints them).
    static let tagger = """
        import sys, json, mutagen
        from mutagen import id3
        from mutagen.mp4 import MP4, MP4FreeForm
        path, version, tags_in = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
        if path.endswith(".mp3"):
            tags = id3.ID3(path)
            for key, values in tags_in.items():
                frame, _, rest = key.partition(":")
                if frame == "TXXX": tags.add(id3.TXXX(encoding=3, desc=rest, text=values))
                elif frame == "UFID": tags.add(id3.UFID(owner=rest, data=values[0].encode()))
                elif frame == "POPM": tags.add(id3.POPM(email=rest, rating=int(values[0])))
                elif frame == "PCST": tags.add(id3.PCST(value=int(values[0])))
                elif frame == "USLT": tags.add(id3.USLT(encoding=3, lang=rest.split(":")[1], desc="", text=values[0]))
                elif frame == "COMM": tags.add(id3.COMM(encoding=3, lang=rest.split(":")[1], desc="", text=values))
                elif frame.startswith("W"): tags.add(getattr(id3, frame)(url=values[0]))
                else: tags.add(getattr(id3, frame)(encoding=3, text=values))
            tags.save(path, v2_version=version, v23_sep=None)
        elif path.endswith(".m4a"):
            file = MP4(path)
            for key, values in tags_in.items():
                if key.startswith("----:"): file[key] = [MP4FreeForm(v.encode()) for v in values]
                elif key in ("cpil", "pgap", "pcst"): file[key] = values[0] == "1"
                elif key in ("shwm", "\\u00a9mvi", "\\u00a9mvc"): file[key] = [int(values[0])]
                else: file[key] = values
            file.save()
        else:
            file = mutagen.File(path)
            for key, values in tags_in.items(): file[key] = values
            file.save()
        """

    static func family(_ family: Family, of keys: PicardMapping.Keys) -> String? {
        switch family {
        case .id3: return keys.id3
        case .mp4: return keys.mp4
        case .vorbis: return keys.vorbis
        }
    }

    /// The texts mutagen shows for `field` written with `values` (ID3 and
    /// MP4 store some fields in their own form).
    static func stored(_ field: MetadataField, _ values: [String], in testCase: Case, all: [MetadataField: [String]]) -> [String] {
        switch (testCase.family, field) {
        case (.id3, .rating): return [String(Int((Double(values[0])! * 255 / 100).rounded()))]
        case (.id3, .movementNumber), (.id3, .movementCount):
            return ["\(all[.movementNumber]![0])/\(all[.movementCount]![0])"]
        case (.id3, _) where testCase.id3Version == 3 && values.count > 1:
            return [values.joined(separator: "/")] // ID3v2.3 joins several values with "/" (mutagen's v23_sep)
        case (.id3, .originalDate) where testCase.id3Version == 3:
            return [String(values[0].prefix(4))] // TORY holds the year (ID3v2.3 §4.2.1)
        default: return values
        }
    }

    @Test(.enabled(if: toolsPresent), arguments: cases)
    func theFullFieldSetRoundTripsAndMutagenAgrees(_ testCase: Case) async throws {
        let seed = UInt64.random(in: 0..<1_000_000)
        let url = try Self.makeFile(testCase)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        var item = try await MediaItem.loaded(url)
        var fields: [MetadataField: [String]] = [:]
        for (field, keys) in PicardMapping.keys {
            guard Self.family(testCase.family, of: keys) != nil else { continue }
            var values = PicardMapping.values(field, seed: seed)
            if testCase.id3Version == 3, field == .originalDate { values = [String(values[0].prefix(4))] }
            fields[field] = values
            switch field.kind {
            case .integer, .boolean: item.metadata[field] = .integer(Int(values[0])!)
            default: item.metadata.setValues(values, for: field)
            }
        }
        try await item.save(options: SaveOptions(durability: .noSync))
        let reread = try await MediaItem.loaded(url)
        let dump =
            try JSONSerialization.jsonObject(
                with: TestSupport.runChecked("python3", ["-c", Self.dumper, url.path]).standardOutput) as? [String: [String]] ?? [:]
        if let version = testCase.id3Version { #expect(dump["version"] == [String(version)], "seed \(seed)") }
        for (field, values) in fields.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            // MetadataKit reads back what it wrote (ID3v2.3 joins lists with "/").
            let joinsLists = testCase.id3Version == 3 && values.count > 1
            let expected = joinsLists ? [values.joined(separator: "/")] : values
            #expect(reread.metadata.values(of: field) == expected, "\(testCase) \(field) seed \(seed)")
            // mutagen reads it under Picard's key.
            let key = Self.family(testCase.family, of: PicardMapping.keys[field]!)!
            let shown = Self.stored(field, values, in: testCase, all: fields)
            #expect(dump[key] == shown, "\(testCase) \(field) under \(key): mutagen read \(dump[key] ?? []), seed \(seed)")
        }
    }

    @Test(.enabled(if: toolsPresent), arguments: cases)
    func filesTaggedWithPicardsKeysReadEveryField(_ testCase: Case) async throws {
        let seed = UInt64.random(in: 0..<1_000_000)
        let url = try Self.makeFile(testCase)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        var tags: [String: [String]] = [:]
        var fields: [MetadataField: [String]] = [:]
        for (field, keys) in PicardMapping.keys {
            guard let key = Self.family(testCase.family, of: keys) else { continue }
            var values = PicardMapping.values(field, seed: seed)
            if testCase.id3Version == 3, field == .originalDate { values = [String(values[0].prefix(4))] }
            if testCase.family == .id3, field == .rating { values = ["80"] }
            fields[field] = values
            tags[key] = Self.stored(
                field, values, in: testCase, all: fields.merging([.movementNumber: ["3"], .movementCount: ["9"]]) { a, _ in a })
        }
        if testCase.family == .id3 {
            tags["MVIN"] = ["3/9"]
            fields[.movementNumber] = ["3"]
            fields[.movementCount] = ["9"]
            fields[.rating] = [String(Int((Double(Self.stored(.rating, ["80"], in: testCase, all: [:])[0])! * 100 / 255).rounded()))]
        }
        // Several values as lists in every version (mutagen's v23_sep=None writes them null-separated in v2.3 too).
        for (field, values) in fields where values.count > 1 {
            tags[Self.family(testCase.family, of: PicardMapping.keys[field]!)!] = values
        }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: tags), as: UTF8.self)
        try TestSupport.runChecked("python3", ["-c", Self.tagger, url.path, String(testCase.id3Version ?? 4), json])
        let item = try await MediaItem.loaded(url)
        for (field, values) in fields.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let shown: [String]
            switch field.kind {
            case .boolean: shown = item.metadata[field]?.boolean.map { [$0 ? "1" : "0"] } ?? []
            case .integer: shown = item.metadata[field]?.integer.map { [String($0)] } ?? []
            default: shown = item.metadata.values(of: field)
            }
            #expect(shown == values, "\(testCase) \(field) seed \(seed)")
        }
    }

    @Test(.enabled(if: toolsPresent))
    func peopleByRoleAreMutagensTIPLAndTMCL() async throws {
        let url = try Self.makeFile(Self.cases[0])
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        var item = try await MediaItem.loaded(url)
        item.metadata.setValues(["Ann ü", "Al"], for: .arranger)
        item.metadata.producer = "Pat 日本"
        item.metadata.djMixer = "Dee"
        item.metadata.performers = ["Bob (piano)", "Cy (vocals)"]
        try await item.save(options: SaveOptions(durability: .noSync))
        let script = """
            import sys, json
            from mutagen.id3 import ID3
            tags = ID3(sys.argv[1])
            print(json.dumps({key: tags[key].people for key in ("TIPL", "TMCL")}))
            """
        let people =
            try JSONSerialization.jsonObject(with: TestSupport.runChecked("python3", ["-c", script, url.path]).standardOutput)
            as? [String: [[String]]]
        #expect(people?["TIPL"] == [["arranger", "Ann ü"], ["arranger", "Al"], ["producer", "Pat 日本"], ["DJ-mix", "Dee"]])
        #expect(people?["TMCL"] == [["piano", "Bob"], ["vocals", "Cy"]])
    }
}
