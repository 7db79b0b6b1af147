#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A GUID as ASF stores it (ASF Specification rev. 01.20.03, §10.1): 16
/// bytes, the first three fields little-endian. Object types are GUIDs.
struct ASFGUID: Hashable, Sendable, CustomStringConvertible {
    /// The 16 bytes as stored, as two integers (cheap to compare and hash).
    let high: UInt64
    let low: UInt64

    /// The GUID stored as `bytes` (16 bytes).
    init(bytes: some Collection<UInt8>) {
        precondition(bytes.count == 16)
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            if index < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.high = high
        self.low = low
    }

    /// The GUID written as text, `75B22630-668E-11CF-A6D9-00AA0062CE6C`.
    init(_ text: StaticString) {
        let hex = String(describing: text).filter { $0 != "-" }
        precondition(hex.count == 32)
        let digits = hex.utf8.map { UInt8(ascii: "0") <= $0 && $0 <= UInt8(ascii: "9") ? $0 - 48 : ($0 | 0x20) - 87 }
        let plain = (0..<16).map { digits[2 * $0] << 4 | digits[2 * $0 + 1] }
        // Data1 (4 bytes), Data2 and Data3 (2 each) are little-endian; Data4 as written.
        let stored = [plain[3], plain[2], plain[1], plain[0], plain[5], plain[4], plain[7], plain[6]] + plain[8...]
        self.init(bytes: stored)
    }

    /// The 16 bytes as stored.
    var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) } + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }

    /// The usual text form.
    var description: String {
        let b = bytes
        let plain = [b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6]] + b[8...]
        let hex = plain.map { String($0, radix: 16, uppercase: true) }.map { $0.count == 1 ? "0" + $0 : $0 }
        return hex[0..<4].joined() + "-" + hex[4..<6].joined() + "-" + hex[6..<8].joined() + "-" + hex[8..<10].joined() + "-"
            + hex[10...].joined()
    }

    // Top-level objects (§10.1).
    static let header = ASFGUID("75B22630-668E-11CF-A6D9-00AA0062CE6C")
    static let data = ASFGUID("75B22636-668E-11CF-A6D9-00AA0062CE6C")
    // Header objects.
    static let fileProperties = ASFGUID("8CABDCA1-A947-11CF-8EE4-00C00C205365")
    static let streamProperties = ASFGUID("B7DC0791-A9B7-11CF-8EE6-00C00C205365")
    static let headerExtension = ASFGUID("5FBF03B5-A92E-11CF-8EE3-00C00C205365")
    static let contentDescription = ASFGUID("75B22633-668E-11CF-A6D9-00AA0062CE6C")
    static let extendedContentDescription = ASFGUID("D2D0A440-E307-11D2-97F0-00A0C95EA850")
    static let padding = ASFGUID("1806D474-CADF-4509-A4BA-9AABCB96AAE8")
    // Header Extension objects.
    static let metadata = ASFGUID("C5F8CBEA-5BAF-4877-8467-AA8C44FA4CCA")
    static let metadataLibrary = ASFGUID("44231C94-9498-49D1-A141-1D134E457054")
    static let languageList = ASFGUID("7C4346A9-EFE0-4BFC-B229-393EDE415C85")
    static let extendedStreamProperties = ASFGUID("14E6A5CB-C672-4332-8399-A96952065B5A")
    /// Reserved Field 1 of the Header Extension Object (§3.4).
    static let headerExtensionReserved = ASFGUID("ABD3D211-A9BA-11CF-8EE6-00C00C205365")
    // Stream types (§10.4).
    static let audioMedia = ASFGUID("F8699E40-5B4D-11CF-A8FD-00805F5C442B")
    static let videoMedia = ASFGUID("BC19EFC0-5B4D-11CF-A8FD-00805F5C442B")
}
