import Foundation

/// A media file and its metadata: the entry point for reading (and, later,
/// writing) tags.
///
/// ```swift
/// var item = MediaItem(url: url)
/// try await item.load()
/// print(item.metadata.title ?? "untitled", item.properties.duration ?? 0)
/// ```
public struct MediaItem: Sendable {
    /// The file.
    public let url: URL
    /// The file's name, with its extension.
    public var filename: String { url.lastPathComponent }
    /// The detected file type; nil until ``load()`` succeeds.
    public private(set) var fileType: FileType?
    /// Whether MetadataKit can write this file's metadata.
    public private(set) var isEditable = false
    /// The metadata; empty until ``load()`` succeeds.
    public var metadata = Metadata()
    /// Duration, bit rate, sample rate, channels, codec.
    public private(set) var properties = MediaProperties()
    /// Local damage that ``load()`` read around (empty for a sound file).
    /// A damaged file may still be editable: ``isEditable`` says whether a
    /// save can keep the damaged part as it is.
    public private(set) var warnings: [MediaWarning] = []
    /// True once ``load()`` has succeeded.
    public private(set) var isLoaded = false

    /// The metadata as loaded, to tell what changed.
    private var loadedMetadata = Metadata()
    /// The file's identity when loaded, to refuse saving over someone else's change.
    private var snapshot: FileSnapshot?

    /// An item for the file at `url`. Nothing is read until ``load()``.
    public init(url: URL) {
        self.url = url
    }

    /// Reads the file's metadata and properties. Only the bytes needed are read;
    /// picture bytes are read later, by ``Artwork/data()``.
    ///
    /// Throws a ``MediaError`` naming the file when it can't be opened, is not
    /// a supported format, or is malformed.
    public mutating func load() async throws {
        let parsed: ParsedFile
        let source: FileSource
        do {
            source = try FileEditor.openRecovered(path: url.path)
            parsed = try FormatDetector.reader(for: source, url: url)(source, url)
        } catch let error as MediaError {
            throw error.naming(url.path)
        }
        fileType = parsed.fileType
        isEditable = parsed.isEditable
        properties = parsed.properties
        warnings = parsed.warnings
        metadata = Metadata(items: parsed.items)
        loadedMetadata = metadata
        snapshot = source.snapshot
        isLoaded = true
    }

    /// Whether ``metadata`` differs from what was loaded.
    public var hasChanges: Bool { metadata != loadedMetadata }

    /// Writes the changed metadata back to the file, then loads it again.
    ///
    /// Changes to the normalized fields go through the converters into raw
    /// items (a title becomes `TIT2` in an MP3, `©nam` in an MP4, or the `mdta`
    /// key when the file keeps its title there); raw items edited through
    /// ``Metadata/items`` are written as edited; everything else survives byte
    /// for byte. The save is safe: see ``FileEditor`` for what is guaranteed.
    ///
    /// - Throws: ``MediaError`` — `notLoaded`, `fileChanged` (the file changed
    ///   since ``load()``), `readOnly`, `invalidValue` (the format can't hold a
    ///   value), `io` (e.g. a full disk), `verificationFailed`. The file is
    ///   unchanged after any error.
    public mutating func save(options: SaveOptions = SaveOptions()) async throws {
        let save = try named { try prepareSave(options: options) }
        var editor = FileEditor()
        editor.durability = options.durability
        let checked = try named { try editor.apply(save.plan, to: url, expecting: save.snapshot, verify: save.verify) }
        try await adopt(save, checked: checked)
    }

    /// Writes the file with the changed metadata to `destination` (replacing
    /// it if it exists); the original file is left untouched and this item
    /// still describes it.
    public func save(to destination: URL, options: SaveOptions = SaveOptions()) async throws {
        let save = try named { try prepareSave(options: options) }
        var editor = FileEditor()
        editor.durability = options.durability
        _ = try named { try editor.write(save.plan, from: url, expecting: save.snapshot, to: destination, verify: save.verify) }
    }

