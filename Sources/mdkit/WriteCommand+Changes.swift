import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension WriteCommand.Edit {
    /// What the edit changes, to find a key given twice: the field name, or
    /// `keySpace:key` with the key as the format stores it (Vorbis keys
    /// uppercased, so `vorbis:mood` and `vorbis:MOOD` are one key).
    var target: String {
        switch self {
        case .set(let field, _), .remove(let field): field.rawValue
        case .setRaw(let space, let key, _), .removeRaw(let space, let key): "\(space.rawValue):\(key)"
        case .setCustom(let name, _), .removeCustom(let name): name
        }
    }
}

extension WriteCommand {
    /// The lyrics of `--lyrics FILE.lrc`: the file read and parsed as LRC.
    static func lyrics(file path: String) throws(UsageError) -> LRCLyrics {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw UsageError("cannot read the lyrics file \(path) (UTF-8 LRC text)")
        }
        guard let lrc = LRCLyrics(parsing: text) else {
            throw UsageError("\(path) has no timed line ([mm:ss.xx]text): not LRC")
        }
        return lrc
    }
}

extension WriteCommand {
    /// The lines `--dry-run` prints (and `--remove-all-tags` lists):
    /// "title: 'Old' → 'New'" for the normalized fields, then the custom
    /// fields (`--field`) the same way; then, for raw
    /// items outside the changed fields, "KEY: 'old' → 'new'" for a key that
    /// keeps one item with another value, "+ KEY = value" for an added one
    /// and "- KEY" for a removed one.
    static func describeChanges(from before: Metadata, to after: Metadata) -> [String] {
        func shown(_ item: MetadataItem) -> String { item.value.stringValue ?? "(\(item.dataType.rawValue))" }
        func name(_ item: MetadataItem) -> String { "\(item.keySpace.rawValue):\(item.key)" }
        let fieldChanges = after.fieldChanges(from: before)
        var lines = fieldChanges.map(\.description) + after.customFieldChanges(from: before).map(\.description)
        // The raw keys of the changed fields: their items are described by the lines above.
        let changedFieldKeys = fieldChanges.flatMap { MetadataKeyMap.standard.keys[$0.field] ?? [] }
        func isFieldKey(_ item: MetadataItem) -> Bool {
            changedFieldKeys.contains { $0.keySpace == item.keySpace && $0.key == item.key }
        }
        let added = after.items.indices.filter { !before.items.contains(after.items[$0], near: $0) && !isFieldKey(after.items[$0]) }
            .map { after.items[$0] }
        let removed = before.items.indices.filter { !after.items.contains(before.items[$0], near: $0) && !isFieldKey(before.items[$0]) }
            .map { before.items[$0] }
        // A key with one item before and one after, each with another value, changed.
        let addedCounts = Dictionary(added.map { (name($0), 1) }, uniquingKeysWith: +)
        let removedCounts = Dictionary(removed.map { (name($0), 1) }, uniquingKeysWith: +)
        let changed = Set(addedCounts.keys.filter { addedCounts[$0] == 1 && removedCounts[$0] == 1 })
        for item in added {
            if changed.contains(name(item)), let old = removed.first(where: { name($0) == name(item) }) {
                lines.append("\(name(item)): '\(shown(old))' → '\(shown(item))'")
            } else {
                lines.append("+ \(name(item)) = \(shown(item))")
            }
        }
        for item in removed where !changed.contains(name(item)) {
            lines.append("- \(name(item))")
        }
        return lines
    }
}

extension WriteCommand {
    /// The lines `--dry-run` prints for a plan, indented: the fields that
    /// change (custom ones after the standard ones), the chapters, every raw item the save adds, changes or
    /// removes, values stored in another form, ID3v1 `losses`, and how the
    /// file's bytes change.
    static func describe(_ plan: SavePlan, chapterLines: [String], losses: [String]) -> String {
        var lines = plan.fieldChanges.map(\.description) + plan.customFieldChanges.map(\.description) + chapterLines
        lines += plan.itemChanges.map(\.description)
        lines += plan.conversions.map { "note: " + $0 } + losses
        let layout: String
        switch plan.layout {
        case .unchanged: layout = "nothing written"
        case .sameSize: layout = "in place, the size unchanged"
        case .newTail: layout = "in place, the end of the file rewritten"
        case .newLayout: layout = "a new layout (blocks inserted where the filesystem can, else a rewritten copy)"
        }
        lines.append("file: \(layout); \(plan.sizes.before) → \(plan.sizes.after) bytes")
        return lines.map { "  " + TerminalText.escape($0) }.joined(separator: "\n")
    }
}
