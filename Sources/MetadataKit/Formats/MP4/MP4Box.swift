#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The header of one box (ISO/IEC 14496-12 §4.2 "Object Structure"; QTFF
/// "Atoms"), with where the box lies in the file.
///
/// ```
/// u32 size          total size incl. this header; 1 = a u64 largesize follows
///                   the type; 0 = the box runs to the end of its container
/// u32 type
/// [u64 largesize]
/// [u8[16] usertype] only when type == 'uuid'
/// ```
struct MP4BoxHeader: Sendable, Hashable {
    /// The box type.
    var type: FourCC
    /// File offset of the first byte of the box.
    var offset: Int64
    /// Bytes of header: 8, 16 with a largesize, 16 more for `uuid`.
    var headerSize: Int
    /// Total size of the box, header included.
    var size: Int64
    /// The 16-byte extended type of a `uuid` box.
    var userType: [UInt8]?

    /// File offset of the first payload byte.
    var payloadOffset: Int64 { offset + Int64(headerSize) }
    /// Payload bytes (size minus header).
    var payloadSize: Int64 { size - Int64(headerSize) }
    /// File offset just past the box.
    var end: Int64 { offset + size }
}

extension MP4BoxHeader {
    /// Parses the header at `offset` of a container that ends at `containerEnd`.
    ///
    /// `bytes` holds the bytes available at `offset` (up to 32, fewer near the
    /// container's end). `isTopLevel` selects the error for a box that runs
    /// past its end: `truncated` (the file was cut) at the top level,
    /// `sizeOutOfRange` (a child larger than its parent) below it.
    init(parsing bytes: UnsafeRawBufferPointer, at offset: Int64, containerEnd: Int64, isTopLevel: Bool) throws {
        let available = containerEnd - offset
        let overrun: MediaError.Code = isTopLevel ? .truncated : .sizeOutOfRange
        guard available >= 8, bytes.count >= 8 else {
            throw MediaError(overrun, "box header needs 8 bytes, \(max(0, available)) left in its container", offset: offset)
        }
        func uint32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
        }
        let size32 = uint32(0)
        let type = FourCC(uint32(4))
        var headerSize = 8
        var size: Int64
        switch size32 {
        case 1:
            guard available >= 16, bytes.count >= 16 else {
                throw MediaError(overrun, "box '\(type)' has a largesize but its container ends first", offset: offset)
            }
            let large = UInt64(uint32(8)) << 32 | UInt64(uint32(12))
            headerSize = 16
            guard large >= 16 else {
                throw MediaError(.malformed, "box '\(type)' has largesize \(large), smaller than its header", offset: offset)
            }
            guard large <= UInt64(available) else {
                throw MediaError(
                    overrun, "box '\(type)' of \(large) bytes runs past its container (\(available) bytes left)", offset: offset)
            }
            size = Int64(large)
        case 0:
            size = available
        default:
            guard size32 >= 8 else {
                throw MediaError(.malformed, "box '\(type)' has size \(size32), smaller than its header", offset: offset)
            }
            size = Int64(size32)
            guard size <= available else {
                throw MediaError(
                    overrun, "box '\(type)' of \(size) bytes runs past its container (\(available) bytes left)", offset: offset)
            }
        }
        var userType: [UInt8]?
        if type == "uuid" {
            guard size >= Int64(headerSize + 16), bytes.count >= headerSize + 16 else {
                throw MediaError(.malformed, "'uuid' box too small for its extended type", offset: offset)
            }
            userType = Array(bytes[headerSize..<headerSize + 16])
            headerSize += 16
        }
        self.init(type: type, offset: offset, headerSize: headerSize, size: size, userType: userType)
    }

    /// Parses the header at `offset` of `source`, in a container ending at
    /// `containerEnd` (see ``init(parsing:at:containerEnd:isTopLevel:)``).
    init(parsing source: FileSource, at offset: Int64, containerEnd: Int64, isTopLevel: Bool = false) throws {
        let count = Int(max(0, min(32, min(containerEnd, source.size) - offset)))
        guard count > 0 else {
            try self.init(
                parsing: UnsafeRawBufferPointer(start: nil, count: 0), at: offset, containerEnd: containerEnd, isTopLevel: isTopLevel)
            return
        }
        self = try source.withBytes(at: offset, count: count) {
            try MP4BoxHeader(parsing: $0, at: offset, containerEnd: containerEnd, isTopLevel: isTopLevel)
        }
    }
}

/// Limits that keep hostile files from nesting or looping without end.
enum MP4Limits {
    /// Deepest container nesting the parser descends into.
    static let maxDepth = 32
    /// Most children read from one container.
    static let maxChildren = 100_000
    /// Most boxes of one movie box tree.
    static let maxTreeBoxes = 1_000_000
}

