#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Serializes metadata items into MP4 atoms: iTunes item atoms, QuickTime
/// `mdta` `keys` + `ilst`, classic `udta` ©-atoms, and plain boxes.
enum MP4MetadataEncoder {
    /// A complete box: 32-bit size when it fits, else `size = 1` + 64-bit largesize
    /// (ISO/IEC 14496-12 §4.2).
    static func box(_ type: FourCC, _ payload: [UInt8]) -> [UInt8] {
        var writer = ByteWriter(capacity: payload.count + 16)
        writeHeader(type, payloadSize: Int64(payload.count), into: &writer)
        writer.write(payload)
        return writer.bytes
    }

    /// A box header for a payload of `payloadSize` bytes.
    static func writeHeader(_ type: FourCC, payloadSize: Int64, into writer: inout ByteWriter) {
        if payloadSize + 8 <= Int64(UInt32.max) {
            writer.write(UInt32(payloadSize + 8))
            writer.write(type)
        } else {
            writer.write(UInt32(1))
            writer.write(type)
            writer.write(UInt64(payloadSize + 16))
        }
    }

    /// Header length for a box with a payload of `payloadSize` bytes.
    static func headerSize(payloadSize: Int64) -> Int64 {
        payloadSize + 8 <= Int64(UInt32.max) ? 8 : 16
    }

    /// A `free` box of exactly `size` bytes (at least 8).
    static func free(size: Int) -> [UInt8] {
        box("free", [UInt8](repeating: 0, count: size - 8))
    }

