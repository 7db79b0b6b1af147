import Foundation
import Testing

@testable import MetadataKit

/// The operation matrix: every writable format × every field × every
/// operation (set one value, set several, set the value it has, clear with
/// an empty value, remove), each checked through MetadataKit and through
/// independent readers (mutagen for every format, TagLib's property map and
/// ffprobe for the fields they name alike, ffmpeg's hash of the audio
/// packets). A cell passes when every reader shows the new value (or, after
/// clear and remove, none), no other field or foreign tag changed, and the
/// audio is byte-identical; or when the save was refused before writing with
/// a message naming the field (a field the format has no place for, several
/// values for a field that holds one). docs/OPERATIONS.md is its table.
///
/// Seeded: `MDKIT_MATRIX_SEED` picks the values (printed on failure);
/// `MDKIT_MATRIX=full` runs three seeds; `MDKIT_MATRIX_TABLE=path` writes
/// the table as Markdown; `MDKIT_MATRIX_FORMATS` (names, comma-separated)
/// runs some formats only.
@Suite(.serialized) struct OperationMatrixTests {
    enum Operation: String, CaseIterable {
        case setOne = "set one"
        case setSeveral = "set several"
        case setEqual = "set equal"
        case clear, remove
    }

    enum Outcome {
        case saved(URL)
        case refused(String)
    }

