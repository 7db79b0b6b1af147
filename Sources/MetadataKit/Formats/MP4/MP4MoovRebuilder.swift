#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Builds the new `moov` of a save as an ``MP4Node`` tree: every box whose
/// contents did not change stays `.original` (copied byte for byte), and only
/// the containers on the way to a change are rebuilt.
///
/// - iTunes items go to `moov/udta/meta/ilst` (made when missing). An item
///   atom whose items are unchanged is copied as it is; atoms the reader
///   can't map to items (unknown layouts, damaged atoms) are kept unless a
///   new item of the same type replaces them.
/// - Where readers look: mutagen and TagLib take the first `moov/udta`, its
///   first `meta`, and that one's `ilst`; mutagen also loses every box after
///   a `moov/meta` without version and flags (QuickTime's layout). So when
///   `moov` is rebuilt, its `udta` goes before such a `meta`, and the iTunes
///   `meta` is the first `meta` of `udta` (before an `mdta` one).
/// - The damaged tail of a container (see ``MP4Box/damagedTailOffset``) is
///   kept, byte for byte, at its end.
/// - QuickTime `mdta` items: when they changed, the first `mdta` `meta` gets a
///   new `keys` and `ilst` (other children kept); a second `mdta` `meta` is
///   dropped (its items were merged into the first). When there is none, a
///   `moov/meta` is added in Apple's layout. An `mdta` `meta` in a `udta`
///   that also holds (or gets) the iTunes `meta` moves to `moov/meta`; see
///   ``relocatedQuickTimeMeta(in:)``.
/// - `udta` ©-atoms are rewritten per key when their strings changed.
/// - With a ``shift``, every `stco`/`co64` chunk offset at or after
///   `shift.from` moves by `shift.by` (ISO/IEC 14496-12 §8.7.5).
struct MP4MoovRebuilder {
    let source: FileSource
    let reader: MP4MetadataParser
    let iTunes: [MetadataItem]
    let quickTime: [MetadataItem]
    let userData: [MetadataItem]
    /// 3GPP asset box items (``MP4AssetBoxes``).
    let assets: [MetadataItem]
    /// XMP packets of `moov/udta` (``MP4XMP``).
    let userDataXMP: [MetadataItem]
    /// Size of the `free` box to leave after `ilst` when the iTunes `meta` is
    /// written (nil: keep or resize the existing one, add none).
    var padding: Int?
    /// Chunk offsets at or after `from` move by `by`.
    var shift: (from: Int64, by: Int64)?
    /// New chapters (`chpl` and the chapter track); nil keeps the file's.
    var chapters: MP4ChapterEdit?

    init(source: FileSource, url: URL, items: [MetadataItem]) {
        self.source = source
        self.reader = MP4MetadataParser(source: source, url: url)
        iTunes = items.filter { $0.keySpace == .iTunes }
        quickTime = items.filter { $0.keySpace == .quickTimeMetadata }
        userData = items.filter { $0.keySpace == .quickTimeUserData }
        assets = items.filter { $0.keySpace == .threeGPP }
        userDataXMP = items.filter { $0.keySpace == .xmp && $0.key != MP4XMP.topLevelKey }
    }

    // MARK: moov

