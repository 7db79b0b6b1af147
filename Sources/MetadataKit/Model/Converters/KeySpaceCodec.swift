#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How one key space stores the fields whose form is its own: a track
/// number as a number pair, a genre as an index, a date split over several
/// frames, a rating as a byte, a flag as an integer atom.
///
/// The model's converters (``MetadataConverterRegistry/standard``) read and
/// write every field the way most tags store it (text, lists of text); for
/// each item and each key they first ask the codec of its key space, which
/// answers for the fields it stores otherwise and leaves the rest to them.
/// A format's folder defines the codecs of the key spaces it owns, and its
/// ``MediaFormat`` value carries them, so a new format's fields need no
/// change outside its folder.
public protocol KeySpaceCodec: Sendable {
    /// The key space whose items and keys this codec reads and writes.
    var keySpace: MetadataKeySpace { get }

    /// How `item` (of ``keySpace``) gives `field`. `items` are every item of
    /// the field, most preferred first, for a codec whose value spans
    /// several items (a date's day in another frame).
    func reading(_ field: MetadataField, from item: MetadataItem, among items: [MetadataItem]) -> FieldReading

    /// The raw items that store `value` for `field` under `key` (of
    /// ``keySpace``), as ``MetadataConverter/items(for:value:key:existing:)``
    /// describes; nil to write them as the model does. Throws `invalidValue`
    /// when the key can't hold the value.
    func items(for field: MetadataField, value: DisplayValue?, key: String, existing: [MetadataItem]) throws -> [MetadataItem]?

    /// Keys other writers use for a field whose own key here is another
    /// (``MetadataKeyMap/replacedKeys``).
    var replacedKeys: Set<String> { get }
    /// Keys whose place holds one text (``MetadataKeyMap/singleValueKeys``).
    var singleValueKeys: Set<String> { get }
    /// Keys read as a last resort (``MetadataKeyMap/fallbackKeys``).
    var fallbackKeys: Set<String> { get }
    /// Fallback keys kept in step with their field (``MetadataKeyMap/syncedFallbackKeys``).
    var syncedFallbackKeys: Set<String> { get }
}

extension KeySpaceCodec {
    /// By default every item is read the standard way (``FieldReading/standard``).
    public func reading(_ field: MetadataField, from item: MetadataItem, among items: [MetadataItem]) -> FieldReading {
        .standard
    }
    /// By default nil: the model's converter writes the items.
    public func items(for field: MetadataField, value: DisplayValue?, key: String, existing: [MetadataItem]) throws -> [MetadataItem]? {
        nil
    }
    /// By default none.
    public var replacedKeys: Set<String> { [] }
    /// By default none.
    public var singleValueKeys: Set<String> { [] }
    /// By default none.
    public var fallbackKeys: Set<String> { [] }
    /// By default none.
    public var syncedFallbackKeys: Set<String> { [] }

    /// `key` of this codec's key space.
    func rawKey(_ key: String) -> MetadataKeyMap.RawKey { MetadataKeyMap.RawKey(keySpace, key) }
}

/// What a ``KeySpaceCodec`` says of one item's value for one field.
public enum FieldReading: Sendable, Equatable {
    /// Read the item as the model's converter reads every format's.
    case standard
    /// The item gives the field no value (the next item is asked).
    case none
    /// The item gives the field this value.
    case value(DisplayValue)
}

/// The codecs of every key space that has one, looked up by key space.
public struct KeySpaceCodecs: Sendable {
    /// One codec per key space, the first given winning.
    private let codecs: [any KeySpaceCodec]
    /// The key space names of ``codecs``, in their order: looked through as
    /// plain strings (short ones compare as two words), not by asking each
    /// codec, since this runs for each item of a field.
    private let names: [String]

    /// The codecs given; when two have the same key space, the first is kept.
    public init(_ codecs: [any KeySpaceCodec]) {
        var seen = Set<MetadataKeySpace>()
        self.codecs = codecs.filter { seen.insert($0.keySpace).inserted }
        self.names = self.codecs.map(\.keySpace.rawValue)
    }

    /// The codec of `keySpace`, if it has one.
    public func codec(for keySpace: MetadataKeySpace) -> (any KeySpaceCodec)? {
        index(of: keySpace).map { codecs[$0] }
    }

    /// Where the codec of `keySpace` is in ``codecs``.
    private func index(of keySpace: MetadataKeySpace) -> Int? {
        let name = keySpace.rawValue
        for index in names.indices where names[index] == name { return index }
        return nil
    }

    /// What the codec of `item`'s key space says of its value for `field`.
    func reading(_ field: MetadataField, from item: MetadataItem, among items: [MetadataItem]) -> FieldReading {
        guard let index = index(of: item.keySpace) else { return .standard }
        return codecs[index].reading(field, from: item, among: items)
    }

    /// The items the codec of `key`'s key space stores `value` as; nil when
    /// the model's converter writes them.
    func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey, existing: [MetadataItem]
    ) throws -> [MetadataItem]? {
        guard let index = index(of: key.keySpace) else { return nil }
        return try codecs[index].items(for: field, value: value, key: key.key, existing: existing)
    }

    /// The keys of one kind of every codec (of those of `keySpaces`, when
    /// given), as raw keys. A closure, not a key path: a key path into an
    /// existential is resolved from its mangled name at run time (about
    /// 75,000 instructions each, at every process's start).
    func keys(in keySpaces: [MetadataKeySpace]? = nil, _ kind: (any KeySpaceCodec) -> Set<String>) -> Set<MetadataKeyMap.RawKey> {
        codecs.reduce(into: []) { result, codec in
            guard keySpaces?.contains(codec.keySpace) ?? true else { return }
            for key in kind(codec) { result.insert(MetadataKeyMap.RawKey(codec.keySpace, key)) }
        }
    }
}
