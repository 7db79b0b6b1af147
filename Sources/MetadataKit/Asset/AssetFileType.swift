#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The container an ``AssetWriter`` writes.
public enum AssetFileType: String, Sendable, CaseIterable {
    /// ISO base media / MP4 (`ftyp` isom).
    case mp4
    /// QuickTime movie (`ftyp` qt).
    case mov
    /// MPEG-4 audio (`ftyp` M4A).
    case m4a

    /// The file name extensions of this type, the usual one first:
    /// mp4 m4v, mov qt, m4a m4b.
    public var pathExtensions: [String] {
        switch self {
        case .mp4: ["mp4", "m4v"]
        case .mov: ["mov", "qt"]
        case .m4a: ["m4a", "m4b"]
        }
    }

    /// The type for a file name extension (any of ``pathExtensions``, in any case).
    public init?(pathExtension: String) {
        let name = pathExtension.lowercased()
        guard let type = Self.allCases.first(where: { $0.pathExtensions.contains(name) }) else { return nil }
        self = type
    }
}