    func moov(_ moov: MP4Box) throws -> MP4Node {
        let loadedQuickTime = try reader.items(in: moov).filter { $0.keySpace == .quickTimeMetadata }
        let quickTimeChanged = !loadedQuickTime.isStoredLike(quickTime)
        var wroteQuickTime = false
        var children: [MP4Node] = []
        var sawUserData = false
        // Where the udta must go at the latest: before the first QuickTime-layout meta.
        var firstPlainMeta: Int?
        var userDataIndex: Int?
        var lastTrack: Int?
        let relocating = try relocatedQuickTimeMeta(in: moov)
        var relocated: MP4Node?
        for child in moov.children {
            if child.type == "meta", firstPlainMeta == nil, try isPlainMeta(child) { firstPlainMeta = children.count }
            switch child.type {
            case "udta" where !sawUserData:
                sawUserData = true
                userDataIndex = children.count
                children.append(
                    try userDataBox(
                        child, quickTimeChanged: quickTimeChanged, wroteQuickTime: &wroteQuickTime,
                        relocating: relocating, relocated: &relocated))
            case "meta" where try isQuickTimeMeta(child):
                if let node = try quickTimeMeta(child, changed: quickTimeChanged, wrote: &wroteQuickTime) { children.append(node) }
            case "trak" where chapters != nil:
                if let node = try chapterAwareTrack(child) { children.append(node) }
                lastTrack = children.count
            case "trak" where shift != nil:
                children.append(try shifted(child))
            case "mvhd" where chapters != nil:
                children.append(try chapters!.movieHeader(child.header, source: source))
            default:
                children.append(.original(child.header))
            }
        }
        if !sawUserData {
            var udta: [MP4Node] = try userDataGroups.map { .bytes(try MP4MetadataEncoder.userDataAtom(key: $0.key, items: $0.items)) }
            udta += try userDataXMP.map { .bytes(try MP4XMP.box(key: $0.key, item: $0)) }
            if !iTunes.isEmpty { udta.append(try newITunesMeta()) }
            if let list = chapters?.list { udta.append(.bytes(list.box)) }
            udta += try MP4AssetBoxQueue(assets).remainingBoxes().map { .bytes($0) }
            if !udta.isEmpty {
                userDataIndex = children.count
                children.append(.container("udta", prefix: [], children: udta))
            }
        }
        if quickTimeChanged && !wroteQuickTime && !quickTime.isEmpty {
            let (keys, ilst) = try MP4MetadataEncoder.quickTimeBoxes(quickTime)
            children.append(
                .container("meta", prefix: [], children: [.bytes(MP4MetadataEncoder.handler("mdta")), .bytes(keys), .bytes(ilst)]))
        }
        if let trak = chapters?.trak {
            let position = lastTrack ?? children.count
            children.insert(.bytes(trak), at: position)
            if let index = userDataIndex, index >= position { userDataIndex = index + 1 }
            if let index = firstPlainMeta, index >= position { firstPlainMeta = index + 1 }
        }
        if children.allSatisfy(\.isOriginal), children.count == moov.children.count { return .original(moov.header) }
        if let from = userDataIndex, let to = firstPlainMeta, from > to {
            children.insert(children.remove(at: from), at: to)
            userDataIndex = to
        }
        // After the udta: mutagen reads no tags when a meta in this layout comes first.
        if let relocated, let index = userDataIndex { children.insert(relocated, at: index + 1) }
        if let tail = moov.damagedTail { children.append(tail) }
        return .container("moov", prefix: [], children: children)
    }

    /// A `meta` in QuickTime's layout: no version and flags before its first child.
    private func isPlainMeta(_ meta: MP4Box) throws -> Bool {
        try MP4TreeBuilder(source: source).metaPrefix(meta.header) == 0
    }

    func isQuickTimeMeta(_ meta: MP4Box) throws -> Bool {
        try reader.handlerType(of: meta) == "mdta" || meta.child("keys") != nil
    }

    /// The first `mdta` `meta` gets the new items; later ones are dropped.
    /// `plain`: written in QuickTime's layout (no version and flags), for
    /// a `meta` that moves to `moov`.
    func quickTimeMeta(_ meta: MP4Box, changed: Bool, wrote: inout Bool, plain: Bool = false) throws -> MP4Node? {
        guard changed else {
            guard plain else { return .original(meta.header) }
            let tail = meta.damagedTail.map { [$0] } ?? []
            return .container("meta", prefix: [], children: meta.children.map { .original($0.header) } + tail)
        }
        if let keys = meta.child("keys"), (try? reader.keys(keys.header)) == nil {
            throw MediaError(
                .unsupportedFeature, "the 'keys' atom can't be read, so its metadata can't be rewritten",
                offset: keys.header.offset)
        }
        guard !wrote, !quickTime.isEmpty else { return nil }
        wrote = true
        let (keys, ilst) = try MP4MetadataEncoder.quickTimeBoxes(quickTime)
        var children: [MP4Node] = []
        for child in meta.children where child.type != "keys" && child.type != "ilst" {
            children.append(.original(child.header))
            if child.type == "hdlr" { children += [.bytes(keys), .bytes(ilst)] }
        }
        if meta.child("hdlr") == nil { children = [.bytes(MP4MetadataEncoder.handler("mdta")), .bytes(keys), .bytes(ilst)] + children }
        if let tail = meta.damagedTail { children.append(tail) }
        return .container("meta", prefix: plain ? [] : try prefix(of: meta), children: children)
    }

