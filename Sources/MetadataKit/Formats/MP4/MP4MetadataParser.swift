#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads the movie-level metadata of an MP4/QuickTime file into raw
/// ``MetadataItem``s: iTunes `ilst` items, QuickTime `mdta` items and classic
/// `udta` ©-atoms (see /work/shared/design/QUICKTIME-NOTES.md).
struct MP4MetadataParser {
    let source: FileSource
    let url: URL

    /// Item atoms whose type-0 ("implicit") values are big-endian integers.
    static let implicitIntegerKeys: Set<String> = [
        "tmpo", "cpil", "pgap", "hdvd", "stik", "rtng", "gnre", "akID", "cnID", "geID", "sfID",
        "atID", "plID", "cmID", "tves", "tvsn", "pcst", "shwm", "\u{A9}mvi", "\u{A9}mvc",
    ]

    /// All items of `moov`, in the order ilst items, mdta items, udta items;
    /// what had to be read around is dropped (see ``items(in:warnings:)``).
    func items(in moov: MP4Box) throws -> [MetadataItem] {
        var warnings: [MediaWarning] = []
        return try items(in: moov, warnings: &warnings)
    }

    /// All items of `moov`, in the order ilst items, mdta items, udta items.
    ///
    /// `meta` boxes are looked for in `moov` (QuickTime writes its `mdta`
    /// metadata there) and in `moov/udta` (iTunes `mdir` lists; ffmpeg's
    /// `use_metadata_tags` `mdta` lists). Track-level metadata is not read.
    /// An item atom, `meta` or `udta` atom that can't be read is skipped with
    /// a warning (a save keeps it as it is).
    func items(in moov: MP4Box, warnings: inout [MediaWarning]) throws -> [MetadataItem] {
        var iTunes: [MetadataItem] = []
        var quickTime: [MetadataItem] = []
        let udtas = moov.children("udta")
        // Depth of each meta's ilst, counting moov's children as depth 1.
        let metas = moov.children("meta").map { ($0, 2) } + udtas.flatMap { $0.children("meta").map { ($0, 3) } }
        for (meta, depth) in metas {
            guard let ilst = meta.child("ilst") else { continue }
            let handler: FourCC?
            do {
                handler = try handlerType(of: meta)
            } catch let error as MediaError {
                warnings.append(
                    MediaWarning(
                        error.code,
                        "'meta' box with an unreadable 'hdlr' (\(error.reason)): its items "
                            + "were not read", offset: error.offset ?? meta.header.offset))
                continue
            }
            switch handler {
            case "mdta":
                quickTime += try quickTimeItems(meta: meta, ilst: ilst.header, depth: depth, warnings: &warnings)
            case "mdir", nil:
                if meta.child("keys") != nil {
                    quickTime += try quickTimeItems(meta: meta, ilst: ilst.header, depth: depth, warnings: &warnings)
                } else {
                    iTunes += try iTunesItems(ilst: ilst.header, depth: depth, warnings: &warnings)
                }
            default:
                continue
            }
        }
        let userData = udtas.flatMap { udta in udta.children.flatMap { userDataItems($0.header, depth: 2, warnings: &warnings) } }
        return iTunes + quickTime + userData
    }

