#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The new chunk list of a RIFF or AIFF file being saved, and the cheapest
/// edit that produces it.
///
/// Writers list the chunks of the new file: original chunks (copied byte for
/// byte, in their order) and new chunk bytes (the rebuilt tags). The list is
/// turned into segments of the new file, and ``IFFEditPlanner`` picks:
/// - same-size patches when the audio chunk keeps its offset and the file its
///   size (only the changed bytes are written);
/// - a journaled in-place tail edit (``FileEditPlan/patchedTail(patches:offset:bytes:)``)
///   when the audio chunk keeps its offset and only chunks after it change
///   size — the usual case for an `id3 ` chunk at the end of a WAV;
/// - a rewrite through a temporary file otherwise.
struct IFFLayout {
    enum Element {
        case original(IFFChunk)
        case new([UInt8])

        var length: Int64 {
            switch self {
            case .original(let chunk): return chunk.end - chunk.offset
            case .new(let bytes): return Int64(bytes.count)
            }
        }
    }

    var elements: [Element]
    /// Offset of the first chunk (after the 12-byte container header).
    static let firstChunkOffset: Int64 = 12

    init(_ chunks: [IFFChunk]) {
        elements = chunks.map(Element.original)
    }

    /// The index of the original chunk that starts at `offset`.
    func index(of chunk: IFFChunk) -> Int? {
        elements.firstIndex { if case .original(let c) = $0 { return c == chunk } else { return false } }
    }

    /// Puts `bytes` (a new chunk; nil: nothing) in the place of the first of
    /// the `old` chunks — at the end when there are none — and drops the
    /// others. Returns the chunk replaced in place, if any.
    @discardableResult
    mutating func replace(_ old: [IFFChunk], with bytes: [UInt8]?) -> IFFChunk? {
        var replaced: IFFChunk?
        if let first = old.first, let index = index(of: first) {
            replaced = first
            if let bytes { elements[index] = .new(bytes) } else { elements.remove(at: index) }
        } else if let bytes {
            elements.append(.new(bytes))
        }
        for chunk in old.dropFirst() {
            if let index = index(of: chunk) { elements.remove(at: index) }
        }
        return replaced
    }

    /// Where the element at `index` starts in the new file.
    func newOffset(ofElementAt index: Int) -> Int64 {
        elements[..<index].reduce(Self.firstChunkOffset) { $0 + $1.length + pad(after: $1, isLast: false) }
    }

    /// A chunk of odd size that had no pad byte (it was last) gets one when
    /// something follows it.
    private func pad(after element: Element, isLast: Bool) -> Int64 {
        if case .original(let chunk) = element, chunk.size & 1 == 1, !chunk.hasPadByte, !isLast { return 1 }
        return 0
    }

    /// Bytes of all chunks (the container's payload after its form type).
    var chunksLength: Int64 {
        elements.enumerated().reduce(0) { $0 + $1.element.length + pad(after: $1.element, isLast: $1.offset == elements.count - 1) }
    }

    /// Segments of the chunks, from ``firstChunkOffset`` on.
    var segments: [FileEditPlan.Segment] {
        var segments: [FileEditPlan.Segment] = []
        for (index, element) in elements.enumerated() {
            switch element {
            case .original(let chunk): segments.append(.original(offset: chunk.offset, length: chunk.end - chunk.offset))
            case .new(let bytes): segments.append(.bytes(bytes))
            }
            if pad(after: element, isLast: index == elements.count - 1) == 1 { segments.append(.bytes([0])) }
        }
        return segments
    }

    /// Resizes a padding chunk before `audio` (one of `paddingIDs`, not `protected`)
    /// so that `audio` keeps its offset. Returns false when no padding chunk can absorb the change.
    mutating func absorbShift(
        of audio: IFFChunk, paddingIDs: Set<FourCC>, endianness: Endianness,
        protected: (IFFChunk) -> Bool = { _ in false }
    ) throws -> Bool {
        guard let audioIndex = index(of: audio) else { return false }
        let shift = newOffset(ofElementAt: audioIndex) - audio.offset
        if shift == 0 { return true }
        for index in stride(from: audioIndex - 1, through: 0, by: -1) {
            guard case .original(let chunk) = elements[index], paddingIDs.contains(chunk.id), !protected(chunk),
                chunk.hasPadByte
            else { continue }
            let total = chunk.end - chunk.offset - shift
            if total == 0 {
                elements.remove(at: index)
                return true
            }
            guard total >= IFFChunk.headerLength, total & 1 == 0 else { return false }
            elements[index] = .new(try IFFChunkBuilder.chunk(chunk.id, [UInt8](repeating: 0, count: Int(total - 8)), endianness))
            return true
        }
        return false
    }

