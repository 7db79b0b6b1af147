#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Finding the next good Ogg page after damage, as ffmpeg and mutagen do: a
/// reader that finds no page where one should start, or a page whose CRC is
/// wrong, looks for the next capture pattern "OggS" that starts a page with
/// a right CRC (RFC 3533 §6: the capture pattern and CRC exist so a reader
/// can resynchronise after lost or damaged data).
enum OggResync {
    /// The bytes skipped before a good page (or the end of the file).
    struct Gap: Sendable, Hashable {
        var offset: Int64
        var length: Int64
        /// Why the bytes at ``offset`` are not a page, in words.
        var reason: String
        var end: Int64 { offset + length }
    }

    /// Most candidate pages checked while looking for the next good one, so a
    /// file full of fake capture patterns can't make a read slow.
    static let maximumCandidates = 256
    /// How far past damage the search goes.
    static let maximumDistance: Int64 = 16 << 20

    /// The page at `offset` when it is whole and its CRC is right, or whole
    /// with a wrong CRC and taken by `readAnyway` (then `wrongChecksum`),
    /// with its body (read for the CRC, so the caller needn't read it again);
    /// otherwise the next good page after it (nil at the end of the file or
    /// past the search limits) and the gap of skipped bytes.
    static func page(at offset: Int64, in source: FileSource, readAnyway: (OggPage) -> Bool = { _ in false }) throws
        -> (page: OggPage?, gap: Gap?, wrongChecksum: Bool, body: [UInt8]?)
    {
        let reason: String
        do {
            if let page = try OggPage.read(from: source, at: offset) {
                let body = try source.getBytes(at: page.bodyOffset, count: page.bodyLength)
                if OggCRC.checksum(of: page, body: body) == page.checksum { return (page, nil, false, body) }
                if readAnyway(page) { return (page, nil, true, body) }
                reason = "an Ogg page whose CRC is wrong"
            } else {
                reason = "bytes that are not an Ogg page"
            }
        } catch let error as MediaError where error.code != .io {
            reason = "a damaged Ogg page (\(error.reason))"
        }
        let next = try nextPage(after: offset, in: source)
        let end = next?.offset ?? source.size
        return (next, Gap(offset: offset, length: end - offset, reason: reason), false, nil)
    }

    /// The first page with a right CRC whose capture pattern starts after
    /// `offset`; nil when there is none within the limits.
    static func nextPage(after offset: Int64, in source: FileSource) throws -> OggPage? {
        let window = 64 * 1024
        var start = offset + 1
        var candidates = 0
        let limit = min(source.size, offset + maximumDistance)
        while start + 4 <= limit {
            let bytes = try source.getBytes(at: start, count: Int(min(Int64(window + 3), source.size - start)))
            var index = 0
            while index + 4 <= bytes.count && index < window {
                defer { index += 1 }
                guard bytes[index] == 0x4F, bytes[index + 1] == 0x67, bytes[index + 2] == 0x67, bytes[index + 3] == 0x53 else { continue }
                candidates += 1
                guard candidates <= maximumCandidates else { return nil }
                let position = start + Int64(index)
                guard let page = try? OggPage.read(from: source, at: position),
                    (try? OggCRC.checksum(of: page, in: source)) == page.checksum
                else { continue }
                return page
            }
            start += Int64(window)
        }
        return nil
    }
}
