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

    /// UTF-8 text (well-known type 1).
    public static let utf8 = Self(rawValue: prefix + "UTF-8")
    /// Big-endian UTF-16 text (well-known type 2).
    public static let utf16 = Self(rawValue: prefix + "UTF-16")
    /// A big-endian 32-bit float (type 23).
    public static let float32 = Self(rawValue: prefix + "float32")
    /// A big-endian 64-bit float (type 24).
    public static let float64 = Self(rawValue: prefix + "float64")
    /// A signed 8-bit integer (type 65).
    public static let int8 = Self(rawValue: prefix + "int8")
    /// A big-endian signed 16-bit integer (type 66).
    public static let int16 = Self(rawValue: prefix + "int16")
    /// A big-endian signed 32-bit integer (type 67).
    public static let int32 = Self(rawValue: prefix + "int32")
    /// A big-endian signed 64-bit integer (type 74).
    public static let int64 = Self(rawValue: prefix + "int64")
    /// An unsigned 8-bit integer (type 75).
    public static let uint8 = Self(rawValue: prefix + "uint8")
    /// A big-endian unsigned 16-bit integer (type 76).
    public static let uint16 = Self(rawValue: prefix + "uint16")
    /// A big-endian unsigned 32-bit integer (type 77).
    public static let uint32 = Self(rawValue: prefix + "uint32")
    /// A big-endian unsigned 64-bit integer (type 78).
    public static let uint64 = Self(rawValue: prefix + "uint64")
    /// A point: x and y as big-endian 32-bit floats (type 70).
    public static let pointF32 = Self(rawValue: prefix + "PointF32")
    /// A size: width and height as big-endian 32-bit floats (type 71).
    public static let dimensionsF32 = Self(rawValue: prefix + "DimensionsF32")
    /// A rectangle: x, y, width and height as big-endian 32-bit floats (type 72).
    public static let rectF32 = Self(rawValue: prefix + "RectF32")
    /// A 3×3 affine transform: nine big-endian 64-bit floats, row-major (type 79).
    public static let affineTransformF64 = Self(rawValue: prefix + "AffineTransformF64")
    /// A JPEG image (type 13).
    public static let jpeg = Self(rawValue: prefix + "JPEG")
    /// A PNG image (type 14).
    public static let png = Self(rawValue: prefix + "PNG")
    /// Bytes without a declared type (type 0).
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