    /// Grows the new padding chunk at `paddingIndex` (a chunk of `id`, all
    /// zeros) so that `audio` moves up by a whole number of `block`s: the save
    /// can then insert file system blocks before the audio instead of moving
    /// it (``FileEditor/insertionForm(of:size:in:url:)``). Nothing changes
    /// when the audio doesn't move up or the padding is not before it.
    mutating func alignShift(
        of audio: IFFChunk, paddingAt paddingIndex: Int, id: FourCC, block: Int64, endianness: Endianness
    ) throws {
        guard let audioIndex = index(of: audio), paddingIndex < audioIndex, block > 0, block % 2 == 0,
            case .new(let padding) = elements[paddingIndex], padding.count >= IFFChunk.headerLength
        else { return }
        let shift = newOffset(ofElementAt: audioIndex) - audio.offset
        let extra = (block - shift % block) % block
        // Chunks are even-sized, so the shift is even; an odd one (a damaged file) stays as it is.
        guard shift > 0, extra > 0, extra % 2 == 0 else { return }
        let payload = padding.count - Int(IFFChunk.headerLength) + Int(extra)
        elements[paddingIndex] = .new(try IFFChunkBuilder.chunk(id, [UInt8](repeating: 0, count: payload), endianness))
    }
}

/// Chooses between in-place patches, a journaled tail edit and a rewrite.
enum IFFEditPlanner {
    /// Most bytes read into memory for patches or a tail; more means a rewrite.
    static let maximumInMemory: Int64 = 64 << 20

    /// The plan that turns the file read through `source` into `segments`,
    /// keeping the bytes in `audio` where they are when it can.
    static func plan(_ segments: [FileEditPlan.Segment], source: FileSource, audio: Range<Int64>?) throws -> FileEditPlan {
        let segments = FileEditPlan.coalesced(segments)
        let newSize = segments.reduce(0) { $0 + $1.length }
        // Is every audio byte at its old offset?
        var audioKept = audio == nil
        var position: Int64 = 0
        for segment in segments {
            if case .original(let offset, let length) = segment, offset == position, let audio,
                offset <= audio.lowerBound, audio.upperBound <= offset + length
            {
                audioKept = true
            }
            position += segment.length
        }
        let fixedEnd = audio?.lowerBound ?? 0
        guard audioKept else { return .rewrite(segments) }

        var patches: [(offset: Int64, bytes: [UInt8])] = []
        var inMemory: Int64 = 0
        position = 0
        for (index, segment) in segments.enumerated() {
            defer { position += segment.length }
            if case .original(let offset, _) = segment, offset == position { continue }
            if newSize == source.size || position + segment.length <= fixedEnd {
                inMemory += segment.length
                guard inMemory <= maximumInMemory else { return .rewrite(segments) }
                if let patch = try FileEditPlan.changedPatch(
                    of: try FileEditPlan.materialize([segment], source: source),
                    at: position, in: source)
                {
                    patches.append(patch)
                }
                continue
            }
            let rest = Array(segments[index...])
            guard rest.reduce(inMemory, { $0 + $1.length }) <= maximumInMemory else { return .rewrite(segments) }
            let tail = try FileEditPlan.materialize(rest, source: source)
            return .patchedTail(patches: patches, offset: position, bytes: tail)
        }
        if newSize < source.size {
            // Only the old file's end goes (e.g. trailing bytes dropped).
            return .patchedTail(patches: patches, offset: newSize, bytes: [])
        }
        return .inPlace(patches)
    }

    /// The 32-bit container size for a container of `chunksLength` bytes of
    /// chunks (plus the 4-byte form type). A RIFF or FORM size can't exceed
    /// 0xFFFFFFFF: larger files need RF64 (EBU Tech 3306), so this throws
    /// `unsupportedFeature` rather than write a wrapped size.
    static func containerSize(chunksLength: Int64, format: String) throws -> UInt32 {
        let size = chunksLength + 4
        guard size <= Int64(UInt32.max) else {
            throw MediaError(
                .unsupportedFeature,
                "the \(format) file would be \(size + 8) bytes, more than its 32-bit size field can "
                    + "describe (4 GiB); MetadataKit doesn't convert files to RF64")
        }
        return UInt32(size)
    }
}
