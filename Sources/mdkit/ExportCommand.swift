import MetadataKit
import MetadataKitCatalog

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `mdkit export IN OUT [--tracks ID,ID] [--start SEC] [--end SEC] [--faststart] [--set KEY=VALUE]... [-y] [--quiet]`
struct ExportCommand {
    static let usage = """
        usage: mdkit export IN OUT [--tracks ID,ID] [--start SEC] [--end SEC] [--faststart]
                                   [--replace-metadata] [--set KEY=VALUE]... [-y] [--quiet]

        Copies the tracks of IN into OUT (\(Self.extensionList(AssetFileType.allCases.flatMap(\.pathExtensions)))) without re-encoding.
          --tracks ID,ID      track IDs to copy, each once (see mdkit tracks); default: all
          --start SEC         start of the part to copy; each track starts at its sync sample
                              at or before it, and an edit list starts playback exactly there
          --end SEC           end of the part to copy
          --faststart         write the movie header before the media data
          --set KEY=VALUE     \(Self.setHelp)
          --replace-metadata  drop the metadata of IN; write only the --set values
          -y, --overwrite     replace OUT if it exists (without it, an existing OUT is refused)
          -q, --quiet         draw no progress line
        A progress line (media bytes copied of the tracks' total) is drawn on standard error
        when it is a terminal. On failure OUT is removed and IN is untouched.
        IN is one file: a folder or a path list (-, --files-from) is refused (one export makes one OUT).
        Exit status: 0 when exported, 1 when the export failed, 2 on a usage error.
        """

    var input = ""
    var output = ""
    var trackIDs: [UInt32]?
    var start: Double?
    var end: Double?
    var faststart = false
    var replace = false
    var edits: [WriteCommand.Edit] = []
    var overwrite = false
    var quiet = false

