@testable import MetadataKit

extension TestSupport {
    /// The file's bytes after `plan`, read from the plan's runs over `source`.
    static func bytes(after plan: FileEditPlan, of source: FileSource) throws -> [UInt8] {
        let written = FileSource(runs: plan.segments(originalSize: source.size), over: source)
        return try written.getBytes(at: 0, count: Int(written.size))
    }

    /// Three edits of `metadata` a planner meets: a changed title (in place),
    /// no artist (the tag shrinks), and a comment of `commentLength` bytes (it
    /// grows past the padding).
    static func sampleEdits(of metadata: Metadata, commentLength: Int) -> [Metadata] {
        var retitled = metadata
        retitled.title = "A new title"
        var unattributed = metadata
        unattributed.artist = nil
        var commented = metadata
        commented.comments = String(repeating: "long ", count: commentLength / 5)
        return [retitled, unattributed, commented]
    }
}
