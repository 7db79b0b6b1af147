import MetadataKitBytes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a save changes in a file, decided by a format writer before any byte
/// is written.
///
/// Either a set of same-size patches (the layout stays; only bytes inside
/// existing structures change), or a new layout made of runs of the original
/// file and new bytes.
package enum FileEditPlan: Sendable {
    /// A run of the new file: `length` bytes of the original file from
    /// `offset`, or new bytes (the runs a ``FileSource`` can be made of, so a
    /// plan can be read before it is written).
    package typealias Segment = FileSource.Run

    /// Bytes to overwrite at offsets inside the file; the size is unchanged.
    case inPlace([(offset: Int64, bytes: [UInt8])])
    /// The file's new contents, as a list of segments.
    case rewrite([Segment])
    /// Same-size `patches` before `offset`, and everything from `offset` to
    /// the end replaced by `bytes` (the file grows or shrinks); done in place
    /// with the patched bytes and the old tail in the undo journal. For a movie
    /// box at the end of an MP4 (no patches), and RIFF and AIFF files whose tags
    /// follow the audio (the container size field at the start is a patch).
    case patchedTail(patches: [(offset: Int64, bytes: [UInt8])], offset: Int64, bytes: [UInt8])

    /// Everything from `offset` to the end replaced by `bytes`, nothing before it.
    package static func tail(offset: Int64, bytes: [UInt8]) -> FileEditPlan {
        .patchedTail(patches: [], offset: offset, bytes: bytes)
    }

    /// An in-place plan as the writes it makes: the patches (a tail first,
    /// when there is one) and the file's new size (nil: unchanged). Nil for a
    /// rewrite.
    var inPlaceWrites: (patches: [(offset: Int64, bytes: [UInt8])], newSize: Int64?)? {
        switch self {
        case .rewrite: return nil
        case .inPlace(let patches): return (patches, nil)
        case .patchedTail(let patches, let offset, let bytes): return ([(offset, bytes)] + patches, offset + Int64(bytes.count))
        }
    }

    /// The new bytes the plan holds in memory (patches, tails, new segments).
    package var newByteCount: Int {
        switch self {
        case .inPlace(let patches): return patches.reduce(0) { $0 + $1.bytes.count }
        case .patchedTail(let patches, _, let bytes): return patches.reduce(bytes.count) { $0 + $1.bytes.count }
        case .rewrite(let segments):
            return segments.reduce(0) { total, segment in
                if case .bytes(let bytes) = segment { return total + bytes.count }
                return total
            }
        }
    }

    /// The size of the file after the edit, given its current size.
    package func newSize(originalSize: Int64) -> Int64 {
        switch self {
        case .inPlace: return originalSize
        case .patchedTail(_, let offset, let bytes): return offset + Int64(bytes.count)
        case .rewrite(let segments): return segments.reduce(0) { $0 + $1.length }
        }
    }

    /// For a rewrite: where the new file first differs from the original (the
    /// end of its leading run of original bytes in place) and the segments
    /// from there on. Nil for other plans.
    func divergence() -> (offset: Int64, rest: ArraySlice<Segment>)? {
        guard case .rewrite(let segments) = self else { return nil }
        var position: Int64 = 0
        var index = segments.startIndex
        while index < segments.endIndex, case .original(let offset, let length) = segments[index], offset == position {
            position += length
            index += 1
        }
        return (position, segments[index...])
    }

    /// The bytes of `segments`, read from `source` where they are original.
    package static func materialize(_ segments: [Segment], source: FileSource) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for segment in segments {
            switch segment {
            case .original(let offset, let length): bytes += try source.getBytes(at: offset, count: Int(length))
            case .bytes(let run): bytes += run
            }
        }
        return bytes
    }

    /// The part of `bytes` (to be written at `offset`) that differs from the
    /// file, as a patch; nil when nothing differs; all of `bytes` when the
    /// file ends before them. Keeps the undo journal and the writes small
    /// when, say, only a title changes before a large picture.
    package static func changedPatch(of bytes: [UInt8], at offset: Int64, in source: FileSource) throws -> (offset: Int64, bytes: [UInt8])?
    {
        guard !bytes.isEmpty else { return nil }
        let old = try source.getAvailableBytes(at: offset, count: bytes.count)
        guard old.count == bytes.count else { return (offset, bytes) }
        guard let first = bytes.indices.first(where: { bytes[$0] != old[$0] }),
            let last = bytes.indices.last(where: { bytes[$0] != old[$0] })
        else { return nil }
        return (offset + Int64(first), Array(bytes[first...last]))
    }

    /// Merges neighbouring segments of the original so copies are as long as possible.
    package static func coalesced(_ segments: [Segment]) -> [Segment] {
        var result: [Segment] = []
        for segment in segments where segment.length > 0 {
            if case .original(let offset, let length) = segment,
                case .original(let lastOffset, let lastLength)? = result.last, lastOffset + lastLength == offset
            {
                result[result.count - 1] = .original(offset: lastOffset, length: lastLength + length)
            } else if case .bytes(let bytes) = segment, case .bytes(let last)? = result.last {
                result[result.count - 1] = .bytes(last + bytes)
            } else {
                result.append(segment)
            }
        }
        return result
    }
}

extension FileEditPlan {
    /// The plan as a full list of segments (patches become byte runs).
    package func segments(originalSize: Int64) -> [Segment] {
        switch self {
        case .rewrite(let segments): return segments
        case .patchedTail(let patches, let offset, let bytes):
            return FileEditPlan.inPlace(patches).segments(originalSize: offset) + [.bytes(bytes)]
        case .inPlace(let patches):
            var segments: [Segment] = []
            var position: Int64 = 0
            for patch in patches.sorted(by: { $0.offset < $1.offset }) {
                segments.append(.original(offset: position, length: patch.offset - position))
                segments.append(.bytes(patch.bytes))
                position = patch.offset + Int64(patch.bytes.count)
            }
            segments.append(.original(offset: position, length: originalSize - position))
            return FileEditPlan.coalesced(segments)
        }
    }
}
