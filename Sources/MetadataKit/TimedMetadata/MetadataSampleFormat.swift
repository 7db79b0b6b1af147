import Foundation

/// The keys a timed metadata track declares in its `mebx` sample entry, and
/// the samples made of them (QTFF "Timed Metadata Media"; see
/// shared/design/QUICKTIME-NOTES.md).
///
/// Sample entry: `mebx` { 6 reserved bytes, u16 data reference index,
/// `keys` { one box per key, typed by its local key id (1, 2, …), holding
/// `keyd` (u32 namespace + key bytes) and `dtyp` (u32 0 + u32 well-known type
/// code, or u32 1 + reverse-DNS type name) } }.
/// Sample: a run of { u32 size, u32 local key id, value }; an empty group is
/// the 8-byte sample `00000008 00000000`.
public struct MetadataSampleFormat: Sendable, Hashable {
    /// One declared key; its local id is its index + 1.
    public struct Key: Sendable, Hashable {
        public var namespace: String
        public var key: String
        public var dataType: TimedMetadataDataType
        public var identifier: String { "\(namespace)/\(key)" }
    }

    public var keys: [Key]

    /// The keys used by `groups`, in order of first use.
    public init(groups: [TimedMetadataGroup]) {
        var keys: [Key] = []
        for item in groups.flatMap(\.items) {
            let key = Key(namespace: item.namespace, key: item.key, dataType: item.dataType)
            if !keys.contains(key) { keys.append(key) }
        }
        self.keys = keys
    }

    public init(keys: [Key]) { self.keys = keys }

    // MARK: Sample entry

    /// The `mebx` sample entry box.
    public func sampleEntry() -> [UInt8] {
        var keysPayload: [UInt8] = []
        for (index, key) in keys.enumerated() {
            var keyd = ByteWriter()
            keyd.write(FourCC(key.namespace) ?? "mdta")
            keyd.write(Array(key.key.utf8))
            var dtyp = ByteWriter()
            if let code = key.dataType.wellKnownCode {
                dtyp.write(UInt32(0))
                dtyp.write(code)
            } else {
                dtyp.write(UInt32(1))
                dtyp.write(Array(key.dataType.rawValue.utf8))
            }
            keysPayload += MP4MetadataEncoder.box(FourCC(UInt32(index + 1)),
                                                  MP4MetadataEncoder.box("keyd", keyd.bytes) + MP4MetadataEncoder.box("dtyp", dtyp.bytes))
        }
        let fields: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1]
        return MP4MetadataEncoder.box("mebx", fields + MP4MetadataEncoder.box("keys", keysPayload))
    }

    /// Parses a `mebx` sample entry (the whole box).
    public init(sampleEntry bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        let size = Int(try reader.readUInt32())
        guard try reader.readFourCC() == "mebx", size == bytes.count, size >= 16 else {
            throw MediaError(.malformed, "not a 'mebx' sample entry")
        }
        try reader.skip(8)
        var found: [(UInt32, Key)] = []
        while reader.remaining >= 8 {
            var box = try Self.child(&reader)
            guard box.type == "keys" else { continue }
            while box.reader.remaining >= 8 {
                var entry = try Self.child(&box.reader)
                var namespace = "mdta", name: String?, dataType = TimedMetadataDataType.rawData
                while entry.reader.remaining >= 8 {
                    var field = try Self.child(&entry.reader)
                    switch field.type {
                    case "keyd":
                        namespace = try field.reader.readFourCC().description
                        name = String(decoding: field.reader.readRemainingBytes(), as: UTF8.self)
                    case "dtyp":
                        let kind = try field.reader.readUInt32()
                        if kind == 0 {
                            let code = try field.reader.readUInt32()
                            dataType = TimedMetadataDataType(wellKnownCode: code) ?? TimedMetadataDataType(rawValue: "well-known.\(code)")
                        } else {
                            dataType = TimedMetadataDataType(rawValue: String(decoding: field.reader.readRemainingBytes(), as: UTF8.self))
                        }
                    default: break
                    }
                }
                if let name { found.append((entry.type.rawValue, Key(namespace: namespace, key: name, dataType: dataType))) }
            }
        }
        // Local ids are any u32; keep them by id so samples decode whatever the numbering.
        localIDs = Dictionary(found.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
        keys = found.map(\.1)
    }

    /// Local key id → key, for files whose ids are not 1…n.
    private var localIDs: [UInt32: Key] = [:]

    private static func child(_ reader: inout ByteReader) throws -> (type: FourCC, reader: ByteReader) {
        let start = reader.offset
        let size = Int(try reader.readUInt32())
        let type = try reader.readFourCC()
        guard size >= 8, size - 8 <= reader.remaining else {
            throw MediaError(.malformed, "box '\(type)' of \(size) bytes does not fit its parent", offset: start)
        }
        return (type, try reader.readReader(count: size - 8))
    }

    // MARK: Samples

    /// The sample bytes of `group` (the 8-byte empty sample for no items).
    public func sample(for group: TimedMetadataGroup) throws -> [UInt8] {
        guard !group.items.isEmpty else { return [0, 0, 0, 8, 0, 0, 0, 0] }
        var writer = ByteWriter()
        for item in group.items {
            guard let index = keys.firstIndex(of: Key(namespace: item.namespace, key: item.key, dataType: item.dataType)) else {
                throw MediaError(.invalidValue, "\(item.identifier) is not declared in the track's sample description")
            }
            let value = try item.encodedValue()
            writer.write(UInt32(value.count + 8))
            writer.write(UInt32(index + 1))
            writer.write(value)
        }
        return writer.bytes
    }

    /// The items of a sample.
    public func items(inSample bytes: [UInt8]) throws -> [TimedMetadataItem] {
        var reader = ByteReader(bytes)
        var items: [TimedMetadataItem] = []
        while reader.remaining >= 8 {
            let start = reader.offset
            let size = Int(try reader.readUInt32())
            let id = try reader.readUInt32()
            guard size >= 8, size - 8 <= reader.remaining else {
                throw MediaError(.malformed, "metadata sample item of \(size) bytes runs past the sample", offset: start)
            }
            let value = try reader.readBytes(size - 8)
            if id == 0 { continue }                          // the empty-group marker
            guard let key = localIDs[id] ?? (Int(id) <= keys.count ? keys[Int(id) - 1] : nil) else { continue }
            let decoded = try TimedMetadataItem.decode(value, as: key.dataType)
            items.append(try TimedMetadataItem(identifier: key.identifier, dataType: key.dataType, value: decoded))
        }
        return items
    }
}
