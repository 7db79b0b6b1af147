#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One thing wrong with a file, found by ``MediaItem/check()``: damage the
/// reader read around (each of ``MediaItem/warnings``), or an inconsistency
/// found by a check of its own (stacked ID3 tags, an ID3v1 tag out of step
/// with ID3v2, a picture whose MIME type lies). docs/CHECK.md lists the codes.
public struct Finding: Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable name of the problem, such as `id3.stacked`.
    /// Codes are never renamed; new ones may be added.
    public struct Code: Hashable, Sendable, RawRepresentable, Comparable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
        public static func < (a: Code, b: Code) -> Bool { a.rawValue < b.rawValue }

        /// Two or more ID3v2 tags in a row at the start of an MP3 (or one appended at its end).
        public static let id3Stacked = Code(rawValue: "id3.stacked")
        /// An ID3v2.3 tag holding frames that only ID3v2.4 defines (`TDRC`, `TDOR`, …).
        public static let id3V23HoldsV24Frame = Code(rawValue: "id3.v23-holds-v24-frame")
        /// An ID3v2 tag whose `TYER` and `TDRC` name different years.
        public static let id3DatesDisagree = Code(rawValue: "id3.dates-disagree")
        /// The ID3v1 tag's title, artist, album or year differ from the ID3v2 tag's.
        public static let id3V1Disagrees = Code(rawValue: "id3.v1-disagrees")
        /// A FLAC metadata block whose length field disagrees with its content.
        public static let flacBlockLength = Code(rawValue: "flac.block-length")
        /// A picture whose MIME type (or MP4 data type) says one image format while its bytes are another.
        public static let pictureMIMEMismatch = Code(rawValue: "picture.mime-mismatch")
        /// The audio stream is cut short: the file ends before its audio does.
        public static let audioTruncated = Code(rawValue: "audio.truncated")
        /// A variable-bit-rate MP3 without a Xing or VBRI header: players guess its duration from the first frame.
        public static let mp3NoVBRHeader = Code(rawValue: "mp3.no-vbr-header")
        /// Matroska Tags after the Clusters that no SeekHead points at: readers that stop at the first Cluster miss them.
        public static let mkvTagsUnreachable = Code(rawValue: "mkv.tags-unreachable")

        /// Every code above (the `read.` codes aside), in the order docs/CHECK.md lists them.
        public static let named: [Code] = [
            .id3Stacked, .id3V23HoldsV24Frame, .id3DatesDisagree, .id3V1Disagrees, .flacBlockLength, .pictureMIMEMismatch, .audioTruncated,
            .mp3NoVBRHeader, .mkvTagsUnreachable,
        ]

        /// Any other damage the reader read around: `read.` and the ``MediaError/Code``
        /// in kebab case (`read.truncated`, `read.malformed`, `read.size-out-of-range`).
        public static func read(_ code: MediaError.Code) -> Code {
            var name = ""
            for character in code.rawValue {
                if character.isUppercase {
                    name += "-" + character.lowercased()
                } else {
                    name.append(character)
                }
            }
            return Code(rawValue: "read." + name)
        }
    }

    /// How bad a finding is.
    public enum Severity: String, Sendable, Hashable, Comparable, CaseIterable {
        /// Something players notice or data is lost or unreadable.
        case error
        /// Damage or an inconsistency that some readers trip over.
        case warning
        /// Worth knowing; nothing is wrong for most readers.
        case info

        private var rank: Int {
            switch self {
            case .error: return 0
            case .warning: return 1
            case .info: return 2
            }
        }
        public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
    }

    /// What is wrong.
    public var code: Code
    /// How bad it is.
    public var severity: Severity
    /// Absolute byte offset in the file where the problem is, when it has one.
    public var byteOffset: Int64?
    /// One line of explanation.
    public var message: String
    /// Whether ``MediaItem/repair(_:)`` can repair it.
    public var isFixable: Bool
    /// Why it can't be repaired, or what the repair does; nil when there is nothing to add.
    public var fixNote: String?

    /// A finding of `code` at `severity`, explained by `message`; the other
    /// parameters set the properties of the same names.
    public init(
        _ code: Code, _ severity: Severity, _ message: String, byteOffset: Int64? = nil, isFixable: Bool = false,
        fixNote: String? = nil
    ) {
        self.code = code
        self.severity = severity
        self.message = message
        self.byteOffset = byteOffset
        self.isFixable = isFixable
        self.fixNote = fixNote
    }

    /// "warning id3.stacked: message (at byte N)".
    public var description: String {
        "\(severity.rawValue) \(code): \(message)" + (byteOffset.map { " (at byte \($0))" } ?? "")
    }
}

/// One change a repair makes (or, for a dry run, would make).
public struct Repair: Sendable, Hashable, CustomStringConvertible {
    /// The finding it repairs.
    public var code: Finding.Code
    /// What changes, in words ("ID3v1 title 'Old' → 'New'").
    public var change: String

    /// A repair of the finding `code` that makes `change`.
    public init(code: Finding.Code, change: String) {
        self.code = code
        self.change = change
    }

    public var description: String { "\(code): \(change)" }
}