/// Box walking over a ``FileSource``: headers only, payloads left on disk.
extension FileSource {
    /// The headers of the boxes in `start..<end`, in file order.
    ///
    /// Every child must fit in the range; a tail of fewer than 8 bytes is
    /// accepted when it is all zeros (QuickTime ends some atom lists with a
    /// 32-bit zero terminator) and is an error otherwise.
    func mp4Children(from start: Int64, to end: Int64, depth: Int) throws -> [MP4BoxHeader] {
        let walk = try mp4ReadableChildren(from: start, to: end, depth: depth)
        if let damage = walk.damage { throw damage.error }
        return walk.headers
    }

    /// The children of `start..<end` up to the first one that can't be read,
    /// and where that one starts with why (the bytes from there to `end` are
    /// the container's damaged tail). Only the limits (depth, box count)
    /// throw.
    ///
    /// With `clipping`, a child that runs past `end` is cut to end there (the
    /// container itself was cut short, as ffmpeg reads such boxes); each cut
    /// box is listed in `clipped`.
    func mp4ReadableChildren(from start: Int64, to end: Int64, depth: Int, clipping: Bool = false) throws -> MP4ChildWalk {
        guard depth <= MP4Limits.maxDepth else {
            throw MediaError(.tooDeep, "boxes nested deeper than \(MP4Limits.maxDepth) levels", offset: start)
        }
        var walk = MP4ChildWalk()
        var offset = start
        if offset < end { walk.headers.reserveCapacity(8) } // grown from empty it takes four allocations to reach eight
        while offset < end {
            if end - offset < 8 {
                let tail = try getBytes(at: offset, count: Int(end - offset))
                if !tail.allSatisfy({ $0 == 0 }) {
                    walk.damage = (
                        offset, MediaError(.malformed, "\(end - offset) stray bytes after the last box of a container", offset: offset)
                    )
                }
                break
            }
            guard walk.headers.count < MP4Limits.maxChildren else {
                throw MediaError(.sizeOutOfRange, "more than \(MP4Limits.maxChildren) boxes in one container", offset: offset)
            }
            var header: MP4BoxHeader
            do {
                header = try MP4BoxHeader(parsing: self, at: offset, containerEnd: end)
            } catch let error as MediaError {
                guard clipping, error.code == .sizeOutOfRange,
                    var whole = try? MP4BoxHeader(parsing: self, at: offset, containerEnd: Int64.max / 2),
                    end - offset >= Int64(whole.headerSize)
                else {
                    walk.damage = (offset, error)
                    break
                }
                whole.size = end - offset
                header = whole
                walk.clipped.append(header)
            }
            walk.headers.append(header)
            offset = header.end
        }
        return walk
    }

    /// The child boxes of `box`'s payload.
    func mp4Children(of box: MP4BoxHeader, skipping prefix: Int64 = 0, depth: Int) throws -> [MP4BoxHeader] {
        guard prefix <= box.payloadSize else {
            throw MediaError(.malformed, "box '\(box.type)' is too small for its fields", offset: box.offset)
        }
        return try mp4Children(from: box.payloadOffset + prefix, to: box.end, depth: depth)
    }

    /// A reader over the payload of `box` (which is known to fit in the file).
    func mp4Payload(of box: MP4BoxHeader) throws -> ByteReader {
        try reader(at: box.payloadOffset, count: Int(box.payloadSize))
    }

    /// A reader over at most `limit` bytes at the start of `box`'s payload, for
    /// boxes whose tail is not needed (sample tables, reserved fields).
    func mp4Payload(of box: MP4BoxHeader, upTo limit: Int) throws -> ByteReader {
        try reader(at: box.payloadOffset, count: Int(min(Int64(limit), box.payloadSize)))
    }
}

/// A box and, when it is a container the reader descends into, its children.
struct MP4Box: Sendable {
    var header: MP4BoxHeader
    var children: [MP4Box] = []
    /// Where the bytes after the last readable child begin, when a child
    /// could not be read (they run to the end of the box and are kept as
    /// they are by a save). Only the metadata containers are read this way.
    var damagedTailOffset: Int64?
    /// True when the box's size ran past its container and it was cut there.
    var isClipped = false

    var type: FourCC { header.type }

    /// The first child of `type`.
    func child(_ type: FourCC) -> MP4Box? {
        children.first { $0.type == type }
    }

    /// Every child of `type`, in file order.
    func children(_ type: FourCC) -> [MP4Box] {
        children.filter { $0.type == type }
    }

    /// The damaged tail as a node to write back unchanged.
    var damagedTail: MP4Node? {
        damagedTailOffset.map { .originalBytes(offset: $0, length: header.end - $0) }
    }

    /// The first box along `path` of child types.
    func descendant(_ path: FourCC...) -> MP4Box? {
        var box = self
        for type in path {
            guard let next = box.child(type) else { return nil }
            box = next
        }
        return box
    }
}
