#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The space bookkeeping of a Matroska save (see ``MatroskaEditPlanner``):
/// which bytes are patched, which Voids are still free, what is appended at
/// the end of the Segment, and which SeekHead entries must change.
struct MatroskaSpaceLayout {
    let file: MatroskaFile
    let source: FileSource
    var patches: [(offset: Int64, bytes: [UInt8])] = []
    /// Bytes to add after the end of the file (the end of the Segment).
    var appended: [UInt8] = []
    /// Top-level Voids not used yet: offset and total size (old elements
    /// voided by this save join them, so a later element can go there).
    var voids: [(offset: Int64, size: Int64)]
    /// Elements that moved, appeared (`from` nil) or went (`to` nil); `to`
    /// is an offset in the old file (moved by the insertion when after it),
    /// or in the new file when `final`.
    var moves: [(id: UInt32, from: Int64?, to: Int64?, final: Bool)] = []
    /// Bytes put before the first Cluster instead of after the last (see
    /// ``insertBeforeClusters()``); everything from `offset` on moves by
    /// their count.
    var insertion: (offset: Int64, bytes: [UInt8])?

    init(file: MatroskaFile, source: FileSource) {
        self.file = file
        self.source = source
        voids = file.layout.elements.compactMap { element in
            guard element.id == MatroskaID.void, let size = element.totalSize, let end = element.end, end <= file.layout.segmentEnd else {
                return nil
            }
            return (element.offset, size)
        }
    }

    /// `id` with `data` in exactly `span` bytes, the rest as a Void after it
    /// (or a size field 1 byte wider for a 1-byte rest); nil when it can't.
    static func fit(_ id: UInt32, _ data: [UInt8], span: Int64, voidFirst: Bool = false) -> [UInt8]? {
        let natural = EBML.element(id, data)
        let rest = span - Int64(natural.count)
        if rest == 0 { return natural }
        if rest == 1 {
            let length = EBML.sizeLength(for: data.count) + 1
            return length <= 8 ? EBML.element(id, data, minimumSizeLength: length) : nil
        }
        guard rest >= 2 else { return nil }
        return voidFirst ? EBML.void(count: Int(rest)) + natural : natural + EBML.void(count: Int(rest))
    }

    /// The free Void that starts at `offset`, if any.
    private func voidIndex(at offset: Int64) -> Int? { voids.firstIndex { $0.offset == offset } }

    /// Puts `data` as element `id` where `element` is, else elsewhere.
    mutating func replace(_ element: EBMLElement, id: UInt32, data: [UInt8]) throws {
        let total = element.totalSize!
        if let bytes = Self.fit(id, data, span: total) {
            patch(element.offset, bytes)
            return
        }
        if let index = voidIndex(at: element.end!), let bytes = Self.fit(id, data, span: total + voids[index].size) {
            voids.remove(at: index)
            patch(element.offset, bytes)
            return
        }
        // A free Void just before: the element grows backwards into it (as
        // mkvpropedit does), the rest of the Void stays in front.
        if let index = voids.firstIndex(where: { $0.offset + $0.size == element.offset }),
            let target = fill(index, id, data, span: voids[index].size + total)
        {
            moves.append((id, element.offset, target, false))
            return
        }
        try place(id, data, replacing: element)
    }

    /// Puts element `id` at the end of the first `span` bytes from the free
    /// Void at `index`, the rest of them staying a free Void in front (its
    /// header and the element are separate patches, so a later element can
    /// take the rest); nil when it doesn't fit. Returns the element's offset.
    private mutating func fill(_ index: Int, _ id: UInt32, _ data: [UInt8], span: Int64) -> Int64? {
        let void = voids[index]
        let natural = EBML.element(id, data)
        let rest = span - Int64(natural.count)
        if rest >= 2 {
            voids[index].size = rest
            patch(void.offset, EBML.voidHeader(count: rest))
            patch(void.offset + rest, natural)
            return void.offset + rest
        }
        guard let bytes = Self.fit(id, data, span: span) else { return nil }
        voids.remove(at: index)
        patch(void.offset, bytes)
        return void.offset
    }

