#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Builds the frames of a new ID3v2.3 or v2.4 tag from the desired `.id3`
/// items and the frames the file already has.
///
/// Each desired item is matched against the existing frames (a multiset
/// match: every frame serves at most one item, the first unused frame whose
/// decoded item equals the item wins). A matched frame is then written:
/// 1. **byte for byte** from the file when its tag has the target version and
///    is not unsynchronised as a whole — so unknown, private, compressed,
///    encrypted, grouped and empty frames, frames that could not be decoded
///    (an invalid ID, a broken compressed payload) and v2.2 IDs inside a v2.3
///    tag keep their bytes and flags;
/// 2. otherwise, for `POPM` and `GEOB` whose payload is stored plainly, as
///    the file's payload under a new header (their items don't hold every
///    field: the play counter, the MIME type and file name);
/// 3. otherwise encoded from its item (``ID3v2FrameEncoder``), with its
///    language and, where the version allows, its values as read.
///
/// A frame that can only be written as stored (encrypted, not decoded) but
/// would have to change — the version changes, or its tag was unsynchronised
/// as a whole — makes the save **fail** with `unsupportedFeature` before
/// anything is written, and so does a v2.2 frame with no v2.3/v2.4
/// equivalent: a save never writes fewer frames than it read, except those
/// whose items were removed. The same holds for ``unparsed`` bytes.
///
/// Items with no matching frame (new or edited values) are encoded. The
/// writer never sets tag-level unsynchronisation, compression, an extended
/// header or a footer (ID3v2.4.0 structure §3), nor frame flags on frames it
/// encodes.
struct ID3v2TagWriter {
    let source: FileSource
    /// 3 or 4.
    let version: UInt8
    /// The frames of the file's tags, leading tag first.
    let existing: [ID3v2FrameRecord]
    /// The bytes of the leading tag that could not be walked
    /// (``ID3v2Tag/unparsed``), written after the frames as they are.
    var unparsed: (range: Range<Int64>, version: UInt8, isCopyable: Bool)?

    init(source: FileSource, version: UInt8, existing: [ID3v2FrameRecord]) {
        self.source = source
        self.version = version
        self.existing = existing
    }

    /// A writer for the frames of `tag` (its frames and its unparsed bytes).
    init(source: FileSource, version: UInt8, tag: ID3v2Tag) {
        self.init(source: source, version: version, existing: tag.frames)
        unparsed = tag.unparsed.map { ($0, tag.header.majorVersion, tag.isCopyable) }
    }

    /// The concatenated frames for `items` (the `.id3` items are used).
    /// - Throws: `invalidValue` for an item that can't be a frame;
    ///   `unsupportedFeature` for a frame the save can't keep (see above).
    func frames(for items: [MetadataItem]) throws -> [UInt8] {
        var used = [Bool](repeating: false, count: existing.count)
        var entries: [ID3v2FrameMapping.Entry] = []
        for item in items where item.keySpace == .id3 {
            let match = existing.indices.first { index in
                !used[index] && existing[index].item.map { Self.same($0, item) } == true
            }
            if let match {
                used[match] = true
                let record = existing[match]
                if record.isRaw || record.isEncrypted || (record.isLegacyID && canCopy(record)) {
                    if let problem = obstacle(record) { throw problem }
                    entries.append(.init(id: record.id, item: item, original: item, record: match))
                    continue
                }
            }
            let id = ID3v2FrameEncoder.split(item.key).id
            guard let target = try ID3v2FrameMapping.targetID(id, item: item) else {
                throw MediaError(
                    .unsupportedFeature,
                    "the ID3v2.2 frame '\(id)' has no ID3v2.\(version) equivalent; "
                        + "remove the item 'id3:\(item.key)' to save", offset: match.map { existing[$0].range.lowerBound })
            }
            var renamed = item
            if target != id { renamed.key = target + item.key.dropFirst(id.count) }
            entries.append(.init(id: target, item: renamed, original: item, record: match))
        }
        entries = ID3v2FrameMapping.convertDates(entries, version: version)

        var output: [UInt8] = []
        for entry in entries {
            if let index = entry.record, let bytes = try copy(existing[index], as: entry.id) {
                output += bytes
                continue
            }
            if entry.record == nil, entry.id == "POPM", let counter = try playCounter(for: entry.original),
                case .integer(let rating) = entry.item.value, (0...255).contains(rating)
            {
                // A changed rating keeps the frame's play counter.
                let email = ID3v2FrameEncoder.split(entry.item.key).description ?? ""
                output += try ID3v2FrameEncoder.frame(
                    id: "POPM", payload: ID3v2FrameEncoder.latin1(email) + [0, UInt8(rating)] + counter, version: version)
                continue
            }
            // An unchanged frame converted to another version keeps its encoding where it can.
            output += try ID3v2FrameEncoder.frame(id: entry.id, item: entry.item, version: version, keepingEncoding: entry.record != nil)
        }
        if let unparsed {
            guard unparsed.version == version, unparsed.isCopyable else {
                throw MediaError(
                    .unsupportedFeature,
                    "\(unparsed.range.count) bytes of the ID3v2.\(unparsed.version) tag could not be read as frames; "
                        + "they are kept only in a v2.\(unparsed.version) tag that is not unsynchronised", offset: unparsed.range.lowerBound
                )
            }
            output += try source.getBytes(at: unparsed.range.lowerBound, count: Int(unparsed.range.count))
        }
        guard output.count <= Int(ID3v2Header.maximumSize) else {
            throw MediaError(.invalidValue, "the ID3v2 tag would be \(output.count) bytes; it holds at most \(ID3v2Header.maximumSize)")
        }
        return output
    }

