#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The findings of one loaded file, with the item edits that repair them.
///
/// Built from the load's warnings (``WarningFindings``) and the checks of
/// its own: the ID3 tags of an MP3 (``ID3Checks``), its audio stream
/// (``MP3StreamChecks``), its pictures and Matroska layout
/// (``ContainerChecks``). The checks read only what the load read, or a few
/// KiB more: a full tag parse only when the tags ask for one.
struct FileCheck {
    var findings: [Finding] = []
    /// Per finding (same index): the items a repair replaces (`old` nil: added).
    var edits: [[(old: MetadataItem?, new: MetadataItem)]] = []

    init(_ item: MediaItem, source: FileSource? = nil) throws {
        guard item.isLoaded, let format = item.format else {
            throw MediaError(.notLoaded, "call load() before check()", path: item.url.path)
        }
        let source = try source ?? FileSource(url: item.url)
        for finding in WarningFindings.findings(item.warnings, format: format.identifier, isEditable: item.isEditable) {
            add(finding)
        }
        // A check whose structures don't parse adds nothing: the load read
        // around that damage and its warnings say so. Only I/O errors stop the check.
        do {
            switch format.identifier {
            case "mp3": try checkMP3(item, source: source)
            case "matroska", "webm": for finding in try ContainerChecks.unreachableTags(source) { add(finding) }
            case "ogg": if let cut = try ContainerChecks.oggTruncation(source) { add(cut) }
            case "flac": if let cut = try FLACChecks.truncation(source) { add(cut) }
            default: break
            }
        } catch let error as MediaError where error.code != .io {}
        for picture in item.metadata.items where picture.value.picture != nil {
            guard case (var finding, let fixed)? = ContainerChecks.mimeMismatch(picture, source: source) else { continue }
            finding.isFixable = item.isEditable
            if !item.isEditable { finding.fixNote = "MetadataKit can't save this file" }
            add(finding, edits: [(picture, fixed)])
        }
    }

    mutating func add(_ finding: Finding, edits: [(old: MetadataItem?, new: MetadataItem)] = []) {
        findings.append(finding)
        self.edits.append(edits)
    }

    private mutating func checkMP3(_ item: MediaItem, source: FileSource) throws {
        let url = item.url
        let items = item.metadata.items
        let hasV24Keys = items.contains { $0.keySpace == .id3 && ID3Checks.v24OnlyFrames.contains(String($0.key.prefix(4))) }
        var audioStart: Int64 = 0
        var firstVersion: UInt8?
        while let header = try? ID3v2Header.parse(from: source, at: audioStart), audioStart < source.size {
            firstVersion = firstVersion ?? header.majorVersion
            audioStart = min(header.end, source.size)
        }
        let stacked = findings.indices.filter { findings[$0].code == .id3Stacked }
        let dates = ID3Checks.datesDisagree(items)
        if !stacked.isEmpty || (hasV24Keys && firstVersion == 3) || dates != nil {
            let layout = try MP3Layout(parsing: source, url: url)
            if let dates {
                let frame = layout.frames.first { $0.id == "TYER" }
                add(
                    Finding(
                        .id3DatesDisagree, .warning, "TYER says \(dates.tyer), TDRC says \(dates.tdrc)",
                        byteOffset: frame?.range.lowerBound,
                        fixNote: "which year is right can't be told; set it with mdkit write --set year=…"))
            }
            let loss = ID3Checks.stackedLoss(layout, source: source)
            for index in stacked {
                findings[index].isFixable = item.isEditable && loss == nil
                findings[index].fixNote = loss ?? "a save merges the tags into one"
            }
            for finding in ID3Checks.v24FramesInV23(layout, isEditable: item.isEditable) { add(finding) }
        }
        let trailer = try MP3Trailer(parsing: source, floor: audioStart)
        if trailer.id3v1Items != nil, items.contains(where: { $0.keySpace == .id3 }) {
            let offset = source.size - Int64(ID3v1Parser.length)
            let bytes = try source.getBytes(at: offset, count: ID3v1Parser.length)
            let disagreements = ID3Checks.v1Disagreements(items, v1Bytes: bytes)
            if !disagreements.isEmpty {
                let fields = disagreements.map { "\($0.field) '\($0.v1)' (ID3v2: '\($0.v2)')" }
                let old = items.filter { $0.keySpace == .id3v1 }
                add(
                    Finding(
                        .id3V1Disagrees, .warning, "the ID3v1 tag says " + fields.joined(separator: ", "), byteOffset: offset,
                        isFixable: item.isEditable, fixNote: "the ID3v1 fields are rewritten from ID3v2"),
                    edits: disagreements.map { disagreement in (old.first { $0.key == disagreement.field }, disagreement.item) })
            }
        }
        for finding in try MP3StreamChecks.findings(source, audioStart: audioStart, audioEnd: trailer.audioEnd) { add(finding) }
    }

    /// The findings a repair of `codes` (nil: every code) works on.
    func selected(_ codes: Set<Finding.Code>?) -> [Int] {
        findings.indices.filter { findings[$0].isFixable && (codes?.contains(findings[$0].code) ?? true) }
    }

    /// The fixable findings besides `selected` that any save repairs (they
    /// need no item edit): a repair of `selected` repairs them too.
    func alongside(_ selected: [Int]) -> [Int] {
        self.selected(nil).filter { !selected.contains($0) && edits[$0].isEmpty }
    }

    /// What repairing the findings at `indices` changes, in words.
    func repairs(_ indices: [Int]) -> [Repair] {
        indices.flatMap { index -> [Repair] in
            let finding = findings[index]
            if edits[index].isEmpty {
                return [Repair(code: finding.code, change: finding.fixNote ?? "a save rewrites it")]
            }
            return edits[index].map { edit in
                Repair(code: finding.code, change: Self.describe(edit.old, edit.new))
            }
        }
    }

    private static func describe(_ old: MetadataItem?, _ new: MetadataItem) -> String {
        func show(_ item: MetadataItem?) -> String {
            guard let item else { return "(none)" }
            if let picture = item.value.picture { return "\(picture.mimeType)" + (item.dataType == .binary ? "" : " (\(item.dataType))") }
            return "'\(item.value.stringValue ?? "")'"
        }
        return "\(new.keySpace):\(new.key) \(show(old)) → \(show(new))"
    }

    /// The items with the edits of the findings at `indices` made.
    func editedItems(_ items: [MetadataItem], _ indices: [Int]) -> [MetadataItem] {
        var items = items
        for index in indices {
            for edit in edits[index] {
                if let old = edit.old, let position = items.firstIndex(of: old) {
                    items[position] = edit.new
                } else {
                    items.append(edit.new)
                }
            }
        }
        return items
    }
}