    /// Turns `element` into a Void.
    mutating func remove(_ element: EBMLElement) throws {
        free(element)
        moves.append((element.id, element.offset, nil, false))
    }

    /// Voids `element` and offers its bytes to later elements.
    private mutating func free(_ element: EBMLElement) {
        patches.append((element.offset, EBML.voidHeader(count: element.totalSize!)))
        voids.append((element.offset, element.totalSize!))
    }

    /// Records the bytes of a span starting at `offset`; they replace
    /// earlier patches inside it (the Void header of a freed element).
    mutating func patch(_ offset: Int64, _ bytes: [UInt8]) {
        patches.removeAll { $0.offset >= offset && $0.offset < offset + Int64(bytes.count) }
        patches.append((offset, bytes))
    }

    /// A same-size change of the EBML header (its DocTypeVersion).
    mutating func patchHeader(_ offset: Int64, _ bytes: [UInt8]) {
        precondition(offset + Int64(bytes.count) <= file.layout.header.element.end ?? 0, "a header patch stays in the header")
        patch(offset, bytes)
    }

    /// Adds a new element `id` with `data`.
    mutating func add(id: UInt32, data: [UInt8]) throws {
        try place(id, data, replacing: nil)
    }

    /// Puts the element at the end of a free Void large enough (the Void's
    /// start stays free), else at the end of the Segment; voids `old`.
    private mutating func place(_ id: UInt32, _ data: [UInt8], replacing old: EBMLElement?) throws {
        let size = Int64(EBML.element(id, data).count)
        var target: Int64
        if let index = voids.firstIndex(where: { $0.size == size || $0.size == size + 1 || $0.size >= size + 2 }) {
            target = fill(index, id, data, span: voids[index].size)!
        } else {
            target = source.size + Int64(appended.count)
            appended += EBML.element(id, data)
        }
        if let old { free(old) }
        moves.append((id, old?.offset, target, false))
    }

    /// The plan: the patches, the SeekHead entries and Segment size they
    /// need, and the appended elements as a new tail.
    mutating func plan() throws -> FileEditPlan {
        try insertBeforeClusters()
        try updateSeekHeads()
        if let insertion, !insertion.bytes.isEmpty { return try insertionPlan(insertion) }
        try checkAppendable()
        let segment = file.layout.segment
        if !appended.isEmpty, let size = segment.dataSize {
            guard let bytes = EBML.sizeBytes(size + Int64(appended.count), length: segment.sizeLength) else {
                throw MediaError(.unsupportedFeature, "the Segment's size field can't hold its new size", offset: segment.offset)
            }
            patches.append((segment.offset + Int64(segment.idLength), bytes))
        }
        let result = try changedPatches()
        return appended.isEmpty ? .inPlace(result) : .patchedTail(patches: result, offset: source.size, bytes: appended)
    }

    /// The patches, sorted, each cut to the bytes that differ from the file.
    func changedPatches() throws -> [(offset: Int64, bytes: [UInt8])] {
        var result: [(offset: Int64, bytes: [UInt8])] = []
        for patch in patches.sorted(by: { $0.offset < $1.offset }) {
            if let changed = try FileEditPlan.changedPatch(of: patch.bytes, at: patch.offset, in: source) { result.append(changed) }
        }
        return result
    }

    /// Refuses a save that appends after a Segment that doesn't end the
    /// file, or whose last element is cut short.
    func checkAppendable() throws {
        if !appended.isEmpty {
            let segment = file.layout.segment
            guard file.layout.segmentEnd == source.size, segment.end == nil || segment.end == source.size else {
                throw MediaError(
                    .unsupportedFeature,
                    "the tags don't fit in place and the Segment doesn't end the file; the save would have to rewrite it",
                    offset: segment.offset)
            }
            guard file.layout.elementsEndWithSegment(source) else {
                throw MediaError(
                    .unsupportedFeature,
                    "the Segment's last element is cut short (a recording that stopped mid-Cluster?): what doesn't fit in place can't go after it without changing the last packet",
                    offset: segment.offset)
            }
        }
    }

