#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `mebx` sample entry of a timed metadata track (QTFF "Timed Metadata
/// Media"; see shared/design/QUICKTIME-NOTES.md): the keys the track's
/// samples use, each under a local key id.
///
/// `mebx` { 6 reserved bytes, u16 data reference index, `keys` { one box
/// per key, typed by its local key id (1, 2, …), holding `keyd` (u32
/// namespace + key bytes) and `dtyp` (u32 0 + u32 well-known type code, or
/// u32 1 + reverse-DNS type name) } }.
struct MP4MetadataSampleEntry {
    /// How `dtyp` names a value's data type.
    enum DataType: Hashable {
        /// A well-known type code (u32 0, then the code).
        case wellKnown(UInt32)
        /// A reverse-DNS type name (u32 1, then the name).
        case named(String)
    }

    /// One declared key.
    struct Key: Hashable {
        /// The box type the key is declared under (any u32 in files read).
        var localID: UInt32
        /// `keyd`'s namespace (`mdta`, ...).
        var namespace: FourCC
        /// `keyd`'s key bytes, as UTF-8.
        var name: String
        /// `dtyp`; nil without one.
        var dataType: DataType?
    }

    /// The keys in the order they are stored.
    var keys: [Key]

    init(keys: [Key]) { self.keys = keys }

    /// Reads a whole `mebx` box. Keys without `keyd` are left out; boxes
    /// other than `keys` are skipped.
    init(parsing bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        let size = Int(try reader.readUInt32())
        guard try reader.readFourCC() == "mebx", size == bytes.count, size >= 16 else {
            throw MediaError(.malformed, "not a 'mebx' sample entry")
        }
        try reader.skip(8)
        keys = []
        while reader.remaining >= 8 {
            var box = try Self.child(&reader)
            guard box.type == "keys" else { continue }
            while box.reader.remaining >= 8 {
                var entry = try Self.child(&box.reader)
                var namespace: FourCC = "mdta", name: String?, dataType: DataType?
                while entry.reader.remaining >= 8 {
                    var field = try Self.child(&entry.reader)
                    switch field.type {
                    case "keyd":
                        namespace = try field.reader.readFourCC()
                        name = String(decoding: field.reader.readRemainingBytes(), as: UTF8.self)
                    case "dtyp":
                        let kind = try field.reader.readUInt32()
                        dataType =
                            kind == 0
                            ? .wellKnown(try field.reader.readUInt32())
                            : .named(String(decoding: field.reader.readRemainingBytes(), as: UTF8.self))
                    default: break
                    }
                }
                if let name { keys.append(Key(localID: entry.type.rawValue, namespace: namespace, name: name, dataType: dataType)) }
            }
        }
    }

    /// A child box of `reader`: its type and a reader bounded to its payload.
    private static func child(_ reader: inout ByteReader) throws -> (type: FourCC, reader: ByteReader) {
        let start = reader.offset
        let size = Int(try reader.readUInt32())
        let type = try reader.readFourCC()
        guard size >= 8, size - 8 <= reader.remaining else {
            throw MediaError(.malformed, "box '\(type)' of \(size) bytes does not fit its parent", offset: start)
        }
        return (type, try reader.readReader(count: size - 8))
    }

    /// The `mebx` box (data reference index 1).
    var bytes: [UInt8] {
        var keysPayload: [UInt8] = []
        for key in keys {
            var keyd = ByteWriter()
            keyd.write(key.namespace)
            keyd.write(Array(key.name.utf8))
            var payload = MP4MetadataEncoder.box("keyd", keyd.bytes)
            if let type = key.dataType {
                var dtyp = ByteWriter()
                switch type {
                case .wellKnown(let code):
                    dtyp.write(UInt32(0))
                    dtyp.write(code)
                case .named(let name):
                    dtyp.write(UInt32(1))
                    dtyp.write(Array(name.utf8))
                }
                payload += MP4MetadataEncoder.box("dtyp", dtyp.bytes)
            }
            keysPayload += MP4MetadataEncoder.box(FourCC(key.localID), payload)
        }
        let fields: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1]
        return MP4MetadataEncoder.box("mebx", fields + MP4MetadataEncoder.box("keys", keysPayload))
    }
}
