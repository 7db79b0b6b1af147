#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// XMP packets in MP4 and QuickTime files (Adobe XMP Specification Part 3,
/// "MPEG-4" and "QuickTime"): a `uuid` box of extended type
/// BE7ACFCB-97A9-42E8-9C71-999491E3AFAC (ISO/IEC 14496-12 §4.2) whose
/// payload is the packet, at the top level (where exiftool writes it in an
/// MP4) or in `moov/udta`; and the QuickTime `moov/udta/XMP_` atom (where
/// exiftool writes it in a MOV). Each is one ``MetadataKeySpace/xmp`` item,
/// keyed `uuid`, `udta/uuid` or `udta/XMP_`; only the first `udta` is read.
///
/// Saving: the `udta` boxes are rewritten with the movie box
/// (``MP4MoovRebuilder``), kept byte for byte while unchanged. A top-level
/// box (``adjusting(_:source:items:options:)``) is patched in place when the
/// new box has its size; otherwise it becomes a `free` box of the same size
/// (nothing after it moves, no chunk offset changes) and the new box is
/// added at the end of the file, after the last box.
enum MP4XMP {
    /// The extended type of an XMP `uuid` box.
    static let uuid: [UInt8] = [0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC]
    static let topLevelKey = "uuid"
    static let userDataUUIDKey = "udta/uuid"
    static let userDataAtomKey = "udta/XMP_"
    /// Packets larger than this are not read (the box is kept as it is).
    static let maximumSize: Int64 = 64 << 20

    static func isXMPBox(_ header: MP4BoxHeader) -> Bool {
        header.type == "uuid" && header.userType == uuid
    }

    /// The key of a `udta` child that holds a packet; nil for other boxes.
    static func userDataKey(_ header: MP4BoxHeader) -> String? {
        if isXMPBox(header) { return userDataUUIDKey }
        return header.type == "XMP_" ? userDataAtomKey : nil
    }

    /// The item of the packet in `header`'s payload, with its XML warnings;
    /// nil when it is larger than ``maximumSize`` or runs past the file.
    static func read(_ header: MP4BoxHeader, key: String, source: FileSource) -> (item: MetadataItem, warnings: [MediaWarning])? {
        guard header.payloadSize <= maximumSize, header.end <= source.size,
            let bytes = try? source.getBytes(at: header.payloadOffset, count: Int(header.payloadSize))
        else { return nil }
        return XMPFields.read(key: key, bytes: bytes, offset: header.payloadOffset)
    }

    /// The packets of the top-level boxes and the first `moov/udta`, in file order.
    static func items(topLevel: [MP4BoxHeader], moov: MP4Box, source: FileSource, warnings: inout [MediaWarning]) -> [MetadataItem] {
        var found: [(offset: Int64, item: MetadataItem)] = []
        func add(_ header: MP4BoxHeader, _ key: String) {
            guard let packet = read(header, key: key, source: source) else {
                warnings.append(MediaWarning(.sizeOutOfRange, "an XMP box that can't be read whole: kept as it is", offset: header.offset))
                return
            }
            found.append((header.offset, packet.item))
            warnings += packet.warnings
        }
        for header in topLevel where isXMPBox(header) { add(header, topLevelKey) }
        for child in moov.child("udta")?.children ?? [] {
            if let key = userDataKey(child.header) { add(child.header, key) }
        }
        return found.sorted { $0.offset < $1.offset }.map(\.item)
    }

    /// A box holding `item`'s packet, for `key`.
    static func box(key: String, item: MetadataItem) throws -> [UInt8] {
        let packet = try XMPFields.bytes(of: item)
        let isAtom = key == userDataAtomKey
        let size = packet.count + (isAtom ? 8 : 24)
        guard size <= Int(UInt32.max) else { throw MediaError(.invalidValue, "an XMP packet of \(packet.count) bytes is too large") }
        var writer = ByteWriter(capacity: size)
        writer.write(UInt32(size))
        writer.write(isAtom ? FourCC("XMP_") : FourCC("uuid"))
        if !isAtom { writer.write(uuid) }
        writer.write(packet)
        return writer.bytes
    }

