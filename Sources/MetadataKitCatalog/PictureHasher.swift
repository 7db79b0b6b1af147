import MetadataKit

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

/// Hashes the artwork of the files one reading worker of a scan reads: the
/// bytes of a picture stored in its file are read (`pread`) into a buffer
/// the worker keeps and hashed there, through the file the worker's load
/// left open (`MediaItem` `loadKeepingFile()`): not through
/// ``Artwork/data()``, which opens the file again and makes two arrays per
/// picture (fresh pages from the kernel each time). A picture in memory is
/// hashed as it is.
///
/// The tracks of an album usually carry the same cover: the last few
/// pictures hashed are kept with their hashes (``recentCount`` of at most
/// ``recentLimit`` bytes), and a picture whose bytes equal one of them
/// (same length, `memcmp`) takes its hash without hashing again: the bytes
/// are still read and compared, but not hashed (Benchmarks/README.md,
/// "Figures behind the code").
///
/// One per worker thread (not shared): the buffer is reused from file to file.
final class PictureHasher {
    /// The largest buffer kept between pictures; a larger picture gets one of its own, freed after.
    static let keptCapacity = 4 << 20
    /// How many recent pictures are kept for comparison.
    static let recentCount = 4
    /// The largest picture kept for comparison (covers are rarely larger).
    static let recentLimit = 1 << 20

    private var buffer: UnsafeMutableBufferPointer<UInt8>
    /// The recent pictures' bytes and hashes; the oldest is replaced first.
    private var recent: [(bytes: UnsafeMutableBufferPointer<UInt8>, hash: String)] = []
    private var nextReplaced = 0
    /// Pictures whose hash came from ``recent`` (for tests and benchmarks).
    private(set) var reusedHashes = 0

    init() { buffer = .allocate(capacity: 256 << 10) }

    deinit {
        buffer.deallocate()
        for entry in recent { entry.bytes.deallocate() }
    }

    /// The lowercase hex SHA-256 of each picture's bytes (nil for one whose
    /// bytes could not be read), as ``SHA256/hex(_:)`` of ``Artwork/data()``:
    /// the bytes of a picture stored in `file` (the open file its item was
    /// loaded from) are read through it; others come from ``Artwork/data()``.
    func sha256(of pictures: [Artwork], in file: FileSource) -> [String?] {
        pictures.map { artwork -> String? in
            guard let (url, offset) = artwork.fileLocation, url.path == file.path else {
                return (try? artwork.readBytes()).map { SHA256.hex($0) }
            }
            return hash(artwork.byteCount, at: offset, in: file)
        }
    }

    /// The hex SHA-256 of the `count` bytes at `offset` of `file`; nil when it no longer holds them.
    private func hash(_ count: Int, at offset: Int64, in file: FileSource) -> String? {
        guard count >= 0 else { return nil }
        if count > buffer.count {
            if count > Self.keptCapacity {
                let own = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: count)
                defer { own.deallocate() }
                return hash(UnsafeMutableBufferPointer(rebasing: own[0..<count]), at: offset, in: file)
            }
            buffer.deallocate()
            buffer = .allocate(capacity: count)
        }
        return hash(UnsafeMutableBufferPointer(rebasing: buffer[0..<count]), at: offset, in: file)
    }

    /// ``hash(_:at:in:)`` read into `storage` (exactly its count).
    private func hash(_ storage: UnsafeMutableBufferPointer<UInt8>, at offset: Int64, in file: FileSource) -> String? {
        guard (try? file.read(into: UnsafeMutableRawBufferPointer(storage), at: offset)) != nil else { return nil }
        let count = storage.count
        let bytes = UnsafeBufferPointer(storage)
        // Entries hold at least one byte: equal counts mean both base addresses are there.
        for entry in recent where entry.bytes.count == count {
            if memcmp(entry.bytes.baseAddress!, bytes.baseAddress!, count) == 0 {
                reusedHashes += 1
                return entry.hash
            }
        }
        let hash = SHA256.hex(bytes)
        if count > 0 && count <= Self.recentLimit { remember(bytes, hash: hash) }
        return hash
    }

    /// Keeps a copy of `bytes` with their `hash`, in place of the oldest kept picture when all places are taken.
    private func remember(_ bytes: UnsafeBufferPointer<UInt8>, hash: String) {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = copy.initialize(from: bytes)
        if recent.count < Self.recentCount {
            recent.append((copy, hash))
        } else {
            recent[nextReplaced].bytes.deallocate()
            recent[nextReplaced] = (copy, hash)
            nextReplaced = (nextReplaced + 1) % Self.recentCount
        }
    }
}