    // MARK: udta

    private var userDataGroups: [(key: String, items: [MetadataItem])] {
        var order: [String] = []
        var groups: [String: [MetadataItem]] = [:]
        for item in userData {
            if groups[item.key] == nil { order.append(item.key) }
            groups[item.key, default: []].append(item)
        }
        return order.map { ($0, groups[$0]!) }
    }

    private func userDataBox(
        _ udta: MP4Box, quickTimeChanged: Bool, wroteQuickTime: inout Bool, relocating: MP4Box?, relocated: inout MP4Node?
    ) throws -> MP4Node {
        var wanted = Dictionary(uniqueKeysWithValues: userDataGroups.map { ($0.key, $0.items) })
        var children: [MP4Node] = []
        var changed = false
        var wroteITunes = false
        var firstMeta: Int?
        var iTunesIndex: Int?
        // 3GPP asset boxes: each box of a type takes the next group of items of that type.
        var wantedAssets = MP4AssetBoxQueue(assets)
        var wantedXMP = userDataXMP
        for child in udta.children {
            if let key = MP4XMP.userDataKey(child.header), let packet = MP4XMP.read(child.header, key: key, source: source) {
                // An XMP packet (MP4XMP): kept while its item is, else replaced or removed.
                if let index = wantedXMP.firstIndex(where: { $0.key == key }) {
                    let item = wantedXMP.remove(at: index)
                    children.append(item == packet.item ? .original(child.header) : .bytes(try MP4XMP.box(key: key, item: item)))
                    changed = changed || item != packet.item
                } else {
                    changed = true
                }
                continue
            }
            if child.type == "meta" {
                if let relocating, child.header.offset == relocating.header.offset {
                    relocated = try quickTimeMeta(child, changed: quickTimeChanged, wrote: &wroteQuickTime, plain: true)
                    changed = true
                    continue
                }
                if firstMeta == nil { firstMeta = children.count }
                if try isQuickTimeMeta(child) {
                    let node = try quickTimeMeta(child, changed: quickTimeChanged, wrote: &wroteQuickTime)
                    if let node { children.append(node) }
                    changed = changed || quickTimeChanged
                } else if !wroteITunes, try reader.handlerType(of: child) ?? "mdir" == "mdir" {
                    wroteITunes = true
                    iTunesIndex = children.count
                    let node = try iTunesMeta(child)
                    changed = changed || !node.isOriginal
                    children.append(node)
                } else {
                    children.append(.original(child.header))
                }
                continue
            }
            if let node = try wantedAssets.node(for: child.header, source: source) {
                if let node { children.append(node) }
                changed = changed || !(node?.isOriginal ?? false)
                continue
            }
            if child.type == "chpl", chapters != nil {
                changed = true // replaced below
                continue
            }
            let loaded = MP4StemAtom.holdsUserDataItems(child.type) ? reader.userDataItems(child.header, depth: 2) : []
            if loaded.isEmpty {
                children.append(.original(child.header)) // not a text atom we understand: kept
                continue
            }
            let key = child.type.description
            guard let items = wanted.removeValue(forKey: key) else {
                changed = true // removed (or a duplicate atom of a rewritten key)
                continue
            }
            if loaded.isStoredLike(items) {
                children.append(.original(child.header))
            } else {
                children.append(.bytes(try MP4MetadataEncoder.userDataAtom(key: key, items: items)))
                changed = true
            }
        }
        for group in userDataGroups where wanted[group.key] != nil {
            children.append(.bytes(try MP4MetadataEncoder.userDataAtom(key: group.key, items: group.items)))
            changed = true
        }
        if !wroteITunes && !iTunes.isEmpty {
            children.append(try newITunesMeta())
            iTunesIndex = children.count - 1
            changed = true
        }
        if let list = chapters?.list {
            children.append(.bytes(list.box))
            changed = true
        }
        for box in try wantedAssets.remainingBoxes() {
            children.append(.bytes(box))
            changed = true
        }
        for item in wantedXMP {
            children.append(.bytes(try MP4XMP.box(key: item.key, item: item)))
            changed = true
        }
        guard changed else { return .original(udta.header) }
        // The iTunes meta before any other meta, where mutagen and TagLib look.
        if let from = iTunesIndex, let to = firstMeta, from > to {
            children.insert(children.remove(at: from), at: to)
        }
        if let tail = udta.damagedTail { children.append(tail) }
        return .container("udta", prefix: [], children: children)
    }

