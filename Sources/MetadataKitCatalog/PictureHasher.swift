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
/// the worker keeps and hashed there, the file opened once for all its
/// pictures. ``Artwork/data()`` opened the file again and made two arrays
/// per picture (fresh pages from the kernel each time): with the hash, a
/// fifth of a scan's processor time. A picture in memory is hashed as it is.
///
/// The tracks of an album usually carry the same cover: the last few
/// pictures hashed are kept with their hashes (``recentCount`` of at most
/// ``recentLimit`` bytes), and a picture whose bytes equal one of them
/// (same length, `memcmp`) takes its hash without hashing again: the bytes
/// are still read and compared, but not hashed (a full scan of the
/// benchmark library, whose files share two covers, took 18 % less
/// processor time).
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
    /// bytes could not be read), as ``SHA256/hex(_:)`` of ``Artwork/data()``.
    func sha256(of pictures: [Artwork]) -> [String?] {
        var descriptor: Int32 = -1
        var openPath: String?
        defer { if descriptor >= 0 { close(descriptor) } }
        return pictures.map { artwork -> String? in
            guard let (url, offset) = artwork.fileLocation else {
                return (try? artwork.data()).map { SHA256.hex($0) }
            }
            if openPath != url.path {
                if descriptor >= 0 { close(descriptor) }
                openPath = url.path
                // O_NONBLOCK: a path replaced by a FIFO since the read must not hang the worker (refused below).
                descriptor = open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
                var info = stat()
                if descriptor >= 0 && (fstat(descriptor, &info) != 0 || (info.st_mode & S_IFMT) != S_IFREG) {
                    close(descriptor)
                    descriptor = -1
                }
            }
            guard descriptor >= 0 else { return nil }
            return hash(artwork.byteCount, at: offset, in: descriptor)
        }
    }

    /// The hex SHA-256 of the `count` bytes at `offset` of the open file `descriptor`; nil when fewer are there.
    private func hash(_ count: Int, at offset: Int64, in descriptor: Int32) -> String? {
        guard count >= 0, offset >= 0 else { return nil }
        if count > buffer.count {
            if count > Self.keptCapacity {
                let own = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: count)
                defer { own.deallocate() }
                return hash(count, at: offset, in: descriptor, into: own)
            }
            buffer.deallocate()
            buffer = .allocate(capacity: count)
        }
        return hash(count, at: offset, in: descriptor, into: buffer)
    }

    private func hash(_ count: Int, at offset: Int64, in descriptor: Int32, into storage: UnsafeMutableBufferPointer<UInt8>) -> String? {
        var done = 0
        while done < count {
            let got = pread(descriptor, storage.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return nil } // an error, or the file ends first
            done += got
        }
        let bytes = UnsafeBufferPointer(rebasing: storage[0..<count])
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
