import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `mdkit tracks [--json | --jsonl] FILE...`
struct TracksCommand {
    static let usage = """
        usage: mdkit tracks [--json | --jsonl] [path options] FILE|FOLDER...

        Lists the tracks of each MP4/MOV/M4A FILE, and of Matroska, WebM, Ogg and ASF files
        with several streams, one row per track; a single-stream file is an error.
          --json    one JSON array with one object per FILE:
                      path, brands [string], timescale (movie units/s), duration (s),
                      fragmented (bool), moovFirst (bool), metadata (normalized fields),
                      tracks [object], warnings [{offset, message}] (only when there are any:
                      local damage read around, such as samples left out of sample tables whose
                      counts disagree), or error (string) when the file can't be read.
                    Each track object:
                      id              tkhd track ID
                      mediaType       audio, video, text, subtitle, closedCaption, timecode,
                                      metadata or other (from the hdlr handler type)
                      handlerType     hdlr handler type (soun, vide, text, sbtl, subt, clcp, tmcd, meta, ...)
                      handlerName     hdlr name, when there is one
                      codec           first sample entry type (avc1, mp4a, alac, tx3g, tmcd, ...)
                      timescale       media timescale (units/s, mdhd)
                      duration        media duration in timescale units (mdhd)
                      durationSeconds the same in seconds
                      sampleCount     number of samples
                      sampleBytes     total bytes of the samples
                      language        ISO 639-2/T code (mdhd)
                      sampleDescriptions  [{type, size, bytes (base64)}], the stsd entries
                      editList        [{segmentDuration (movie units), mediaTime (track units, -1 empty), rate}]
                      references      [{type, trackIDs [int]}] (tref)
                      width, height   video: pixel size (sample entry, else tkhd)
                      sampleRate, channels  audio: from the sample entry
          --jsonl   the same objects, one per line (JSON Lines)
                    Files of the other formats give path, format, duration, metadata, warnings and
                    tracks with id (TrackNumber), uid, mediaType, codec (a name), codecID,
                    language, name, default, forced, width, height, sampleRate, channels,
                    bitsPerSample, each when the file has it.
        Exit status: 0 when every file was read, 1 when any failed, 2 on a usage error.

        Path options (a FOLDER gives its media files, walked in name order):
        \(PathArguments.usage)
        """

    var json = false
    var jsonLines = false
    var pathArguments = PathArguments()

    init(arguments: [String]) throws(UsageError) {
        pathArguments = try PathArguments.parsing(arguments, usage: Self.usage) { argument throws(UsageError) -> Bool in
            switch argument {
            case "--json": json = true
            case "--jsonl": jsonLines = true
            default: return false
            }
            return true
        }
        if json && jsonLines { throw UsageError("--json and --jsonl exclude each other") }
        json = json || jsonLines
        if pathArguments.isEmpty { throw UsageError("no FILE given\n\n\(Self.usage)") }
    }

    func run() async -> Int32 {
        var failed = false
        var objects: [JSON] = []
        var text = ""
        for entry in pathArguments.entries() {
            let path = entry.path
            do {
                // A folder that could not be walked, a path list that could not be read: reported in its place.
                if let problem = entry.problem { throw MediaError(.io, problem) }
                let asset = try await Asset.load(url: URL(fileURLWithPath: path))
                if !asset.hasSampleTables {
                    if json {
                        objects.append(Self.describedJSON(path: path, asset: asset))
                    } else {
                        text += Self.describedTable(path: path, asset: asset)
                    }
                } else if json {
                    objects.append(Self.json(path: path, asset: asset))
                } else {
                    text += Self.table(path: path, asset: asset)
                }
            } catch {
                failed = true
                if json {
                    objects.append(.object([("path", .string(path)), ("error", .string(Report.errorMessage(error)))]))
                } else {
                    StandardStream.error.write(
                        text: "\(TerminalText.escape(path)): error: \(TerminalText.escape(Report.errorMessage(error)))\n")
                }
            }
        }
        if jsonLines {
            for object in objects {
                object.write(to: &text)
                text += "\n"
            }
        } else if json {
            JSON.array(objects).write(to: &text, indent: 2)
            text += "\n"
        }
        if json { StandardStream.output.write(Data(text.utf8)) } else { StandardStream.output.write(text: text) }
        return failed ? 1 : 0
    }

