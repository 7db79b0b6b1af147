/// A box of the file being written: copied from the original, new bytes, or
/// a container rebuilt from children. Sizes are computed, never patched.
indirect enum MP4Node {
    /// The box as it is in the original file.
    case original(MP4BoxHeader)
    /// Bytes of the original file that are not a box that could be read (a
    /// container's damaged tail), copied as they are.
    case originalBytes(offset: Int64, length: Int64)
    /// A complete new box.
    case bytes([UInt8])
    /// A container with a new header; `prefix` holds the bytes before its first
    /// child (a FullBox's version and flags, a sample entry's fields).
    case container(FourCC, prefix: [UInt8], children: [MP4Node])

    var size: Int64 {
        switch self {
        case .original(let header): return header.size
        case .originalBytes(_, let length): return length
        case .bytes(let bytes): return Int64(bytes.count)
        case .container(_, let prefix, let children):
            let payload = Int64(prefix.count) + children.reduce(0) { $0 + $1.size }
            return payload + MP4MetadataEncoder.headerSize(payloadSize: payload)
        }
    }

    /// The node as runs of the original file and new bytes.
    var segments: [FileEditPlan.Segment] {
        switch self {
        case .original(let header): return [.original(offset: header.offset, length: header.size)]
        case .originalBytes(let offset, let length): return [.original(offset: offset, length: length)]
        case .bytes(let bytes): return [.bytes(bytes)]
        case .container(let type, let prefix, let children):
            var writer = ByteWriter()
            let payload = Int64(prefix.count) + children.reduce(0) { $0 + $1.size }
            MP4MetadataEncoder.writeHeader(type, payloadSize: payload, into: &writer)
            writer.write(prefix)
            return [.bytes(writer.bytes)] + children.flatMap(\.segments)
        }
    }

    /// True when the node is the original box, unchanged.
    var isOriginal: Bool {
        switch self {
        case .original, .originalBytes: return true
        default: return false
        }
    }
}

extension FileEditPlan {
    /// Same-size patches that turn the bytes at `start` into `segments`: runs of
    /// the original that land where they already are need no write.
    static func patches(writing segments: [Segment], at start: Int64, source: FileSource) throws -> [(offset: Int64, bytes: [UInt8])] {
        var patches: [(offset: Int64, bytes: [UInt8])] = []
        var position = start
        for segment in segments {
            switch segment {
            case .original(let offset, _) where offset == position:
                break
            case .original(let offset, let length):
                patches.append((position, try source.getBytes(at: offset, count: Int(length))))
            case .bytes(let bytes):
                if let last = patches.last, last.offset + Int64(last.bytes.count) == position {
                    patches[patches.count - 1].bytes += bytes
                } else {
                    patches.append((position, bytes))
                }
            }
            position += segment.length
        }
        return patches
    }
}
