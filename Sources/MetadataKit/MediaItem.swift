#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A media file and its metadata: the entry point for reading and writing
/// tags.
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
    /// The detected format (see ``MediaFormat/all``); nil until ``load()`` succeeds.
    public private(set) var format: MediaFormat?
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
    /// The file's chapter tables (Matroska editions, ID3 `CTOC`s), in file
    /// order; empty when it has no chapters.
    ///
    /// Set it (or ``chapters``) and ``save(options:)`` writes the new tables
    /// in the format's own way; an empty list removes the file's chapters.
    /// A format that can't store chapters refuses such a save
    /// (`unsupportedFeature`) before anything is written.
    public var chapterTables: [ChapterTable] = []
    /// The chapters players show by default: those of the first default
    /// table, else of the first table (see ``chapterTables``).
    ///
    /// Setting it replaces those chapters, or makes a default table holding
    /// them when the file has none; setting an empty list to a file with one
    /// table removes its chapters.
    public var chapters: [Chapter] {
        get { chapterTables.defaultChapters }
        set { chapterTables.replaceDefaultChapters(with: newValue) }
    }
    /// True once ``load()`` has succeeded.
    public private(set) var isLoaded = false
    /// How the last ``save(options:)`` changed the file (in place, by
    /// inserting space, or through a cloned or copied temporary file); nil
    /// before a save.
    public private(set) var lastSavePath: SavePath?

    /// The metadata as loaded, to tell what changed.
    private(set) var loadedMetadata = Metadata()
    /// The chapter tables as loaded, to tell whether they changed.
    private var loadedChapterTables: [ChapterTable] = []
    /// The file's identity when loaded, to refuse saving over someone else's change.
    private var snapshot: FileSnapshot?
    /// The format's parse of the file as loaded (``ParsedFile/editBasis``),
    /// for the first save to plan from while the file still matches
    /// `snapshot`; nil after a save (the next one reads the tags afresh).
    private var editBasis: (any Sendable)?
    /// The contents, for an item read from memory or another source
    /// (``init(data:filename:)``, ``init(source:filename:)``).
    let contents: (any ByteSource)?
    /// `url.path`, made once: a URL's path is parsed anew each time it is asked for.
    let path: String

    /// The converters, key map and custom fields this item is read and
    /// saved through (``MetadataSchema/standard`` unless given).
    public let schema: MetadataSchema

    /// An item for the file at `url`. Nothing is read until ``load()``.
    public init(url: URL) {
        self.init(url: url, schema: .standard)
    }

    /// An item for the file at `url`, read and saved through `schema`
    /// (its converters, key map and custom fields). Nothing is read until ``load()``.
    public init(url: URL, schema: MetadataSchema) {
        self.init(url: url, path: url.path, schema: schema)
    }

    /// An item for the file at `url`, whose `path` the caller already has
    /// (it must be `url.path`): `mdkit` makes both from one string.
    package init(url: URL, path: String, schema: MetadataSchema = .standard) {
        self.url = url
        self.path = path
        self.schema = schema
        contents = nil
    }

    /// An item whose file's contents are `data`, named `filename` (its
    /// extension helps tell the format, as a path's does). Read with
    /// ``load()`` like a file (pictures are kept in memory); it can't be
    /// saved (``isEditable`` is false): write `data` to a file to edit it.
    public init(data: Data, filename: String) {
        url = URL(fileURLWithPath: filename, isDirectory: false)
        path = url.path
        contents = DataByteSource(data)
        schema = .standard
    }

    /// An item whose file's bytes `source` reads, named `filename` (its
    /// extension helps tell the format, as a path's does): a file that is not
    /// a path on disk (an archive member, a download). Read with ``load()``
    /// like a file, through `source`'s reads of the parts the format needs
    /// (pictures are read into memory at the load); it can't be saved
    /// (``isEditable`` is false), as an item made with ``init(data:filename:)``.
    public init(source: any ByteSource, filename: String) {
        url = URL(fileURLWithPath: filename, isDirectory: false)
        path = url.path
        contents = source
        schema = .standard
    }

    /// Reads the file's metadata and properties. Only the bytes needed are read;
    /// picture bytes are read later, by ``Artwork/data()``.
    ///
    /// The file is read on a thread outside Swift's cooperative pool, so
    /// tasks that don't touch files keep running while loads wait for the
    /// disk (or for a slow ``ByteSource``). Loads have threads of their own,
    /// apart from those of saves, so a load never waits for a thread behind
    /// saves that sync or wait for a lock. A load that finds an interrupted
    /// save to recover waits for another saver's lock at most 5 seconds
    /// (`locked`).
    ///
    /// Throws a ``MediaError`` naming the file when it can't be opened, is not
    /// a supported format, or is malformed.
    public mutating func load() async throws(MediaError) {
        self = try await Self.offloaded(self, on: BlockingWork.loads) { item throws(MediaError) in _ = try item.loadNow() }
    }

    /// ``load()`` on the calling thread, for callers whose threads may block
    /// (`mdkit`'s commands, one process per run, which would otherwise pay a
    /// thread hop per file).
    package mutating func loadOnCallingThread() throws(MediaError) {
        _ = try loadNow()
    }

    /// ``load()``, returning the file it read, still open: for reading the
    /// pictures' bytes without opening the file again (the catalog hashes
    /// them, MetadataKitCatalog). It reads on the caller's thread: the
    /// catalog's readers and `mdkit check` run on threads of their own.
    /// The file closes when the source is released.
    package mutating func loadKeepingFile() async throws -> FileSource {
        try loadNow()
    }

    /// `body` run on a copy of `item` on a thread of `lane` (``BlockingWork``'s
    /// saves lane unless given; outside the cooperative pool); returns the
    /// copy as `body` left it.
    static func offloaded(
        _ item: MediaItem, on lane: BlockingWork.Lane = BlockingWork.saves,
        _ body: @escaping @Sendable (inout MediaItem) throws(MediaError) -> Void
    ) async throws(MediaError) -> MediaItem {
        try await FileEditor.runBlocking(on: lane) { () throws(MediaError) -> MediaItem in
            var copy = item
            try body(&copy)
            return copy
        }
    }

    /// ``load()`` on the calling thread, returning the file it read, still open.
    mutating func loadNow() throws(MediaError) -> FileSource {
        let parsed: ParsedFile
        let source: FileSource
        let format: MediaFormat
        (source, format, parsed) = try MediaError.catching(path: path) {
            let source = try contents.map(opening) ?? FileEditor.openRecovered(path: path)
            let format = try MediaFormat.detect(source, url: url)
            return (source, format, try format.parse(source, url))
        }
        self.format = format
        fileType = parsed.fileType
        isEditable = parsed.isEditable && contents == nil
        properties = parsed.properties
        warnings = parsed.warnings
        chapterTables = parsed.chapterTables
        loadedChapterTables = chapterTables
        metadata = Metadata(
            items: contents == nil
                ? parsed.items : try MediaError.catching(path: path) { try parsed.items.map { try Self.inMemory($0, source) } },
            schema: schema)
        metadata.fillReadOnlyFields(from: MediaFormat.readOnlyFieldSources)
        loadedMetadata = metadata
        snapshot = source.snapshot
        editBasis = contents == nil ? parsed.editBasis : nil
        isLoaded = true
        return source
    }

    /// The source reading the contents an item was made with: bytes in memory
    /// as they are, any other ``ByteSource`` through its reads.
    private func opening(_ contents: any ByteSource) -> FileSource {
        if let memory = contents as? DataByteSource {
            return FileSource(bytes: [UInt8](memory.data), path: path)
        }
        return FileSource(source: contents, path: path)
    }

    /// `item` with a picture stored in `source` read into memory (an item
    /// read from memory has no file to read it from later).
    private static func inMemory(_ item: MetadataItem, _ source: FileSource) throws -> MetadataItem {
        guard let picture = item.value.picture, let offset = picture.fileOffset else { return item }
        var copy = item
        copy.value = .picture(
            Artwork(
                data: Data(try source.getBytes(at: offset, count: picture.byteCount)), mimeType: picture.mimeType,
                pictureType: picture.pictureType, description: picture.description))
        return copy
    }

    /// Whether ``metadata`` or ``chapterTables`` differ from what was loaded.
    public var hasChanges: Bool { metadata != loadedMetadata || hasChapterChanges }

    /// Whether ``chapterTables`` differ from what was loaded.
    var hasChapterChanges: Bool { chapterTables != loadedChapterTables }

    /// The raw items as loaded.
    var loadedItems: [MetadataItem] { loadedMetadata.items }

    /// The file's size when it was loaded (or last saved).
    var lastKnownSize: Int64? { snapshot?.size }

    /// Writes the changed metadata back to the file, then loads it again.
    ///
    /// Changes to the normalized fields go through the converters into raw
    /// items (a title becomes `TIT2` in an MP3, `©nam` in an MP4, or the `mdta`
    /// key when the file keeps its title there); raw items edited through
    /// ``Metadata/items`` are written as edited; everything else survives byte
    /// for byte. The save is safe: see `FileEditor` (Saving/README.md) for what is guaranteed.
    /// ``lastSavePath`` then says how the file was changed.
    ///
    /// The file the path names is changed: through a symbolic link, its
    /// target (the link stays); a file with other hard links keeps its inode
    /// (a change too large to make in place is refused, `unsupportedFeature`);
    /// a file in a folder where no journal or temporary file can be created
    /// is refused (`readOnly`) and left as it was.
    ///
    /// - Throws: ``MediaError`` — `notLoaded`, `fileChanged` (the file changed
    ///   since ``load()``), `readOnly`, `invalidValue` (the format can't hold a
    ///   value), `io` (e.g. a full disk), `verificationFailed`. The file is
    ///   unchanged after any error, except an `io` error from a sync made after
    ///   the new bytes were written (its message says the file was saved but a
    ///   crash may undo it).
    ///
    /// The file is read, written and synced on a thread outside Swift's
    /// cooperative pool.
    public mutating func save(options: SaveOptions = SaveOptions()) async throws(MediaError) {
        self = try await Self.offloaded(self) { item throws(MediaError) in try item.saveOnCallingThread(options: options) }
    }

    /// ``save(options:)`` on the calling thread, for callers whose threads
    /// may block (`mdkit write` runs one task per core; a hop to a
    /// ``BlockingWork`` thread and back per file costs two thread switches).
    package mutating func saveOnCallingThread(options: SaveOptions = SaveOptions()) throws(MediaError) {
        let save = try named { try prepareSave(options: options) }
        try carryOut(save, options: options)
    }

    /// Writes a prepared save to the file and adopts what was written (on
    /// the calling thread).
    mutating func carryOut(_ save: PreparedSave, options: SaveOptions) throws(MediaError) {
        var editor = FileEditor()
        editor.durability = options.durability
        editor.lockWaitLimit = options.lockWaitLimit
        let checked = try named { try editor.apply(save.plan, to: url, expecting: save.snapshot, verify: save.verify) }
        lastSavePath = editor.recorder.path ?? .unchanged
        try adopt(save, checked: checked)
    }

    /// Writes the file with the changed metadata to `destination` (replacing
    /// it if it exists); the original file is left untouched and this item
    /// still describes it. A `destination` that is the original under another
    /// name (another case on a case-insensitive volume, a link: the same
    /// device and inode) is refused with `invalidValue`; use ``save(options:)``.
    public func save(to destination: URL, options: SaveOptions = SaveOptions()) async throws(MediaError) {
        _ = try await Self.offloaded(self) { item throws(MediaError) in
            let save = try item.named { try item.prepareSave(options: options) }
            var editor = FileEditor()
            editor.durability = options.durability
            editor.lockWaitLimit = options.lockWaitLimit
            _ = try item.named {
                try editor.write(save.plan, from: item.url, expecting: save.snapshot, to: destination, verify: save.verify)
            }
        }
    }

    /// Runs `body`; what it throws is a ``MediaError`` naming this item's file
    /// (another error becomes an `io` one, ``MediaError/from(_:path:)``).
    func named<Value>(_ body: () throws -> Value) throws(MediaError) -> Value {
        try MediaError.catching(path: path, body)
    }

    /// After a successful save: the check's parse for an in-place edit (an
    /// empty plan wrote and checked nothing), else a new load (on the calling thread).
    mutating func adopt(_ save: PreparedSave, checked: CheckedSave?) throws(MediaError) {
        // A rewrite checks the temporary file (its pictures would point there),
        // unless the editor did it in place (then the check read this file).
        if case .rewrite = save.plan, checked?.path != FileEditor.resolvingSymbolicLink(url).path {
            _ = try loadNow() // the file was replaced: read it from its new place
            return
        }
        let reread =
            checked?.parsed
            ?? ParsedFile(
                fileType: save.fileType, items: loadedMetadata.items, properties: properties, isEditable: isEditable,
                warnings: warnings)
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw MediaError(.io, "cannot stat the saved file: \(systemErrorText())", path: path)
        }
        metadata = checked?.metadata ?? Metadata(items: reread.items, schema: schema)
        metadata.fillReadOnlyFields(from: MediaFormat.readOnlyFieldSources)
        loadedMetadata = metadata
        properties = reread.properties
        warnings = reread.warnings
        chapterTables = checked?.parsed.chapterTables ?? chapterTables
        loadedChapterTables = chapterTables
        snapshot = FileSnapshot(info)
        editBasis = nil
    }

    /// What a save's check read: the parse, for the item to adopt, and the
    /// path of the file it read.
    struct CheckedSave: Sendable {
        var parsed: ParsedFile
        var path: String
        /// The fields of `parsed`, as the check made them (the item adopts them).
        var metadata: Metadata
    }

    /// Everything a save needs before any byte is written.
    struct PreparedSave: Sendable {
        var plan: FileEditPlan
        var snapshot: FileSnapshot
        var fileType: FileType
        /// The save's check of a file as written: read from the written file
        /// after the save, and from the planned bytes by ``plan(options:)``.
        var check: @Sendable (FileSource) throws -> CheckedSave
        /// The check, reading the written file at a URL.
        var verify: @Sendable (URL) throws -> CheckedSave {
            { [check] written in try check(FileSource(url: written)) }
        }
    }

    /// Resolves the changes into raw items, plans the edit, and makes the check
    /// that reads the written file back.
    func prepareSave(options: SaveOptions) throws -> PreparedSave {
        guard isLoaded, let snapshot, let fileType, let format else {
            throw MediaError(.notLoaded, "call load() before save()", path: path)
        }
        if let contents {
            let origin = contents is DataByteSource ? "memory" : "a ByteSource"
            throw MediaError(.unsupportedFeature, "an item read from \(origin) can't be saved: write its data to a file and load that")
        }
        guard let planEdit = format.planEdit else {
            throw MediaError(.unsupportedFeature, "writing \(format.name) files is not supported yet")
        }
        if let foreign = metadata.items.first(where: { !format.keySpaces.contains($0.keySpace) && !loadedMetadata.items.contains($0) }) {
            throw MediaError(.invalidValue, "\(fileType.identifier) files can't hold '\(foreign.keySpace.rawValue):\(foreign.key)' items")
        }
        var items = try MetadataChanges(schema: schema).resolvedItems(
            loaded: loadedMetadata, edited: metadata, keySpaces: format.keySpaces,
            derived: format.derivedKeySpaces, formatName: format.name, fillsNewPrimaryTag: format.fillsNewPrimaryTag)
        var options = options
        let chaptersChanged = chapterTables != loadedChapterTables
        if chaptersChanged {
            switch format.chapterWriting {
            case .none:
                throw MediaError(.unsupportedFeature, "writing chapters to \(format.name) files is not supported yet")
            case .asItems(let store):
                items = try store(chapterTables, items)
            case .byPlanner:
                // MP4 chapter tracks and Matroska ChapterAtoms have no link: refused, not dropped.
                func linked(_ chapters: [Chapter]) -> Chapter? {
                    chapters.lazy.compactMap { $0.url != nil ? $0 : linked($0.chapters) }.first
                }
                if let chapter = chapterTables.lazy.compactMap({ linked($0.chapters) }).first {
                    throw MediaError(
                        .invalidValue,
                        "chapter '\(chapter.titles.first?.text ?? "")' has a url, which \(format.name) chapters can't hold; remove the url to save"
                    )
                }
                options.chapterTables = chapterTables
            }
        }
        let source = try FileSource(path: path)
        guard source.snapshot == snapshot else {
            throw MediaError(.fileChanged, "the file changed on disk since it was loaded; load it again")
        }
        let plan = try planEdit(source, editBasis, items, options)
        let expected = options.removesAllTags ? Metadata() : Metadata(items: items, schema: schema)
        var changed = metadata.differingFields(from: loadedMetadata)
        let changedCustom = schema.customFields.map(\.name).filter { metadata[custom: $0] != loadedMetadata[custom: $0] }
        let duration = properties.duration
        let wanted = chapterTables
        // Every item nobody changed must read back (changed fields are checked
        // by value). Key spaces the writer rebuilds (ID3v1) or renames (ID3v2
        // frames when the version changes: 2.2 is always upgraded) are exempt.
        var untouched = items.indices.filter { loadedMetadata.items.contains(items[$0], near: $0) }.map { items[$0] }
        // Items the planner stores in another form (ID3 dates: v2.3 TYER/TDAT/TIME
        // ↔ v2.4 TDRC) are checked by the field they hold instead.
        untouched.removeAll { item in
            guard format.reshapedKeys.contains(MetadataKeyMap.RawKey(item.keySpace, item.key)) else { return false }
            if let field = MetadataKeyMap.standard.field(for: item.keySpace, key: item.key), !changed.contains(field) {
                changed.append(field)
            }
            return true
        }
        var exempt = Set(format.derivedKeySpaces)
        if options.id3v2Version != .keep || items.contains(where: { $0.keySpace == .id3 && $0.key.prefix(while: { $0 != ":" }).count == 3 })
        {
            exempt.insert(.id3)
        }
        let check: @Sendable (FileSource) throws -> CheckedSave = { [options, changed, untouched, exempt, schema] source in
            let written = URL(fileURLWithPath: source.path, isDirectory: false)
            let reread = try format.parse(source, written)
            let actual = Metadata(items: reread.items, schema: schema)
            for field in options.removesAllTags ? [] : changed where !Self.sameValue(actual[field], expected[field]) {
                func shown(_ value: DisplayValue?) -> String {
                    value.map { $0.text.map { "'\($0)'" } ?? "\($0.artwork?.count ?? 0) pictures" } ?? "nothing"
                }
                throw MediaError(
                    .verificationFailed,
                    "\(field.rawValue) \(shown(expected[field])) reads back as \(shown(actual[field])): the file's tag can't hold it as given"
                )
            }
            for name in options.removesAllTags ? [] : changedCustom where !Self.sameValue(actual[custom: name], expected[custom: name]) {
                throw MediaError(.verificationFailed, "the custom field \(name) does not read back as written")
            }
            if !options.removesAllTags {
                let lost = ItemSurvival.missing(expected: untouched, actual: reread.items, exempt: exempt)
                if !lost.isEmpty {
                    throw MediaError(
                        .verificationFailed, "the save would lose or alter items nobody changed: \(ItemSurvival.describe(lost))")
                }
            }
            if chaptersChanged, let difference = ChapterComparison.difference(expected: wanted, actual: reread.chapterTables) {
                throw MediaError(.verificationFailed, "the chapters read back differently: \(difference)")
            }
            if let duration, let after = reread.properties.duration, abs(after - duration) > 0.001 {
                throw MediaError(.verificationFailed, "the duration changed from \(duration) to \(after) s")
            }
            return CheckedSave(parsed: reread, path: written.path, metadata: actual)
        }
        // A plan that writes nothing although fields changed would drop the
        // change silently: the check on the file as it is refuses it.
        if !changed.isEmpty || !changedCustom.isEmpty, Self.layout(of: plan, size: source.size) == .unchanged {
            _ = try check(source)
        }
        return PreparedSave(plan: plan, snapshot: snapshot, fileType: fileType, check: check)
    }

    /// Pictures compare by what they are, not by where their bytes are stored.
    private static func sameValue(_ a: DisplayValue?, _ b: DisplayValue?) -> Bool {
        if case .artwork(let left)? = a, case .artwork(let right)? = b {
            // Not every format keeps the picture type (MP4 `covr` has none).
            return left.map { [$0.mimeType, "\($0.byteCount)"] } == right.map { [$0.mimeType, "\($0.byteCount)"] }
        }
        // Several values read back as one text where the format joins them (ID3v2.3 "/", RIFF and AIFF "; ").
        if a?.artwork == nil, let text = a?.text, case .texts(let values)? = b {
            return ["/", DisplayValue.separator].contains { values.joined(separator: $0) == text }
        }
        return a == b
    }
}
