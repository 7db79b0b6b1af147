#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MetadataKeySpace {
    /// XMP packets (ISO 16684-1), each one item holding the whole XML text
    /// (`.string`; `.data` when it is not UTF-8). The key says where the
    /// packet is stored: `uuid` (MP4: a top-level `uuid` box of type
    /// BE7ACFCB-97A9-42E8-9C71-999491E3AFAC, where exiftool writes it),
    /// `udta/uuid` (the same box in `moov/udta`), `udta/XMP_` (QuickTime:
    /// the `moov/udta/XMP_` atom, where exiftool writes it in a MOV), `_PMX`
    /// (the WAV chunk), `APPL` (an AIFF `APPL` chunk with the signature
    /// `XMP `). In an ID3v2 tag the packet is the frame `PRIV` with the owner
    /// `XMP`, the ``MetadataKeySpace/id3`` item `PRIV:XMP`, holding the same text.
    ///
    /// A few properties give fields, read-only (docs/FIELDS.md): the native
    /// tags win, and a set field is written to the native tag.
    public static let xmp = MetadataKeySpace(rawValue: "xmp")
}

/// The fields read from an XMP packet, and the packet as a raw item.
///
/// | field | XMP property, first found wins |
/// |---|---|
/// | title | dc:title (the `x-default` alternative first) |
/// | artist | dc:creator (every item), xmpDM:artist |
/// | album | xmpDM:album |
/// | albumArtist | xmpDM:albumArtist |
/// | composer | xmpDM:composer |
/// | genre | xmpDM:genre |
/// | year | xmpDM:releaseDate, xmp:CreateDate (as stored) |
/// | comments | dc:description, xmpDM:logComment |
/// | trackNumber, trackCount | xmpDM:trackNumber ("3" or "3/12") |
/// | discNumber, discCount | xmpDM:discNumber ("1" or "1/2") |
/// | bpm | xmpDM:tempo (rounded) |
/// | engineer | xmpDM:engineer |
/// | copyright | dc:rights, xmpDM:copyright |
///
/// These fields only fill what the file's native tags leave empty, and a
/// save never writes them into the packet: setting a field writes the
/// native tag (``ReadOnlyFieldSource``).
enum XMPFields {
    /// The ID3v2 frame key of a packet (`PRIV` with owner `XMP`).
    static let id3Key = "PRIV:XMP"

    /// The source the model fills fields from.
    static let source = ReadOnlyFieldSource(
        keySpaces: [.xmp], keys: [MetadataKeyMap.RawKey(.id3, id3Key)],
        fields: { item in
            guard let bytes = try? bytes(of: item) else { return [] }
            return fields(of: XMPPacket(bytes))
        })

    /// The item of a packet stored at `key` in key space `keySpace`: its
    /// text when the bytes are UTF-8, else its bytes.
    static func item(_ keySpace: MetadataKeySpace = .xmp, key: String, bytes: [UInt8]) -> MetadataItem {
        if let text = String(validating: bytes, as: UTF8.self) {
            return MetadataItem(keySpace: keySpace, key: key, value: .string(text), dataType: .utf8)
        }
        return MetadataItem(keySpace: keySpace, key: key, value: .data(Data(bytes)), dataType: .binary)
    }

    /// The item of a packet read at `offset` of the file, with the warnings
    /// its XML gives (read around; the item is kept as it is).
    static func read(key: String, bytes: [UInt8], offset: Int64) -> (item: MetadataItem, warnings: [MediaWarning]) {
        let packet = XMPPacket(bytes, baseOffset: offset)
        return (item(key: key, bytes: bytes), packet.warnings)
    }

    /// The bytes to store for an XMP item: its text in UTF-8, or its bytes.
    static func bytes(of item: MetadataItem) throws -> [UInt8] {
        switch item.value {
        case .string(let text): return Array(text.utf8)
        case .data(let data): return [UInt8](data)
        default:
            throw MediaError(.invalidValue, "an XMP packet is text or bytes; '\(item.keySpace):\(item.key)' holds neither")
        }
    }

    /// The fields of `packet` (see the type's table).
    static func fields(of packet: XMPPacket) -> [(field: MetadataField, value: DisplayValue)] {
        typealias P = XMPPacket
        var result: [(field: MetadataField, value: DisplayValue)] = []
        func text(_ field: MetadataField, _ sources: [(String, String)], all: Bool = false) {
            for (namespace, name) in sources {
                let values = packet.values(namespace, name).filter { !$0.isEmpty }
                guard !values.isEmpty else { continue }
                if let value = all ? DisplayValue.list(values) : .text(values[0]) { result.append((field, value)) }
                return
            }
        }
        func pair(_ number: MetadataField, _ count: MetadataField, _ name: String) {
            guard let value = packet.values(P.dynamicMedia, name).first else { return }
            let parts = value.split(separator: "/", maxSplits: 1).map { Int($0.trimmingSpaces) }
            if let first = parts.first, let first { result.append((number, .integer(first))) }
            if parts.count == 2, let total = parts[1] { result.append((count, .integer(total))) }
        }
        text(.title, [(P.dublinCore, "title")])
        text(.artist, [(P.dublinCore, "creator"), (P.dynamicMedia, "artist")], all: true)
        text(.album, [(P.dynamicMedia, "album")])
        text(.albumArtist, [(P.dynamicMedia, "albumArtist")])
        text(.composer, [(P.dynamicMedia, "composer")])
        text(.genre, [(P.dynamicMedia, "genre")])
        text(.date, [(P.dynamicMedia, "releaseDate"), (P.basic, "CreateDate")])
        text(.comments, [(P.dublinCore, "description"), (P.dynamicMedia, "logComment")])
        pair(.trackNumber, .trackCount, "trackNumber")
        pair(.discNumber, .discCount, "discNumber")
        if let tempo = packet.values(P.dynamicMedia, "tempo").first.flatMap({ Double($0.trimmingSpaces) }), tempo.isFinite,
            tempo > 0, tempo < 10_000
        {
            result.append((.bpm, .integer(Int(tempo.rounded()))))
        }
        text(.engineer, [(P.dynamicMedia, "engineer")])
        text(.copyright, [(P.dublinCore, "rights"), (P.dynamicMedia, "copyright")])
        return result
    }
}
