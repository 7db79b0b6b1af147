#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The EBML header that starts every Matroska and WebM file (RFC 8794 §11.2,
/// RFC 9559 §4): the document type and its versions.
struct EBMLHeader: Sendable {
    /// The header element itself.
    var element: EBMLElement
    /// `matroska` or `webm` (the default is `matroska`).
    var docType = "matroska"
    var docTypeVersion: UInt64 = 1
    var docTypeReadVersion: UInt64 = 1
    var maxIDLength: UInt64 = 4
    var maxSizeLength: UInt64 = 8
    /// Where the DocTypeVersion value is (its data: offset and size), for
    /// a save that raises it (see ``MatroskaWriteRules``).
    var docTypeVersionData: (offset: Int64, size: Int)?

    /// A header larger than this is damage (real ones are about 40 bytes).
    static let maximumSize: Int64 = 64 * 1024
}

extension EBMLHeader {
    /// Parses the header at the start of `source`. Throws `unsupportedFormat`
    /// when the file doesn't start with one, `malformed` for one that is too
    /// large or cut short.
    init(parsing source: FileSource, warnings: inout [MediaWarning]) throws {
        let element = try EBMLElement(parsing: source, at: 0, limit: source.size)
        guard element.id == MatroskaID.ebml else {
            throw MediaError(.unsupportedFormat, "not an EBML file", offset: 0)
        }
        guard let size = element.dataSize, size <= Self.maximumSize else {
            throw MediaError(.sizeOutOfRange, "EBML header of \(element.dataSize.map(String.init) ?? "unknown") bytes", offset: 0)
        }
        self.init(element: element)
        let reader = try source.reader(at: element.dataOffset, count: Int(size))
        for (child, data) in EBMLChildren.list(reader, warnings: &warnings) {
            switch child.id {
            case MatroskaID.docType: docType = EBMLChildren.string(data)
            case MatroskaID.docTypeVersion:
                docTypeVersion = EBMLChildren.unsigned(data) ?? docTypeVersion
                docTypeVersionData = (child.dataOffset, data.remaining)
            case MatroskaID.docTypeReadVersion: docTypeReadVersion = EBMLChildren.unsigned(data) ?? docTypeReadVersion
            case MatroskaID.ebmlMaxIDLength: maxIDLength = EBMLChildren.unsigned(data) ?? maxIDLength
            case MatroskaID.ebmlMaxSizeLength: maxSizeLength = EBMLChildren.unsigned(data) ?? maxSizeLength
            default: break
            }
        }
    }

    /// The document type of the file read through `source`, if it starts
    /// with an EBML header (for detection).
    static func docType(of source: FileSource) -> String? {
        var warnings: [MediaWarning] = []
        return (try? EBMLHeader(parsing: source, warnings: &warnings))?.docType
    }
}