    /// Runs `body`; a ``MediaError`` it throws is made to name this item's file.
    private func named<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as MediaError {
            throw error.naming(url.path)
        }
    }

    /// Saves several items with one set of file-system syncs for all of them
    /// (group commit) instead of several per file; the same guarantees as
    /// ``save(options:)`` hold for each file. Returns, per item, nil or the
    /// error that item's save failed with (the others are still saved).
    ///
    /// Memory stays bounded: the items are planned a few at a time (on every
    /// core), and a group is written as soon as the new bytes its plans hold
    /// reach ``batchByteBudget`` (a picture that moves is new bytes), so large
    /// files make smaller groups rather than large memory.
    public static func save(_ items: inout [MediaItem], options: SaveOptions = SaveOptions()) async -> [(any Error)?] {
        await save(&items, options: options, byteBudget: batchByteBudget)
    }

    /// ``save(_:options:)`` with another budget for a group's new bytes.
    static func save(_ items: inout [MediaItem], options: SaveOptions, byteBudget: Int) async -> [(any Error)?] {
        var errors = [(any Error)?](repeating: nil, count: items.count)
        var group: [(index: Int, save: PreparedSave)] = []
        var groupBytes = 0
        let window = 4 * max(1, ProcessInfo.processInfo.activeProcessorCount)
        var next = 0
        while next < items.count {
            // Planning reads and parses each file: a window of them on every core.
            let indices = Array(next..<min(items.count, next + window))
            next += indices.count
            let snapshot = indices.map { items[$0] }
            let plans = Parallel.map(snapshot.count) { position in
                Result { try snapshot[position].named { try snapshot[position].prepareSave(options: options) } }
            }
            for (index, plan) in zip(indices, plans) {
                switch plan {
                case .success(let save):
                    group.append((index, save))
                    groupBytes += save.plan.newByteCount
                case .failure(let error):
                    errors[index] = error
                }
            }
            if groupBytes >= byteBudget || next == items.count {
                await write(group, to: &items, errors: &errors, options: options)
                group.removeAll()
                groupBytes = 0
            }
        }
        return errors
    }

    /// New bytes the plans of one group of ``save(_:options:)`` may hold.
    static let batchByteBudget = 64 << 20

    /// Writes a group of planned saves with one set of syncs, then has each
    /// item adopt what was written.
    private static func write(_ group: [(index: Int, save: PreparedSave)], to items: inout [MediaItem],
                              errors: inout [(any Error)?], options: SaveOptions) async {
        guard !group.isEmpty else { return }
        var editor = FileEditor()
        editor.durability = options.durability
        let results = editor.applyBatch(group.map { entry in
            FileEditor.BatchEdit(plan: entry.save.plan, url: items[entry.index].url, snapshot: entry.save.snapshot,
                                 verify: entry.save.verify)
        })
        for ((index, save), result) in zip(group, results) {
            do {
                let checked = try items[index].named { try result.get() }
                try await items[index].adopt(save, checked: checked)
            } catch {
                errors[index] = error
            }
        }
    }

    /// After a successful save: the check's parse for an in-place edit (an
    /// empty plan wrote and checked nothing), else a new load.
    private mutating func adopt(_ save: PreparedSave, checked: CheckedSave?) async throws {
        // A rewrite checks the temporary file (its pictures would point there),
        // unless the editor did it in place (then the check read this file).
        if case .rewrite = save.plan, checked?.path != url.path {
            try await load()                            // the file was replaced: read it from its new place
            return
        }
        let reread = checked?.parsed
            ?? ParsedFile(fileType: save.fileType, items: loadedMetadata.items, properties: properties, isEditable: isEditable,
                          warnings: warnings)
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            throw MediaError(.io, "cannot stat the saved file: \(systemErrorText())", path: url.path)
        }
        metadata = Metadata(items: reread.items)
        loadedMetadata = metadata
        properties = reread.properties
        warnings = reread.warnings
        snapshot = FileSnapshot(info)
    }

    /// What a save's check read: the parse, for the item to adopt, and the
    /// path of the file it read.
    private struct CheckedSave {
        var parsed: ParsedFile
        var path: String
    }

    /// Everything a save needs before any byte is written.
    private struct PreparedSave {
        var plan: FileEditPlan
        var snapshot: FileSnapshot
        var fileType: FileType
        var verify: (URL) throws -> CheckedSave
    }

    /// Resolves the changes into raw items, plans the edit, and makes the check
    /// that reads the written file back.
    private func prepareSave(options: SaveOptions) throws -> PreparedSave {
        guard isLoaded, let snapshot, let fileType else {
            throw MediaError(.notLoaded, "call load() before save()", path: url.path)
        }
        let writer = try FormatWriter.writer(for: fileType)
        if let foreign = metadata.items.first(where: { !writer.keySpaces.contains($0.keySpace) && !loadedMetadata.items.contains($0) }) {
            throw MediaError(.invalidValue, "\(fileType.identifier) files can't hold '\(foreign.keySpace.rawValue):\(foreign.key)' items")
        }
        let items = try MetadataChanges().resolvedItems(loaded: loadedMetadata, edited: metadata, keySpaces: writer.keySpaces,
                                                        derived: writer.derivedKeySpaces)
        let source = try FileSource(url: url)
        guard source.snapshot == snapshot else {
            throw MediaError(.fileChanged, "the file changed on disk since it was loaded; load it again")
        }
        let plan = try writer.plan(source, items, options)
        let expected = options.removesAllTags ? Metadata() : Metadata(items: items)
        let changed = MetadataField.allCases.filter { metadata[$0] != loadedMetadata[$0] }
        let duration = properties.duration
        // Every item nobody changed must read back (changed fields are checked
        // by value). Key spaces the writer rebuilds (ID3v1) or renames (ID3v2
        // frames when the version changes: 2.2 is always upgraded) are exempt.
        let loadedItems = Set(loadedMetadata.items)
        let untouched = items.filter { loadedItems.contains($0) }
        var exempt = Set(writer.derivedKeySpaces)
        if options.id3v2Version != .keep || items.contains(where: { $0.keySpace == .id3 && $0.key.prefix(while: { $0 != ":" }).count == 3 }) {
            exempt.insert(.id3)
        }
        let verify: (URL) throws -> CheckedSave = { written in
            let source = try FileSource(url: written)
            let reread = try writer.read(source, written)
            let actual = Metadata(items: reread.items)
            for field in options.removesAllTags ? [] : changed where !Self.sameValue(actual[field], expected[field]) {
                let shown = actual[field].map { $0.text ?? "\($0.artwork?.count ?? 0) pictures" } ?? "nothing"
                throw MediaError(.verificationFailed, "\(field.rawValue) read back as \(shown)")
            }
            if !options.removesAllTags {
                let lost = ItemSurvival.missing(expected: untouched, actual: reread.items, exempt: exempt)
                if !lost.isEmpty {
                    throw MediaError(.verificationFailed, "the save would lose or alter items nobody changed: \(ItemSurvival.describe(lost))")
                }
            }
            if let duration, let after = reread.properties.duration, abs(after - duration) > 0.001 {
                throw MediaError(.verificationFailed, "the duration changed from \(duration) to \(after) s")
            }
            return CheckedSave(parsed: reread, path: written.path)
        }
        return PreparedSave(plan: plan, snapshot: snapshot, fileType: fileType, verify: verify)
    }

    /// Pictures compare by what they are, not by where their bytes are stored.
    private static func sameValue(_ a: DisplayValue?, _ b: DisplayValue?) -> Bool {
        if case .artwork(let left)? = a, case .artwork(let right)? = b {
            // Not every format keeps the picture type (MP4 `covr` has none).
            return left.map { [$0.mimeType, "\($0.byteCount)"] } == right.map { [$0.mimeType, "\($0.byteCount)"] }
        }
        return a == b
    }
}

