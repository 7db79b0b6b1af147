import Foundation

/// Reads the movie-level metadata of an MP4/QuickTime file into raw
/// ``MetadataItem``s: iTunes `ilst` items, QuickTime `mdta` items and classic
/// `udta` ©-atoms (see /work/shared/design/QUICKTIME-NOTES.md).
struct MP4MetadataReader {
    let source: FileSource
    let url: URL

    /// Item atoms whose type-0 ("implicit") values are big-endian integers.
    static let implicitIntegerKeys: Set<String> = [
        "tmpo", "cpil", "pgap", "hdvd", "stik", "rtng", "gnre", "akID", "cnID", "geID", "sfID",
        "atID", "plID", "cmID", "tves", "tvsn", "pcst", "shwm", "\u{A9}mvi", "\u{A9}mvc",
    ]

    /// All items of `moov`, in the order ilst items, mdta items, udta items.
    ///
    /// `meta` boxes are looked for in `moov` (QuickTime writes its `mdta`
    /// metadata there) and in `moov/udta` (iTunes `mdir` lists; ffmpeg's
    /// `use_metadata_tags` `mdta` lists). Track-level metadata is not read.
    func items(in moov: MP4Box) throws -> [MetadataItem] {
        var iTunes: [MetadataItem] = []
        var quickTime: [MetadataItem] = []
        let udtas = moov.children("udta")
        // Depth of each meta's ilst, counting moov's children as depth 1.
        let metas = moov.children("meta").map { ($0, 2) } + udtas.flatMap { $0.children("meta").map { ($0, 3) } }
        for (meta, depth) in metas {
            guard let ilst = meta.child("ilst") else { continue }
            switch try handlerType(of: meta) {
            case "mdta":
                quickTime += try quickTimeItems(meta: meta, ilst: ilst.header, depth: depth)
            case "mdir", nil:
                if meta.child("keys") != nil {
                    quickTime += try quickTimeItems(meta: meta, ilst: ilst.header, depth: depth)
                } else {
                    iTunes += try iTunesItems(ilst: ilst.header, depth: depth)
                }
            default:
                continue
            }
        }
        let userData = udtas.flatMap { udta in udta.children.flatMap { userDataItems($0.header, depth: 2) } }
        return iTunes + quickTime + userData
    }

    /// The handler type of a `meta` box's `hdlr` (ISO/IEC 14496-12 §8.4.3:
    /// FullBox, u32 pre_defined, u32 handler_type, ...).
    func handlerType(of meta: MP4Box) throws -> FourCC? {
        guard let hdlr = meta.child("hdlr") else { return nil }
        var reader = try source.mp4Payload(of: hdlr.header, upTo: 12)
        try reader.skip(8)
        return try reader.readFourCC()
    }

    // MARK: iTunes

    /// The items of an iTunes `ilst`: one item atom per key, each holding
    /// `data` atoms (and, for `----`, a `mean` and a `name`).
    func iTunesItems(ilst: MP4BoxHeader, depth: Int) throws -> [MetadataItem] {
        var items: [MetadataItem] = []
        for atom in try source.mp4Children(of: ilst, depth: depth + 1) {
            items += try iTunesItems(atom: atom, depth: depth + 1)
        }
        return items
    }

    /// The items of one iTunes item atom (several for `covr` with several pictures).
    func iTunesItems(atom: MP4BoxHeader, depth: Int) throws -> [MetadataItem] {
        var key = atom.type.description
        let children = try source.mp4Children(of: atom, depth: depth + 1)
        if atom.type == "----" {
            guard let name = try freeformString(children.first { $0.type == "name" }) else { return [] }
            let mean = try freeformString(children.first { $0.type == "mean" }) ?? ""
            key = "----:\(mean):\(name)"
        }
        let atoms = try children.filter { $0.type == "data" }.map { try MP4DataAtom($0, in: source) }
        if atom.type == "covr" {
            return atoms.map { data in
                let (value, dataType) = data.artwork(source: source, url: url)
                return MetadataItem(keySpace: .iTunes, key: key, value: value, dataType: dataType)
            }
        }
        let values = try atoms.map { try iTunesValue(key: key, data: $0) }
        return Self.grouped(values, keySpace: .iTunes, key: key)
    }

    /// The string after the 4 bytes of version/flags of a `mean` or `name` atom.
    private func freeformString(_ header: MP4BoxHeader?) throws -> String? {
        guard let header else { return nil }
        var reader = try source.mp4Payload(of: header)
        guard reader.remaining >= 4 else { return nil }
        try reader.skip(4)
        return MP4Text.utf8(reader.readRemainingBytes())
    }

    /// One value of an iTunes item: `trkn`/`disk` as number pairs, pictures as
    /// artwork, everything else by its well-known type.
    private func iTunesValue(key: String, data: MP4DataAtom) throws -> (MetadataValue, MetadataDataType) {
        if data.isPicture { return data.artwork(source: source, url: url) }
        let bytes = try data.value(in: source)
        if (key == "trkn" || key == "disk"), data.typeSet == 0, data.type == 0 || data.type == 21, bytes.count >= 4 {
            // u16 reserved, u16 number, u16 total (disk: 6 bytes; trkn: 8 with a u16 reserved after).
            let number = Int(bytes[2]) << 8 | Int(bytes[3])
            let total = bytes.count >= 6 ? Int(bytes[4]) << 8 | Int(bytes[5]) : 0
            return (.numberPair(number: number, total: total == 0 ? nil : total), .numberPair)
        }
        var decoded = data.decode(bytes, implicitInteger: Self.implicitIntegerKeys.contains(key))
        if key == "gnre", data.type == 0, case .integer = decoded.0 { decoded.1 = .unsignedInteger }
        return decoded
    }

