import Foundation

@testable import MetadataKit

/// Checks on media payloads that must survive a save unchanged.
enum MediaChecks {
    /// The first 32 bytes at every chunk offset of every track (`stco`/`co64`),
    /// track by track: equal before and after a save when no sample moved or changed.
    static func chunkSignatures(_ url: URL) throws -> [[UInt8]] {
        let source = try FileSource(url: url)
        let top = try MP4Parser.TopLevel(source).boxes
        guard let moovHeader = top.first(where: { $0.type == "moov" }) else { return [] }
        var builder = MP4TreeBuilder(source: source)
        let moov = try builder.build(moovHeader, depth: 0)
        var signatures: [[UInt8]] = []
        for trak in moov.children("trak") {
            guard let stbl = trak.descendant("mdia", "minf", "stbl") else { continue }
            for table in stbl.children where table.type == "stco" || table.type == "co64" {
                var reader = try source.mp4Payload(of: table.header)
                try reader.skip(4)
                let count = Int(try reader.readUInt32())
                for _ in 0..<count {
                    let offset = Int64(try reader.readUInt(byteCount: table.type == "co64" ? 8 : 4))
                    signatures.append(try source.getAvailableBytes(at: offset, count: 32))
                }
            }
        }
        return signatures
    }

    /// The MD5 of the decoded audio (and video) streams, from ffmpeg.
    static func decodedMD5(_ url: URL, map: String = "0:a") throws -> String {
        let output = try TestSupport.runChecked("ffmpeg", ["-v", "error", "-i", url.path, "-map", map, "-f", "md5", "-"])
        return output.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Top-level box types in file order.
    static func topLevelTypes(_ url: URL) throws -> [String] {
        try MP4Parser.TopLevel(FileSource(url: url)).boxes.map(\.type.description)
    }

    /// The file's inode, to tell an in-place save from a rewrite.
    static func inode(_ url: URL) throws -> UInt64 {
        try FileSource(url: url).snapshot.inode
    }
}
