#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Native Instruments' STEM atom: `moov/udta/stem`, whose payload is the
/// stem manifest (JSON: the stems' names and colours, the mastering DSP
/// settings), as Stem Creator and Traktor write it.
///
/// It is read as one ``MetadataKeySpace/quickTimeUserData`` item keyed
/// `stem`: the JSON as a string when the payload is UTF-8, else its bytes.
/// A save keeps the atom byte for byte while the item is unchanged, writes
/// the item's text or bytes as the whole payload when it changed, and drops
/// the atom when the item is removed.
enum MP4StemAtom {
    static let type: FourCC = "stem"
    static let key = "stem"

    /// Whether a `udta` child of `type` holds items (©-text atoms and `stem`).
    static func holdsUserDataItems(_ type: FourCC) -> Bool {
        type.rawValue >> 24 == 0xA9 || type == Self.type
    }

    /// The item of a `stem` atom's payload.
    static func item(payload: [UInt8]) -> MetadataItem {
        if let text = String(validating: payload, as: UTF8.self) {
            return MetadataItem(keySpace: .quickTimeUserData, key: key, value: .string(text), dataType: .utf8)
        }
        return MetadataItem(keySpace: .quickTimeUserData, key: key, value: .data(Data(payload)), dataType: .binary)
    }

    /// The `stem` atom holding `items` (one: the manifest).
    static func atom(_ items: [MetadataItem]) throws -> [UInt8] {
        guard items.count == 1, let item = items.first else {
            throw MediaError(.invalidValue, "a file holds one 'stem' manifest; \(items.count) were given")
        }
        let payload: [UInt8]
        switch item.value {
        case .string(let text): payload = Array(text.utf8)
        case .data(let bytes): payload = Array(bytes)
        default: throw MediaError(.invalidValue, "the 'stem' manifest is JSON text or bytes")
        }
        return MP4MetadataEncoder.box(type, payload)
    }
}
