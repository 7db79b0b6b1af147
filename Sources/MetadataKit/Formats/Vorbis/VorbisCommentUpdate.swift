#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Saving a Vorbis comment without touching what nobody changed.
///
/// A comment is not rebuilt from its items: the items merge fields (one item
/// per upper-cased name, values in file order) and leave out fields without
/// `=`, so a rebuild would change the case of names, the order of fields and
/// drop invalid ones. Instead the stored fields are walked in order:
///
/// - a field without `=` is kept as it is;
/// - a field of a name whose item is unchanged is kept byte for byte, where
///   it was (so "Artist=a" stays "Artist=a" beside a later "ARTIST=b");
/// - the fields of a changed name are replaced, at the place of the first
///   one, by the new values under the name as it was spelled there;
/// - a name whose item is gone loses its fields;
/// - a `METADATA_BLOCK_PICTURE` field stays, byte for byte, while a picture
///   item equal to it remains; it goes when the picture was removed.
///
/// New names follow, in item order, then new pictures (when
/// `picturesAsFields`). The vendor string is kept as stored.
extension VorbisComment {
    /// The comment for `items` (the `.vorbis` ones), keeping every field nobody
    /// changed as stored (see above), and the indices in `items` of the
    /// pictures that are now fields of it — the pictures kept as fields and,
    /// with `picturesAsFields`, every new one. The others are the caller's to
    /// store (FLAC PICTURE blocks).
    ///
    /// - Throws: `invalidValue` for a name that isn't a valid field name or a
    ///   binary value; `malformed` when the comment was read around damage
    ///   (``isDamaged``) and would have to change — a damaged comment is kept
    ///   as it is or not written at all.
    func updated(for items: [MetadataItem], picturesAsFields: Bool) throws -> (comment: VorbisComment, pictureItems: Set<Int>) {
        var oldTexts: [String: [String]] = [:]
        for item in self.items() {
            if case .picture = item.value { continue }
            oldTexts[item.key] = item.value.stringValues
        }
        var newTexts: [String: [String]] = [:]
        var newOrder: [(key: String, name: String)] = []
        var pictures: [(index: Int, artwork: Artwork)] = []
        for (index, item) in items.enumerated() where item.keySpace == .vorbis {
            if case .picture(let artwork) = item.value {
                pictures.append((index, artwork))
                continue
            }
            let key = item.key.uppercased()
            if newTexts[key] == nil { newOrder.append((key, item.key)) }
            newTexts[key, default: []] += try Self.texts(of: item)
        }

        var result = VorbisComment(vendor: vendor)
        result.vendorBytes = vendorBytes
        var replaced: Set<String> = []
        var keptPictures: Set<Int> = []
        func append(name: String, value: String) {
            result.fields.append((name, value))
            result.storedFields.append(ArraySlice("\(name)=\(value)".utf8))
        }
        for bytes in storedFields {
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else {
                result.storedFields.append(bytes)
                continue
            }
            let name = String(decoding: bytes[..<equals], as: UTF8.self), value = String(decoding: bytes[(equals + 1)...], as: UTF8.self)
            let key = name.uppercased()
            if key == Self.pictureKey, let artwork = Self.decodePictureField(value) {
                if let match = pictures.first(where: { !keptPictures.contains($0.index) && $0.artwork == artwork }) {
                    keptPictures.insert(match.index)
                    result.fields.append((name, value))
                    result.storedFields.append(bytes)
                }
                continue
            }
            guard let values = newTexts[key] else { continue }
            if values == oldTexts[key] {
                result.fields.append((name, value))
                result.storedFields.append(bytes)
            } else if !replaced.contains(key) {
                replaced.insert(key)
                let spelling = Self.isValidName(name) ? name : try Self.validName(newOrder.first { $0.key == key }?.name ?? key)
                for value in values { append(name: spelling, value: value) }
            }
        }
        for (key, name) in newOrder where oldTexts[key] == nil && !replaced.contains(key) {
            let name = try Self.validName(name)
            for value in newTexts[key] ?? [] { append(name: name, value: value) }
        }
        var pictureItems = keptPictures
        if picturesAsFields {
            for (index, artwork) in pictures where !keptPictures.contains(index) {
                append(name: Self.pictureKey, value: Data(try FLACPicture(artwork: artwork).serialized()).base64EncodedString())
                pictureItems.insert(index)
            }
        }
        if isDamaged, result.storedFields != storedFields || result.vendorBytes != vendorBytes {
            let problem = warnings.first.map { "\($0.message)\($0.offset.map { " at byte \($0)" } ?? "")" } ?? "damaged"
            throw MediaError(
                .malformed, "the Vorbis comment is damaged (\(problem)); it can be kept as it is, not rewritten",
                offset: warnings.first?.offset)
        }
        return (result, pictureItems)
    }

    /// The text values of an item.
    private static func texts(of item: MetadataItem) throws -> [String] {
        switch item.value {
        case .string(let text): return [text]
        case .strings(let texts): return texts
        case .integer, .double, .numberPair: return [item.value.stringValue ?? ""]
        case .picture: return []
        case .data: throw MediaError(.invalidValue, "Vorbis comments hold text, not bytes ('\(item.key)')")
        }
    }

    /// `name`, when it is a valid field name.
    private static func validName(_ name: String) throws -> String {
        guard isValidName(name) else {
            throw MediaError(.invalidValue, "'\(name)' is not a valid Vorbis comment field name (ASCII 0x20–0x7D without '=')")
        }
        return name
    }
}
