#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The keys a timed metadata track declares in its `mebx` sample entry
/// (read and written by `MP4MetadataSampleEntry`), and the samples made
/// of them (QTFF "Timed Metadata Media"; see shared/design/QUICKTIME-NOTES.md).
///
/// Sample: a run of { u32 size, u32 local key id, value }; an empty group is
/// the 8-byte sample `00000008 00000000`.
public struct MetadataSampleFormat: Sendable, Hashable {
    /// One declared key; its local id is its index + 1.
    public struct Key: Sendable, Hashable {
        /// The key namespace, a four-character code: `mdta` for reverse-DNS keys.
        public var namespace: String
        /// The key within ``namespace``, such as `com.apple.quicktime.location.ISO6709`.
        public var key: String
        /// The data type every value of the key has in the samples.
        public var dataType: TimedMetadataDataType
        /// `namespace/key`, as ``TimedMetadataItem/identifier`` spells it.
        public var identifier: String { "\(namespace)/\(key)" }
    }

    /// The declared keys, in local-id order.
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

    /// A format declaring `keys`, in local-id order.
    public init(keys: [Key]) { self.keys = keys }

    // MARK: Sample entry

    /// The `mebx` sample entry box (`MP4MetadataSampleEntry`): key `n` is
    /// declared under local id `n + 1`.
    public func sampleEntry() -> [UInt8] {
        MP4MetadataSampleEntry(
            keys: keys.enumerated().map { index, key in
                MP4MetadataSampleEntry.Key(
                    localID: UInt32(index + 1), namespace: FourCC(key.namespace) ?? "mdta", name: key.key,
                    dataType: key.dataType.wellKnownCode.map { .wellKnown($0) } ?? .named(key.dataType.rawValue))
            }
        ).bytes
    }

    /// Parses a `mebx` sample entry (the whole box). A key without `dtyp`
    /// holds raw data; a well-known code not known here is kept as
    /// `well-known.<code>`.
    public init(sampleEntry bytes: [UInt8]) throws {
        let entry = try MP4MetadataSampleEntry(parsing: bytes)
        let found = entry.keys.map { declared -> (UInt32, Key) in
            let dataType: TimedMetadataDataType
            switch declared.dataType {
            case nil: dataType = .rawData
            case .wellKnown(let code)?:
                dataType = TimedMetadataDataType(wellKnownCode: code) ?? TimedMetadataDataType(rawValue: "well-known.\(code)")
            case .named(let name)?: dataType = TimedMetadataDataType(rawValue: name)
            }
            return (declared.localID, Key(namespace: declared.namespace.description, key: declared.name, dataType: dataType))
        }
        // Local ids are any u32; keep them by id so samples decode whatever the numbering.
        localIDs = Dictionary(found.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
        keys = found.map(\.1)
    }

    /// Local key id → key, for files whose ids are not 1…n.
    private var localIDs: [UInt32: Key] = [:]

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
            if id == 0 { continue } // the empty-group marker
            guard let key = localIDs[id] ?? (Int(id) <= keys.count ? keys[Int(id) - 1] : nil) else { continue }
            let decoded = try TimedMetadataValue(parsing: value, as: key.dataType)
            items.append(try TimedMetadataItem(identifier: key.identifier, dataType: key.dataType, value: decoded))
        }
        return items
    }
}