    /// Refuses an XMP item with a key MP4 doesn't store.
    static func refuseOtherKeys(_ items: [MetadataItem]) throws {
        let keys = [topLevelKey, userDataUUIDKey, userDataAtomKey]
        if let other = items.first(where: { $0.keySpace == .xmp && !keys.contains($0.key) }) {
            throw MediaError(
                .invalidValue, "MP4 files keep XMP as 'xmp:uuid', 'xmp:udta/uuid' or 'xmp:udta/XMP_', not 'xmp:\(other.key)'")
        }
    }

    // MARK: Top level

    /// `plan` (the movie box's edit) with the top-level XMP boxes made to
    /// hold the ``topLevelKey`` items of `items` (see the type).
    static func adjusting(_ plan: FileEditPlan, source: FileSource, items: [MetadataItem], layout: MP4Parser.TopLevel) throws
        -> FileEditPlan
    {
        let old = layout.boxes.filter(isXMPBox)
        let loaded = old.compactMap { read($0, key: topLevelKey, source: source)?.item }
        let wanted = items.filter { $0.keySpace == .xmp && $0.key == topLevelKey }
        guard loaded.count == old.count else {
            if wanted.isEmpty { return plan }
            throw MediaError(
                .unsupportedFeature, "the file's XMP box can't be read whole, so it can't be replaced", offset: old.first?.offset)
        }
        if wanted == loaded { return plan }
        let boxes = try wanted.map { try box(key: topLevelKey, item: $0) }
        var patches: [(offset: Int64, bytes: [UInt8])] = []
        var appended: [UInt8] = []
        if old.count == 1, boxes.count == 1, Int64(boxes[0].count) == old[0].size, old[0].headerSize == 24 {
            patches.append((old[0].offset, boxes[0]))
        } else {
            // The old boxes become free space of their size; the new ones go last.
            for box in old { patches.append((box.offset + 4, Array("free".utf8))) }
            appended = boxes.flatMap { $0 }
            if !appended.isEmpty { try checkAppendable(layout, source: source) }
        }
        return try merged(plan, patches: patches, appending: appended, size: source.size)
    }

    /// Boxes can be added after the last box only when it ends at the end of
    /// the file and does not run "to the end of the file" (size 0).
    private static func checkAppendable(_ layout: MP4Parser.TopLevel, source: FileSource) throws {
        guard layout.damage == nil, let last = layout.boxes.last, last.end == source.size,
            try source.getBytes(at: last.offset, count: 4) != [0, 0, 0, 0]
        else {
            throw MediaError(
                .unsupportedFeature, "an XMP box can't be added after the last box of this file (it runs to the end or is damaged)")
        }
    }

    /// `plan` with `patches` (all outside what it changes) applied and `appending` added at the end.
    private static func merged(
        _ plan: FileEditPlan, patches: [(offset: Int64, bytes: [UInt8])], appending: [UInt8], size: Int64
    ) throws -> FileEditPlan {
        switch plan {
        case .inPlace(let moviePatches):
            if appending.isEmpty { return .inPlace(moviePatches + patches) }
            return .patchedTail(patches: moviePatches + patches, offset: size, bytes: appending)
        case .patchedTail(let moviePatches, let offset, let bytes):
            guard patches.allSatisfy({ $0.offset + Int64($0.bytes.count) <= offset }) else {
                throw MediaError(.unsupportedFeature, "an XMP box inside the rewritten end of the file")
            }
            return .patchedTail(patches: moviePatches + patches, offset: offset, bytes: bytes + appending)
        case .rewrite(let segments):
            var result: [FileEditPlan.Segment] = []
            for segment in segments {
                guard case .original(let offset, let length) = segment else {
                    result.append(segment)
                    continue
                }
                // Split a copied range around every patch inside it.
                var position = offset
                for patch in patches.sorted(by: { $0.offset < $1.offset })
                where patch.offset >= position && patch.offset + Int64(patch.bytes.count) <= offset + length {
                    if patch.offset > position { result.append(.original(offset: position, length: patch.offset - position)) }
                    result.append(.bytes(patch.bytes))
                    position = patch.offset + Int64(patch.bytes.count)
                }
                if position < offset + length { result.append(.original(offset: position, length: offset + length - position)) }
            }
            if !appending.isEmpty { result.append(.bytes(appending)) }
            return .rewrite(FileEditPlan.coalesced(result))
        }
    }
}
