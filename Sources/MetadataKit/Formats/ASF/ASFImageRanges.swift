#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where the images of an ASF header's `WM/Picture` values are, so that a
/// read which leaves pictures in the file (``Artwork`` reads them on demand)
/// does not copy them with the header: a cover is most of a tagged WMA
/// file's header.
///
/// The walk reads only the object and attribute heads (ASF Specification
/// §3.1, §3.4, §3.11, §4.7, §4.8) and each picture's head (``ASFPicture``),
/// with the same bounds as ``ASFHeader``: an object or attribute that does
/// not fit ends the walk of its container, so every range it gives is the
/// image of a value that ``ASFHeader`` reads whole, at the same place, over
/// bytes that are the file's.
enum ASFImageRanges {
    /// Images below this size are read with the header.
    static let minimumCount = 4096
    /// Bytes of a picture's value read to find where its image starts.
    static let headCount = 1024

    /// The image ranges (file offsets, sorted) in the header objects between
    /// `start` and `end`.
    static func find(in source: FileSource, from start: Int64, to end: Int64) -> [Range<Int64>] {
        var ranges: [Range<Int64>] = []
        var extensionSeen = false
        forEachObject(in: source, from: start, to: end) { guid, dataStart, objectEnd in
            if guid == .extendedContentDescription {
                attributes(in: source, from: dataStart, to: objectEnd, library: false, into: &ranges)
            } else if guid == .headerExtension, !extensionSeen {
                // Only the first Header Extension's objects are read (as ASFHeader does).
                extensionSeen = true
                // §3.4: 16 + 2 reserved bytes, a 32-bit data size, then objects.
                guard objectEnd - dataStart >= 22, let size = integer(source, at: dataStart + 18, 4),
                    Int64(size) <= objectEnd - dataStart - 22
                else { return }
                forEachObject(in: source, from: dataStart + 22, to: dataStart + 22 + Int64(size)) { guid, innerStart, innerEnd in
                    if guid == .metadata || guid == .metadataLibrary {
                        attributes(in: source, from: innerStart, to: innerEnd, library: true, into: &ranges)
                    }
                }
            }
        }
        return ranges.sorted { $0.lowerBound < $1.lowerBound }
    }

    /// `WM/Picture` in UTF-16LE, without its NUL.
    private static let pictureName = Array(ASFAttribute.encodedText(ASFAttribute.pictureName).dropLast(2))

    /// Whether `name` is `WM/Picture` as ``ASFAttribute/text(_:)`` reads it
    /// (trailing NULs and an odd last byte dropped), without decoding it.
    private static func isPictureName(_ name: UnsafeRawBufferPointer) -> Bool {
        var end = name.count / 2 * 2
        while end >= 2 && name[end - 2] == 0 && name[end - 1] == 0 { end -= 2 }
        return name[..<end].elementsEqual(pictureName)
    }

    /// The little-endian integer of the `count` (at most 8) bytes at
    /// `offset`, from the source's window (no array is made), or nil past
    /// the end.
    private static func integer(_ source: FileSource, at offset: Int64, _ count: Int) -> UInt64? {
        try? source.withBytes(at: offset, count: count) { raw in
            raw.reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
    }

    /// Calls `body` with the GUID, data start and end of each object from
    /// `start` to `end`, stopping at one that does not fit (as
    /// ``ASFObject/objects(in:what:)`` does).
    private static func forEachObject(
        in source: FileSource, from start: Int64, to end: Int64, _ body: (ASFGUID, Int64, Int64) -> Void
    ) {
        var offset = start
        while end - offset >= Int64(ASFObject.headerSize) {
            guard let guid = try? source.withBytes(at: offset, count: 16, { ASFGUID(bytes: $0) }),
                let size = integer(source, at: offset + 16, 8), size >= UInt64(ASFObject.headerSize), size <= UInt64(end - offset)
            else { return }
            body(guid, offset + Int64(ASFObject.headerSize), offset + Int64(size))
            offset += Int64(size)
        }
    }

    /// Appends the image ranges of the `WM/Picture` attributes of an Extended
    /// Content Description (`library` false: §3.11) or a Metadata or Metadata
    /// Library object (§4.7, §4.8) whose data is `start..<end`.
    private static func attributes(
        in source: FileSource, from start: Int64, to end: Int64, library: Bool, into ranges: inout [Range<Int64>]
    ) {
        guard end - start >= 2, let count = integer(source, at: start, 2) else { return }
        var offset = start + 2
        for _ in 0..<count {
            // §3.11: name length, name, type, 16-bit value length, value.
            // §4.7, §4.8: language, stream, name length, type, 32-bit value length, name, value.
            let fixed: Int64 = library ? 12 : 2
            guard end - offset >= fixed, let head = integer(source, at: offset, library ? 8 : 2) else { return }
            let nameLength = library ? head >> 32 & 0xFFFF : head
            let nameStart = offset + fixed
            var valueStart = nameStart + Int64(nameLength)
            var type = head >> 48
            var valueLength: UInt64 = 0
            if library {
                guard let length = integer(source, at: offset + 8, 4) else { return }
                valueLength = length
            } else {
                guard end - valueStart >= 4, let tail = integer(source, at: valueStart, 4) else { return }
                (type, valueLength) = (tail & 0xFFFF, tail >> 16)
                valueStart += 4
            }
            guard valueStart <= end, valueLength <= UInt64(end - valueStart) else { return }
            if type == UInt64(ASFAttribute.Kind.bytes.rawValue), valueLength >= UInt64(minimumCount), nameLength <= 64,
                (try? source.withBytes(at: nameStart, count: Int(nameLength), isPictureName)) == true,
                let head = try? source.getBytes(at: valueStart, count: headCount),
                let picture = try? ASFPicture(head: head[...], valueCount: Int(valueLength), fileOffset: valueStart),
                let imageStart = picture.imageOffset, picture.imageCount >= minimumCount
            {
                ranges.append(imageStart..<imageStart + Int64(picture.imageCount))
            }
            offset = valueStart + Int64(valueLength)
        }
    }
}