    // MARK: iTunes meta and ilst

    private func newITunesMeta() throws -> MP4Node {
        var children: [MP4Node] = [.bytes(MP4MetadataEncoder.handler("mdir")), try ilst(nil)]
        if let padding { children.append(.bytes(MP4MetadataEncoder.free(size: padding))) }
        return .container("meta", prefix: [0, 0, 0, 0], children: children)
    }

    private func iTunesMeta(_ meta: MP4Box) throws -> MP4Node {
        var children: [MP4Node] = []
        var oldSize: Int64 = 0
        var newSize: Int64 = 0
        var freeIndex: Int?
        var sawList = false
        for child in meta.children {
            switch child.type {
            case "ilst" where !sawList:
                sawList = true
                let node = try ilst(child)
                oldSize = child.header.size
                newSize = node.size
                children.append(node)
            case _ where (child.type == "free" || child.type == "skip") && sawList && freeIndex == nil:
                freeIndex = children.count
                children.append(.original(child.header))
            default:
                children.append(.original(child.header))
            }
        }
        if !sawList {
            let node = try ilst(nil)
            newSize = node.size
            let position = (children.firstIndex { if case .original(let h) = $0 { h.type == "hdlr" } else { false } } ?? -1) + 1
            children.insert(node, at: position)
            if let index = freeIndex, index >= position { freeIndex = index + 1 }
        }
        if meta.child("hdlr") == nil { children.insert(.bytes(MP4MetadataEncoder.handler("mdir")), at: 0) }
        if let tail = meta.damagedTail { children.append(tail) }
        // Padding: absorb the change in an existing free box, or set it to the policy size.
        let delta = newSize - oldSize
        if let index = freeIndex, case .original(let free) = children[index] {
            if let padding {
                children[index] = .bytes(MP4MetadataEncoder.free(size: padding))
            } else if delta != 0 {
                let remaining = free.size - delta
                if remaining >= 8 {
                    children[index] = .bytes(MP4MetadataEncoder.free(size: Int(remaining)))
                } else if remaining == 0 {
                    children.remove(at: index)
                }
            }
        } else if let padding, let ilstIndex = children.firstIndex(where: { if case .container("ilst", _, _) = $0 { true } else { false } })
        {
            children.insert(.bytes(MP4MetadataEncoder.free(size: padding)), at: ilstIndex + 1)
        }
        let originalCount = meta.children.count + (meta.damagedTailOffset == nil ? 0 : 1)
        if children.allSatisfy(\.isOriginal), children.count == originalCount { return .original(meta.header) }
        return .container("meta", prefix: try prefix(of: meta), children: children)
    }

