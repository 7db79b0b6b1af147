import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `mdkit annotate IN OUT --annotations FILE.json [--describes TRACK_ID] [-y] [--quiet]`
struct AnnotateCommand {
    static let usage = """
        usage: mdkit annotate IN OUT --annotations FILE.json [--describes TRACK_ID] [-y] [--quiet]

        Copies the tracks of IN into OUT (no re-encoding) and adds a timed metadata track
        made from FILE.json, tied (cdsc) to the track it describes. OUT ends in
        \(ExportCommand.extensionList(AssetFileType.allCases.flatMap(\.pathExtensions))).
          --annotations FILE  the groups, as JSON: {"describes": 1, "groups": [{"start": 1.5,
                              "duration": 0.5, "items": [{"identifier": "mdta/com.example.key",
                              "dataType": "PointF32", "value": [320, 180]}]}]} (see README);
                              what mdkit timed prints. Groups must start and end within the
                              movie.
          --describes ID      the described track (default: FILE's "describes", else the
                              first video track)
          -y, --overwrite     replace OUT if it exists (without it, an existing OUT is refused)
          -q, --quiet         draw no progress line (as for mdkit export: drawn only when
                              standard error is a terminal)
        Exit status: 0 when written, 1 when it failed, 2 on a usage error.
        """

    var input = ""
    var output = ""
    var annotations = ""
    var describes: Int?
    var overwrite = false
    var quiet = false

    init(arguments: [String]) throws(UsageError) {
        var paths: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--annotations", "--describes":
                index += 1
                guard index < arguments.count else { throw UsageError("\(argument) needs a value\n\n\(Self.usage)") }
                if argument == "--annotations" {
                    annotations = arguments[index]
                } else {
                    guard let id = Int(arguments[index]), id > 0 else { throw UsageError("--describes needs a track ID") }
                    describes = id
                }
            case "-y", "--overwrite": overwrite = true
            case "-q", "--quiet": quiet = true
            case _ where argument.hasPrefix("-"):
                throw UsageError("unknown option '\(argument)'\n\n\(Self.usage)")
            default:
                paths.append(argument)
            }
            index += 1
        }
        guard paths.count == 2, !annotations.isEmpty else { throw UsageError("annotate needs IN, OUT and --annotations\n\n\(Self.usage)") }
        (input, output) = (paths[0], paths[1])
        guard AssetFileType(pathExtension: URL(fileURLWithPath: output).pathExtension) != nil else {
            throw UsageError("OUT must end in \(ExportCommand.extensionList(AssetFileType.allCases.flatMap(\.pathExtensions)))")
        }
    }

    func run() async -> Int32 {
        var progress: Progress?
        do {
            try ExportCommand.refuseExisting(output, input: input, overwrite: overwrite)
            guard let json = FileManager.default.contents(atPath: annotations) else {
                throw MediaError(.io, "cannot read the annotations", path: annotations)
            }
            var document: TimedMetadataDocument
            do {
                document = try TimedMetadataDocument(json: json)
            } catch let error as MediaError {
                throw error.naming(annotations)
            }
            if let describes { document.describes = describes }
            let asset = try await Asset.load(url: URL(fileURLWithPath: input))
            if let id = document.describes, asset.track(id: UInt32(id)) == nil {
                throw MediaError(.invalidValue, "there is no track \(id) to describe", path: input)
            }
            let session = ExportSession(asset: asset, preset: .passthrough)
            session.outputURL = URL(fileURLWithPath: output)
            session.timedMetadata = [document]
            if Progress.shouldShow(quiet: quiet) {
                let total = asset.tracks.reduce(Int64(0)) { $0 + $1.totalSampleBytes }
                let bar = Progress(phase: "annotating", total: total, unit: .bytes, shown: true)
                session.progressHandler = { fraction in bar.update(done: Int64(fraction * Double(total))) }
                progress = bar
            }
            try await session.export()
            progress?.finish()
            StandardStream.output.write(text: "\(TerminalText.escape(output)): \(document.groups.count) groups written\n")
            return 0
        } catch {
            progress?.interrupt()
            let message = (error as? MediaError)?.description ?? Report.errorMessage(error)
            StandardStream.error.write(text: "mdkit annotate: error: \(message)\n")
            return 1
        }
    }
}

/// `mdkit timed FILE [--json | --webvtt] [--track ID]`
struct TimedCommand {
    static let usage = """
        usage: mdkit timed FILE [--json | --webvtt] [--track ID]

        Prints the groups of FILE's timed metadata track (the first, or --track ID):
          --json     (default) the JSON that mdkit annotate takes, so a round trip is the
                     identity: times in seconds on the movie timeline (the track's edit
                     list applied), printed so they read back exactly; "timescale", the
                     ticks per second they are exact in; "mediaStart", a group's start in
                     the track's media time when an edit list moves it. Every group has
                     its duration but a last one lasting until the end of the movie
                     (open-ended); gaps have no group. Warnings go to standard error.
          --webvtt   a WebVTT metadata track: one cue per group, the items as JSON
        Exit status: 0 when printed, 1 when FILE has no readable timed metadata, 2 on a usage error.
        """

    var path = ""
    var webVTT = false
    var trackID: UInt32?

    init(arguments: [String]) throws(UsageError) {
        var paths: [String] = []
        var index = 0
        var json = false
        while index < arguments.count {
            switch arguments[index] {
            case "--json": json = true
            case "--webvtt": webVTT = true
            case "--track":
                index += 1
                guard index < arguments.count, let id = UInt32(arguments[index]) else { throw UsageError("--track needs a track ID") }
                trackID = id
            case let option where option.hasPrefix("-"):
                throw UsageError("unknown option '\(option)'\n\n\(Self.usage)")
            case let path:
                paths.append(path)
            }
            index += 1
        }
        guard paths.count == 1 else { throw UsageError("timed needs one FILE\n\n\(Self.usage)") }
        if json && webVTT { throw UsageError("--json and --webvtt exclude each other") }
        path = paths[0]
    }

    func run() async -> Int32 {
        do {
            let asset = try await Asset.load(url: URL(fileURLWithPath: path))
            for warning in asset.warnings {
                StandardStream.error.write(
                    text: "mdkit timed: \(TerminalText.escape(path)): warning: \(TerminalText.escape(warning.description))\n")
            }
            let document = try await TimedMetadataTrack.document(of: asset, trackID: trackID)
            if webVTT {
                StandardStream.output.write(Data(document.webVTT(movieDuration: asset.durationSeconds).utf8))
            } else {
                StandardStream.output.write(document.jsonData() + Data("\n".utf8))
            }
            return 0
        } catch {
            let message = error.description
            StandardStream.error.write(text: "mdkit timed: error: \(message)\n")
            return 1
        }
    }
}
