#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The WAV chunks that `flac --keep-foreign-metadata` stores: APPLICATION
/// blocks (RFC 9639 §8.4) with application ID `riff`, each holding one RIFF
/// chunk of the source file, header included (the first holds the
/// `RIFF size WAVE` header, the one for `data` only its 8-byte header).
///
/// Read: the first `bext`, `iXML` and `cart` chunks give the same items as in
/// a WAV file (``BroadcastWAV``), after the comment's. Kept: the blocks are
/// copied byte for byte by every save (``FLACEditPlanner``); their items
/// can't be changed in a FLAC file: a save that changes them is refused
/// (``refuseChanges(in:layout:source:)``), naming the item.
enum FLACForeignMetadata {
    static let applicationID: [UInt8] = Array("riff".utf8)

    static func items(
        layout: FLACLayout, source: FileSource, sampleRate: Int
    ) throws -> (items: [MetadataItem], warnings: [MediaWarning]) {
        var items: [MetadataItem] = []
        var warnings: [MediaWarning] = []
        var seen: Set<FourCC> = []
        for block in layout.blocks where block.kind == .application && block.length >= 12 {
            guard try source.getBytes(at: block.bodyOffset, count: 4) == applicationID else { continue }
            var header = try source.reader(at: block.bodyOffset + 4, count: 8)
            let id = try header.readFourCC()
            let size = Int64(try header.readUInt32(.little))
            guard BroadcastWAV.ids.contains(id), !seen.contains(id) else { continue }
            seen.insert(id)
            let available = Int64(block.length) - 12
            if size > available {
                warnings.append(
                    MediaWarning(
                        .sizeOutOfRange,
                        "'riff' block's '\(id)' chunk says \(size) bytes but the block holds \(available); read to the block's end",
                        offset: block.bodyOffset + 8))
            }
            let count = min(size, available, BroadcastWAV.maximumSize)
            let payload = try source.getBytes(at: block.bodyOffset + 12, count: Int(count))
            if let read = BroadcastWAV.items(of: id, payload: payload, at: block.bodyOffset + 12, sampleRate: sampleRate) {
                items += read.items
                warnings += read.warnings
            }
        }
        return (items, warnings)
    }

    /// Throws `unsupportedFeature` when `items` hold other Broadcast Wave
    /// items than the file's `riff` blocks give (an item set, changed or removed).
    static func refuseChanges(in items: [MetadataItem], layout: FLACLayout, source: FileSource) throws {
        let given = items.filter { BroadcastWAV.keySpaces.contains($0.keySpace) }
        var reader = try source.reader(at: layout.blocks[0].bodyOffset, count: 34)
        let stored = try Self.items(layout: layout, source: source, sampleRate: try FLACStreamInfo(parsing: &reader).sampleRate).items
        func counts(_ list: [MetadataItem]) -> [MetadataItem: Int] { list.reduce(into: [:]) { $0[$1, default: 0] += 1 } }
        guard counts(given) != counts(stored) else { return }
        let changed = given.first { !stored.contains($0) } ?? stored.first { !given.contains($0) } ?? given[0]
        throw MediaError(
            .unsupportedFeature,
            "\(changed.keySpace):\(changed.key) is in a 'riff' block of `flac --keep-foreign-metadata`, which a save keeps as it is "
                + "and doesn't rewrite: change it in the WAV file and encode that again")
    }
}
