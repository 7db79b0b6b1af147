#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a Tag applies to (RFC 9559 §5.1.8.1.1 Targets), and its form in a
/// raw item's key.
///
/// Keys of the `matroska` key space are `TARGET/NAME`, or `NAME` alone when
/// the Tag's Targets are empty:
///
/// - TARGET is the TargetTypeValue (`50` album, `30` track, …), then, joined
///   by `:`, `type=ALBUM` (TargetType), `track=UID`, `edition=UID`,
///   `chapter=UID`, `attachment=UID`: `50/TITLE`, `30/ARTIST`,
///   `track=12345/DURATION`, `50:type=ALBUM/TITLE`. A Targets with no
///   TargetTypeValue means 50 (§5.1.8.1.1.1; mkvmerge leaves the default
///   out), but ffmpeg writes its global tags there as "no level", and TagLib
///   reads them so: the key keeps the difference, `ARTIST` (see
///   ``MetadataKeyMap/matroskaKeys`` for how both are read), so a save
///   writes the Targets back as they were.
/// - A nested SimpleTag adds its name after its parent's:
///   `30/ARTIST/SORT_WITH`.
///
/// Two keys that are not tags: `Info/Title` (the Segment title) and
/// `Attachment/<FileName>` (an attached file); tag names spelled `Info` or
/// `Attachment` in mixed case are therefore not read as tags' first name.
struct MatroskaTarget: Sendable, Hashable {
    var typeValue: UInt64?
    var type: String?
    var trackUIDs: [UInt64] = []
    var editionUIDs: [UInt64] = []
    var chapterUIDs: [UInt64] = []
    var attachmentUIDs: [UInt64] = []

    /// The target part of a key ("" for empty Targets).
    var keyPrefix: String {
        var parts: [String] = []
        if let typeValue { parts.append(String(typeValue)) }
        if let type { parts.append("type=\(type)") }
        parts += trackUIDs.map { "track=\($0)" } + editionUIDs.map { "edition=\($0)" }
        parts += chapterUIDs.map { "chapter=\($0)" } + attachmentUIDs.map { "attachment=\($0)" }
        return parts.joined(separator: ":")
    }

    /// The key of a SimpleTag named by `path` (outermost first) under this target.
    func key(_ path: [String]) -> String {
        let prefix = keyPrefix
        return (prefix.isEmpty ? "" : prefix + "/") + path.joined(separator: "/")
    }

    /// Splits a tag key into its target and its names; nil for a key that
    /// is not a tag (`Info/Title`, `Attachment/…`) or holds an empty name.
    static func split(_ key: String) -> (target: MatroskaTarget, path: [String])? {
        let parts = key.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first, first != "Info", first != "Attachment" else { return nil }
        var target = MatroskaTarget()
        var path = parts
        if let parsed = MatroskaTarget(prefix: first), parts.count > 1 {
            target = parsed
            path.removeFirst()
        }
        guard !path.isEmpty, path.allSatisfy({ !$0.isEmpty }) else { return nil }
        return (target, path)
    }

    /// Parses a key's target part; nil when it is not one (a tag name).
    init?(prefix: String) {
        let parts = prefix.split(separator: ":", omittingEmptySubsequences: false)
        guard !parts.isEmpty else { return nil }
        for (index, part) in parts.enumerated() {
            if index == 0, !part.isEmpty, part.allSatisfy(\.isASCIIDigit) {
                guard let value = UInt64(part) else { return nil }
                typeValue = value
                continue
            }
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { return nil }
            let value = String(pair[1])
            switch pair[0] {
            case "type": type = value
            case "track":
                guard let uid = UInt64(value) else { return nil }
                trackUIDs.append(uid)
            case "edition":
                guard let uid = UInt64(value) else { return nil }
                editionUIDs.append(uid)
            case "chapter":
                guard let uid = UInt64(value) else { return nil }
                chapterUIDs.append(uid)
            case "attachment":
                guard let uid = UInt64(value) else { return nil }
                attachmentUIDs.append(uid)
            default: return nil
            }
        }
    }

    init() {}

    /// The Targets element's bytes.
    func serialized() -> [UInt8] {
        var data: [UInt8] = []
        if let typeValue { data += EBML.element(MatroskaID.targetTypeValue, unsigned: typeValue) }
        if let type { data += EBML.element(MatroskaID.targetType, string: type) }
        for uid in trackUIDs { data += EBML.element(MatroskaID.tagTrackUID, unsigned: uid) }
        for uid in editionUIDs { data += EBML.element(MatroskaID.tagEditionUID, unsigned: uid) }
        for uid in chapterUIDs { data += EBML.element(MatroskaID.tagChapterUID, unsigned: uid) }
        for uid in attachmentUIDs { data += EBML.element(MatroskaID.tagAttachmentUID, unsigned: uid) }
        return EBML.element(MatroskaID.targets, data)
    }
}
