import Foundation
import Testing

@testable import MetadataKit

/// The independent readers of the operation matrix, each run once over a
/// batch of files: mutagen (Tests/Tools/mutagen-dump.py), TagLib's property
/// map (Tests/Tools/taglib-properties.cpp, built here with g++), ffprobe's
/// tags, and ffmpeg's per-stream hash of the compressed audio.
enum MatrixReaders {
    typealias Tags = [String: [String]]

    static var toolsPresent: Bool {
        TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("ffprobe") && TestSupport.hasPythonModule("mutagen")
            && TestSupport.hasTool("g++") && TestSupport.hasTool("pkg-config") && TestSupport.hasTool("mkvextract")
            && TestSupport.hasTool("exiftool") && TestSupport.hasTool("mpcenc")
    }

    private static let tools = TestSupport.packageRoot.appendingPathComponent("Tests/Tools")

    /// Runs `command` with the paths on its standard input; its JSON lines
    /// {"path":…, "tags":{…}} by path.
    private static func batch(_ command: String, _ arguments: [String], _ files: [URL]) throws -> [String: Tags] {
        let folder = try TestSupport.makeTemporaryDirectory()
        let list = folder.appendingPathComponent("files.txt")
        try files.map(\.path).joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let quoted = ([command] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let output = try TestSupport.runChecked("/bin/sh", ["-c", "\(quoted) < '\(list.path)'"])
        var result: [String: Tags] = [:]
        for line in output.text.split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let path = object["path"] as? String, let tags = object["tags"] as? [String: [String]]
            else { continue }
            result[path] = tags
        }
        return result
    }

    /// exiftool's Title, Artist, Album (RIFF: Product), Genre, Comment and
    /// Composer of each file (exiftool's pick where several groups hold one),
    /// read in one run.
    static func exiftool(_ files: [URL]) throws -> [String: Tags] {
        guard !files.isEmpty else { return [:] }
        let names = ["Title", "Artist", "Album", "Product", "Genre", "Comment", "Composer"]
        let output = try TestSupport.run("exiftool", ["-j", "-q", "-m"] + names.map { "-" + $0 } + files.map(\.path))
        let array = try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]] ?? []
        var result: [String: Tags] = [:]
        for object in array {
            guard let path = object["SourceFile"] as? String else { continue }
            var tags: Tags = [:]
            for name in names {
                if let value = object[name] { tags["exif:" + name] = ["\(value)"] }
            }
            result[path] = tags
        }
        return result
    }

    /// mkvextract's tags and mkvmerge's Segment title of Matroska files.
    static func matroska(_ files: [URL]) throws -> [String: Tags] {
        try batch("python3", [tools.appendingPathComponent("matroska-dump.py").path], files)
    }

    static func mutagen(_ files: [URL]) throws -> [String: Tags] {
        try batch("python3", [tools.appendingPathComponent("mutagen-dump.py").path], files)
    }

    /// The TagLib reader, built once per run.
    private static let taglibReader: Result<URL, Error> = Result(catching: { () throws -> URL in
        let output = try TestSupport.makeTemporaryDirectory().appendingPathComponent("taglib-properties")
        let flags = try TestSupport.runChecked("pkg-config", ["--cflags", "--libs", "taglib"]).text
            .split(whereSeparator: \.isWhitespace).map(String.init)
        try TestSupport.runChecked(
            "g++", ["-O1", "-o", output.path, tools.appendingPathComponent("taglib-properties.cpp").path] + flags)
        return output
    })

    static func taglib(_ files: [URL]) throws -> [String: Tags] {
        try batch(try taglibReader.get().path, [], files)
    }

    /// ffprobe's format and stream tags, keys lower-cased.
    static func ffprobe(_ file: URL) throws -> Tags {
        let output = try TestSupport.runChecked(
            "ffprobe", ["-v", "error", "-show_entries", "format_tags:stream_tags", "-of", "json", file.path])
        let object = try JSONSerialization.jsonObject(with: Data(output.text.utf8)) as? [String: Any] ?? [:]
        var tags: Tags = [:]
        func add(_ dictionary: Any?) {
            for (key, value) in dictionary as? [String: Any] ?? [:] {
                tags[key.lowercased(), default: []].append("\(value)")
            }
        }
        add((object["format"] as? [String: Any])?["tags"])
        for stream in object["streams"] as? [[String: Any]] ?? [] { add(stream["tags"]) }
        return tags
    }

    /// The MD5 of each file's compressed audio packets (ffmpeg's `streamhash`
    /// muxer over a stream copy), many files per ffmpeg run.
    static func audioHashes(_ files: [URL]) throws -> [String: String] {
        var result: [String: String] = [:]
        for start in stride(from: 0, to: files.count, by: 40) {
            let chunk = Array(files[start..<min(start + 40, files.count)])
            var arguments = ["-nostdin", "-v", "error"]
            for file in chunk { arguments += ["-i", file.path] }
            for index in chunk.indices { arguments += ["-map", "\(index):a:0"] }
            arguments += ["-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]
            let output = try TestSupport.runChecked("ffmpeg", arguments)
            for line in output.text.split(separator: "\n") {
                // "0,a,MD5=…": the output stream's index is the input's.
                let parts = line.split(separator: ",")
                guard parts.count == 3, let index = Int(parts[0]), chunk.indices.contains(index) else { continue }
                result[chunk[index].path] = String(parts[2])
            }
        }
        return result
    }
}
