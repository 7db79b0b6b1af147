#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a track carries, from its `hdlr` handler type (ISO/IEC 14496-12 §8.4.3,
/// QTFF "Handler reference atom").
public enum AssetMediaType: String, Sendable, Hashable, CaseIterable {
    /// Sound (`soun`).
    case audio
    /// Pictures (`vide`).
    case video
    /// QuickTime text, such as a chapter track's titles (`text`).
    case text
    /// Subtitles (`sbtl` in QuickTime, `subt` in ISO files).
    case subtitle
    /// Closed captions, CEA-608/708 (`clcp`).
    case closedCaption
    /// A timecode track (`tmcd`).
    case timecode
    /// Timed metadata (`meta`), such as a QuickTime `mebx` track.
    case metadata
    /// Any other handler type.
    case other

    /// The media type of a handler type: `soun` `vide` `text` `sbtl` `subt`
    /// `clcp` `tmcd` `meta`; anything else is `other`.
    public init(handler: FourCC) {
        switch handler {
        case "soun": self = .audio
        case "vide": self = .video
        case "text": self = .text
        case "sbtl", "subt": self = .subtitle
        case "clcp": self = .closedCaption
        case "tmcd": self = .timecode
        case "meta": self = .metadata
        default: self = .other
        }
    }

    /// The handler type written for this media type.
    public var handler: FourCC {
        switch self {
        case .audio: "soun"
        case .video: "vide"
        case .text: "text"
        case .subtitle: "sbtl"
        case .closedCaption: "clcp"
        case .timecode: "tmcd"
        case .metadata: "meta"
        case .other: "data"
        }
    }
}