    static func json(path: String, asset: Asset) -> JSON {
        var object: [(String, JSON)] = [("path", .string(path))]
        object.append(("brands", .array(asset.brands.map { .string($0.description) })))
        object.append(("timescale", .integer(Int64(asset.movieTimescale))))
        object.append(("duration", .number((asset.durationSeconds * 1000).rounded() / 1000)))
        object.append(("fragmented", .bool(asset.isFragmented)))
        object.append(("moovFirst", .bool(asset.isMovieHeaderFirst)))
        var fields: [(String, JSON)] = []
        let metadata = asset.metadata
        for field in MetadataField.allCases where field != .artwork {
            if let value = metadata[field]?.text { fields.append((field.rawValue, .string(value))) }
        }
        object.append(("metadata", .object(fields)))
        object.append(("tracks", .array(asset.tracks.map(track))))
        if !asset.warnings.isEmpty {
            object.append(
                (
                    "warnings",
                    .array(
                        asset.warnings.map { warning in
                            var fields: [(String, JSON)] = []
                            if let offset = warning.offset { fields.append(("offset", .integer(offset))) }
                            fields.append(("message", .string(warning.message)))
                            return .object(fields)
                        })
                ))
        }
        return .object(object)
    }

    static func track(_ track: AssetTrack) -> JSON {
        var object: [(String, JSON)] = [
            ("id", .integer(Int64(track.id))),
            ("mediaType", .string(track.mediaType.rawValue)),
            ("handlerType", .string(track.handlerType.description)),
        ]
        if let name = track.handlerName { object.append(("handlerName", .string(name))) }
        if let codec = track.codec { object.append(("codec", .string(codec.description))) }
        object += [
            ("timescale", .integer(Int64(track.timescale))),
            ("duration", .integer(track.duration)),
            ("durationSeconds", .number((track.durationSeconds * 1000).rounded() / 1000)),
            ("sampleCount", .integer(Int64(track.sampleCount))),
            ("sampleBytes", .integer(track.totalSampleBytes)),
            ("language", .string(track.language ?? "und")),
            (
                "sampleDescriptions",
                .array(
                    zip(track.sampleDescriptionTypes, track.sampleDescriptions).map { type, entry in
                        .object([
                            ("type", .string(type.description)), ("size", .integer(Int64(entry.count))),
                            ("bytes", .string(Data(entry).base64EncodedString())),
                        ])
                    })
            ),
            (
                "editList",
                .array(
                    track.editList.map {
                        .object([
                            ("segmentDuration", .integer($0.segmentDuration)), ("mediaTime", .integer($0.mediaTime)),
                            ("rate", .number($0.rate)),
                        ])
                    })
            ),
            (
                "references",
                .array(
                    track.references.map {
                        .object([("type", .string($0.type.description)), ("trackIDs", .array($0.trackIDs.map { .integer(Int64($0)) }))])
                    })
            ),
        ]
        if let width = track.width, track.mediaType == .video || width > 0 {
            object.append(("width", .integer(Int64(width))))
            object.append(("height", .integer(Int64(track.height ?? 0))))
        }
        if let rate = track.sampleRate { object.append(("sampleRate", .integer(Int64(rate)))) }
        if let channels = track.channels { object.append(("channels", .integer(Int64(channels)))) }
        return .object(object)
    }

    static func table(path: String, asset: Asset) -> String {
        var text =
            "\(TerminalText.escape(path)): \(asset.brands.first?.description ?? "qt") \(String(cFormat: "%.3f", asset.durationSeconds)) s"
        text += asset.isFragmented ? ", fragmented" : ""
        for warning in asset.warnings { text += "\n  warning: \(TerminalText.escape(warning.description))" }
        text += "\n  id  type       codec  timescale  duration  samples       bytes  lang  details\n"
        for track in asset.tracks {
            var details: [String] = []
            if let width = track.width, let height = track.height, track.mediaType == .video { details.append("\(width)x\(height)") }
            if let rate = track.sampleRate { details.append("\(rate) Hz") }
            if let channels = track.channels { details.append("\(channels) ch") }
            if !track.editList.isEmpty {
                details.append("elst " + track.editList.map { "\($0.segmentDuration)@\($0.mediaTime)" }.joined(separator: ","))
            }
            for reference in track.references {
                details.append("\(reference.type)→" + reference.trackIDs.map(String.init).joined(separator: ","))
            }
            if let name = track.handlerName { details.append("\"\(TerminalText.escape(name))\"") }
            func pad(_ value: String, _ width: Int, left: Bool = false) -> String {
                let fill = String(repeating: " ", count: max(0, width - value.count))
                return left ? value + fill : fill + value
            }
            text +=
                pad(String(track.id), 4) + "  " + pad(track.mediaType.rawValue, 9, left: true) + "  "
                + pad(track.codec?.description ?? "-", 5, left: true) + pad(String(track.timescale), 11)
                + pad(String(cFormat: "%.3f", track.durationSeconds), 10) + pad(String(track.sampleCount), 9)
                + pad(String(track.totalSampleBytes), 12) + "  " + pad(track.language ?? "und", 4, left: true) + "  "
                + details.joined(separator: ", ") + "\n"
        }
        return text
    }
}
