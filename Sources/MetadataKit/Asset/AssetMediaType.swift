#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a track carries, from its `hdlr` handler type (ISO/IEC 14496-12 §8.4.3,
/// QTFF "Handler reference atom").
public enum AssetMediaType: String, Sendable, Hashable, CaseIterable {
    case audio, video, text, subtitle, closedCaption, timecode, metadata, other

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
