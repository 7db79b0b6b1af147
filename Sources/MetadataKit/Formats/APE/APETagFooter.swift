#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The 32-byte header or footer of an APE tag (APEv2 specification, "APE Tag
/// Header / Footer"; APEv1 has the footer only):
///
///     "APETAGEX"  version u32  tag size u32  item count u32  flags u32  reserved 8
///
/// All numbers are little-endian. The tag size counts the items and the
/// footer, not the header. Version 1000 is APEv1, 2000 APEv2.
struct APETagFooter: Sendable, Hashable {
    /// Length of a header or footer.
    static let length = 32
    /// Flag bit 31: the tag has a header.
    static let hasHeaderFlag: UInt32 = 1 << 31
    /// Flag bit 30: the tag has no footer.
    static let hasNoFooterFlag: UInt32 = 1 << 30
    /// Flag bit 29: this is the header.
    static let isHeaderFlag: UInt32 = 1 << 29

    var version: UInt32
    /// Bytes of the items and the footer.
    var size: UInt32
    var itemCount: UInt32
    var flags: UInt32

    var hasHeader: Bool { flags & Self.hasHeaderFlag != 0 }

    /// Whether `bytes` (at least 8) start with the `APETAGEX` preamble.
    static func hasPreamble(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: "APETAGEX".utf8)
    }
}

extension APETagFooter {
    /// Parses 32 bytes; nil when they don't start with `APETAGEX`.
    init?(parsing bytes: [UInt8]) {
        guard bytes.count >= Self.length, Self.hasPreamble(bytes) else { return nil }
        func le32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        self.init(version: le32(8), size: le32(12), itemCount: le32(16), flags: le32(20))
    }

    /// The 32 bytes of this header or footer.
    var bytes: [UInt8] {
        var writer = ByteWriter(capacity: Self.length)
        writer.write(Array("APETAGEX".utf8))
        writer.write(version, .little)
        writer.write(size, .little)
        writer.write(itemCount, .little)
        writer.write(flags, .little)
        writer.write([UInt8](repeating: 0, count: 8))
        return writer.bytes
    }
}
