#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MediaItem {
    /// What is wrong with the file: every warning of ``load()`` as a
    /// ``Finding`` with a stable code, and the findings of checks of its own
    /// (stacked ID3v2 tags, v2.4 frames in a v2.3 tag, ID3v1 out of step with
    /// ID3v2, pictures whose MIME type lies, a VBR MP3 without a Xing header,
    /// audio cut short, Matroska Tags no SeekHead points at). In file order
    /// of the checks; empty for a sound file. docs/CHECK.md lists the codes.
    ///
    /// Reads a few KiB of the file beyond what ``load()`` read.
    /// - Throws: ``MediaError`` — `notLoaded`, or `io` when the file can't be read.
    public func check() throws -> [Finding] {
        try named { try FileCheck(self).findings }
    }

    /// ``check()`` reading `source`, the file the item was loaded from, still
    /// open (a scan checks each file without opening it again).
    package func check(reading source: FileSource) throws -> [Finding] {
        try named { try FileCheck(self, source: source).findings }
    }

    /// What ``repair(_:)`` with `codes` would change, without changing
    /// anything: one ``Repair`` per change. The save is planned (not
    /// written), so a repair the save layer would refuse throws here too.
    public func plannedRepairs(_ codes: Set<Finding.Code>? = nil) throws -> [Repair] {
        let check = try named { try FileCheck(self) }
        let selected = check.selected(codes)
        guard !selected.isEmpty else { return [] }
        var copy = self
        copy.metadata.items = check.editedItems(metadata.items, selected)
        _ = try copy.named { try copy.prepareSave(options: SaveOptions()) }
        return check.repairs(selected) + check.repairs(check.alongside(selected))
    }

    /// Repairs the fixable findings of ``check()`` (those with `codes`; nil:
    /// every fixable one) through ``save(options:)``: one save, with its
    /// journal and its verification, every item nobody changed kept and the
    /// audio copied byte for byte. Returns the changes made (empty when there
    /// was nothing to repair); the item is loaded again after the save.
    ///
    /// A save rewrites the whole tag region, so findings of other codes that
    /// any save repairs (a FLAC block length, a RIFF size) are repaired
    /// along with those asked for; they are among the changes returned.
    /// - Throws: `invalidValue` when the item has unsaved changes; whatever
    ///   ``save(options:)`` throws (the file is then unchanged).
    public mutating func repair(_ codes: Set<Finding.Code>? = nil) async throws -> [Repair] {
        guard !hasChanges else {
            throw MediaError(.invalidValue, "the item has unsaved changes; save or load it again before repairing", path: url.path)
        }
        let check = try named { try FileCheck(self) }
        let selected = check.selected(codes)
        guard !selected.isEmpty else { return [] }
        let loaded = metadata
        metadata.items = check.editedItems(metadata.items, selected)
        do {
            try await save()
        } catch {
            metadata = loaded
            throw error
        }
        return check.repairs(selected) + check.repairs(check.alongside(selected))
    }
}
