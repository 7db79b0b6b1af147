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
    /// The key spaces whose every item this source reads.
    var keySpaces: [MetadataKeySpace]
    /// Single keys this source reads in other key spaces (an XMP packet in
    /// an ID3 `PRIV` frame). Items are matched by these two lists alone,
    /// with no call per item: this runs for every item loaded.
    var keys: [MetadataKeyMap.RawKey] = []
    /// The fields `item` gives, in order of preference within one field.
    var fields: @Sendable (MetadataItem) -> [(field: MetadataField, value: DisplayValue)]
}

extension ReadOnlyFieldSource {
    /// Whether `item` is one this source reads.
    func reads(_ item: MetadataItem) -> Bool {
        keySpaces.contains(item.keySpace) || keys.contains { $0.keySpace == item.keySpace && $0.key == item.key }
    }
}

extension Metadata {
    /// Fills every empty field that an item of one of `sources` gives
    /// (the registry's: ``MediaFormat/readOnlyFieldSources``); fields
    /// already set stay.
    mutating func fillReadOnlyFields(from sources: [ReadOnlyFieldSource]) {
        // Most files hold no item of a source's key spaces: one pass of
        // string comparisons over a copy of the list (no access to `self`
        // per item), and nothing more.
        let items = self.items
        for source in sources {
            for item in items where source.reads(item) {
                for (field, value) in source.fields(item) where self[field] == nil {
                    self[field] = value
                }
            }
        }
    }
}
