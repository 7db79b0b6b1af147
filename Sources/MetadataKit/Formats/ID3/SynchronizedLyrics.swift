#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An ID3v2 `SYLT` frame: synchronised lyrics or text (ID3v2.4.0 frames
/// §4.9, ID3v2.3.0 §4.10; v2.2 `SLT`).
///
/// ```
/// u8  text encoding
/// u8  language[3]
/// u8  timestamp format   1 = MPEG frames, 2 = milliseconds (from the start of the audio)
/// u8  content type       0 other, 1 lyrics, 2 text transcription, 3 movement/part name,
///                        4 events, 5 chord, 6 trivia, 7 web page URLs, 8 image URLs
/// ... content descriptor, terminated
/// ... { text, terminated; u32 timestamp } repeated
/// ```
///
/// The raw item keeps the frame's bytes (`id3:SYLT`, a `.data` value); this
/// type decodes and builds them. Every timestamp format and content type is
/// kept as stored; ``timedLines(secondsPerFrame:)`` turns timestamps into
/// seconds.
public struct SynchronizedLyrics: Sendable, Hashable {
    /// One entry: the stored timestamp and the text from it on.
    public struct Entry: Sendable, Hashable {
        /// The time the text starts, in the unit of ``SynchronizedLyrics/timestampFormat``
        /// (MPEG frames or milliseconds).
        public var timestamp: UInt32
        /// The text shown from ``timestamp`` on (a syllable, a word or a line).
        public var text: String
        /// An entry showing `text` from `timestamp`.
        public init(timestamp: UInt32, text: String) {
            self.timestamp = timestamp
            self.text = text
        }
    }

    /// ISO 639-2 code as stored ("eng"; "" for three zero bytes).
    public var language: String
    /// 1: MPEG frames; 2: milliseconds (other values kept as stored).
    public var timestampFormat: UInt8
    /// 1: lyrics; see the type's documentation for the others.
    public var contentType: UInt8
    /// The content descriptor ("" for most).
    public var description: String
    /// The entries, in the frame's order (normally by time).
    public var entries: [Entry]

    /// The timestamp format for milliseconds.
    public static let milliseconds: UInt8 = 2
    /// The timestamp format for MPEG frames.
    public static let mpegFrames: UInt8 = 1

    /// Lyrics in milliseconds from timed lines.
    public init(lines: [TimedLyricLine], language: String = "eng", description: String = "") {
        self.language = language
        self.timestampFormat = Self.milliseconds
        self.contentType = 1
        self.description = description
        self.entries = lines.map { Entry(timestamp: UInt32(clamping: Int(($0.time * 1000).rounded())), text: $0.text) }
    }

    /// Decodes a `SYLT` payload; nil when the header does not fit or the
    /// encoding is unknown. Entries cut short at the end are dropped.
    public init?(parsing payload: [UInt8]) {
        guard payload.count >= 6, let encoding = ID3TextEncoding(rawValue: payload[0]) else { return nil }
        let code = payload[1..<4]
        language = code.allSatisfy { $0 == 0 } ? "" : ID3Text.latin1Scalars(code)
        timestampFormat = payload[4]
        contentType = payload[5]
        var index = 6
        var order: Endianness?
        guard let description = ID3Text.readTerminated(payload, at: &index, encoding: encoding, byteOrder: &order) else { return nil }
        self.description = description
        entries = []
        while index < payload.count {
            // Each text may carry its own byte order mark (UTF-16).
            var entryOrder = order
            guard let text = ID3Text.readTerminated(payload, at: &index, encoding: encoding, byteOrder: &entryOrder),
                index + 4 <= payload.count
            else { break }
            let timestamp = payload[index..<index + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            index += 4
            entries.append(Entry(timestamp: timestamp, text: text))
        }
    }

    /// The frame's payload for ID3v2 `version` (3 or 4): ISO-8859-1 when every
    /// text fits, else UTF-8 (v2.4) or UTF-16 (v2.3).
    public func payload(version: UInt8) -> [UInt8] {
        let encoding = ID3v2FrameEncoder.encoding(for: [description] + entries.map(\.text), version: version)
        var bytes: [UInt8] = [encoding.rawValue] + ID3v2FrameEncoder.language(language) + [timestampFormat, contentType]
        bytes += ID3v2FrameEncoder.encode(description, encoding) + ID3v2FrameEncoder.terminator(encoding)
        for entry in entries {
            bytes += ID3v2FrameEncoder.encode(entry.text, encoding) + ID3v2FrameEncoder.terminator(encoding)
            bytes += withUnsafeBytes(of: entry.timestamp.bigEndian, Array.init)
        }
        return bytes
    }

    /// The entries as timed lines; MPEG-frame timestamps need the duration of
    /// one frame (`secondsPerFrame`: samples per frame ÷ sample rate), and
    /// give nil without it.
    public func timedLines(secondsPerFrame: Double? = nil) -> [TimedLyricLine]? {
        let scale: Double
        switch timestampFormat {
        case Self.milliseconds: scale = 0.001
        case Self.mpegFrames:
            guard let secondsPerFrame else { return nil }
            scale = secondsPerFrame
        default: return nil
        }
        return entries.map { TimedLyricLine(time: Double($0.timestamp) * scale, text: $0.text) }
    }

    /// The raw item holding these lyrics (written by the ID3 writer as the
    /// frame's bytes, in the tag's version: ID3v2.4 here, with text that
    /// v2.3 can hold too when it is ISO-8859-1).
    public func item(version: UInt8 = 4) -> MetadataItem {
        MetadataItem(keySpace: .id3, key: "SYLT", value: .data(Data(payload(version: version))), dataType: .binary)
    }
}