    /// Several text values of one item become one `.strings` item; other
    /// values become one item each.
    private static func grouped(_ values: [(MetadataValue, MetadataDataType)], keySpace: MetadataKeySpace, key: String) -> [MetadataItem] {
        let strings = values.compactMap { value -> String? in
            if case .string(let text) = value.0 { return text }
            return nil
        }
        if values.count > 1, strings.count == values.count {
            return [MetadataItem(keySpace: keySpace, key: key, value: .strings(strings), dataType: values[0].1)]
        }
        return values.map { MetadataItem(keySpace: keySpace, key: key, value: $0.0, dataType: $0.1) }
    }

    // MARK: QuickTime metadata (mdta)

    /// The key strings of a `keys` atom (QTFF "Metadata key table atom"):
    /// FullBox, u32 entry count, then per key u32 size (incl. these 8 bytes),
    /// u32 namespace, key bytes.
    func keys(_ header: MP4BoxHeader) throws -> [String] {
        var reader = try source.mp4Payload(of: header)
        try reader.skip(4)
        let count = Int(try reader.readUInt32())
        guard count <= reader.remaining / 8 else {
            throw MediaError(.sizeOutOfRange, "'keys' atom claims \(count) keys but holds \(reader.remaining) bytes", offset: header.offset)
        }
        var keys: [String] = []
        keys.reserveCapacity(count)
        for _ in 0..<count {
            let entryOffset = reader.offset
            let size = Int(try reader.readUInt32())
            guard size >= 8, size - 4 <= reader.remaining else {
                throw MediaError(.malformed, "key entry of \(size) bytes does not fit its 'keys' atom", offset: entryOffset)
            }
            try reader.skip(4)                                   // namespace, usually 'mdta'
            keys.append(MP4Text.utf8(try reader.readBytes(size - 8)))
        }
        // Bytes after the last key are padding some writers leave; ignored on purpose.
        return keys
    }

    /// The items of an `mdta` `ilst`, whose item atom types are 1-based key
    /// indexes. Items with index 0 or past the key table are skipped.
    func quickTimeItems(meta: MP4Box, ilst: MP4BoxHeader, depth: Int) throws -> [MetadataItem] {
        guard let keysBox = meta.child("keys") else { return [] }
        let keys = try keys(keysBox.header)
        var items: [MetadataItem] = []
        for atom in try source.mp4Children(of: ilst, depth: depth + 1) {
            items += try quickTimeItems(atom: atom, keys: keys, depth: depth + 1)
        }
        return items
    }

    /// The items of one `mdta` item atom; none for an index outside the key table.
    func quickTimeItems(atom: MP4BoxHeader, keys: [String], depth: Int) throws -> [MetadataItem] {
        let index = Int(atom.type.rawValue)
        guard index >= 1, index <= keys.count else { return [] }
        let key = keys[index - 1]
        var items: [MetadataItem] = []
        for child in try source.mp4Children(of: atom, depth: depth + 1) where child.type == "data" {
            let data = try MP4DataAtom(child, in: source)
            let (value, dataType) = data.isPicture
                ? data.artwork(source: source, url: url)
                : data.decode(try data.value(in: source), implicitInteger: false)
            items.append(MetadataItem(keySpace: .quickTimeMetadata, key: key, value: value, dataType: dataType,
                                      language: MP4Text.packedLanguage(data.language)))
        }
        return items
    }

    // MARK: User data (udta ©-atoms)

    /// The strings of a `udta` ©-atom (QTFF "User data text"): a run of
    /// { u16 length, u16 packed language, text }. When an atom holds `data`
    /// atoms instead (some writers do that), those are read. Atoms in neither
    /// layout, and atoms not starting with ©, are skipped.
    func userDataItems(_ atom: MP4BoxHeader, depth: Int) -> [MetadataItem] {
        guard atom.type.rawValue >> 24 == 0xA9, let payload = try? source.mp4Payload(of: atom) else { return [] }
        let key = atom.type.description
        if let head = payload.peekBytes(8), head.dropFirst(4).elementsEqual(Array("data".utf8)) {
            guard let children = try? source.mp4Children(of: atom, depth: depth + 1) else { return [] }
            let values = children.filter { $0.type == "data" }.compactMap { header -> (MetadataValue, MetadataDataType)? in
                guard let data = try? MP4DataAtom(header, in: source) else { return nil }
                if data.isPicture { return data.artwork(source: source, url: url) }
                return (try? data.value(in: source)).map { data.decode($0, implicitInteger: false) }
            }
            return Self.grouped(values, keySpace: .quickTimeUserData, key: key)
        }
        var reader = payload
        var items: [MetadataItem] = []
        while reader.remaining >= 4 {
            guard let length = try? Int(reader.readUInt16()), let language = try? reader.readUInt16(),
                  let text = try? reader.readBytes(length) else { return [] }
            items.append(MetadataItem(keySpace: .quickTimeUserData, key: key, value: .string(MP4Text.utf8(text)),
                                      dataType: .utf8, language: MP4Text.packedLanguage(language)))
        }
        // A tail of fewer than 4 bytes is padding (zeros) or a broken atom.
        guard reader.readRemainingBytes().allSatisfy({ $0 == 0 }) else { return [] }
        return items
    }
}
