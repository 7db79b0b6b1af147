import Foundation

/// Choices for ``MediaItem/save(options:)``.
public struct SaveOptions: Sendable, Hashable {
    /// Which ID3v2 version an MP3 gets.
    public enum ID3v2Version: Sendable, Hashable {
        /// Keep 2.3 or 2.4 as the file has it; 2.2 (and files without a tag) get 2.4.
        case keep
        /// ID3v2.3: UTF-16 for text beyond Latin-1, several values joined by "/",
        /// the date as TYER/TDAT/TIME.
        case v2_3
        /// ID3v2.4: UTF-8 for text beyond Latin-1, several values null-separated, TDRC.
        case v2_4
    }

    /// What happens to an MP3's ID3v1 tag.
    public enum ID3v1Policy: Sendable, Hashable {
        /// Update an existing ID3v1 tag to match; add none.
        case updateExisting
        /// Write an ID3v1 tag, adding one when there is none.
        case add
        /// Remove an ID3v1 tag.
        case remove
    }

    public var id3v2Version: ID3v2Version = .keep
    public var id3v1: ID3v1Policy = .updateExisting
    /// Remove every tag the format's writer knows (MP3: ID3v2 and ID3v1;
    /// MP4: iTunes `ilst` items, QuickTime `mdta` items and `udta` text
    /// atoms) instead of writing the metadata.
    public var removesAllTags = false
    /// Whether the save fsyncs (see ``SaveDurability``).
    public var durability: SaveDurability = .full

    public init(id3v2Version: ID3v2Version = .keep, id3v1: ID3v1Policy = .updateExisting,
                removesAllTags: Bool = false, durability: SaveDurability = .full) {
        self.id3v2Version = id3v2Version
        self.id3v1 = id3v1
        self.removesAllTags = removesAllTags
        self.durability = durability
    }
}

/// A format's tag writer: which key spaces it writes and how a save changes the file.
struct FormatWriter: Sendable {
    /// Key spaces the writer stores, primary first (new fields go to the primary one).
    var keySpaces: [MetadataKeySpace]
    /// Key spaces the writer rebuilds from the normalized fields (ID3v1).
    var derivedKeySpaces: [MetadataKeySpace] = []
    /// The edit that stores `items` (the file's complete list of raw items
    /// after the change) in the file read through `source`.
    var plan: @Sendable (_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions) throws -> FileEditPlan
    /// Reads a file of this format back (for the check after a save).
    var read: @Sendable (_ source: FileSource, _ url: URL) throws -> ParsedFile

    static func writer(for type: FileType) throws -> FormatWriter {
        switch type.identifier {
        case FileType.mp3.identifier:
            return FormatWriter(keySpaces: [.id3, .id3v1], derivedKeySpaces: [.id3v1], plan: MP3Writer.plan, read: MP3Reader.read)
        case "mp4":
            return FormatWriter(keySpaces: MP4Writer.keySpaces, plan: MP4Writer.plan, read: MP4Reader.read)
        case FileType.wav.identifier:
            return FormatWriter(keySpaces: WAVWriter.keySpaces, plan: WAVWriter.plan, read: WAVReader.read)
        case FileType.aiff.identifier:
            return FormatWriter(keySpaces: AIFFWriter.keySpaces, plan: AIFFWriter.plan, read: AIFFReader.read)
        case FLACReader.fileType.identifier:
            return FormatWriter(keySpaces: [.vorbis], plan: FLACWriter.plan, read: FLACReader.read)
        case OggReader.fileType.identifier:
            return FormatWriter(keySpaces: [.vorbis], plan: OggWriter.plan, read: OggReader.read)
        default:
            throw MediaError(.unsupportedFeature, "writing \(type.identifier) files is not supported yet")
        }
    }
}
