import MetadataKit
import MetadataKitCatalog

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `mdkit write FILE... [--field NAME=KEY]... [--set KEY=VALUE]... [--remove KEY]... [--artwork IMAGE [--artwork-type TYPE] [--artwork-mime TYPE]]
/// [--remove-artwork] [--id3v2-version 3|4] [--id3v1 update|add|remove] [--remove-all-tags]
/// [--no-sync] [--lock-wait SECONDS] [--output OUT [-y]] [--force] [--dry-run] [--verbose] [--quiet]`
struct WriteCommand {
    /// The key spaces, for messages: "id3, id3v1, … or vorbis".
    static var keySpaceList: String {
        let names = MediaFormat.allKeySpaces.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    }

    static var usage: String {
        """
        usage: mdkit write FILE... [--set KEY=VALUE]... [--remove KEY]... [--field NAME=KEY]...
                                   [--artwork IMAGE [--artwork-type TYPE] [--artwork-mime TYPE]]...
                                   [--remove-artwork] [--lyrics FILE.lrc]
                                   [--chapters F | --remove-chapters]
                                   [--id3v2-version 3|4] [--id3v1 update|add|remove]
                                   [--remove-all-tags] [--no-sync] [--lock-wait SECONDS] [--output OUT [-y]] [--force]
                                   [--dry-run] [--verbose] [--quiet]

        Changes the metadata of each FILE in place (safely: see README).
          --set KEY=VALUE     set a field. KEY is a normalized name (title, artist, albumArtist,
                              album, grouping, composer, comments, genre, year, bpm, trackNumber,
                              trackCount, discNumber, discCount, titleSort, compilation, isrc, ...:
                              mdkit fields lists them all; the Swift API's names such as date,
                              isCompilation, musicBrainzReleaseID work too) or a raw key written
                              keySpace:key (e.g. id3:TXXX:MOOD, vorbis:MOOD), where keySpace is
                              \(keySpaceList). A key given twice is a usage error.
          --remove KEY        remove a field or raw key
          --field NAME=KEY    name a custom field held by the raw key KEY (keySpace:key, e.g.
                              --field energy=id3:TXXX:ENERGY); repeat with one NAME to give its
                              key in other key spaces (most preferred first). --set NAME=VALUE
                              and --remove NAME then edit it where the file holds it, else
                              under its key in the format's primary tag; --dry-run lists it
          --artwork IMAGE     set the artwork to IMAGE (repeat for several pictures): a JPEG,
                              PNG, GIF, BMP or WebP file; anything else is refused unless
                              --artwork-mime names its type
          --artwork-type T    picture type of the preceding --artwork: front (default), back,
                              artist, media, leaflet, other, ... or typeN
          --artwork-mime M    MIME type of the preceding --artwork (default: from its header)
          --remove-artwork    remove every picture
          --lyrics FILE.lrc   set timed lyrics from an LRC file: an ID3 SYLT frame (and the text
                              in USLT) for MP3, WAV, AIFF (LRC ID tags such as [ti:] have no
                              place there: a warning names them); the LRC text elsewhere
        \(chapterUsage)
          --id3v2-version V   MP3: write ID3v2.V (3 or 4); default: keep 2.3/2.4, 2.2 becomes 2.4
          --id3v1 MODE        MP3: update an existing ID3v1 tag (default), add one, or remove it
          --remove-all-tags   remove every tag (not with --set, --remove, --artwork, …); the
                              removed fields and items are listed and counted
          --no-sync           skip fsync (faster; not safe against power loss)
          --lock-wait SECONDS wait at most SECONDS (default 5; 0: not at all) for another save
                              of a file (by mdkit or another program using MetadataKit) to
                              finish; then that file fails with 'locked', unchanged
          --output OUT        write the result to OUT and leave FILE untouched (one FILE only;
                              OUT ends in an extension of FILE's format)
          -y, --overwrite     replace an existing OUT (without it, an existing OUT is refused)
          --force             write files that have no write permission (refused without it,
                              as rm asks, even when run as root)
          --dry-run           print what would change; write nothing
          --verbose, -v       say how each file was changed: in place, by inserting blocks,
                              or rewritten (with a clone of the audio/video where possible);
                              saves the files one by one
          --quiet, -q         draw no progress line (drawn on standard error when it is a
                              terminal and several files are given: files loaded, then saved)
        A file another program changes while it is written is loaded again and the
        edit retried (a few times; then it fails, asking to run the command again).
        Exit status: 0 when every file was written, 1 when any failed, 2 on a usage error.

        FILE may also be a folder (its media files, walked in name order) or a path list:
        \(PathArguments.usage)
        """
    }

