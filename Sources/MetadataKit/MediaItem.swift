import Foundation

/// A media file and its metadata: the entry point for reading (and, later,
/// writing) tags.
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
    /// Whether MetadataKit can write this file's metadata.
    public private(set) var isEditable = false
    /// The metadata; empty until ``load()`` succeeds.
    public var metadata = Metadata()
    /// Duration, bit rate, sample rate, channels, codec.
    public private(set) var properties = MediaProperties()
    /// True once ``load()`` has succeeded.
    public private(set) var isLoaded = false

    /// An item for the file at `url`. Nothing is read until ``load()``.
    public init(url: URL) {
        self.url = url
    }

    /// Reads the file's metadata and properties. Only the bytes needed are read;
    /// picture bytes are read later, by ``Artwork/data()``.
    ///
    /// Throws a ``MediaError`` naming the file when it can't be opened, is not
    /// a supported format, or is malformed.
    public mutating func load() async throws {
        let parsed: ParsedFile
        do {
            try FileEditor.recoverIfNeeded(at: url)     // finish an interrupted in-place save first
            let source = try FileSource(url: url)
            parsed = try FormatDetector.reader(for: source, url: url)(source, url)
        } catch let error as MediaError {
            throw error.naming(url.path)
        }
        fileType = parsed.fileType
        isEditable = parsed.isEditable
        properties = parsed.properties
        metadata = Metadata(items: parsed.items)
        isLoaded = true
    }
}

/// Picks the reader for a file by scoring its first bytes (the extension only
/// breaks ties).
enum FormatDetector {
    typealias Reader = (FileSource, URL) throws -> ParsedFile

    static func reader(for source: FileSource, url: URL) throws -> Reader {
        guard source.size > 0 else {
            throw MediaError(.unsupportedFormat, "the file is empty", offset: 0)
        }
        let head = try source.readAvailable(at: 0, count: 12)
        if head.starts(with: Array("ID3".utf8)) {
            return MP3Reader.read
        }
        if head.count >= 8 {
            let type = FourCC(UInt32(head[4]) << 24 | UInt32(head[5]) << 16 | UInt32(head[6]) << 8 | UInt32(head[7]))
            if MP4Reader.topLevelTypes.contains(type) { return MP4Reader.read }
        }
        if head.count >= 2, head[0] == 0xFF, head[1] & 0xE0 == 0xE0 {
            return MP3Reader.read
        }
        if ["mp3", "mp2", "mpga"].contains(url.pathExtension.lowercased()) {
            return MP3Reader.read
        }
        throw MediaError(.unsupportedFormat, "not a supported media file (no ID3 tag, MPEG audio frame or MP4 box at the start)", offset: 0)
    }
}
