#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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

    /// The ID3v2 version an MP3's tag is written in; ``ID3v2Version/keep`` by default.
    public var id3v2Version: ID3v2Version = .keep
    /// What happens to an MP3's ID3v1 tag; ``ID3v1Policy/updateExisting`` by default.
    public var id3v1: ID3v1Policy = .updateExisting
    /// Remove every tag the format's writer knows (MP3: ID3v2 and ID3v1;
    /// MP4: iTunes `ilst` items, QuickTime `mdta` items and `udta` text
    /// atoms) instead of writing the metadata.
    public var removesAllTags = false
    /// Whether the save fsyncs (see ``SaveDurability``).
    public var durability: SaveDurability = .full
    /// How long a save waits for another save of the file (in this or
    /// another process, holding its `flock` lock) to finish before it gives
    /// up with ``MediaError/Code/locked``, writing nothing; 5 seconds by
    /// default. A load that finds an interrupted save to recover waits as
    /// long as the default.
    public var lockWaitLimit: Duration = .seconds(5)
    /// The chapter tables a planner that stores chapters itself
    /// (``MediaFormat/ChapterWriting/byPlanner``) must write; nil keeps the
    /// file's chapters as they are. Set by ``MediaItem/save(options:)`` when
    /// ``MediaItem/chapterTables`` changed.
    var chapterTables: [ChapterTable]?

    /// Options with these values; the defaults keep the file's ID3 layout and
    /// sync fully.
    public init(
        id3v2Version: ID3v2Version = .keep, id3v1: ID3v1Policy = .updateExisting,
        removesAllTags: Bool = false, durability: SaveDurability = .full, lockWaitLimit: Duration = .seconds(5)
    ) {
        self.id3v2Version = id3v2Version
        self.id3v1 = id3v1
        self.removesAllTags = removesAllTags
        self.durability = durability
        self.lockWaitLimit = lockWaitLimit
    }
}
