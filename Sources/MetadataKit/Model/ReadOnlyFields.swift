/// Raw items whose fields are shown but never written: an item that holds a
/// whole document (an XMP packet) from which a few fields are read.
///
/// Such fields fill only the fields the file's other items (its native
/// tags, through ``MetadataKeyMap``) leave empty: **the native tag wins**.
/// They are filled into ``MediaItem/metadata`` when a file is loaded; a
/// changed field is written to the native tag (the holding item stays as it
/// is), and a field the native tags don't hold is never copied from such an
/// item into them.
struct ReadOnlyFieldSource: Sendable {
    /// The key spaces of the items this source may read: items of others
    /// are passed over without a call (this runs for every item loaded).
    var keySpaces: [MetadataKeySpace]
    /// Whether `item` (of one of ``keySpaces``) is one this source reads.
    var holds: @Sendable (MetadataItem) -> Bool
    /// The fields `item` gives, in order of preference within one field.
    var fields: @Sendable (MetadataItem) -> [(field: MetadataField, value: DisplayValue)]
}

extension Metadata {
    /// Fills every empty field that an item of a read-only source
    /// (``MediaFormat/readOnlyFieldSources``) gives; fields already set stay.
    mutating func fillReadOnlyFields(from sources: [ReadOnlyFieldSource] = MediaFormat.readOnlyFieldSources) {
        for index in items.indices {
            let keySpace = items[index].keySpace
            for source in sources where source.keySpaces.contains(keySpace) && source.holds(items[index]) {
                for (field, value) in source.fields(items[index]) where self[field] == nil {
                    self[field] = value
                }
            }
        }
    }

    /// `self` with ``fillReadOnlyFields(from:)`` applied.
    func fillingReadOnlyFields() -> Metadata {
        var copy = self
        copy.fillReadOnlyFields()
        return copy
    }
}