    /// Enters every move in the SeekHeads: an entry that pointed at the old
    /// place is changed or removed, a new element is added to the first
    /// SeekHead; a changed SeekHead is rebuilt in its place and the free
    /// Void after it. One that doesn't fit there goes whole to the end of
    /// the Segment, and its place gets a SeekHead of one entry pointing at
    /// it (what mkvpropedit does). A file without SeekHead needs none (it is
    /// read by walking its elements).
    private mutating func updateSeekHeads() throws {
        let layout = file.layout
        guard !layout.seekHeads.isEmpty, !moves.isEmpty || insertion != nil else { return }
        var entries = layout.seekHeads.map { $0.entries.map { (id: $0.id, position: $0.position, done: false) } }
        var changed = Set<Int>()
        for move in moves {
            let old = move.from.map { $0 - layout.segmentData }
            let new = move.to.map { (move.final ? $0 : newOffset($0)) - layout.segmentData }
            let found = entries.indices.lazy.compactMap { head in
                entries[head].firstIndex { !$0.done && $0.id == move.id && $0.position == old }.map { (head, $0) }
            }.first
            if let (head, index) = found {
                if let new { entries[head][index] = (move.id, new, true) } else { entries[head].remove(at: index) }
                changed.insert(head)
            } else if let new {
                entries[0].append((move.id, new, true))
                changed.insert(0)
            }
        }
        // What the insertion moved: every other entry past it.
        if insertion != nil {
            for head in entries.indices {
                for index in entries[head].indices where !entries[head][index].done {
                    let position = newOffset(layout.segmentData + entries[head][index].position) - layout.segmentData
                    if position != entries[head][index].position {
                        entries[head][index].position = position
                        changed.insert(head)
                    }
                }
            }
        }
        for head in changed.sorted() {
            let seekHead = layout.seekHeads[head]
            let list = entries[head].map { (id: $0.id, position: $0.position) }
            let data = Self.seekHeadData(list, crc: seekHead.hasCRC)
            if !put(seekHead: data, at: seekHead.element) {
                // Whole at the end, and a SeekHead pointing there in its place.
                let target = newOffset(source.size + Int64(appended.count))
                appended += EBML.element(MatroskaID.seekHead, data)
                let forward = Self.seekHeadData([(MatroskaID.seekHead, target - layout.segmentData)], crc: seekHead.hasCRC)
                guard put(seekHead: forward, at: seekHead.element) else {
                    throw MediaError(.unsupportedFeature, "the SeekHead has no room for a new entry", offset: seekHead.element.offset)
                }
            }
        }
    }

    /// A SeekHead's data with `entries` (a CRC-32 first when `crc`).
    static func seekHeadData(_ entries: [(id: UInt32, position: Int64)], crc: Bool) -> [UInt8] {
        var data: [UInt8] = []
        for entry in entries {
            data += EBML.element(
                MatroskaID.seek,
                EBML.element(MatroskaID.seekID, EBML.idBytes(entry.id))
                    + EBML.element(MatroskaID.seekPosition, unsigned: UInt64(entry.position)))
        }
        return crc ? EBMLCRC32.prefixed(data) : data
    }

    /// Writes a SeekHead with `data` where `element` is (and the free Void
    /// after it); false when it doesn't fit.
    private mutating func put(seekHead data: [UInt8], at element: EBMLElement) -> Bool {
        let total = element.totalSize!
        if let bytes = Self.fit(MatroskaID.seekHead, data, span: total) {
            patch(element.offset, bytes)
            return true
        }
        if let index = voidIndex(at: element.end!), let bytes = Self.fit(MatroskaID.seekHead, data, span: total + voids[index].size) {
            voids.remove(at: index)
            patch(element.offset, bytes)
            return true
        }
        return false
    }
}
