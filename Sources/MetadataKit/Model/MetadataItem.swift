#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where a raw metadata item lives: the tag format and its key namespace.
public struct MetadataKeySpace: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    // Each format folder defines the key spaces it owns, as static
    // members in an extension of this type.
}

/// The type of a raw item's value as stored in the file.
///
/// Raw values are short names; QuickTime's well-known types map to the names
/// CoreMedia uses after `com.apple.metadata.datatype.` (`UTF-8`, `JPEG`, …).
public struct MetadataDataType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// UTF-8 text (QuickTime well-known types 1 and 4; ID3v2 encoding 3).
    public static let utf8 = MetadataDataType(rawValue: "UTF-8")
    /// UTF-16 text with a byte-order mark (ID3v2 encoding 1).
    public static let utf16 = MetadataDataType(rawValue: "UTF-16")
    /// Big-endian UTF-16 text without a byte-order mark (QuickTime types 2 and 5; ID3v2.4 encoding 2).
    public static let utf16BigEndian = MetadataDataType(rawValue: "UTF-16BE")
    /// ISO 8859-1 text (ID3v1, ID3v2 encoding 0, RIFF INFO without a `CSET`).
    public static let latin1 = MetadataDataType(rawValue: "ISO-8859-1")
    /// Shift JIS text (QuickTime type 3).
    public static let shiftJIS = MetadataDataType(rawValue: "S/JIS")
    /// A big-endian two's-complement integer of 1, 2, 3, 4 or 8 bytes (QuickTime type 21).
    public static let signedInteger = MetadataDataType(rawValue: "BE-signed-integer")
    /// A big-endian unsigned integer of 1, 2, 3, 4 or 8 bytes (QuickTime type 22).
    public static let unsignedInteger = MetadataDataType(rawValue: "BE-unsigned-integer")
    /// A big-endian IEEE 754 32-bit float (QuickTime type 23).
    public static let float32 = MetadataDataType(rawValue: "float32")
    /// A big-endian IEEE 754 64-bit float (QuickTime type 24).
    public static let float64 = MetadataDataType(rawValue: "float64")
    /// A JPEG image (QuickTime type 13).
    public static let jpeg = MetadataDataType(rawValue: "JPEG")
    /// A PNG image (QuickTime type 14).
    public static let png = MetadataDataType(rawValue: "PNG")
    /// A Windows bitmap (QuickTime type 27).
    public static let bmp = MetadataDataType(rawValue: "BMP")
    /// A GIF image (QuickTime type 12).
    public static let gif = MetadataDataType(rawValue: "GIF")
    /// A number/total pair (`trkn`, `disk`).
    public static let numberPair = MetadataDataType(rawValue: "number-pair")
    /// Bytes the library keeps but does not interpret.
    public static let binary = MetadataDataType(rawValue: "raw")

    /// The type for a QuickTime well-known data type code (QTFF "Well-known types").
    public static func quickTime(wellKnownType code: UInt32) -> MetadataDataType {
        switch code {
        case 1, 4: return .utf8
        case 2, 5: return .utf16BigEndian
        case 3: return .shiftJIS
        case 13: return .jpeg
        case 14: return .png
        case 12: return .gif
        case 27: return .bmp
        case 21, 65, 66, 67, 74: return .signedInteger
        case 22, 75, 76, 77, 78: return .unsignedInteger
        case 23: return .float32
        case 24: return .float64
        default: return .binary
        }
    }
}

/// A raw value as stored in the file, decoded just enough to be typed.
public enum MetadataValue: Sendable, Hashable {
    /// One string.
    case string(String)
    /// Several strings stored in one item (ID3v2.4 lists, several `data` atoms).
    case strings([String])
    /// An integer.
    case integer(Int64)
    /// A floating-point number.
    case double(Double)
    /// A number with an optional total (`trkn`, `disk`).
    case numberPair(number: Int, total: Int?)
    /// A picture; its bytes are read only when asked for.
    // Boxed: an artwork is several times the size of the other payloads, and
    // every item (a file has a few dozen, copied as a load and a save go)
    // would otherwise be that large.
    indirect case picture(Artwork)
    /// Uninterpreted bytes.
    case data(Data)

    /// The picture of a `.picture` value.
    public var picture: Artwork? {
        if case .picture(let artwork) = self { return artwork }
        return nil
    }

    /// The strings of a `.string` or `.strings` value; otherwise empty.
    public var stringValues: [String] {
        switch self {
        case .string(let value): return [value]
        case .strings(let values): return values
        default: return []
        }
    }

    /// The first string, the integer as text, or the pair as "n/N"; nil for binary values.
    public var stringValue: String? {
        switch self {
        case .string(let value): return value
        case .strings(let values): return values.first
        case .integer(let value): return String(value)
        case .double(let value): return String(value)
        case .numberPair(let number, let total): return total.map { "\(number)/\($0)" } ?? String(number)
        case .picture, .data: return nil
        }
    }
}

/// One raw metadata item of a file, kept as it was read.
///
/// `key` is the format's own name: an ID3 frame ID (with its description
/// when the frame has one: `TXXX:MOOD`, `COMM:iTunNORM`; a comment with an
/// empty description is plain `COMM`), an MP4 atom type (`©nam`, `trkn`,
/// `----:com.apple.iTunes:MOOD`), or a QuickTime metadata key string.
public struct MetadataItem: Sendable, Hashable {
    /// The tag format and namespace of ``key``.
    public var keySpace: MetadataKeySpace
    /// The item's key in its key space.
    public var key: String
    /// The typed value.
    public var value: MetadataValue
    /// How the value is stored.
    public var dataType: MetadataDataType
    /// ISO 639-2 language code or locale, where the format has one.
    public var language: String?

    /// An item of `key` in `keySpace` holding `value`, stored as `dataType`,
    /// with the language (ISO 639-2 code or locale) where the format has one.
    public init(
        keySpace: MetadataKeySpace, key: String, value: MetadataValue,
        dataType: MetadataDataType, language: String? = nil
    ) {
        self.keySpace = keySpace
        self.key = key
        self.value = value
        self.dataType = dataType
        self.language = language
    }
}

extension MetadataItem {
    /// True when `other` stores the same value: equal items, or pictures read
    /// from the same place of a file (however the file's URL was spelled).
    func isStoredLike(_ other: MetadataItem) -> Bool {
        if self == other { return true }
        guard keySpace == other.keySpace, key == other.key, dataType == other.dataType, language == other.language else {
            return false
        }
        guard let mine = value.picture, let theirs = other.value.picture else { return false }
        // (Written without pattern-matching both enums in one condition: that
        // crashed the Swift 6.3.1 optimizer.)
        let offset = mine.fileOffset
        return offset != nil && offset == theirs.fileOffset && mine.byteCount == theirs.byteCount
            && mine.mimeType == theirs.mimeType && mine.pictureType == theirs.pictureType
            && mine.description == theirs.description
    }
}

extension Array where Element == MetadataItem {
    /// Element-wise ``MetadataItem/isStoredLike(_:)``.
    func isStoredLike(_ other: [MetadataItem]) -> Bool {
        count == other.count && zip(self, other).allSatisfy { $0.isStoredLike($1) }
    }
}

extension Array where Element == MetadataItem {
    /// Whether the list holds `item`, looking first at `index`: an item a
    /// save or an edit left in its place is found with one comparison
    /// (cheaper than hashing every item with its text).
    package func contains(_ item: MetadataItem, near index: Int) -> Bool {
        (indices.contains(index) && self[index] == item) || contains(item)
    }
}