    struct Cell {
        var format: String
        var field: MetadataField
        var operation: Operation
        var source: URL
        var outcome: Outcome
        /// The texts the field should read back as (none: absent).
        var expected: [String]
    }

    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["MDKIT_MATRIX_SEED"].flatMap(UInt64.init) { return [seed] }
        return environment["MDKIT_MATRIX"] == "full" ? [7, 1_234, 99_991] : [UInt64(Date().timeIntervalSince1970) % 10_000]
    }

    /// The texts a test sets `field` to (several for a list).
    static func values(_ field: MetadataField, seed: UInt64, several: Bool) -> [String] {
        let one: String
        switch field {
        case .date: one = "20\(10 + seed % 10)-0\(1 + seed % 9)-1\(seed % 9)"
        case .bpm: one = String(100 + seed % 50)
        case .trackNumber: one = String(4 + seed % 5)
        case .trackCount: one = String(12 + seed % 5)
        case .discNumber: one = String(2 + seed % 3)
        case .discCount: one = String(5 + seed % 3)
        case .genre: one = ["Jazz", "Blues", "Techno"][Int(seed % 3)]
        default: one = PicardMapping.values(field, seed: seed)[0]
        }
        guard several else { return [one] }
        let picard = PicardMapping.values(field, seed: seed)
        if picard.count > 1, picard[0] == one { return picard }
        let second = field.kind == .text ? PicardMapping.values(field, seed: seed + 1)[0] : String(one.reversed())
        return [one, second == one ? one + " 2" : second]
    }

    static func displayValue(_ field: MetadataField, _ texts: [String]) -> DisplayValue? {
        if texts.count > 1 { return .texts(texts) }
        guard let text = texts.first else { return nil }
        switch field.kind {
        case .integer: return Int(text).map(DisplayValue.integer) ?? .text(text)
        case .genre: return .genre(Genre(name: text))
        default: return .text(text)
        }
    }

    static let fields = MetadataField.allCases.filter { $0 != .artwork }

    /// Fields stored as role/name pairs (ID3 `TIPL`, `TMCL`, v2.3 `IPLS`): a list in every version.
    static let people: Set<MetadataField> = [.arranger, .engineer, .producer, .djMixer, .mixer, .performers]

    @Test(.enabled(if: MatrixReaders.toolsPresent || TestSupport.missingUnderCI("ffmpeg, ffprobe, mutagen, mkvtoolnix, g++ and TagLib")))
    func everyOperationOnEveryFieldInEveryFormat() async throws {
        var table: [String: [Operation: (pass: Int, refused: Int, fail: Int)]] = [:]
        for seed in Self.seeds {
            // MDKIT_MATRIX_FORMATS="FLAC,M4A" runs those formats only (for work on one format).
            let only = ProcessInfo.processInfo.environment["MDKIT_MATRIX_FORMATS"].map { Set($0.split(separator: ",").map(String.init)) }
            for format in MatrixFormat.all where only?.contains(format.name) ?? true {
                if let encoder = format.encoder, !Capabilities.ffmpegEncodes(encoder) {
                    Issue.record("ffmpeg can't encode \(encoder): \(format) not checked")
                    continue
                }
                let counts = try await run(format, seed: seed)
                for (operation, count) in counts {
                    var total = table[format.name, default: [:]][operation, default: (0, 0, 0)]
                    total = (total.pass + count.pass, total.refused + count.refused, total.fail + count.fail)
                    table[format.name, default: [:]][operation] = total
                }
            }
        }
        let markdown = Self.markdown(table)
        print(markdown)
        if let path = ProcessInfo.processInfo.environment["MDKIT_MATRIX_TABLE"] {
            try markdown.write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    static func markdown(_ table: [String: [Operation: (pass: Int, refused: Int, fail: Int)]]) -> String {
        var lines = ["| format | " + Operation.allCases.map(\.rawValue).joined(separator: " | ") + " |"]
        lines.append("|---|" + String(repeating: "---|", count: Operation.allCases.count))
        for format in MatrixFormat.all.map(\.name) where table[format] != nil {
            let cells = Operation.allCases.map { operation -> String in
                let count = table[format]?[operation] ?? (0, 0, 0)
                return "\(count.pass) ✓ · \(count.refused) refused" + (count.fail > 0 ? " · **\(count.fail) ✗**" : "")
            }
            lines.append("| \(format) | " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    /// Runs every cell of one format; the pass/refused/fail counts per operation.
    func run(_ format: MatrixFormat, seed: UInt64) async throws -> [Operation: (pass: Int, refused: Int, fail: Int)] {
        let folder = try TestSupport.makeTemporaryDirectory()
        let base = try format.makeBase(in: folder)
        let baseItem = try await MediaItem.loaded(base)
        var cells: [Cell] = []
        for field in Self.fields {
            let one = Self.values(field, seed: seed, several: false)
            let setOne = try await Self.apply(format, field, Self.displayValue(field, one), to: baseItem, as: "\(field)-one", in: folder)
            cells.append(Cell(format: format.name, field: field, operation: .setOne, source: base, outcome: setOne, expected: one))
            // A field the base holds in an unusual way is changed from there;
            // others from the file where it was set.
            let held = format.heldFields.contains(field)
            let startURL: URL
            let startItem: MediaItem
            let equal: (DisplayValue?, [String])
            if held {
                (startURL, startItem) = (base, baseItem)
                equal = (baseItem.metadata[field], baseItem.metadata[field].map(Self.texts) ?? [])
            } else {
                guard case .saved(let oneURL) = setOne else { continue }
                (startURL, startItem) = (oneURL, try await MediaItem.loaded(oneURL))
                equal = (Self.displayValue(field, one), one)
            }
            let several = Self.values(field, seed: seed, several: true)
            let operations: [(Operation, DisplayValue?, [String])] = [
                // ID3v2.3 has no list: several values are one text joined by "/" (as mutagen writes them).
                (
                    .setSeveral, Self.displayValue(field, several),
                    format.joinsLists && !Self.people.contains(field) ? [several.joined(separator: "/")] : several
                ),
                (.setEqual, equal.0, equal.1),
                (.clear, .text(""), []),
                (.remove, nil, []),
            ]
            for (operation, value, expected) in operations {
                let outcome = try await Self.apply(format, field, value, to: startItem, as: "\(field)-\(operation)", in: folder)
                cells.append(
                    Cell(format: format.name, field: field, operation: operation, source: startURL, outcome: outcome, expected: expected))
            }
        }
        let files = [base] + cells.compactMap { if case .saved(let url) = $0.outcome { return url } else { return nil } }
        // mutagen reads no Matroska: mkvtoolnix takes its place there.
        let primaryReader = format.family == "matroska" ? "mkvextract" : "mutagen"
        let read = format.family == "matroska" ? MatrixReaders.matroska : MatrixReaders.mutagen
        let mutagen = try read(files).mapValues { tags in
            // APEv2 keys are case-insensitive (APEv2 §items): compared lower-cased.
            Dictionary(tags.map { ($0.key.hasPrefix("ape:") ? $0.key.lowercased() : $0.key, $0.value) }) { $0 + $1 }
        }
        var sourceMetadata: [String: Metadata] = [:]
        for source in Set(cells.map(\.source)) { sourceMetadata[source.path] = try await MediaItem.loaded(source).metadata }
        let taglib = try MatrixReaders.taglib(files)
        let exiftool = format.exiftoolReads ? try MatrixReaders.exiftool(files) : [:]
        let hashes = try MatrixReaders.audioHashes(files)
        var counts: [Operation: (pass: Int, refused: Int, fail: Int)] = [:]
        for cell in cells {
            var problems: [String] = []
            var refused = false
            switch cell.outcome {
            case .refused(let message):
                refused = true
                problems += Self.judgeRefusal(cell, message, format)
            case .saved(let url):
                problems += try await Self.judgeMetadataKit(cell, url)
                let source = sourceMetadata[cell.source.path] ?? Metadata()
                if format.mutagenReads {
                    problems += Self.judgeReader(
                        primaryReader, cell, before: mutagen[cell.source.path] ?? [:], after: mutagen[url.path] ?? [:],
                        keys: MatrixKeys.mutagenKeys(cell.field, family: format.family), format: format, source: source)
                }
                if let names = MatrixKeys.taglibNames[cell.field], format.taglibReads, !format.taglibSkips.contains(cell.field) {
                    problems += Self.judgeReader(
                        "TagLib", cell, before: taglib[cell.source.path] ?? [:], after: taglib[url.path] ?? [:], keys: names,
                        format: format)
                }
                if let names = MatrixKeys.ffprobeNames[cell.field], [.setOne, .clear].contains(cell.operation),
                    !format.ffprobeSkips.contains(cell.field)
                {
                    problems += Self.judgeReader(
                        "ffprobe", cell, before: try MatrixReaders.ffprobe(cell.source), after: try MatrixReaders.ffprobe(url),
                        keys: names, format: format)
                }
                if format.exiftoolReads, let names = MatrixKeys.exiftoolNames[cell.field], [.setOne, .clear].contains(cell.operation) {
                    problems += Self.judgeReader(
                        "exiftool", cell, before: exiftool[cell.source.path] ?? [:], after: exiftool[url.path] ?? [:], keys: names,
                        format: format)
                }
                if hashes[url.path] == nil || hashes[url.path] != hashes[base.path] {
                    problems.append("the audio packets changed (ffmpeg streamhash)")
                }
            }
            var count = counts[cell.operation, default: (0, 0, 0)]
            if !problems.isEmpty {
                count.fail += 1
                Issue.record(
                    "\(cell.format) \(cell.field.rawValue) \(cell.operation.rawValue) (seed \(seed)): \(problems.joined(separator: "; "))")
            } else if refused {
                count.refused += 1
            } else {
                count.pass += 1
            }
            counts[cell.operation] = count
        }
        return counts
    }

    /// Sets `field` to `value` on a copy of `item`'s file saved as `name`.
    static func apply(
        _ format: MatrixFormat, _ field: MetadataField, _ value: DisplayValue?, to item: MediaItem, as name: String, in folder: URL
    ) async throws -> Outcome {
        var item = item
        item.metadata[field] = value
        let destination = folder.appendingPathComponent("\(name).\(format.fileExtension)")
        // The dry run's plan: refused exactly when the save is, and listing
        // every raw item the save added, changed or removed.
        let plan: Result<SavePlan, any Error>
        do {
            plan = .success(try await item.plan())
        } catch {
            plan = .failure(error)
        }
        do {
            try await item.save(to: destination)
        } catch {
            if case .success = plan { return .refused("PLAN: the plan accepted a save that was refused: \(error.description)") }
            return .refused(error.description)
        }
        let planned: SavePlan
        switch plan {
        case .success(let made): planned = made
        case .failure(let error): return .refused("PLAN: the plan refused a save that succeeded: \(error)")
        }
        let written = try await MediaItem.loaded(destination)
        let actual = SavePlan.differences(from: item.loadedItems, to: written.metadata.items).map(\.description)
        if actual != planned.itemChanges.map(\.description) {
            return .refused("PLAN: the plan listed \(planned.itemChanges.map(\.description)), the save made \(actual)")
        }
        return .saved(destination)
    }

    /// A refusal is a pass when the message names the field and the refusal
    /// is right: several values of a field that holds one, or a field the
    /// format's tag has no place for (no independent reader's key for it).
    static func judgeRefusal(_ cell: Cell, _ message: String, _ format: MatrixFormat) -> [String] {
        if message.hasPrefix("PLAN:") { return [message] }
        guard message.contains(cell.field.rawValue) else { return ["refused without naming the field: \(message)"] }
        switch cell.operation {
        case .setSeveral where FieldRules.singleValued.contains(cell.field) || cell.field.kind != .text:
            return []
        case .setSeveral where message.contains("holds one value in"):
            return [] // the format's place holds one text (ASF's Content Description)
        case .setOne, .setSeveral:
            if message.contains("no place"), MatrixKeys.mutagenKeys(cell.field, family: format.family).isEmpty { return [] }
            return ["refused: \(message)"]
        default:
            return ["refused: \(message)"]
        }
    }

    /// MetadataKit reads the value back, and every other field as it was.
    static func judgeMetadataKit(_ cell: Cell, _ url: URL) async throws -> [String] {
        var problems: [String] = []
        let source = try await MediaItem.loaded(cell.source)
        let result = try await MediaItem.loaded(url)
        let actual = result.metadata[cell.field].map(texts) ?? []
        // RIFF INFO and AIFF text chunks hold one string: several values are stored joined by "; " (docs/FIELDS.md).
        if actual != cell.expected && actual != [cell.expected.joined(separator: DisplayValue.separator)] {
            problems.append("mdkit reads \(actual), not \(cell.expected)")
        }
        for other in fields where other != cell.field && !related(cell.field, other) {
            if result.metadata[other] != source.metadata[other] {
                problems.append(
                    "mdkit's \(other.rawValue) changed from \(source.metadata[other].map(texts) ?? []) to \(result.metadata[other].map(texts) ?? [])"
                )
            }
        }
        return problems
    }

    static func texts(_ value: DisplayValue) -> [String] {
        if case .integer(let number) = value { return [String(number)] }
        return value.texts
    }

    /// Fields that share a stored item (a track number and count in "n/N";
    /// `artists`, which shows the artist when the file has no list).
    static func related(_ a: MetadataField, _ b: MetadataField) -> Bool {
        let groups: [Set<MetadataField>] = [
            [.trackNumber, .trackCount], [.discNumber, .discCount], [.movementNumber, .movementCount],
            [.artist, .artists], [.date, .releaseDate, .originalDate, .originalYear],
        ]
        return groups.contains { $0.contains(a) && $0.contains(b) }
    }

    /// One reader's view: the field's keys show the expected value (none
    /// after clear/remove), and (given the `source` metadata) every other key
    /// that changed held the field's old or new value, or is a copy of an
    /// unchanged field into a tag the save started.
    static func judgeReader(
        _ reader: String, _ cell: Cell, before: MatrixReaders.Tags, after: MatrixReaders.Tags, keys: [String],
        format: MatrixFormat, source: Metadata? = nil
    ) -> [String] {
        var problems: [String] = []
        if keys.isEmpty {
            // No key readers agree on: the value must at least be somewhere a reader sees.
            let everything = after.values.flatMap { $0 }
            for text in cell.expected
            where cell.field.kind == .text && !everything.contains(where: { normalized($0).contains(normalized(text)) }) {
                problems.append("\(reader) shows '\(text)' nowhere")
            }
        } else if cell.operation == .setEqual {
            // The value it has: the reader sees what it saw before (a reader that
            // reads only the first of several atoms, or drops a v2.3 TYER holding
            // a timestamp, sees that again), or the value (a save merged a
            // stacked tag the reader didn't read).
            let shown = values(of: cell.field, in: after, keys: keys, reader: reader)
            if shown != values(of: cell.field, in: before, keys: keys, reader: reader),
                !matches(shown, cell.expected, field: cell.field)
            {
                problems.append("\(reader) shows \(keys.first!) as \(shown) after setting the value it had")
            }
        } else {
            let shown = values(of: cell.field, in: after, keys: keys, reader: reader)
            if !matches(shown, cell.expected, field: cell.field) {
                problems.append("\(reader) shows \(keys.first!) as \(shown), not \(cell.expected)")
            }
        }
        guard let source else { return problems }
        let oldTexts = source[cell.field].map(texts) ?? []
        // Values of unchanged fields, which a save that starts a tag copies into it (WAV's new ID3 chunk).
        let copies = Set(fields.flatMap { source[$0].map(texts) ?? [] }.map(normalized))
        // The partner of a pair ("n/N", a TRACKTOTAL beside TRACKNUMBER) may change with it.
        let partners = fields.filter { $0 != cell.field && Self.related(cell.field, $0) }
            .flatMap { MatrixKeys.mutagenKeys($0, family: format.family) }
        let related = Set(keys) + MatrixKeys.id3v1Keys(cell.field) + partners
        let mentioned = (cell.expected + oldTexts).map(normalized)
        // A value of the field's (containing or contained; a one-character value only exactly).
        func matching(_ value: String, _ text: String) -> Bool {
            value == text || (min(value.count, text.count) > 1 && (value.contains(text) || text.contains(value)))
        }
        for key in Set(before.keys).union(after.keys) where before[key] != after[key] && !related.contains(key) {
            let values = (before[key] ?? []) + (after[key] ?? [])
            if values.contains(where: { value in mentioned.contains { matching(normalized(value), $0) } }) {
                continue
            }
            if before[key] == nil, let added = after[key],
                added.allSatisfy({ copies.contains(normalized($0)) || copies.contains { $0.hasPrefix(normalized(added[0])) } })
            {
                continue
            }
            problems.append("\(reader)'s \(key) changed from \(before[key] ?? []) to \(after[key] ?? [])")
        }
        return problems
    }

    /// What `keys` (the first present) show for `field`: "n/N" pairs cut to
    /// the field's half.
    static func values(of field: MetadataField, in tags: MatrixReaders.Tags, keys: [String], reader: String) -> [String] {
        guard let key = keys.first(where: { tags[$0] != nil }), let values = tags[key] else { return [] }
        // A key the number and the count share holds "n/N"; a key of the count alone holds N.
        let pairs: [MetadataField: MetadataField] = [
            .trackNumber: .trackCount, .trackCount: .trackNumber, .discNumber: .discCount, .discCount: .discNumber,
            .movementNumber: .movementCount, .movementCount: .movementNumber,
        ]
        let shared =
            pairs[field].map { partner in
                ["id3", "mp4", "vorbis", "ape", "asf", "matroska"].contains { MatrixKeys.mutagenKeys(partner, family: $0).contains(key) }
            } ?? false
        let half: Int? =
            switch field {
            case .trackNumber, .discNumber, .movementNumber: 0
            case .trackCount, .discCount, .movementCount: shared ? 1 : nil
            default: nil
            }
        guard let half else { return values }
        return values.compactMap { value in
            let parts = value.split(separator: "/", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard half < parts.count, let number = Int(parts[half]), number > 0 || half == 0 else { return nil }
            return String(number)
        }
    }

    static func matches(_ shown: [String], _ expected: [String], field: MetadataField) -> Bool {
        if expected.isEmpty { return shown.allSatisfy { $0.isEmpty || $0 == "0" } }
        switch field {
        case .rating, .isCompilation, .isGapless, .isPodcast, .showsMovement:
            return !shown.isEmpty // each reader scales ratings and spells flags its own way
        case .date, .releaseDate, .originalDate:
            return shown.contains { expected[0].hasPrefix(String($0.prefix(10))) && $0.count >= 4 }
        case .performers:
            // "Name (role)" is ID3's TMCL pair role=name.
            let joined = normalized(shown.joined(separator: "\u{0}"))
            return expected.allSatisfy { text in
                let parts = text.split(separator: "(", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                let pair = parts.count == 2 ? "\(parts[1].dropLast())=\(parts[0])" : text
                return joined.contains(normalized(text)) || joined.contains(normalized(pair))
            }
        default:
            let joined = normalized(shown.joined(separator: "\u{0}"))
            return expected.allSatisfy { joined.contains(normalized($0)) }
        }
    }

    static func normalized(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").lowercased()
    }
}

extension MatrixKeys {
    /// The ID3v1 field mutagen-dump.py shows for `field`, when it has one.
    static func id3v1Keys(_ field: MetadataField) -> [String] {
        let names: [MetadataField: String] = [
            .title: "title", .artist: "artist", .album: "album", .date: "year", .comments: "comment", .trackNumber: "track",
        ]
        return names[field].map { ["id3v1:" + $0] } ?? []
    }
}

extension Set {
    fileprivate static func + (set: Set, more: [Element]) -> Set { set.union(more) }
}
