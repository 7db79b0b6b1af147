import Foundation

/// Writes an ID3v1.1 tag (see ``ID3v1Reader`` for the layout) from the
/// normalized metadata.
///
/// - Text fields are ISO-8859-1; characters beyond it become "?". Each field
///   is cut to its width (30 bytes; the comment to 28 when a track number
///   is written) and padded with zero bytes.
/// - Year: the first run of four digits of ``Metadata/year`` ("2024-05-01" → "2024").
/// - Track: ID3v1.1 (Michael Mutschler: a zero byte, then the track in the
///   last two comment bytes) when the track number is 1–255; otherwise plain
///   ID3v1 with a 30-byte comment.
/// - Genre: the ID3 index of the genre, 255 (none) for a genre outside the list.
enum ID3v1Writer {
    /// The 128 bytes of the tag for `metadata`.
    static func tag(for metadata: Metadata) -> [UInt8] {
        var bytes = Array("TAG".utf8)
        func field(_ text: String?, _ width: Int) {
            let encoded = ID3v2FrameEncoder.latin1(text ?? "").prefix(width)
            bytes += encoded + [UInt8](repeating: 0, count: width - encoded.count)
        }
        field(metadata.title, 30)
        field(metadata.artist, 30)
        field(metadata.album, 30)
        field(year(metadata.year), 4)
        if let track = metadata.trackNumber, (1...255).contains(track) {
            field(metadata.comments, 28)
            bytes += [0, UInt8(track)]
        } else {
            field(metadata.comments, 30)
        }
        bytes.append(metadata.genre?.id3Index.map(UInt8.init) ?? 255)
        return bytes
    }

    /// The first four consecutive digits of `text`, or "".
    static func year(_ text: String?) -> String {
        let characters = Array(text ?? "")
        var start = 0
        while start + 4 <= characters.count {
            let run = characters[start..<start + 4]
            if run.allSatisfy(\.isASCIIDigit) { return String(run) }
            start += 1
        }
        return ""
    }
}