    init(arguments: [String]) throws(UsageError) {
        var paths: [String] = []
        var index = 0
        func value(_ option: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError("\(option) needs a value\n\n\(Self.usage)") }
            return arguments[index]
        }
        func seconds(_ option: String) throws(UsageError) -> Double {
            let text = try value(option)
            guard let number = Double(text), number.isFinite, number >= 0 else {
                throw UsageError("\(option) needs seconds, not '\(text)'")
            }
            return number
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--tracks":
                let list = try value(argument)
                var ids: [UInt32] = []
                for part in list.split(separator: ",") {
                    guard let id = UInt32(part.trimmingWhitespace()) else {
                        throw UsageError("--tracks needs track IDs like 1,2, not '\(list)'")
                    }
                    guard !ids.contains(id) else { throw UsageError("--tracks names track \(id) twice") }
                    ids.append(id)
                }
                trackIDs = ids
            case "--start": start = try seconds(argument)
            case "--end": end = try seconds(argument)
            case "--faststart": faststart = true
            case "--replace-metadata": replace = true
            case "-y", "--overwrite": overwrite = true
            case "-q", "--quiet": quiet = true
            case "--set":
                edits.append(try WriteCommand.edit(setting: try value(argument)))
            case "--files-from", "-0", "--include", "--exclude", "--all-files", "--follow":
                throw UsageError("export takes one IN file and makes one OUT: \(argument) (for folders and path lists) is not taken")
            case _ where argument.hasPrefix("-") && argument != "-":
                throw UsageError("unknown option '\(argument)'\n\n\(Self.usage)")
            default:
                paths.append(argument)
            }
            index += 1
        }
        guard paths.count == 2 else { throw UsageError("export needs IN and OUT\n\n\(Self.usage)") }
        (input, output) = (paths[0], paths[1])
        // One movie in, one out: no folders or path lists (see the usage).
        if input == "-" || output == "-" {
            throw UsageError("export takes one IN file and one OUT file; '-' (a path list on stdin) is not taken")
        }
        if FileStatus(path: input, followingLinks: true)?.isDirectory == true {
            throw UsageError(
                "export takes one IN file and makes one OUT, and \(input) is a folder: export its files one at a time"
            )
        }
        if let start, let end, end <= start { throw UsageError("--end must be after --start") }
        var seen = Set<String>()
        for edit in edits where !seen.insert(edit.target).inserted {
            throw UsageError("\(edit.target) is given twice")
        }
        guard AssetFileType(pathExtension: URL(fileURLWithPath: output).pathExtension) != nil else {
            throw UsageError("OUT must end in \(Self.extensionList(AssetFileType.allCases.flatMap(\.pathExtensions)))")
        }
    }

    /// The `--set` help: the fields and the raw key spaces an export
    /// writes (``ExportSession/writableKeySpaces``), wrapped at 90 columns
    /// under the option's text (column 22).
    static var setHelp: String {
        let fields = MetadataField.allCases.filter { $0 != .artwork }.map(\.rawValue)
        let spaces = ExportSession.writableKeySpaces.map { "\($0.rawValue):" }.joined(separator: ", ")
        let indent = String(repeating: " ", count: 22)
        var lines: [String] = []
        var line = indent + "set a field ("
        for (index, field) in fields.enumerated() {
            let word = field + (index + 1 < fields.count ? "," : ")")
            if line.hasSuffix("(") {
                line += word
            } else if line.count + 1 + word.count > 90 {
                lines.append(line)
                line = indent + word
            } else {
                line += " " + word
            }
        }
        lines.append(line + " or a raw key keySpace:key (\(spaces))")
        return String(lines.joined(separator: "\n").dropFirst(indent.count))
    }

    /// Throws when `output` exists (and is not `input`, which the library
    /// refuses itself) unless `overwrite`: ffmpeg's `-y` convention.
    static func refuseExisting(_ output: String, input: String, overwrite: Bool) throws {
        guard !overwrite, FileManager.default.fileExists(atPath: output) else { return }
        // The same file: the same device and inode (FileManager's attribute
        // values are no NSNumbers without Foundation: `as? Int` of
        // FoundationEssentials' UInt64 inode is nil, which made every pair "the same").
        if let status = FileStatus(path: output, followingLinks: true),
            status.identity == FileStatus(path: input, followingLinks: true)?.identity
        {
            return
        }
        throw MediaError(.invalidValue, "\(output) exists; give -y (--overwrite) to replace it")
    }

    /// ".a, .b or .c".
    static func extensionList(_ extensions: [String]) -> String {
        let names = extensions.map { "." + $0 }
        return names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    }

    func run() async -> Int32 {
        let shown = Progress.shouldShow(quiet: quiet)
        var progress: Progress?
        do {
            try Self.refuseExisting(output, input: input, overwrite: overwrite)
            let asset = try await Asset.load(url: URL(fileURLWithPath: input))
            for warning in asset.warnings {
                StandardStream.error.write(
                    text: "mdkit export: \(TerminalText.escape(input)): warning: \(TerminalText.escape(warning.description))\n")
            }
            let session = ExportSession(asset: asset, preset: .passthrough)
            session.outputURL = URL(fileURLWithPath: output)
            session.trackIDs = trackIDs
            let duration = asset.durationSeconds, seconds = String(cFormat: "%.3f s", duration)
            if let start, start >= duration {
                throw MediaError(.invalidValue, "--start \(start) is not before the end of \(input), whose duration is \(seconds)")
            }
            if let end, end > duration {
                StandardStream.error.write(
                    text: "mdkit export: \(TerminalText.escape(input)): --end \(end) is past the end (\(seconds)): copying to the end\n")
            }
            if start != nil || end != nil { session.timeRange = ExportTimeRange(start: start ?? 0, end: end.map { min($0, duration) }) }
            session.shouldOptimizeForNetworkUse = faststart
            session.metadataPolicy = replace ? .replace : .merge
            for edit in edits {
                switch edit {
                case .set(let field, let value): session.metadata[field] = value
                case .setRaw(let space, let key, let value):
                    session.metadata.items.append(MetadataItem(keySpace: space, key: key, value: .string(value), dataType: .utf8))
                case .remove, .removeRaw, .setCustom, .removeCustom: break
                }
            }
            if shown {
                // The media bytes of the tracks copied; the session reports the share of samples done.
                let tracks = asset.tracks.filter { trackIDs?.contains($0.id) ?? ($0.sampleCount > 0) }
                let total = tracks.reduce(Int64(0)) { $0 + $1.totalSampleBytes }
                let bar = Progress(phase: "exporting", total: total, unit: .bytes, shown: true)
                session.progressHandler = { fraction in bar.update(done: Int64(fraction * Double(total))) }
                progress = bar
            }
            try await session.export()
            progress?.finish()
            StandardStream.output.write(text: "\(TerminalText.escape(output)): exported\n")
            return 0
        } catch {
            progress?.interrupt()
            let message = (error as? MediaError)?.description ?? Report.errorMessage(error)
            let only = (error as? MediaError)?.code == .unsupportedFormat ? " (mdkit export copies MP4, MOV and M4A files only)" : ""
            StandardStream.error.write(text: "mdkit export: error: \(message)\(only)\n")
            return 1
        }
    }
}