    /// The item atoms of an `ilst` that can be read, and where its damaged
    /// tail starts (a child that doesn't fit: it and the rest are not read).
    func itemAtoms(ilst: MP4BoxHeader, depth: Int, warnings: inout [MediaWarning]) throws -> (
        atoms: [MP4BoxHeader], damagedTailOffset: Int64?
    ) {
        let walk = try source.mp4ReadableChildren(from: ilst.payloadOffset, to: ilst.end, depth: depth + 1)
        if let damage = walk.damage {
            warnings.append(
                MediaWarning(
                    damage.error.code,
                    "'ilst' box: \(damage.error.reason); its last \(ilst.end - damage.offset) "
                        + "bytes were not read and are kept as they are", offset: damage.offset))
        }
        return (walk.headers, walk.damage?.offset)
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
    func iTunesItems(ilst: MP4BoxHeader, depth: Int, warnings: inout [MediaWarning]) throws -> [MetadataItem] {
        var items: [MetadataItem] = []
        let atoms = try itemAtoms(ilst: ilst, depth: depth, warnings: &warnings).atoms
        items.reserveCapacity(atoms.count)
        for atom in atoms {
            do {
                items += try iTunesItems(atom: atom, depth: depth + 1)
            } catch let error as MediaError where error.code != .tooDeep {
                warnings.append(
                    MediaWarning(
                        error.code,
                        "iTunes item '\(atom.type)' can't be read (\(error.reason)): skipped, "
                            + "and kept as it is by a save", offset: error.offset ?? atom.offset))
            }
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
        // One pass over the children and no array of values for an item of one
        // value (nearly all): this runs for every item of every file read.
        var atoms: [MP4DataAtom] = []
        atoms.reserveCapacity(children.count)
        for child in children where child.type == "data" { atoms.append(try MP4DataAtom(child, in: source)) }
        if atom.type == "covr" {
            return atoms.map { data in
                let (value, dataType) = data.artwork(source: source, url: url)
                return MetadataItem(keySpace: .iTunes, key: key, value: value, dataType: dataType)
            }
        }
        if atoms.count == 1 {
            let (value, dataType) = try iTunesValue(key: key, data: atoms[0])
            return [MetadataItem(keySpace: .iTunes, key: key, value: value, dataType: dataType)]
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
        if key == "trkn" || key == "disk", data.typeSet == 0, data.type == 0 || data.type == 21, bytes.count >= 4 {
            // u16 reserved, u16 number, u16 total (disk: 6 bytes; trkn: 8 with a u16 reserved after).
            let number = Int(bytes[2]) << 8 | Int(bytes[3])
            let total = bytes.count >= 6 ? Int(bytes[4]) << 8 | Int(bytes[5]) : 0
            return (.numberPair(number: number, total: total == 0 ? nil : total), .numberPair)
        }
        var decoded = data.decode(bytes, implicitInteger: data.type == 0 && Self.implicitIntegerKeys.contains(key))
        if key == "gnre", data.type == 0, case .integer = decoded.0 { decoded.1 = .unsignedInteger }
        return decoded
    }

    /// Several text values of one item become one `.strings` item; other
    /// values become one item each.
    private static func grouped(_ values: [(MetadataValue, MetadataDataType)], keySpace: MetadataKeySpace, key: String) -> [MetadataItem] {
        if values.count == 1 { return [MetadataItem(keySpace: keySpace, key: key, value: values[0].0, dataType: values[0].1)] }
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
            try reader.skip(4) // namespace, usually 'mdta'
            keys.append(MP4Text.utf8(try reader.readBytes(size - 8)))
        }
        // Bytes after the last key are padding some writers leave; ignored on purpose.
        return keys
    }

    /// The items of an `mdta` `ilst`, whose item atom types are 1-based key
    /// indexes. Items with index 0 or past the key table are skipped.
    func quickTimeItems(meta: MP4Box, ilst: MP4BoxHeader, depth: Int, warnings: inout [MediaWarning]) throws -> [MetadataItem] {
        guard let keysBox = meta.child("keys") else { return [] }
        let keys: [String]
        do {
            keys = try self.keys(keysBox.header)
        } catch let error as MediaError {
            warnings.append(
                MediaWarning(
                    error.code,
                    "'keys' atom can't be read (\(error.reason)): its metadata items were "
                        + "not read", offset: error.offset ?? keysBox.header.offset))
            return []
        }
        var items: [MetadataItem] = []
        let atoms = try itemAtoms(ilst: ilst, depth: depth, warnings: &warnings).atoms
        items.reserveCapacity(atoms.count)
        for atom in atoms {
            do {
                items += try quickTimeItems(atom: atom, keys: keys, depth: depth + 1)
            } catch let error as MediaError where error.code != .tooDeep {
                warnings.append(
                    MediaWarning(
                        error.code,
                        "metadata item \(atom.type.rawValue) can't be read (\(error.reason)): "
                            + "skipped", offset: error.offset ?? atom.offset))
            }
        }
        return items
    }

    /// The items of one `mdta` item atom; none for an index outside the key
    /// table. Several text `data` atoms with the same locale are one item of
    /// several strings (as in an iTunes list); `data` atoms of different
    /// locales are one item each, with their language.
    func quickTimeItems(atom: MP4BoxHeader, keys: [String], depth: Int) throws -> [MetadataItem] {
        let index = Int(atom.type.rawValue)
        guard index >= 1, index <= keys.count else { return [] }
        let key = keys[index - 1]
        var values: [(value: MetadataValue, dataType: MetadataDataType, locale: UInt32)] = []
        for child in try source.mp4Children(of: atom, depth: depth + 1) where child.type == "data" {
            let data = try MP4DataAtom(child, in: source)
            let (value, dataType) =
                data.isPicture
                ? data.artwork(source: source, url: url)
                : data.decode(try data.value(in: source), implicitInteger: false)
            values.append((value, dataType, UInt32(data.country) << 16 | UInt32(data.language)))
        }
        let language = values.first.flatMap { MP4Text.packedLanguage(UInt16($0.locale & 0xFFFF)) }
        if values.count > 1, values.allSatisfy({ $0.locale == values[0].locale && $0.dataType == values[0].dataType }) {
            let grouped = Self.grouped(values.map { ($0.value, $0.dataType) }, keySpace: .quickTimeMetadata, key: key)
            return grouped.map { item in
                var item = item
                item.language = language
                return item
            }
        }
        return values.map {
            MetadataItem(
                keySpace: .quickTimeMetadata, key: key, value: $0.value, dataType: $0.dataType,
                language: MP4Text.packedLanguage(UInt16($0.locale & 0xFFFF)))
        }
    }

    // MARK: User data (udta ©-atoms)

    /// The strings of a `udta` ©-atom (QTFF "User data text"): a run of
    /// { u16 length, u16 language, text }. QTFF says the text is in the Mac
    /// script of a Macintosh language code (below 0x400) and UTF-8 with an
    /// ISO code, but exiftool writes UTF-8 with code 0; so, as exiftool reads
    /// it, text that is valid UTF-8 is UTF-8 and other text Mac OS Roman
    /// (ffmpeg takes every Macintosh-code text as Mac OS Roman, and shows
    /// exiftool's "Café" as "Caf√©"). When an atom holds `data`
    /// atoms instead (some writers do that), those are read. Atoms not
    /// starting with © are not text atoms; a © atom in neither layout is
    /// skipped with a warning (a save keeps it as it is).
    func userDataItems(_ atom: MP4BoxHeader, depth: Int) -> [MetadataItem] {
        var warnings: [MediaWarning] = []
        return userDataItems(atom, depth: depth, warnings: &warnings)
    }

    /// ``userDataItems(_:depth:)``, reporting an atom it can't read.
    func userDataItems(_ atom: MP4BoxHeader, depth: Int, warnings: inout [MediaWarning]) -> [MetadataItem] {
        guard MP4StemAtom.holdsUserDataItems(atom.type) else { return [] }
        func skipped(_ why: String) -> [MetadataItem] {
            warnings.append(
                MediaWarning(
                    .malformed, "user data atom '\(atom.type)' \(why): skipped, and kept as it is by a save",
                    offset: atom.offset))
            return []
        }
        guard let payload = try? source.mp4Payload(of: atom) else { return skipped("can't be read") }
        let key = atom.type.description
        if atom.type == MP4StemAtom.type {
            var reader = payload
            return [MP4StemAtom.item(payload: reader.readRemainingBytes())]
        }
        if let head = payload.peekBytes(8), head.dropFirst(4).elementsEqual(Array("data".utf8)) {
            guard let children = try? source.mp4Children(of: atom, depth: depth + 1) else {
                return skipped("holds 'data' atoms that don't fit")
            }
            var values: [(MetadataValue, MetadataDataType)] = []
            for header in children where header.type == "data" {
                guard let data = try? MP4DataAtom(header, in: source) else { return skipped("holds a 'data' atom that is too small") }
                if data.isPicture {
                    values.append(data.artwork(source: source, url: url))
                } else if let bytes = try? data.value(in: source) {
                    values.append(data.decode(bytes, implicitInteger: false))
                }
            }
            return Self.grouped(values, keySpace: .quickTimeUserData, key: key)
        }
        var reader = payload
        var items: [MetadataItem] = []
        while reader.remaining >= 4 {
            guard let length = try? Int(reader.readUInt16()), let language = try? reader.readUInt16(),
                let text = try? reader.readBytes(length)
            else {
                return skipped("has a text longer than the atom")
            }
            items.append(
                MetadataItem(
                    keySpace: .quickTimeUserData, key: key, value: .string(MP4Text.utf8(text)),
                    dataType: .utf8, language: MP4Text.packedLanguage(language)))
        }
        // A tail of fewer than 4 bytes is padding (zeros) or a broken atom.
        guard reader.readRemainingBytes().allSatisfy({ $0 == 0 }) else { return skipped("ends in stray bytes") }
        return items
    }
}