    /// The new `ilst`: unchanged item atoms copied, changed ones re-encoded in
    /// place, new ones appended in item order.
    private func ilst(_ list: MP4Box?) throws -> MP4Node {
        var order: [String] = []
        var wanted: [String: [MetadataItem]] = [:]
        for item in iTunes {
            if wanted[item.key] == nil { order.append(item.key) }
            wanted[item.key, default: []].append(item)
        }
        var children: [MP4Node] = []
        var changed = list == nil
        var damagedTail: MP4Node?
        // The items still to place, per key.
        var pending = wanted
        if let list {
            var warnings: [MediaWarning] = [] // the reader reported them
            let (atoms, tailOffset) = try reader.itemAtoms(ilst: list.header, depth: 3, warnings: &warnings)
            damagedTail = tailOffset.map { .originalBytes(offset: $0, length: list.header.end - $0) }
            let parsed = atoms.map { atom in (atom: atom, loaded: try? reader.iTunesItems(atom: atom, depth: 4)) }
            // A key stored in several atoms (some taggers write each artist as its own `©ART`)
            // keeps its atoms: each takes as many of the key's items as it held, the last the rest.
            var atomsLeft: [String: Int] = [:]
            for entry in parsed { if let key = entry.loaded?.first?.key { atomsLeft[key, default: 0] += 1 } }
            for (atom, loaded) in parsed {
                guard let loaded else {
                    // Damaged: kept, unless a new item of its type replaces it.
                    if atom.type != "----", wanted[atom.type.description] != nil {
                        changed = true
                    } else {
                        children.append(.original(atom))
                    }
                    continue
                }
                guard let key = loaded.first?.key else {
                    children.append(.original(atom)) // kept: nothing we could map
                    continue
                }
                atomsLeft[key, default: 1] -= 1
                guard let left = pending[key], !left.isEmpty else {
                    changed = true
                    continue
                }
                let count = atomsLeft[key] == 0 ? left.count : min(max(loaded.count, 1), left.count)
                let items = Array(left.prefix(count))
                pending[key] = Array(left.dropFirst(count))
                if loaded.isStoredLike(items) {
                    children.append(.original(atom))
                } else {
                    children.append(.bytes(try MP4MetadataEncoder.iTunesAtom(key: key, items: items)))
                    changed = true
                }
            }
        }
        // Keys no atom of the file took (new ones): appended.
        for key in order where pending[key]?.isEmpty != true {
            children.append(.bytes(try MP4MetadataEncoder.iTunesAtom(key: key, items: wanted[key]!)))
            changed = true
        }
        if !changed, let list { return .original(list.header) }
        if let damagedTail { children.append(damagedTail) }
        return .container("ilst", prefix: [], children: children)
    }

    private func prefix(of meta: MP4Box) throws -> [UInt8] {
        let length = try MP4TreeBuilder(source: source).metaPrefix(meta.header)
        return try source.getBytes(at: meta.header.payloadOffset, count: Int(length))
    }

    // MARK: Chunk offsets

    func shifted(_ box: MP4Box) throws -> MP4Node {
        switch box.type {
        case "trak", "mdia", "minf", "stbl":
            return .container(box.type, prefix: [], children: try box.children.map(shifted))
        case "stco", "co64":
            return .bytes(try shiftedChunkOffsets(box.header))
        default:
            return .original(box.header)
        }
    }

    /// `stco` (u32 entries) or `co64` (u64 entries) with offsets moved.
    private func shiftedChunkOffsets(_ header: MP4BoxHeader) throws -> [UInt8] {
        guard let shift else { return try source.getBytes(at: header.offset, count: Int(header.size)) }
        var reader = try source.mp4Payload(of: header)
        let versionAndFlags = try reader.readUInt32()
        let count = Int(try reader.readUInt32())
        let width = header.type == "co64" ? 8 : 4
        guard count <= reader.remaining / width else {
            throw MediaError(
                .sizeOutOfRange, "'\(header.type)' claims \(count) entries but holds \(reader.remaining) bytes", offset: header.offset)
        }
        var writer = ByteWriter(capacity: Int(header.size))
        writer.write(versionAndFlags)
        writer.write(UInt32(count))
        for _ in 0..<count {
            var value = Int64(try reader.readUInt(byteCount: width))
            if value >= shift.from { value += shift.by }
            if width == 4 {
                guard value >= 0, value <= Int64(UInt32.max) else {
                    throw MediaError(
                        .unsupportedFeature, "a chunk offset would pass 4 GiB; converting 'stco' to 'co64' is not supported",
                        offset: header.offset)
                }
                writer.write(UInt32(value))
            } else {
                writer.write(UInt64(value))
            }
        }
        writer.write(reader.readRemainingBytes())
        return MP4MetadataEncoder.box(header.type, writer.bytes)
    }
}
