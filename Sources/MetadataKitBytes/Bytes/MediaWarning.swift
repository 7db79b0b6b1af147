/// A problem found while reading that did not stop the read: local damage
/// that was read around (a chunk cut short, a frame with an invalid ID, junk
/// between Ogg pages, a sample table whose counts disagree).
///
/// Reads are forgiving: where damage is local, the file is read as far as it
/// can be and each problem is reported as a warning with its byte offset. A
/// ``MediaError`` is thrown only when nothing sensible remains.
public struct MediaWarning: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is (the same codes as ``MediaError``).
    public var code: MediaError.Code
    /// What was found and what was done about it, in words.
    public var message: String
    /// Absolute byte offset in the file where the problem was found.
    public var offset: Int64?

    /// A warning of `code` explained by `message`, at the absolute byte `offset`
    /// when it has one.
    public init(_ code: MediaError.Code, _ message: String, offset: Int64? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    /// A warning made from an error that was read around.
    public init(_ error: MediaError) {
        self.init(error.code, error.reason, offset: error.offset)
    }

    /// "message (at byte N)".
    public var description: String {
        guard let offset else { return message }
        return "\(message) (at byte \(offset))"
    }
}
