/// What a load reads into ``Metadata`` and what a save writes back: the
/// converters, the key map and the caller's own fields, in one value passed
/// to ``MediaItem/init(url:schema:)`` or ``MediaItem/init(contentsOf:schema:)``
/// and used by every save and ``MediaItem/plan(options:)`` of that item.
///
/// A custom field is a name the caller chooses and the raw keys that hold it
/// in each key space, as mutagen's `EasyID3.RegisterTXXXKey` does:
///
/// ```swift
/// var schema = MetadataSchema.standard
/// try schema.registerField("energy", keys: [
///     .init(.id3, "TXXX:ENERGY"), .init(.iTunes, "----:com.apple.iTunes:ENERGY"), .init(.vorbis, "ENERGY"),
/// ])
/// var item = try await MediaItem(contentsOf: url, schema: schema)
/// item.metadata[custom: "energy"] = .text("high")
/// item = try await item.saving()
/// ```
///
/// A custom field holds text, one value or several
/// (``Metadata/subscript(custom:)``). It is read from the first of its keys
/// the file has; a save writes it where the file holds it, else under its
/// key in the format's primary key space (ID3 for MP3, iTunes for MP4,
/// Vorbis comments for FLAC and Ogg), else in another key space the file
/// has, and refuses it (`invalidValue`) when the file has none of them.
/// ``standard`` has no custom fields; an item made without a schema uses it.
public struct MetadataSchema: Sendable {
    /// A field named by the caller, held as text under ``keys``.
    public struct CustomField: Sendable, Hashable {
        /// The name ``Metadata/subscript(custom:)`` takes.
        public let name: String
        /// The raw keys that hold it, most preferred first (at most one per key
        /// space is written).
        public let keys: [MetadataKeyMap.RawKey]
    }

    /// The converter of each normalized field.
    public var converters: MetadataConverterRegistry
    /// Which raw keys hold each normalized field.
    public var keyMap: MetadataKeyMap
    /// The custom fields, in the order they were registered.
    public private(set) var customFields: [CustomField] = []

    /// A schema of `converters` and `keyMap`, with no custom fields.
    public init(converters: MetadataConverterRegistry = .standard, keyMap: MetadataKeyMap = .standard) {
        self.converters = converters
        self.keyMap = keyMap
    }

    /// The standard converters and key map, no custom fields: what every item
    /// made without a schema reads and writes with.
    public static let standard = MetadataSchema()

    /// The custom field called `name`; nil when none is registered.
    public func customField(named name: String) -> CustomField? {
        customFields.first { $0.name == name }
    }

    /// Adds the custom field `name`, held by `keys` (most preferred first),
    /// spelled as a load reads them: Vorbis comment names in upper case
    /// (`ENERGY`), ID3 user texts as `TXXX:` and the description, iTunes
    /// freeform atoms as `----:` mean`:`name.
    ///
    /// - Throws: ``MediaError`` `invalidValue` when `name` is empty, is a
    ///   ``MetadataField`` name (`mood`: use ``MetadataField/mood``) or
    ///   already registered, when `keys` is empty or holds an empty key, or
    ///   when a key already holds a field of ``keyMap`` or another custom
    ///   field (one key holds one field).
    public mutating func registerField(_ name: String, keys: [MetadataKeyMap.RawKey]) throws {
        guard !name.isEmpty else { throw MediaError(.invalidValue, "a custom field needs a name") }
        if let field = MetadataField(name: name) {
            throw MediaError(.invalidValue, "'\(name)' is the standard field \(field.rawValue); use it instead of a custom field")
        }
        guard customField(named: name) == nil else {
            throw MediaError(.invalidValue, "the custom field '\(name)' is registered already")
        }
        guard !keys.isEmpty else { throw MediaError(.invalidValue, "the custom field '\(name)' needs at least one key") }
        for key in keys {
            guard !key.key.isEmpty else { throw MediaError(.invalidValue, "the custom field '\(name)' has an empty key") }
            if let field = keyMap.field(for: key.keySpace, key: key.key) {
                throw MediaError(.invalidValue, "\(key) holds the field \(field.rawValue); it can't hold '\(name)' too")
            }
            if let other = customFields.first(where: { $0.keys.contains(key) }) {
                throw MediaError(.invalidValue, "\(key) holds the custom field '\(other.name)'; it can't hold '\(name)' too")
            }
        }
        customFields.append(CustomField(name: name, keys: keys))
    }

    /// This schema with the custom field `name` added (see ``registerField(_:keys:)``).
    public func registeringField(_ name: String, keys: [MetadataKeyMap.RawKey]) throws -> MetadataSchema {
        var schema = self
        try schema.registerField(name, keys: keys)
        return schema
    }

    /// The value `items` give the custom field `field`: every non-empty text
    /// of its first key that the items hold, in file order.
    func value(of field: CustomField, in items: [MetadataItem]) -> DisplayValue? {
        for key in field.keys {
            let texts = items.filter { $0.keySpace == key.keySpace && $0.key == key.key }
                .flatMap { $0.value.stringValues }.filter { !$0.isEmpty }
            if let value = DisplayValue.list(texts) { return value }
        }
        return nil
    }
}

extension Metadata {
    /// Metadata whose fields, custom fields included, `schema` derives from `items`.
    public init(items: [MetadataItem], schema: MetadataSchema) {
        self.init(items: items, registry: schema.converters, keyMap: schema.keyMap)
        for field in schema.customFields {
            custom[field.name] = schema.value(of: field, in: items)
        }
    }

    /// The value of the custom field `name` (``MetadataSchema/registerField(_:keys:)``);
    /// nil when the file has none. Set it to change the field at the next
    /// save (nil or empty text removes it); a save refuses a name that the
    /// item's schema does not register.
    public subscript(custom name: String) -> DisplayValue? {
        get { custom[name] }
        set { custom[name] = newValue }
    }

    /// The names of the custom fields that have a value, sorted.
    public var customFieldNames: [String] { custom.keys.sorted() }
}