    /// Whether the frame's bytes can go into the new tag unchanged.
    private func canCopy(_ record: ID3v2FrameRecord) -> Bool {
        record.version == version && record.isCopyable
    }

    /// Why a frame that can only be written as stored can't be kept; nil when it can.
    func obstacle(_ record: ID3v2FrameRecord) -> MediaError? {
        guard record.isRaw || record.isEncrypted, !canCopy(record) else { return nil }
        let what = record.isEncrypted ? "encrypted" : "could not be decoded and"
        let reason =
            record.version != version
            ? "it is kept only in an ID3v2.\(record.version) tag, and this save writes v2.\(version)"
            : "its tag is unsynchronised as a whole"
        return MediaError(
            .unsupportedFeature,
            "frame '\(ID3v2TagParser.printable(record.id))' is \(what) can't be rewritten: \(reason); "
                + "keep the version, or remove the item 'id3:\(record.item?.key ?? record.id)' to save",
            offset: record.range.lowerBound)
    }

    /// The first problem a save keeping every existing frame would meet,
    /// without building the frames (for ``ParsedFile/isEditable``).
    func obstacleKeepingEveryFrame() -> MediaError? {
        // Nearly every tag has no frame the loop below would look at: say so
        // without copying each record (this runs on every read).
        guard unparsed != nil || existing.contains(where: { $0.isRaw || $0.isEncrypted || $0.id.utf8.count == 3 }) else {
            return nil
        }
        do {
            for record in existing {
                if let problem = obstacle(record) { throw problem }
                if record.id.utf8.count == 3, !(record.isLegacyID && canCopy(record)), let item = record.item,
                    try ID3v2FrameMapping.targetID(record.id, item: item) == nil
                {
                    throw MediaError(
                        .unsupportedFeature, "the ID3v2.2 frame '\(record.id)' has no ID3v2.\(version) equivalent",
                        offset: record.range.lowerBound)
                }
            }
            if let unparsed, unparsed.version != version || !unparsed.isCopyable {
                throw MediaError(
                    .unsupportedFeature, "bytes of the ID3v2 tag that could not be read can't be kept", offset: unparsed.range.lowerBound)
            }
            return nil
        } catch {
            return error as? MediaError
        }
    }

    /// The frame's bytes taken from the file (cases 1 and 2 above); nil when
    /// it must be encoded from its item.
    private func copy(_ record: ID3v2FrameRecord, as id: String) throws -> [UInt8]? {
        if canCopy(record), record.id == id || record.isRaw || record.isLegacyID || record.isEncrypted {
            return try source.getBytes(at: record.range.lowerBound, count: Int(record.range.count))
        }
        if ["POPM", "GEOB"].contains(id), let payload = record.plainPayload {
            return try ID3v2FrameEncoder.frame(
                id: id, payload: try source.getBytes(at: payload.lowerBound, count: Int(payload.count)),
                version: version)
        }
        return nil
    }

    /// The play counter (ID3v2.4.0 frames §4.17: the bytes after the rating)
    /// of the file's `POPM` frame with the e-mail of `item`; nil when there
    /// is none or it has no counter.
    private func playCounter(for item: MetadataItem) throws -> [UInt8]? {
        guard
            let record = existing.first(where: {
                ($0.id == "POPM" || $0.id == "POP") && !$0.isRaw && $0.plainPayload != nil && $0.item?.key == item.key
            }), let range = record.plainPayload
        else { return nil }
        let payload = try source.getBytes(at: range.lowerBound, count: Int(range.count))
        guard let zero = payload.firstIndex(of: 0), zero + 2 < payload.count else { return nil }
        return Array(payload[(zero + 2)...])
    }

    /// Whether `existing` (decoded from a frame) is the item `desired`.
    /// Pictures compare by what they are and where their bytes lie: the same
    /// file by device and inode, not by the URL spelling they were read
    /// through (another case on APFS, a hard link).
    static func same(_ existing: MetadataItem, _ desired: MetadataItem) -> Bool {
        guard case .picture(let a) = existing.value, case .picture(let b) = desired.value else {
            return existing == desired
        }
        guard existing.key == desired.key, existing.dataType == desired.dataType, existing.language == desired.language,
            a.mimeType == b.mimeType, a.pictureType == b.pictureType, a.description == b.description,
            a.byteCount == b.byteCount
        else { return false }
        if case .file(let leftURL, let left) = a.storage, case .file(let rightURL, let right) = b.storage {
            return left == right && Platform.isSameFile(leftURL, rightURL)
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
        writer.write(zeros: padding)
        return writer.bytes
    }
}