    /// A `hdlr` box (ISO/IEC 14496-12 §8.4.3) for a `meta` box: `mdir`/`appl` for
    /// iTunes lists, `mdta` for QuickTime metadata.
    static func handler(_ type: FourCC) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(UInt32(0)) // version + flags
        writer.write(UInt32(0)) // pre_defined / component type
        writer.write(type)
        writer.write(type == "mdir" ? FourCC("appl") : FourCC(0)) // manufacturer
        writer.write(UInt64(0))
        writer.write(UInt8(0)) // empty name
        return box("hdlr", writer.bytes)
    }

    /// A `data` atom (QTFF "Data atom"): u8 type set 0 + u24 well-known type,
    /// u32 locale 0, value.
    static func dataAtom(type: UInt32, _ value: [UInt8]) -> [UInt8] {
        var writer = ByteWriter(capacity: value.count + 8)
        writer.write(type & 0x00FF_FFFF)
        writer.write(UInt32(0))
        writer.write(value)
        return box("data", writer.bytes)
    }

    // MARK: iTunes items

    /// Integer atoms with the byte count and data type iTunes gives them.
    private static let integerLayouts: [String: (bytes: Int, type: UInt32)] = [
        "tmpo": (2, 21), "cpil": (1, 21), "pgap": (1, 21), "hdvd": (1, 21), "pcst": (1, 21), "shwm": (1, 21),
        "stik": (1, 21), "rtng": (1, 21), "akID": (1, 21), "gnre": (2, 0), "cnID": (4, 21), "atID": (4, 21),
        "geID": (4, 21), "sfID": (4, 21), "cmID": (4, 21), "tves": (4, 21), "tvsn": (4, 21), "plID": (8, 21),
        "\u{A9}mvi": (2, 21), "\u{A9}mvc": (2, 21),
    ]

    /// The item atom that holds `items` (all with the same iTunes key).
    static func iTunesAtom(key: String, items: [MetadataItem]) throws -> [UInt8] {
        var payload: [UInt8] = []
        let type: FourCC
        if key.hasPrefix("----:") {
            let parts = key.dropFirst(5).split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[1].isEmpty else {
                throw MediaError(.invalidValue, "freeform key '\(key)' must be '----:<mean>:<name>'")
            }
            payload += box("mean", [0, 0, 0, 0] + Array(parts[0].utf8))
            payload += box("name", [0, 0, 0, 0] + Array(parts[1].utf8))
            type = "----"
        } else {
            guard let code = FourCC(key) else {
                throw MediaError(.invalidValue, "'\(key)' is not a four-character iTunes atom type")
            }
            type = code
        }
        for item in items {
            for data in try dataAtoms(key: key, item.value, dataType: item.dataType, integerLayout: integerLayouts[key]) {
                payload += data
            }
        }
        return box(type, payload)
    }

    /// The `data` atoms for one value.
    static func dataAtoms(
        key: String, _ value: MetadataValue, dataType: MetadataDataType,
        integerLayout: (bytes: Int, type: UInt32)?
    ) throws -> [[UInt8]] {
        switch value {
        case .string(let text):
            return [dataAtom(type: 1, Array(text.utf8))]
        case .strings(let texts):
            return texts.map { dataAtom(type: 1, Array($0.utf8)) }
        case .numberPair(let number, let total):
            guard (0...0xFFFF).contains(number), (0...0xFFFF).contains(total ?? 0) else {
                throw MediaError(.invalidValue, "'\(key)' holds numbers from 0 to 65535, not \(number)/\(total ?? 0)")
            }
            var bytes: [UInt8] = [
                0, 0, UInt8(number >> 8), UInt8(number & 0xFF),
                UInt8((total ?? 0) >> 8), UInt8((total ?? 0) & 0xFF),
            ]
            if key != "disk" { bytes += [0, 0] }
            return [dataAtom(type: 0, bytes)]
        case .integer(let number):
            if let layout = integerLayout {
                let limit = layout.bytes == 8 ? Int64.max : Int64(1) << (layout.bytes * 8 - (layout.type == 0 ? 0 : 1))
                guard number >= (layout.type == 0 ? 0 : -limit), number < limit else {
                    throw MediaError(.invalidValue, "'\(key)' holds a \(layout.bytes)-byte integer; \(number) does not fit")
                }
                return [dataAtom(type: layout.type, bigEndian(number, byteCount: layout.bytes))]
            }
            let unsigned = dataType == .unsignedInteger && number >= 0
            return [dataAtom(type: unsigned ? 22 : 21, bigEndian(number, byteCount: minimalByteCount(number, unsigned: unsigned)))]
        case .double(let number):
            if dataType == .float32 {
                return [dataAtom(type: 23, bigEndian(Int64(Float(number).bitPattern), byteCount: 4))]
            }
            return [dataAtom(type: 24, bigEndian(Int64(bitPattern: number.bitPattern), byteCount: 8))]
        case .picture(let artwork):
            let type: UInt32 =
                switch artwork.mimeType {
                case "image/jpeg": 13
                case "image/png": 14
                case "image/bmp": 27
                case "image/gif": 12
                default: 0
                }
            return [dataAtom(type: type, [UInt8](try artwork.readBytes()))]
        case .data(let data):
            let type: UInt32 =
                switch dataType {
                case .utf8: 1
                case .utf16BigEndian: 2
                case .jpeg: 13
                case .png: 14
                default: 0
                }
            return [dataAtom(type: type, [UInt8](data))]
        }
    }

    static func bigEndian(_ value: Int64, byteCount: Int) -> [UInt8] {
        (0..<byteCount).map { UInt8(truncatingIfNeeded: value >> (8 * (byteCount - 1 - $0))) }
    }

    static func minimalByteCount(_ value: Int64, unsigned: Bool) -> Int {
        for count in [1, 2, 4] {
            let bits = count * 8
            if unsigned ? value < (Int64(1) << bits) : (value >= -(Int64(1) << (bits - 1)) && value < Int64(1) << (bits - 1)) {
                return count
            }
        }
        return 8
    }

    // MARK: QuickTime metadata

    /// `keys` (FullBox + count + entries of size, `mdta`, key) and the `ilst`
    /// whose atoms are typed by 1-based key index, for `items` (QTFF "Metadata").
    static func quickTimeBoxes(_ items: [MetadataItem]) throws -> (keys: [UInt8], ilst: [UInt8]) {
        var keys: [String] = []
        var grouped: [String: [MetadataItem]] = [:]
        for item in items {
            if grouped[item.key] == nil { keys.append(item.key) }
            grouped[item.key, default: []].append(item)
        }
        var keysPayload = ByteWriter()
        keysPayload.write(UInt32(0))
        keysPayload.write(UInt32(keys.count))
        var ilstPayload: [UInt8] = []
        for (index, key) in keys.enumerated() {
            let bytes = Array(key.utf8)
            keysPayload.write(UInt32(bytes.count + 8))
            keysPayload.write(FourCC("mdta"))
            keysPayload.write(bytes)
            var atom: [UInt8] = []
            for item in grouped[key] ?? [] {
                for data in try dataAtoms(key: key, item.value, dataType: item.dataType, integerLayout: nil) { atom += data }
            }
            ilstPayload += box(FourCC(UInt32(index + 1)), atom)
        }
        return (box("keys", keysPayload.bytes), box("ilst", ilstPayload))
    }

    // MARK: User data

    /// A `udta` ©-atom holding `items` (QTFF "User data text"): {u16 length,
    /// u16 packed language, UTF-8 text} per string; other values as `data` atoms.
    static func userDataAtom(key: String, items: [MetadataItem]) throws -> [UInt8] {
        guard let type = FourCC(key) else {
            throw MediaError(.invalidValue, "'\(key)' is not a four-character user data atom type")
        }
        if type == MP4StemAtom.type { return try MP4StemAtom.atom(items) }
        var payload = ByteWriter()
        for item in items {
            let strings = item.value.stringValues
            if strings.isEmpty {
                for data in try dataAtoms(key: key, item.value, dataType: item.dataType, integerLayout: nil) { payload.write(data) }
                continue
            }
            for text in strings {
                let bytes = Array(text.utf8)
                guard bytes.count <= 0xFFFF else {
                    throw MediaError(.invalidValue, "'\(key)' text is longer than 65535 bytes")
                }
                payload.write(UInt16(bytes.count))
                payload.write(packedLanguage(item.language))
                payload.write(bytes)
            }
        }
        return box(type, payload.bytes)
    }

    /// Packs an ISO 639-2/T code in 15 bits; anything else is `und`.
    static func packedLanguage(_ code: String?) -> UInt16 {
        let letters = Array((code ?? "und").utf8)
        guard letters.count == 3, letters.allSatisfy({ $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) else {
            return 0x55C4 // "und"
        }
        return letters.reduce(UInt16(0)) { $0 << 5 | UInt16($1 - 0x60) }
    }
}
