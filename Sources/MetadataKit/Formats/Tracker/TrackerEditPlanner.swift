#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes a tracker module's title and comment in place, as TagLib does:
/// each text goes into its fixed-size field, padded with NULs; the
/// comment's lines fill the name fields in the order they are read
/// (``TrackerModule/names``), the names past its last line are emptied, and
/// in an IT file the lines after the names become the song message.
/// Nothing else in the file changes, and a field whose text is unchanged
/// keeps its bytes (what followed its NUL included).
///
/// Strict where TagLib truncates: a text longer than its field, a comment
/// with more lines than the file has names (IT: than fit in its message's
/// space), an IT file without a message that would need one, text outside
/// Latin-1, and NULs or line breaks inside a field are refused before
/// anything is written.
enum TrackerEditPlanner {
    static func planner(
        _ read: @escaping @Sendable (FileSource) throws -> TrackerModule
    ) -> @Sendable (FileSource, [MetadataItem], SaveOptions) throws -> FileEditPlan {
        { source, items, options in try plan(read(source), source: source, items: options.removesAllTags ? [] : items) }
    }

    static func plan(_ module: TrackerModule, source: FileSource, items: [MetadataItem]) throws -> FileEditPlan {
        var module = module
        let old = try module.readTexts(source)
        guard module.isWritable else {
            throw MediaError(.readOnly, "the \(module.kind) file ends inside its names or message; MetadataKit doesn't write it")
        }
        var title = "", comment = ""
        for item in items {
            guard item.keySpace == .module, ["title", "comment"].contains(item.key) else {
                throw MediaError(
                    .unsupportedFeature,
                    "a \(module.kind) module holds only module:title and module:comment, not \(item.keySpace):\(item.key)")
            }
            let text = item.value.stringValues.joined(separator: "\n")
            if item.key == "title" { title = text } else { comment = text }
        }
        var patches: [(offset: Int64, bytes: [UInt8])] = []
        if title != old.title {
            patches += try patch(module.title, title, source: source)
        }
        if comment != (old.comment ?? "") {
            var lines = comment.isEmpty ? [] : comment.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines.count > module.names.count, module.message == nil {
                let what = module.kind == "IT" ? "names and no song message" : "names"
                throw MediaError(
                    .invalidValue,
                    "the comment has \(lines.count) lines; this \(module.kind) file has \(module.names.count) \(what), one line each, and MetadataKit writes modules in place"
                )
            }
            for field in module.names {
                let line = lines.isEmpty ? "" : lines.removeFirst()
                if line != (try TrackerModule.text(of: field, in: source)) {
                    patches += try patch(field, line, source: source)
                }
            }
            if let message = module.message {
                patches += try messagePatch(lines, at: message, source: source)
            }
        }
        return .inPlace(patches)
    }

    /// The Latin-1 bytes of `text` for a field, or why it can't hold them.
    static func encoded(_ text: String, what: String, lineBreaks: Bool = false) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for scalar in text.unicodeScalars {
            guard scalar.value <= 0xFF, scalar.value != 0, lineBreaks || (scalar != "\n" && scalar != "\r") else {
                throw MediaError(
                    .invalidValue,
                    "\(what) holds Latin-1 text without NULs or line breaks; '\(text)' has U+\(String(scalar.value, radix: 16, uppercase: true))"
                )
            }
            bytes.append(UInt8(scalar.value))
        }
        return bytes
    }

    private static func patch(_ field: TrackerTextField, _ text: String, source: FileSource) throws -> [(offset: Int64, bytes: [UInt8])] {
        let bytes = try encoded(text, what: field.what)
        guard bytes.count <= field.capacity else {
            throw MediaError(.invalidValue, "\(field.what) holds at most \(field.capacity) bytes; '\(text)' has \(bytes.count)")
        }
        let padded = bytes + [UInt8](repeating: 0, count: field.size - bytes.count)
        return try FileEditPlan.changedPatch(of: padded, at: field.offset, in: source).map { [$0] } ?? []
    }

    /// The song message holding `lines` (CR after each but the last, then a
    /// NUL), in the message's own space; MsgLgth stays.
    private static func messagePatch(_ lines: [String], at message: (offset: Int64, length: Int), source: FileSource) throws -> [(
        offset: Int64, bytes: [UInt8]
    )] {
        var bytes: [UInt8] = []
        for (index, line) in lines.enumerated() {
            if index > 0 { bytes.append(0x0D) }
            bytes += try encoded(line, what: "the IT song message")
        }
        guard bytes.count < message.length else {
            throw MediaError(
                .invalidValue,
                "the IT song message's space holds \(message.length - 1) bytes and a NUL; the comment's message lines need \(bytes.count), and MetadataKit writes modules in place",
                offset: message.offset)
        }
        let padded = bytes + [UInt8](repeating: 0, count: message.length - bytes.count)
        return try FileEditPlan.changedPatch(of: padded, at: message.offset, in: source).map { [$0] } ?? []
    }
}
