#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Checks of pictures (in every format) and of Matroska's layout.
enum ContainerChecks {
    /// The image formats told from their first bytes, with their MIME types.
    static func sniffedMIMEType(_ head: [UInt8]) -> String? {
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return "image/gif" }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), head[8..<12].elementsEqual("WEBP".utf8) { return "image/webp" }
        if head.starts(with: Array("BM".utf8)), head.count >= 14 { return "image/bmp" }
        return nil
    }

    /// The MIME types a mismatch is reported for: a picture declared as
    /// something else (a link, an icon type) is left alone.
    static let knownImageTypes: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp", "image/bmp"]

    /// The MP4 data type of each image MIME type (`covr`, QuickTime well-known types).
    static let dataTypes: [String: MetadataDataType] = [
        "image/jpeg": .jpeg, "image/png": .png, "image/gif": .gif, "image/bmp": .bmp,
    ]

    /// The first bytes of a picture, read from `source` when it lies in that file.
    static func head(of picture: Artwork, source: FileSource) -> [UInt8]? {
        let count = min(16, picture.byteCount)
        switch picture.storage {
        case .file(let url, let offset):
            if url.path == source.path { return try? source.getBytes(at: offset, count: count) }
            return try? FileSource(url: url).getBytes(at: offset, count: count)
        case .base64(let text, let offset, _):
            // Only the groups that hold the first bytes are decoded (a cover is tens of KiB of text).
            var text = text
            let piece = text.withUTF8 { utf8 -> [UInt8]? in
                guard let total = Base64Pieces.claimedCount(utf8), offset + count <= total else { return nil }
                return Base64Pieces.decode(utf8, bytes: offset..<offset + count)
            }
            return piece ?? picture.storage.memoryBytes.map { Array($0.prefix(count)) }
        case .bytes:
            return picture.storage.memoryBytes.map { Array($0.prefix(count)) }
        }
    }

    /// A picture item whose MIME type says another image format than its
    /// bytes, with the item a repair sets; nil when they agree (or the
    /// bytes are of no known format).
    static func mimeMismatch(_ item: MetadataItem, source: FileSource) -> (finding: Finding, fixed: MetadataItem)? {
        guard let picture = item.value.picture, knownImageTypes.contains(picture.mimeType),
            let head = head(of: picture, source: source), let actual = sniffedMIMEType(head), actual != picture.mimeType
        else { return nil }
        var fixed = picture
        fixed.mimeType = actual
        var fixedItem = item
        fixedItem.value = .picture(fixed)
        if dataTypes.values.contains(item.dataType) {
            guard let type = dataTypes[actual] else { return nil }
            fixedItem.dataType = type
        }
        let finding = Finding(
            .pictureMIMEMismatch, .warning,
            "the picture '\(item.key)' (\(picture.pictureType.name)) says \(picture.mimeType), its bytes are \(actual)",
            byteOffset: picture.fileOffset)
        return (finding, fixedItem)
    }

    /// Tags elements after the first Cluster that no SeekHead entry points
    /// at, found by walking the top-level elements from the first Cluster
    /// (jumping over Clusters by their size).
    static func unreachableTags(_ source: FileSource) throws -> [Finding] {
        let layout = try MatroskaLayout(parsing: source)
        guard layout.firstCluster != nil else { return [] }
        let sought = Set(layout.seekHeads.flatMap(\.entries).map { layout.segmentData + $0.position })
        var unreachable: [Int64] = []
        _ = layout.walkAfterFirstCluster(source) { element in
            if element.id == MatroskaID.tags, !sought.contains(element.offset) { unreachable.append(element.offset) }
        }
        return unreachable.map { offset in
            Finding(
                .mkvTagsUnreachable, .warning,
                "a Tags element after the Clusters is in no SeekHead: readers that follow the SeekHead and stop at the "
                    + "first Cluster (MetadataKit, mediainfo, exiftool, players seeking from the start) don't see these tags",
                byteOffset: offset,
                fixNote: "a save keeps Tags it doesn't see; remux the file (mkvmerge -o new.mkv file.mkv) to index them")
        }
    }

    /// An Ogg file that ends inside a page, or whose last page has no
    /// end-of-stream flag (RFC 3533 §6: the recording or download stopped at
    /// a page boundary). Looks at the last MiB at most.
    static func oggTruncation(_ source: FileSource) throws -> Finding? {
        guard let last = try OggHeaderScan.lastPage(in: source, after: 0, limit: 1 << 20, maximumChecks: 16) else { return nil }
        if last.end < source.size {
            // A page that reads whole (one whose CRC is wrong) or junk after the stream is no cut.
            do {
                _ = try OggPage.read(from: source, at: last.end)
                return nil
            } catch let error as MediaError where error.code == .truncated {
            } catch {
                return nil
            }
            return Finding(
                .audioTruncated, .error,
                "the file ends inside an Ogg page (\(source.size - last.end) bytes of it are there): the stream is cut short",
                byteOffset: last.end, fixNote: "the missing audio can't be brought back")
        }
        guard last.headerType & OggPage.ending == 0 else { return nil }
        return Finding(
            .audioTruncated, .warning,
            "the last Ogg page has no end-of-stream flag: the stream was cut at a page boundary, or its writer never finished it",
            byteOffset: last.offset, fixNote: "the missing audio can't be brought back")
    }
}
