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
    /// Whether `item` is one this source reads.
    var holds: @Sendable (MetadataItem) -> Bool
    /// The fields `item` gives, in order of preference within one field.
    var fields: @Sendable (MetadataItem) -> [(field: MetadataField, value: DisplayValue)]
}

extension Metadata {
    /// Fills every empty field that an item of a read-only source
    /// (``MediaFormat/readOnlyFieldSources``) gives; fields already set stay.
    mutating func fillReadOnlyFields(from sources: [ReadOnlyFieldSource] = MediaFormat.readOnlyFieldSources) {
        for item in items {
            for source in sources where source.holds(item) {
                for (field, value) in source.fields(item) where self[field] == nil {
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
