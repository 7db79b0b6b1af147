import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `mdkit chapters [--json | --jsonl] [path options] FILE|FOLDER...`
struct ChaptersCommand {
    static let usage = """
        usage: mdkit chapters [--json | --jsonl] [path options] FILE|FOLDER...

        Prints the chapters of each FILE (and of the media files in each FOLDER):
        the chapters players show by default, one line each (start, end, title,
        then the URL and picture), nested chapters indented below theirs.
        Chapters are read in each format's own way where MetadataKit reads
        them (e.g. Matroska chapters; FLAC and Ogg Vorbis comments
        CHAPTER001=00:01:02.500, CHAPTER001NAME=Title, CHAPTER001URL=...).
          --json    one JSON array, one object per FILE, in argument order:
                    {"path": ..., "chapters": [{"start": 0.0, "end": 12.5,
                    "title": "One", "url": ..., "artwork": {"mimeType": ...,
                    "byteCount": ...}, "chapters": [...]}, ...]} (times in
                    seconds; members absent when unknown); a file that can't be
                    read is an object with "error"
          --jsonl   the same objects, one per line
        mdkit write FILE --chapters F takes the same JSON (and more syntaxes).
        Without --json, a file that can't be read is reported on stderr as
        "FILE: error: <code>: <reason>".
        Exit status: 0 when every file was read, 1 when any failed, 2 on a usage error.

        Path options:
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
        if pathArguments.isEmpty { throw UsageError("no FILE given\n\n\(Self.usage)") }
    }

    /// Reads every file (in parallel), prints in argument order; returns the exit status.
    func run() async -> Int32 {
        let entries = pathArguments.entries()
        let problems = ReadCommand.problems(entries)
        let json = json || jsonLines, indent: Int? = jsonLines ? nil : 2
        let rendered = await ReadCommand.forEach(entries.map(\.path)) { path, url -> (text: String, failed: Bool) in
            let result = ReadCommand.load(path, url, problems: problems)
            return (Self.render(path: path, result: result, json: json, indent: indent), result.isFailure)
        }
        var output = ""
        var errors = ""
        if jsonLines {
            for piece in rendered { output += piece.text + "\n" }
        } else if json {
            output = "[" + rendered.map { "\n  " + $0.text }.joined(separator: ",") + (rendered.isEmpty ? "]\n" : "\n]\n")
        } else {
            for piece in rendered {
                if piece.failed { errors += piece.text } else { output += piece.text }
            }
        }
        if !errors.isEmpty { StandardStream.error.write(text: errors) }
        StandardStream.output.write(Data(output.utf8))
        return rendered.contains { $0.failed } ? 1 : 0
    }

    /// One file's object (JSON) or lines (text; an error as the line for stderr).
    static func render(path: String, result: Result<MediaItem, any Error>, json: Bool, indent: Int?) -> String {
        guard json else {
            switch result {
            case .failure(let error): return TerminalText.escape("\(path): error: \(Report.errorMessage(error))") + "\n"
            case .success(let item):
                return TerminalText.escape(path) + "\n" + (item.chapters.isEmpty ? "  (no chapters)\n" : Report.chapterLines(item.chapters))
                    + "\n"
            }
        }
        var writer = JSONWriter(indent: indent, level: indent == nil ? 0 : 1)
        writer.beginObject()
        writer.member("path", path)
        switch result {
        case .failure(let error): writer.member("error", Report.errorMessage(error))
        case .success(let item):
            writer.key("chapters")
            Report.chapters(item.chapters, to: &writer)
        }
        writer.end(array: false)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