/// Picks the reader for a file by scoring its first bytes (the extension only
/// breaks ties).
enum FormatDetector {
    typealias Reader = (FileSource, URL) throws -> ParsedFile

    static func reader(for source: FileSource, url: URL) throws -> Reader {
        guard source.size > 0 else {
            throw MediaError(.unsupportedFormat, "the file is empty", offset: 0)
        }
        let head = try source.readAvailable(at: 0, count: 12)
        if let reader = RIFFAIFFDetection.reader(forHead: head) { return reader }
        if head.starts(with: Array("fLaC".utf8)) || (head.starts(with: Array("ID3".utf8)) && FLACLayout.hasMarkerAfterID3(source)) {
            return FLACReader.read
        }
        if head.starts(with: Array("OggS".utf8)) { return OggReader.read }
        if head.starts(with: Array("ID3".utf8)) {
            return MP3Reader.read
        }
        if head.count >= 8 {
            let type = FourCC(UInt32(head[4]) << 24 | UInt32(head[5]) << 16 | UInt32(head[6]) << 8 | UInt32(head[7]))
            if MP4Reader.topLevelTypes.contains(type) { return MP4Reader.read }
        }
        if head.count >= 2, head[0] == 0xFF, head[1] & 0xE0 == 0xE0 {
            return MP3Reader.read
        }
        if ["mp3", "mp2", "mpga"].contains(url.pathExtension.lowercased()) {
            return MP3Reader.read
        }
        throw MediaError(.unsupportedFormat, "not a supported media file (no ID3 tag, MPEG audio frame or MP4 box at the start)", offset: 0)
    }
}
