#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The data type of a timed metadata item: a CoreMedia well-known type
/// (`com.apple.metadata.datatype.*`, QTFF "Well-known types") or a custom
/// reverse-DNS type.
public struct TimedMetadataDataType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    static let prefix = "com.apple.metadata.datatype."

    public static let utf8 = Self(rawValue: prefix + "UTF-8")
    public static let utf16 = Self(rawValue: prefix + "UTF-16")
    public static let float32 = Self(rawValue: prefix + "float32")
    public static let float64 = Self(rawValue: prefix + "float64")
    public static let int8 = Self(rawValue: prefix + "int8")
    public static let int16 = Self(rawValue: prefix + "int16")
    public static let int32 = Self(rawValue: prefix + "int32")
    public static let int64 = Self(rawValue: prefix + "int64")
    public static let uint8 = Self(rawValue: prefix + "uint8")
    public static let uint16 = Self(rawValue: prefix + "uint16")
    public static let uint32 = Self(rawValue: prefix + "uint32")
    public static let uint64 = Self(rawValue: prefix + "uint64")
    public static let pointF32 = Self(rawValue: prefix + "PointF32")
    public static let dimensionsF32 = Self(rawValue: prefix + "DimensionsF32")
    public static let rectF32 = Self(rawValue: prefix + "RectF32")
    public static let affineTransformF64 = Self(rawValue: prefix + "AffineTransformF64")
    public static let jpeg = Self(rawValue: prefix + "JPEG")
    public static let png = Self(rawValue: prefix + "PNG")
    public static let rawData = Self(rawValue: prefix + "raw-data")

    /// Well-known type codes (QTFF): 1 UTF-8, 2 UTF-16, 13 JPEG, 14 PNG, 23/24
    /// floats, 65–67/74 signed and 75–78 unsigned integers, 70 PointF32, 71
    /// DimensionsF32, 72 RectF32, 79 AffineTransformF64, 0 raw data.
    static let codes: [(Self, UInt32)] = [
        (.utf8, 1), (.utf16, 2), (.jpeg, 13), (.png, 14), (.float32, 23), (.float64, 24),
        (.int8, 65), (.int16, 66), (.int32, 67), (.int64, 74), (.uint8, 75), (.uint16, 76), (.uint32, 77), (.uint64, 78),
        (.pointF32, 70), (.dimensionsF32, 71), (.rectF32, 72), (.affineTransformF64, 79), (.rawData, 0),
    ]

    /// The QuickTime well-known type code; nil for a custom type.
    public var wellKnownCode: UInt32? { Self.codes.first { $0.0 == self }?.1 }

    /// The type with a well-known code; nil for an unknown code.
    public init?(wellKnownCode code: UInt32) {
        guard let entry = Self.codes.first(where: { $0.1 == code }) else { return nil }
        self = entry.0
    }

    /// A full name, or a short one such as `PointF32`, `UTF-8`, `float64`.
    public init(name: String) {
        if name.contains(".") {
            self.init(rawValue: name)
        } else {
            let match = Self.codes.first { name.equalsIgnoringCase(ascii: $0.0.shortName) }
            self = match?.0 ?? Self(rawValue: Self.prefix + name)
        }
    }

    /// The name after `com.apple.metadata.datatype.`, or the whole custom name.
    public var shortName: String {
        rawValue.hasPrefix(Self.prefix) ? String(rawValue.dropFirst(Self.prefix.count)) : rawValue
    }
}
