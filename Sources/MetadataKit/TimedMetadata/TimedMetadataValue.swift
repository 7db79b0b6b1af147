import Foundation

/// A typed timed metadata value.
public enum TimedMetadataValue: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case unsignedInteger(UInt64)
    case number(Double)
    /// Several numbers: a point (x, y), dimensions (w, h), a rectangle
    /// (x, y, w, h) or an affine transform (9 numbers, row-major).
    case numbers([Double])
    case data(Data)
}
