#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MediaItem {
    /// The fields of the MP3's ID3v1 tag that ``save(options:)`` would change
    /// now, with the value asked for and the value ID3v1 can hold (see
    /// ``ID3v1FieldUpdate``); empty for other formats and when the save writes
    /// no ID3v1 tag. Nothing is written: `mdkit write --dry-run` shows the
    /// fields that lose something.
    ///
    /// The file is read again to find the tags as stored.
    public func id3v1Updates(options: SaveOptions = SaveOptions()) throws -> [ID3v1FieldUpdate] {
        guard isLoaded, fileType == .mp3 else { return [] }
        do {
            let source = try FileSource(path: path)
            let layout = try MP3Layout(parsing: source, url: url)
            let loadedItems = layout.frames.items + (layout.trailer.id3v1Items ?? [])
            let loaded = Metadata(items: loadedItems, schema: schema)
            let items = try MetadataChanges(schema: schema).resolvedItems(
                loaded: loaded, edited: metadata, keySpaces: [.id3, .id3v1],
                derived: [.id3v1])
            return try MP3EditPlanner.id3v1Update(source, layout, items, options)?.fields ?? []
        } catch let error as MediaError {
            throw error.naming(path)
        }
    }
}
