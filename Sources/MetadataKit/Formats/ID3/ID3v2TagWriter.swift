import Foundation

/// Builds the frames of a new ID3v2.3 or v2.4 tag from the desired `.id3`
/// items and the frames the file already has.
///
/// Each desired item is matched against the existing frames (a multiset
/// match: every frame serves at most one item, the first unused frame whose
/// decoded item equals the item wins). A matched frame is then written:
/// 1. **byte for byte** from the file when its tag has the target version and
///    is not unsynchronised as a whole — so unknown, private, compressed,
///    encrypted and grouped frames keep their bytes and flags;
/// 2. otherwise, for `POPM` and `GEOB` whose payload is stored plainly, as
///    the file's payload under a new header (their items don't hold every
///    field: the play counter, the MIME type and file name);
/// 3. otherwise encoded from its item (``ID3v2FrameEncoder``). An encrypted
///    frame can't be re-encoded and is **dropped** when the version changes
///    (or its tag was unsynchronised as a whole).
///
/// Items with no matching frame (new or edited values) are encoded. Empty
/// frames (which decode to no item) are not kept. The
/// writer never sets tag-level unsynchronisation, compression, an extended
/// header or a footer (ID3v2.4.0 structure §3), nor frame flags on frames it
/// encodes.
struct ID3v2TagWriter {
    let source: FileSource
    /// 3 or 4.
    let version: UInt8
    /// The frames of the file's tags, leading tag first.
    let existing: [ID3v2FrameRecord]

    /// The concatenated frames for `items` (the `.id3` items are used).
    /// - Throws: `invalidValue` for an item that can't be a frame.
    func frames(for items: [MetadataItem]) throws -> [UInt8] {
        var entries: [ID3v2FrameMapping.Entry] = []
        for item in items where item.keySpace == .id3 {
            let id = ID3v2FrameEncoder.split(item.key).id
            guard let target = try ID3v2FrameMapping.targetID(id, item: item) else { continue }
            var renamed = item
            if target != id { renamed.key = target + item.key.dropFirst(id.count) }
            entries.append(.init(id: target, item: renamed, original: item))
        }
        entries = ID3v2FrameMapping.convertDates(entries, version: version)

        var used = [Bool](repeating: false, count: existing.count)
        var output: [UInt8] = []
        for entry in entries {
            let match = existing.indices.first { index in
                !used[index] && existing[index].item.map { Self.same($0, entry.original) } == true
            }
            if let match {
                used[match] = true
                if let bytes = try copy(existing[match], as: entry.id) {
                    output += bytes
                    continue
                }
                if existing[match].isEncrypted { continue }
            }
            output += try ID3v2FrameEncoder.frame(id: entry.id, item: entry.item, version: version)
        }
        guard output.count <= Int(ID3v2Header.maximumSize) else {
            throw MediaError(.invalidValue, "the ID3v2 tag would be \(output.count) bytes; it holds at most \(ID3v2Header.maximumSize)")
        }
        return output
    }

    /// The frame's bytes taken from the file (cases 1 and 2 above); nil when
    /// it must be encoded from its item.
    private func copy(_ record: ID3v2FrameRecord, as id: String) throws -> [UInt8]? {
        if record.version == version, record.isCopyable, record.id == id {
            return try source.read(at: record.range.lowerBound, count: Int(record.range.count))
        }
        if ["POPM", "GEOB"].contains(id), let payload = record.plainPayload {
            return try ID3v2FrameEncoder.frame(id: id, payload: try source.read(at: payload.lowerBound, count: Int(payload.count)),
                                               version: version)
        }
        return nil
    }

    /// Whether `existing` (decoded from a frame) is the item `desired`.
    /// Pictures compare by what they are and where their bytes lie, not by
    /// the URL spelling they were read through.
    static func same(_ existing: MetadataItem, _ desired: MetadataItem) -> Bool {
        guard case .picture(let a) = existing.value, case .picture(let b) = desired.value else {
            return existing == desired
        }
        guard existing.key == desired.key, existing.dataType == desired.dataType, existing.language == desired.language,
              a.mimeType == b.mimeType, a.pictureType == b.pictureType, a.description == b.description,
              a.byteCount == b.byteCount else { return false }
        if case .file(let leftURL, let left) = a.storage, case .file(let rightURL, let right) = b.storage {
            return left == right && leftURL.standardizedFileURL.path == rightURL.standardizedFileURL.path
        }
        return a == b
    }

    /// A whole tag: header (no flags, ID3v2.4.0 structure §3.1), `frames`,
    /// then `padding` zero bytes (§3.3).
    static func tag(frames: [UInt8], version: UInt8, padding: Int) throws -> [UInt8] {
        let size = frames.count + padding
        guard size <= Int(ID3v2Header.maximumSize) else {
            throw MediaError(.invalidValue, "the ID3v2 tag would be \(size) bytes; it holds at most \(ID3v2Header.maximumSize)")
        }
        var writer = ByteWriter(capacity: size + ID3v2Header.length)
        writer.write(Array("ID3".utf8) + [version, 0, 0])
        writer.writeSyncSafe(UInt32(size))
        writer.write(frames)
        writer.write(repeatElement(0, count: padding))
        return writer.bytes
    }
}
