#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Walks the children of an EBML master element held in memory.
///
/// Forgiving: a child whose size runs past its parent, an unknown size
/// inside a small master, or a header that can't be read ends the walk with
/// a warning; what came before is kept. Nesting deeper than ``maximumDepth``
/// is refused by the callers that recurse (SimpleTag, ChapterAtom).
enum EBMLChildren {
    /// Nested masters deeper than this are damage (Matroska's deepest
    /// legitimate nesting is a few levels; nested SimpleTags and
    /// ChapterAtoms are the only recursive ones).
    static let maximumDepth = 32

    /// Each child's header and a reader over its data.
    static func list(_ reader: ByteReader, warnings: inout [MediaWarning]) -> [(EBMLElement, ByteReader)] {
        var children: [(EBMLElement, ByteReader)] = []
        var reader = reader
        while !reader.isAtEnd {
            let header: EBMLElement
            do {
                header = try EBMLElement(parsing: &reader)
            } catch let error as MediaError {
                warnings.append(
                    MediaWarning(
                        error.code, "unreadable EBML element (\(error.reason)); the rest of its parent is skipped", offset: error.offset))
                return children
            } catch {
                return children
            }
            let size = header.dataSize.map { Int($0) } ?? reader.remaining
            if header.dataSize == nil {
                warnings.append(
                    MediaWarning(
                        .malformed,
                        "element 0x\(String(header.id, radix: 16)) of unknown size inside a master of known size; read to its parent's end",
                        offset: header.offset))
            }
            guard size <= reader.remaining else {
                warnings.append(
                    MediaWarning(
                        .sizeOutOfRange,
                        "element 0x\(String(header.id, radix: 16)) of \(size) bytes runs past its parent (\(reader.remaining) left); skipped",
                        offset: header.offset))
                return children
            }
            guard let child = try? reader.readReader(count: size) else { return children }
            children.append((header, child))
        }
        return children
    }

    /// The bytes of a child's data.
    static func bytes(_ reader: ByteReader) -> ArraySlice<UInt8> {
        var copy = reader
        return copy.readRemainingBytes()[...]
    }

    static func unsigned(_ reader: ByteReader) -> UInt64? { EBML.unsigned(bytes(reader)) }
    static func float(_ reader: ByteReader) -> Double? { EBML.float(bytes(reader)) }
    static func string(_ reader: ByteReader) -> String { EBML.string(bytes(reader)) }
}
