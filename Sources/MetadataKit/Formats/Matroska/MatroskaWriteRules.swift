#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which elements a save may write into a file, by its EBML header, for
/// ``MatroskaEditPlanner`` and the element builders.
///
/// - **WebM** (DocType `webm`) takes only the elements the WebM guidelines
///   allow (the `webm` flag of the Matroska element schema): Chapters
///   without EditionUID, the Edition flags, EditionDisplay,
///   ChapterFlagHidden/Enabled and ChapLanguageBCP47; Tags without
///   TagLanguageBCP47; no Attachments at all. What can't be said with the
///   allowed elements is refused before anything is written, except the
///   default flag of the first edition, which is implied (RFC 9559,
///   "Default Edition": with no edition flagged default, the first one is).
/// - **Matroska** elements newer than the file's DocTypeVersion
///   (ChapLanguageBCP47 and TagLanguageBCP47: version 4; EditionDisplay:
///   version 5; RFC 9559 §5.1, each element's `minver`) are written when the
///   header's DocTypeVersion can be raised in place (its value is rewritten
///   in the same bytes, as mkvpropedit does; DocTypeReadVersion stays, since
///   older readers skip the new elements, RFC 8794 §11.2.6).
struct MatroskaWriteRules {
    var isWebM: Bool
    /// The file's DocTypeVersion.
    var version: UInt64
    /// Whether the header's DocTypeVersion value can be rewritten in place.
    var canRaiseVersion: Bool
    /// The highest DocTypeVersion the elements built so far need.
    private(set) var neededVersion: UInt64 = 1

    init(header: EBMLHeader) {
        isWebM = header.docType == "webm"
        version = header.docTypeVersion
        canRaiseVersion = header.docTypeVersionData.map { $0.size >= 1 && $0.size <= 8 } ?? false
    }

    init(isWebM: Bool, version: UInt64, canRaiseVersion: Bool = true) {
        self.isWebM = isWebM
        self.version = version
        self.canRaiseVersion = canRaiseVersion
    }

    /// Whether a Matroska element of `minver` may be written (never in WebM).
    func allows(minver: UInt64) -> Bool { !isWebM && (version >= minver || canRaiseVersion) }

    /// Records that an element of `minver` was written.
    mutating func use(minver: UInt64) { neededVersion = max(neededVersion, minver) }

    /// The language elements of a title or tag: `plain` (TagLanguage,
    /// ChapLanguage) with an ISO 639-2 code, else `und` and `bcp47` with the
    /// tag (version 4). Refused where BCP 47 can't be written (WebM).
    mutating func language(_ language: String?, plain: UInt32, bcp47: UInt32, what: String) throws -> [UInt8] {
        let language = language ?? "und"
        if language.count == 3, language.allSatisfy({ $0.isASCII && $0.isLetter }) {
            return EBML.element(plain, string: language)
        }
        guard allows(minver: 4) else {
            throw MediaError(
                .unsupportedFeature,
                "\(isWebM ? "WebM" : "this Matroska file's") \(what) take a 3-letter ISO 639-2 language, not '\(language)'")
        }
        use(minver: 4)
        return EBML.element(plain, string: "und") + EBML.element(bcp47, string: language)
    }

    /// The header patch that raises DocTypeVersion to what the elements
    /// written need; nil when the file's version is enough.
    func versionPatch(_ header: EBMLHeader) -> (offset: Int64, bytes: [UInt8])? {
        guard neededVersion > version, let field = header.docTypeVersionData, (1...8).contains(field.size) else { return nil }
        let bytes = (0..<field.size).map { UInt8(truncatingIfNeeded: neededVersion >> UInt64(8 * (field.size - 1 - $0))) }
        return (field.offset, bytes)
    }
}