    enum Edit {
        case set(MetadataField, DisplayValue)
        case remove(MetadataField)
        case setRaw(MetadataKeySpace, String, String)
        case removeRaw(MetadataKeySpace, String)
        /// A custom field of `--field`, by name.
        case setCustom(String, String)
        case removeCustom(String)
    }

    /// The files to write: the FILE arguments with folders walked and path lists read (``PathArguments``).
    var paths: [String] = []
    var pathArguments = PathArguments()
    /// Paths that could not be walked, with the reason, reported in their place.
    var problems: [String: String] = [:]
    var edits: [Edit] = []
    /// The custom fields of `--field`, in the order first named, with their keys.
    var customFields: [(name: String, keys: [MetadataKeyMap.RawKey])] = []
    /// The standard schema with ``customFields`` registered: what files are read and saved through.
    var schema = MetadataSchema.standard
    var artwork: [(path: String, type: Artwork.PictureType, mimeType: String?)] = []
    var removesArtwork = false
    var lyrics: LRCLyrics?
    var chapterEdit: ChapterEdit?
    var options = SaveOptions()
    var output: String?
    var dryRun = false
    var verbose = false
    var quiet = false
    var overwrite = false
    var force = false

    init(arguments: [String]) throws(UsageError) {
        var index = 0
        func value(_ option: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError("\(option) needs a value\n\n\(Self.usage)") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--set":
                edits.append(try Self.edit(setting: try value(argument), allowingCustom: true))
            case "--remove":
                edits.append(try Self.edit(key: try value(argument), value: nil, allowingCustom: true))
            case "--field":
                try addCustomField(try value(argument))
            case "--artwork":
                artwork.append((try value(argument), .frontCover, nil))
            case "--artwork-type":
                let name = try value(argument)
                guard !artwork.isEmpty, let type = Artwork.PictureType(name: name) else {
                    throw UsageError("--artwork-type needs a preceding --artwork and a type such as front, back, artist (got '\(name)')")
                }
                artwork[artwork.count - 1].type = type
            case "--artwork-mime":
                let type = try value(argument)
                guard !artwork.isEmpty, type.contains("/") else {
                    throw UsageError("--artwork-mime needs a preceding --artwork and a MIME type such as image/jpeg (got '\(type)')")
                }
                artwork[artwork.count - 1].mimeType = type
            case "--remove-artwork": removesArtwork = true
            case "--lyrics": lyrics = try Self.lyrics(file: try value(argument))
            case "--chapters": chapterEdit = try Self.chapterEdit(file: try value(argument))
            case "--remove-chapters": chapterEdit = .remove
            case "--id3v2-version":
                switch try value(argument) {
                case "3": options.id3v2Version = .v2_3
                case "4": options.id3v2Version = .v2_4
                case let other: throw UsageError("--id3v2-version is 3 or 4, not '\(other)'")
                }
            case "--id3v1":
                switch try value(argument) {
                case "update": options.id3v1 = .updateExisting
                case "add": options.id3v1 = .add
                case "remove": options.id3v1 = .remove
                case let other: throw UsageError("--id3v1 is update, add or remove, not '\(other)'")
                }
            case "--remove-all-tags": options.removesAllTags = true
            case "--no-sync": options.durability = .noSync
            case "--lock-wait": options.lockWaitLimit = try Self.lockWait(try value(argument))
            case "--output": output = try value(argument)
            case "-y", "--overwrite": overwrite = true
            case "--force": force = true
            case "--dry-run": dryRun = true
            case "--verbose", "-v": verbose = true
            case "--quiet", "-q": quiet = true
            default:
                // FILE arguments: files, folders, path lists (PathArguments).
                guard try pathArguments.parse(argument, value: { () throws(UsageError) -> String in try value(argument) }) else {
                    throw UsageError("unknown option '\(argument)'\n\n\(Self.usage)")
                }
            }
            index += 1
        }
        if pathArguments.isEmpty { throw UsageError("no FILE given\n\n\(Self.usage)") }
        if changesNothing { throw UsageError("nothing to change: give --set, --remove, --artwork, … (mdkit write --help)") }
        if output != nil {
            // One file, named: not a folder or a list (it would be walked into one OUT).
            guard pathArguments.listFiles.isEmpty, pathArguments.operands.count == 1, pathArguments.operands[0] != "-",
                FileStatus(path: pathArguments.operands[0], followingLinks: true)?.isDirectory != true
            else { throw UsageError("--output takes exactly one FILE (not a folder or a path list)") }
        }
        let entries = pathArguments.entries()
        paths = entries.map(\.path)
        problems = ReadCommand.problems(entries)
        if !artwork.isEmpty && removesArtwork { throw UsageError("--artwork and --remove-artwork exclude each other") }
        if options.removesAllTags, !edits.isEmpty || !artwork.isEmpty || lyrics != nil || chapterEdit != nil {
            // The save would drop them with the tags: say so instead of ignoring them.
            throw UsageError(
                "--remove-all-tags removes every tag, so it can't be combined with --set, --remove, --artwork, --lyrics "
                    + "or --chapters; remove the tags first, then write the new values in a second run")
        }
        var seen = Set<String>()
        for edit in edits where !seen.insert(edit.target).inserted {
            throw UsageError("\(edit.target) is given twice (keys are compared as the format stores them)")
        }
        schema = try registeredSchema()
    }

    /// Parses the KEY=VALUE of a `--set`.
    static func edit(setting pair: String, allowingCustom: Bool = false) throws(UsageError) -> Edit {
        guard let equals = pair.firstIndex(of: "=") else { throw UsageError("--set needs KEY=VALUE, not '\(pair)'") }
        return try edit(key: String(pair[..<equals]), value: String(pair[pair.index(after: equals)...]), allowingCustom: allowingCustom)
    }

    /// Parses one `--set`/`--remove` key (and value); with `allowingCustom`,
    /// a name that is neither a field nor a raw key is a custom field (which
    /// a `--field` must name).
    static func edit(key: String, value: String?, allowingCustom: Bool = false) throws(UsageError) -> Edit {
        if let field = MetadataField(name: key) {
            guard let value else { return .remove(field) }
            switch field {
            case .artwork:
                throw UsageError("use --artwork IMAGE to set pictures")
            case .bpm, .trackNumber, .trackCount, .discNumber, .discCount:
                guard let number = Int(value), number >= 0 else { throw UsageError("\(key) needs a whole number, not '\(value)'") }
                return .set(field, .integer(number))
            case .genre:
                return .set(field, .genre(Genre(name: value)))
            default:
                return .set(field, .text(value))
            }
        }
        if allowingCustom, !key.isEmpty, !key.contains(":") {
            return value.map { .setCustom(key, $0) } ?? .removeCustom(key)
        }
        let (space, rawKey) = try rawKey(key)
        return value.map { .setRaw(space, rawKey, $0) } ?? .removeRaw(space, rawKey)
    }

    /// Parses a raw key keySpace:key, the key as the format stores it.
    static func rawKey(_ key: String) throws(UsageError) -> (MetadataKeySpace, String) {
        guard let colon = key.firstIndex(of: ":"), colon != key.startIndex, key.index(after: colon) != key.endIndex else {
            throw UsageError("'\(key)' is neither a field name nor a raw key keySpace:key")
        }
        let space = MetadataKeySpace(rawValue: String(key[..<colon]))
        if space == .oggStream {
            throw UsageError(
                "key space 'ogg-stream' is read only: it holds the comments of an Ogg file's other logical streams "
                    + "(e.g. the audio's beside a Theora video), which a save does not write; the main stream's comment is vorbis:KEY")
        }
        guard MediaFormat.allKeySpaces.contains(space) else {
            throw UsageError("unknown key space '\(space.rawValue)' (use \(Self.keySpaceList))")
        }
        return (space, MediaFormat.normalizedKey(String(key[key.index(after: colon)...]), in: space))
    }

    func run() async -> Int32 {
        if let output, !dryRun, let path = paths.first, let refusal = await refusedOutput(output, input: path) {
            StandardStream.error.write(text: "mdkit write: error: \(refusal.message)\n")
            return refusal.status
        }
        var pictures: [Artwork] = []
        for entry in artwork {
            let data: Data
            do {
                data = try Self.contents(of: entry.path, what: "the image")
            } catch {
                StandardStream.error.write(text: "mdkit write: \(error.message)\n")
                return 2
            }
            let picture = Artwork(data: data, mimeType: entry.mimeType, pictureType: entry.type)
            guard entry.mimeType != nil || picture.mimeType != "application/octet-stream" else {
                StandardStream.error.write(
                    text: """
                        mdkit: \(TerminalText.escape(entry.path)) is not a JPEG, PNG, GIF, BMP or WebP image; \
                        give --artwork-mime TYPE to store it anyway\n
                        """)
                return 2
            }
            pictures.append(picture)
        }
        let command = self, shared = pictures
        let progress = Progress(
            phase: dryRun ? "checking" : "saving", total: Int64(paths.count), unit: .files,
            shown: paths.count > 1 && Progress.shouldShow(quiet: quiet))
        let reports: [(text: String, failed: Bool)]
        if options.durability == .full, !dryRun, output == nil, paths.count > 1, !verbose {
            reports = await saveInBatches(pictures: shared, progress: progress)
        } else {
            // Files are written in parallel (one task per core); reports keep argument order.
            reports = await ReadCommand.forEach(paths) { path, url in
                defer { progress.advance() }
                if let problem = command.problems[path] {
                    return ("\(TerminalText.escape(path)): error: \(TerminalText.escape(problem))\n", true)
                }
                do {
                    return ("\(TerminalText.escape(path)): \(try await command.write(path, url: url, pictures: shared))\n", false)
                } catch {
                    return ("\(TerminalText.escape(path)): error: \(TerminalText.escape(Report.errorMessage(error)))\n", true)
                }
            }
        }
        progress.finish()
        for report in reports {
            if report.failed {
                StandardStream.error.write(text: report.text)
            } else {
                StandardStream.output.write(text: report.text)
            }
        }
        return reports.contains { $0.failed } ? 1 : 0
    }

    /// Durable saves of many files: loaded and edited in parallel, then saved
    /// together, the library grouping them under one set of file-system syncs
    /// per group (``MediaItem/save(_:options:progress:)``).
    private func saveInBatches(pictures: [Artwork], progress: Progress) async -> [(text: String, failed: Bool)] {
        let command = self
        progress.update(done: 0, phase: "loading")
        let loaded = await ReadCommand.forEach(paths) { path, url -> Result<Edited, MediaError> in
            defer { progress.advance() }
            if let problem = command.problems[path] { return .failure(MediaError(.io, problem)) }
            do {
                let edit = try await command.edited(url: url, pictures: pictures)
                if !edit.changes.isEmpty || !command.options.isPlain { try command.checkWritable(path) }
                return .success(edit)
            } catch {
                return .failure(error as? MediaError ?? MediaError(.io, Report.errorMessage(error)))
            }
        }
        var reports = [(text: String, failed: Bool)](repeating: ("", false), count: paths.count)
        var batch: [(index: Int, edit: Edited)] = []
        var items: [MediaItem] = []
        for (index, result) in loaded.enumerated() {
            switch result {
            case .failure(let error):
                reports[index] = ("\(TerminalText.escape(paths[index])): error: \(TerminalText.escape(Report.errorMessage(error)))\n", true)
            case .success(let edit):
                if edit.changes.isEmpty && options.isPlain {
                    reports[index] = ("\(TerminalText.escape(paths[index])): no changes\n", false)
                    continue
                }
                batch.append((index, edit))
                items.append(edit.item)
            }
        }
        let skipped = Int64(paths.count - items.count)
        progress.update(done: skipped, phase: "saving")
        let errors = await MediaItem.save(&items, options: options) { saved in progress.update(done: skipped + Int64(saved)) }
        for ((entry, error), saved) in zip(zip(batch, errors), items) {
            let path = paths[entry.index]
            if (error as? MediaError)?.code == .fileChanged {
                // Changed by another program since it was loaded: load it again, alone.
                do {
                    reports[entry.index] = (
                        "\(TerminalText.escape(path)): \(try await write(path, url: FileURL(path: path), pictures: pictures))\n",
                        false
                    )
                } catch {
                    reports[entry.index] = (
                        "\(TerminalText.escape(path)): error: \(TerminalText.escape(Report.errorMessage(error)))\n", true
                    )
                }
                continue
            }
            reports[entry.index] =
                error.map { ("\(TerminalText.escape(path)): error: \(TerminalText.escape(Report.errorMessage($0)))\n", true) }
                ?? ("\(TerminalText.escape(path)): saved (\(Self.count(entry.edit.count(saved: saved))))\(entry.edit.warned)\n", false)
        }
        return reports
    }

    /// The item at `url`, loaded, with the edits applied; the changes that
    /// makes; and warnings on what the format can't keep of what was asked.
    private func edited(url: FileURL, pictures: [Artwork]) async throws -> Edited {
        var item = url.mediaItem(schema: schema)
        try item.loadOnCallingThread() // mdkit's tasks may block: no thread hop per file
        let before = item.metadata
        for edit in edits {
            switch edit {
            case .set(let field, let value): item.metadata[field] = value
            case .remove(let field): item.metadata[field] = nil
            case .setRaw(let space, let key, let value):
                item.metadata.items.removeAll { $0.keySpace == space && $0.key == key }
                item.metadata.items.append(MetadataItem(keySpace: space, key: key, value: .string(value), dataType: .utf8))
            case .removeRaw(let space, let key):
                item.metadata.items.removeAll { $0.keySpace == space && $0.key == key }
            case .setCustom(let name, let value): item.metadata[custom: name] = .text(value)
            case .removeCustom(let name): item.metadata[custom: name] = nil
            }
        }
        if !pictures.isEmpty { item.metadata.artwork = pictures }
        if removesArtwork { item.metadata.artwork = [] }
        var warnings: [String] = []
        if let lyrics {
            let unkept = try item.setTimedLyrics(lyrics)
            if !unkept.isEmpty {
                let lines =
                    unkept.prefix(3).map { "'\($0)'" }.joined(separator: ", ") + (unkept.count > 3 ? " and \(unkept.count - 3) more" : "")
                warnings.append(
                    "the lyrics are stored as timed lines (ID3 SYLT) and plain text (USLT), which have no place for the LRC lines \(lines)")
            }
        }
        let chapterChanges = Self.apply(chapterEdit, to: &item)
        // Removing every tag removes everything, edits included (SaveOptions.removesAllTags).
        return Edited(
            item: item, before: before,
            changes: Self.describeChanges(from: before, to: options.removesAllTags ? Metadata() : item.metadata) + chapterChanges,
            warnings: warnings)
    }

    /// How many times a save that found its file changed by another program
    /// loads it again and retries, before giving up.
    static let fileChangedRetries = 5

    /// Writes one file; a save refused with `fileChanged` (another program
    /// wrote the file since it was loaded) is retried from a new load, up to
    /// ``fileChangedRetries`` times.
    private func write(_ path: String, url: FileURL, pictures: [Artwork]) async throws -> String {
        var attempt = 0
        while true {
            do {
                return try await writeOnce(path, url: url, pictures: pictures)
            } catch let error as MediaError where error.code == .fileChanged {
                attempt += 1
                guard attempt <= Self.fileChangedRetries else {
                    throw MediaError(.fileChanged, "another program kept changing the file while mdkit wrote it; run the command again")
                }
                try await Task.sleep(nanoseconds: UInt64.random(in: 5_000_000...50_000_000) * UInt64(attempt))
            }
        }
    }

    private func writeOnce(_ path: String, url: FileURL, pictures: [Artwork]) async throws -> String {
        let edit = try await edited(url: url, pictures: pictures)
        var item = edit.item
        let changes = edit.changes
        let warned = edit.warned
        if dryRun {
            let plan = try await item.plan(options: options)
            guard !plan.isEmpty || !changes.isEmpty else { return "no changes" }
            // ID3v1 fields that can't hold the new value (MP3 only).
            let losses = try item.id3v1Updates(options: options).filter { $0.loss != nil }.map { "id3v1: \($0)" }
            return "would change\n" + Self.describe(plan, chapterLines: changes.filter { $0.hasPrefix("chapter") }, losses: losses) + warned
        }
        let removed = options.removesAllTags && !changes.isEmpty ? "\n" + changes.map { "  " + $0 }.joined(separator: "\n") : ""
        if let output {
            try await item.save(to: URL(fileURLWithPath: output), options: options)
            return "written to \(output) (\(Self.count(changes.count)))" + removed + warned
        }
        guard !changes.isEmpty || !options.isPlain else { return "no changes" }
        try checkWritable(path)
        try item.saveOnCallingThread(options: options) // mdkit's tasks may block: no thread hop per file
        let count = edit.count(saved: item)
        if count == 0, item.lastSavePath == .unchanged { return "no changes" }
        let how = verbose ? "; " + Self.describe(item.lastSavePath ?? .unchanged) : ""
        return "saved (\(Self.count(count))\(how))" + removed + warned
    }

    /// How a save changed the file, for `--verbose`.
    static func describe(_ path: SavePath) -> String {
        switch path {
        case .unchanged: return "nothing written"
        case .inPlace: return "in place"
        case .insertion: return "in place, blocks inserted"
        case .cloneRewrite: return "rewritten, the payload cloned"
        case .rewrite: return "rewritten"
        }
    }

    /// "1 change", "3 changes".
    static func count(_ changes: Int) -> String { "\(changes) change\(changes == 1 ? "" : "s")" }
}

extension SaveOptions {
    /// True when the options ask for nothing beyond the metadata changes.
    var isPlain: Bool { !removesAllTags && id3v2Version == .keep && id3v1 == .updateExisting }
}

extension WriteCommand {
    /// A file loaded and edited, before its save.
    struct Edited {
        var item: MediaItem
        /// The metadata as loaded.
        var before: Metadata
        /// The lines describing the changes asked for.
        var changes: [String]
        /// What the format can't keep of what was asked.
        var warnings: [String]

        /// The warnings as indented lines after a file's report line.
        var warned: String { warnings.map { "\n  warning: " + TerminalText.escape($0) }.joined() }

        /// The changes a save made: those asked for, or — for options that
        /// change the file beyond the fields (ID3v1 added or removed) — the
        /// raw items that differ once `saved` holds the file as written.
        func count(saved: MediaItem) -> Int {
            changes.isEmpty ? WriteCommand.describeChanges(from: before, to: saved.metadata).count : changes.count
        }
    }
}
