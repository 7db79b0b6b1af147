#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MetadataKeySpace {
    /// Tracker modules (MOD, S3M, XM, IT): `title` (the song name) and
    /// `comment` (the instrument and sample names, then an IT song message,
    /// one per line, as TagLib shows them).
    public static let module = MetadataKeySpace(rawValue: "module")
}

extension MetadataKeyMap {
    /// The tracker module keys.
    static let moduleKeys: [MetadataField: [RawKey]] = [
        .title: [RawKey(.module, "title")],
        .comments: [RawKey(.module, "comment")],
    ]
}

/// What a tracker module says about itself, beyond the audio properties
/// (none of which a module states: it is rendered, not decoded).
public struct TrackerModuleProperties: Sendable, Hashable {
    /// The tracker, as TagLib names it: the XM header's tracker name field;
    /// "Impulse Tracker", "ScreamTracker III"; for MOD the tracker its tag
    /// says ("ProTracker" for `M.K.`, "StarTrekker", "TakeTracker", "Atari Oktalyzer").
    public var trackerName: String?
    /// The version of the tracker that made the file (S3M and IT
    /// "created with tracker" `Cwt/v`, as "3.20"; the XM format version, as "1.04").
    public var trackerVersion: String?
    /// The pattern order's length: the positions the song plays (markers not counted).
    public var lengthInPatterns: Int
    /// Patterns stored (MOD: the highest pattern the order table names + 1).
    public var patternCount: Int
    /// Instruments (MOD: 31 sample slots; S3M: its instruments, which are samples).
    public var instrumentCount: Int
    /// Samples (XM: across all instruments; IT: the sample headers).
    public var sampleCount: Int

    /// Properties with these values (see the properties of the same names).
    public init(
        trackerName: String?, trackerVersion: String?, lengthInPatterns: Int, patternCount: Int, instrumentCount: Int, sampleCount: Int
    ) {
        self.trackerName = trackerName
        self.trackerVersion = trackerVersion
        self.lengthInPatterns = lengthInPatterns
        self.patternCount = patternCount
        self.instrumentCount = instrumentCount
        self.sampleCount = sampleCount
    }
}

/// A fixed-size text field of a module header: Latin-1, ended by the first
/// NUL or the field's end. `capacity` is how many bytes of text a writer may
/// put there (one less than `size` where the format wants a terminating NUL).
struct TrackerTextField: Equatable {
    var offset: Int64
    var size: Int
    var capacity: Int
    /// What the field is, for messages ("the MOD title", "XM sample name 3").
    var what: String
}

/// The layout of one tracker module as a reader and a writer need it:
/// where the title and each line of the comment live, and its properties.
struct TrackerModule {
    /// "MOD", "S3M", "XM", "IT".
    var kind: String
    var title: TrackerTextField
    /// The comment's name lines, in TagLib's order.
    var names: [TrackerTextField]
    /// IT: the song message's place (offset, MsgLgth) when the header says
    /// the file has one.
    var message: (offset: Int64, length: Int)?
    var channels: Int
    var module: TrackerModuleProperties
    var warnings: [MediaWarning] = []
    /// False when a name or the message lies outside the file: a save could
    /// not put the comment back as it was.
    var isWritable = true

    /// Longest IT message read (MsgLgth is 16 bits).
    static let maximumMessage = 65535
}

extension TrackerModule {
    /// `field`'s text: the bytes up to the first NUL, as Latin-1.
    static func text(of field: TrackerTextField, in source: FileSource) throws -> String? {
        let bytes = try source.getAvailableBytes(at: field.offset, count: field.size)
        guard bytes.count == field.size else { return nil }
        return TextDecoding.latin1(bytes.prefix { $0 != 0 })
    }

    /// The title and the comment as TagLib reads them, and warnings for
    /// fields the file ends before.
    mutating func readTexts(_ source: FileSource) throws -> (title: String, comment: String?) {
        guard let title = try Self.text(of: title, in: source) else {
            throw MediaError(.truncated, "the file ends inside the \(kind) title", offset: title.offset)
        }
        var lines: [String] = []
        for field in names {
            guard let line = try Self.text(of: field, in: source) else {
                warnings.append(
                    MediaWarning(.truncated, "the file ends inside \(field.what); the names after it are not read", offset: field.offset))
                isWritable = false
                break
            }
            lines.append(line)
        }
        if let message {
            let bytes = try source.getAvailableBytes(at: message.offset, count: message.length)
            if bytes.count < message.length {
                warnings.append(
                    MediaWarning(
                        .truncated, "the song message says \(message.length) bytes; the file holds \(bytes.count)", offset: message.offset))
                isWritable = false
            }
            // Lines end with CR (ITTECH.TXT); the text ends at a NUL.
            let text = TextDecoding.latin1(bytes.prefix { $0 != 0 }.map { $0 == 0x0D ? 0x0A : $0 })
            lines += text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        return (title, Self.comment(of: lines))
    }

    /// The comment the name lines make: joined by line feeds, without the
    /// empty lines at the end (TagLib keeps them: a MOD's 31 empty names read
    /// as 30 line feeds), so that a comment of fewer lines than the file
    /// has names reads back as written; nil when nothing is left.
    static func comment(of lines: [String]) -> String? {
        guard let last = lines.lastIndex(where: { !$0.isEmpty }) else { return nil }
        return lines[...last].joined(separator: "\n")
    }

    /// The module's items and properties.
    static func parsed(_ module: TrackerModule, source: FileSource, fileType: FileType) throws -> ParsedFile {
        var module = module
        let texts = try module.readTexts(source)
        var items: [MetadataItem] = []
        if !texts.title.isEmpty {
            items.append(MetadataItem(keySpace: .module, key: "title", value: .string(texts.title), dataType: .latin1))
        }
        if let comment = texts.comment {
            items.append(MetadataItem(keySpace: .module, key: "comment", value: .string(comment), dataType: .latin1))
        }
        var properties = MediaProperties()
        properties.codec = module.kind
        properties.channels = module.channels
        properties.module = module.module
        return ParsedFile(
            fileType: fileType, items: items, properties: properties, isEditable: module.isWritable,
            warnings: module.warnings.sorted { ($0.offset ?? 0) < ($1.offset ?? 0) })
    }

    /// The order list's length as TagLib counts it: the entries before the
    /// first end marker (255), without the skip markers (254).
    static func playedLength(_ orders: some Collection<UInt8>) -> Int {
        orders.prefix { $0 != 255 }.filter { $0 != 254 }.count
    }

    /// "3.20" from a `Cwt/v`-style BCD version word (0x1320: major in the
    /// low nibble of the high byte, minor in the low byte).
    static func version(_ word: UInt16) -> String {
        let major = (word >> 8) & 0x0F
        let minor = word & 0xFF
        return "\(major)." + String(minor, radix: 16).leftPadded(to: 2)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

extension MetadataKeyMap.KeyTable {
    /// The rows of `MetadataKeyMap.moduleKeys`.
    static let module = Self("module", keySpaces: [.module]) { MetadataKeyMap.moduleKeys }
}
