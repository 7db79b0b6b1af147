#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The one error type of MetadataKit.
///
/// Every failure carries a machine-readable ``Code``, a human-readable reason,
/// the byte offset in the file where the problem was found (when there is one)
/// and the path of the file. Tests and callers should switch on ``code``, never
/// on the message text.
public struct MediaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. Extensible: new codes may be added.
    public struct Code: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The file could not be opened, read, written or synced.
        public static let io = Code(rawValue: "io")
        /// A read needed more bytes than the file, box, chunk or frame holds.
        public static let truncated = Code(rawValue: "truncated")
        /// A structure's bytes contradict its specification.
        public static let malformed = Code(rawValue: "malformed")
        /// A size or count is larger than what contains it, or than a sane limit.
        public static let sizeOutOfRange = Code(rawValue: "sizeOutOfRange")
        /// Structures are nested deeper than the parser allows.
        public static let tooDeep = Code(rawValue: "tooDeep")
        /// The file is not of any format MetadataKit reads.
        public static let unsupportedFormat = Code(rawValue: "unsupportedFormat")
        /// The format is recognised, but this feature of it is not supported.
        public static let unsupportedFeature = Code(rawValue: "unsupportedFeature")
        /// A value cannot be represented in the target format.
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// The file changed on disk since it was loaded; nothing was written.
        public static let fileChanged = Code(rawValue: "fileChanged")
        /// The file or its folder can't be written.
        public static let readOnly = Code(rawValue: "readOnly")
        /// The saved file did not read back as expected; the original was restored.
        public static let verificationFailed = Code(rawValue: "verificationFailed")
        /// The operation needs `load()` to have been called first.
        public static let notLoaded = Code(rawValue: "notLoaded")
        /// The task was cancelled before the work was done (nothing of it written).
        public static let cancelled = Code(rawValue: "cancelled")
        /// Another save (of this or another process) held the file's lock
        /// longer than the wait allowed (``path`` names the file); nothing was
        /// written. Try again later.
        public static let locked = Code(rawValue: "locked")
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, in words.
    public var reason: String
    /// Absolute byte offset in the file where the problem was found.
    public var offset: Int64?
    /// The file concerned, when known.
    public var path: String?

    /// An error of `code` explained by `reason`, at the absolute byte `offset`
    /// of the file at `path` when known.
    public init(_ code: Code, _ reason: String, offset: Int64? = nil, path: String? = nil) {
        self.code = code
        self.reason = reason
        self.offset = offset
        self.path = path
    }

    /// Returns a copy of this error that names `path` (unless it names one already).
    public func naming(_ path: String) -> MediaError {
        var copy = self
        if copy.path == nil { copy.path = path }
        return copy
    }

    /// The reason with its offset, without the path: "truncated: box 'moov' ... (at byte 1234)".
    public var message: String {
        var text = "\(code): \(reason)"
        if let offset { text += " (at byte \(offset))" }
        return text
    }

    public var description: String {
        if let path { return "\(path): \(message)" }
        return message
    }
}

extension MediaError: LocalizedError {
    public var errorDescription: String? { description }
}

extension MediaError {
    /// `error` as a ``MediaError``: itself when it is one, else an `io`
    /// error with its description (for typed `throws(MediaError)` APIs over
    /// calls that throw untyped errors).
    package static func from(_ error: any Error, path: String? = nil) -> MediaError {
        if let mediaError = error as? MediaError { return path.map(mediaError.naming) ?? mediaError }
        return MediaError(.io, "\(error)", path: path)
    }

    /// Runs `body`, throwing what it throws as a ``MediaError`` (``from(_:path:)``).
    package static func catching<Value>(path: String? = nil, _ body: () throws -> Value) throws(MediaError) -> Value {
        do {
            return try body()
        } catch {
            throw from(error, path: path)
        }
    }
}
