#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The attached files of a Matroska file (RFC 9559 §5.1.6). The file data
/// is never read here: only where it is.
///
/// Cover art follows the Matroska convention (RFC 9559 §22.7, "Cover Art"):
/// files named `cover`, `small_cover`, `cover_land` or `small_cover_land`
/// with a `.jpg`/`.jpeg`/`.png` extension are pictures; other attachments
/// (fonts, …) are `.data`-less items listing their name and media type.
struct MatroskaAttachment: Sendable, Hashable {
    var name: String = ""
    var mediaType: String?
    var description: String?
    var uid: UInt64?
    var dataOffset: Int64 = 0
    var dataSize: Int64 = 0
    /// Where the whole AttachedFile element is, header included.
    var elementOffset: Int64 = 0
    var elementEnd: Int64 = 0

    /// The names of the cover-art convention, without extension.
    static let coverNames: Set<String> = ["cover", "small_cover", "cover_land", "small_cover_land"]
    /// The most AttachedFiles read.
    static let maximumCount = 4096

    /// Whether the attachment is cover art.
    var isCover: Bool {
        let lower = name.lowercased()
        guard let dot = lower.lastIndex(of: ".") else { return false }
        return Self.coverNames.contains(String(lower[..<dot]))
            && ["jpg", "jpeg", "png"].contains(String(lower[lower.index(after: dot)...]))
    }

    /// The raw item of the attachment: a picture for cover art, else its
    /// media type as text.
    func item(source: FileSource, url: URL) -> MetadataItem {
        let key = "Attachment/\(name)"
        if isCover, dataSize <= Int64(Int32.max) {
            let pictureType: Artwork.PictureType = name.lowercased().hasPrefix("cover") ? .frontCover : .other
            let artwork = Artwork(
                source: source, url: url, offset: dataOffset, byteCount: Int(dataSize), mimeType: mediaType,
                pictureType: pictureType, description: description ?? "")
            let type: MetadataDataType = artwork.mimeType == "image/png" ? .png : .jpeg
            return MetadataItem(keySpace: .matroska, key: key, value: .picture(artwork), dataType: type)
        }
        return MetadataItem(keySpace: .matroska, key: key, value: .string(mediaType ?? "application/octet-stream"), dataType: .binary)
    }

    /// Reads the AttachedFiles of an Attachments element, walking it in the
    /// file so FileData stays unread.
    static func parse(_ source: FileSource, element: EBMLElement, warnings: inout [MediaWarning]) throws -> [MatroskaAttachment] {
        guard let end = element.end, end <= source.size else {
            warnings.append(
                MediaWarning(
                    .sizeOutOfRange, "Attachments element of unknown size or past the end of the file; not read", offset: element.offset))
            return []
        }
        var attachments: [MatroskaAttachment] = []
        var position = element.dataOffset
        while position < end, attachments.count < maximumCount {
            let file = try EBMLElement(parsing: source, at: position, limit: end)
            guard let fileEnd = file.end, fileEnd <= end else {
                warnings.append(
                    MediaWarning(
                        .sizeOutOfRange, "AttachedFile runs past its Attachments element; the rest is not read", offset: file.offset))
                break
            }
            position = fileEnd
            guard file.id == MatroskaID.attachedFile else { continue }
            var attachment = MatroskaAttachment(elementOffset: file.offset, elementEnd: fileEnd)
            var child = file.dataOffset
            var hasData = false
            while child < fileEnd {
                guard let field = try? EBMLElement(parsing: source, at: child, limit: fileEnd), let size = field.dataSize,
                    field.dataOffset + size <= fileEnd
                else {
                    warnings.append(
                        MediaWarning(.malformed, "damaged AttachedFile field; the rest of the file's fields skipped", offset: child))
                    break
                }
                child = field.dataOffset + size
                if field.id == MatroskaID.fileData {
                    attachment.dataOffset = field.dataOffset
                    attachment.dataSize = size
                    hasData = true
                    continue
                }
                guard size <= 64 * 1024 else { continue }
                let value = try source.getBytes(at: field.dataOffset, count: Int(size))[...]
                switch field.id {
                case MatroskaID.fileName: attachment.name = EBML.string(value)
                case MatroskaID.fileMediaType: attachment.mediaType = EBML.string(value)
                case MatroskaID.fileDescription: attachment.description = EBML.string(value)
                case MatroskaID.fileUID: attachment.uid = EBML.unsigned(value)
                default: break
                }
            }
            guard hasData, !attachment.name.isEmpty else {
                warnings.append(MediaWarning(.malformed, "AttachedFile without a name or data skipped", offset: file.offset))
                continue
            }
            attachments.append(attachment)
        }
        return attachments
    }
}
