import Foundation
import MetadataKit
import Testing

@testable import MetadataKitCatalog

/// The scan's artwork hash, read into a worker's reusable buffer through
/// the file the item was loaded from, still open: the same hash as the
/// picture's bytes from ``Artwork/data()`` (and as `sha256sum`), for
/// pictures in files, in memory and larger than the buffer kept; none for a
/// picture whose bytes are no longer all in the file.
@Suite struct PictureHasherTests {
    /// `url` loaded as a scan's worker loads it, with the file it read still open.
    static func loadedKeepingFile(_ url: URL) async throws -> (item: MediaItem, file: FileSource) {
        var item = MediaItem(url: url)
        let file = try await item.loadKeepingFile()
        return (item, file)
    }

    @Test func picturesInFilesHashAsTheirBytes() async throws {
        let hasher = PictureHasher()
        var inFiles = 0
        // Twice over: the buffer is reused from file to file, larger and smaller pictures in turn.
        for name in CatalogTestSupport.mediaFixtures + CatalogTestSupport.mediaFixtures.reversed() {
            let (item, file) = try await Self.loadedKeepingFile(TestSupport.fixtures.appendingPathComponent("valid/" + name))
            let pictures = item.metadata.artwork
            inFiles += pictures.filter { $0.fileLocation != nil }.count
            let expected = try await pictures.asyncMap { SHA256.hex(try await $0.data()) }
            #expect(hasher.sha256(of: pictures, in: file) == expected, "\(name)")
        }
        #expect(inFiles > 0, "no fixture's picture is read from its file")
        let bytes = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let inMemory = Artwork(data: bytes, mimeType: "image/png")
        #expect(inMemory.fileLocation == nil)
        let (_, someFile) = try await Self.loadedKeepingFile(TestSupport.fixtures.appendingPathComponent("valid/sample.mp3"))
        #expect(hasher.sha256(of: [inMemory], in: someFile) == [SHA256.hex(bytes)])
    }

    /// A picture equal to one hashed before (another file, the same cover)
    /// takes its hash; one of the same length with a byte changed, or the
    /// file rewritten with other bytes, is hashed again. Expected hashes come
    /// from the Swift SHA-256, not the library the hasher uses.
    @Test func aRepeatedPictureTakesItsHashAndNoOtherDoes() async throws {
        let seed = UInt64.random(in: 0..<UInt64.max)
        var generator = SplitMix64(state: seed)
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = Int.random(in: 20_000..<60_000, using: &generator)
        let cover = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var changed = cover
        changed[Int.random(in: 0..<size, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
        let hasher = PictureHasher()
        /// A copy of the sample MP3 named `name` carrying `bytes` as its only picture, as read back, and its open file.
        func file(_ name: String, _ bytes: [UInt8]) async throws -> (picture: Artwork, file: FileSource) {
            let url = directory.appendingPathComponent(name)
            if !FileManager.default.fileExists(atPath: url.path) {
                try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.mp3"), to: url)
            }
            var item = try await MediaItem.loaded(url)
            item.metadata.artwork = [Artwork(data: Data(bytes), mimeType: "image/jpeg")]
            try await item.save()
            let (read, file) = try await Self.loadedKeepingFile(url)
            let picture = try #require(read.metadata.artwork.first)
            #expect(picture.fileLocation != nil && picture.byteCount == bytes.count, "seed \(seed)")
            return (picture, file)
        }
        /// The hasher's hash of the picture `loaded` returned.
        func hash(_ loaded: (picture: Artwork, file: FileSource)) -> String?? {
            hasher.sha256(of: [loaded.picture], in: loaded.file).first
        }
        let coverHash = SHA256.swiftHex(cover)
        let changedHash = SHA256.swiftHex(changed)
        #expect(coverHash != changedHash)
        let first = try await file("a.mp3", cover)
        let second = try await file("b.mp3", cover)
        let other = try await file("c.mp3", changed)
        #expect(hash(first) == coverHash, "seed \(seed)")
        #expect(hasher.reusedHashes == 0)
        #expect(hash(second) == coverHash, "seed \(seed)")
        #expect(hasher.reusedHashes == 1)
        #expect(hash(other) == changedHash, "seed \(seed)")
        #expect(hasher.reusedHashes == 1)
        // More distinct pictures than are kept: the first is no longer kept, and is hashed again.
        for index in 0..<PictureHasher.recentCount {
            var bytes = cover
            bytes[index] ^= 0xFF
            #expect(hash(try await file("d\(index).mp3", bytes)) == SHA256.swiftHex(bytes), "seed \(seed)")
        }
        let reused = hasher.reusedHashes
        #expect(hash(first) == coverHash, "seed \(seed)")
        #expect(hasher.reusedHashes == reused)
        // The first file saved again with the changed bytes (same length): its new hash, not the kept one.
        let rewritten = try await file("a.mp3", changed)
        #expect(hash(rewritten) == changedHash, "seed \(seed)")
    }

    /// A picture larger than the buffer a worker keeps (seeded random bytes,
    /// saved into an MP3), then the same file cut inside the picture.
    @Test(.enabled(if: Capabilities.sha256Tool, "needs sha256sum (coreutils) or shasum"))
    func aLargePictureAndACutOneHashAsTheirBytesAllow() async throws {
        let seed = UInt64.random(in: 0..<UInt64.max)
        var generator = SplitMix64(state: seed)
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("large.mp3")
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.mp3"), to: file)
        let size = PictureHasher.keptCapacity + 1 + Int.random(in: 0..<100_000, using: &generator)
        var bytes = [UInt8](repeating: 0, count: size)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        let raw = directory.appendingPathComponent("picture.bin")
        try Data(bytes).write(to: raw)
        let expected = try TestSupport.sha256Hex(ofFileAt: raw.path)
        var item = try await MediaItem.loaded(file)
        item.metadata.artwork = [Artwork(data: Data(bytes), mimeType: "image/jpeg")]
        try await item.save()
        let (saved, source) = try await Self.loadedKeepingFile(file)
        let picture = try #require(saved.metadata.artwork.first)
        #expect(picture.fileLocation != nil && picture.byteCount == size, "seed \(seed)")
        let hasher = PictureHasher()
        #expect(hasher.sha256(of: [picture], in: source) == [expected], "seed \(seed)")
        // Cut inside the picture (the open file too): no hash (as data() throws), and the hasher still works afterwards.
        let location = try #require(picture.fileLocation)
        #expect(truncate(file.path, off_t(location.offset) + off_t(size / 2)) == 0)
        #expect((try? await picture.data()) == nil)
        #expect(hasher.sha256(of: [picture], in: source) == [nil], "seed \(seed)")
        // The path replaced by a FIFO since the read: the open file is read, not the FIFO (no wait for a writer that never comes).
        try FileManager.default.removeItem(at: file)
        #expect(mkfifo(file.path, 0o600) == 0)
        #expect(hasher.sha256(of: [picture], in: source) == [nil], "seed \(seed)")
        let (sample, sampleFile) = try await Self.loadedKeepingFile(TestSupport.fixtures.appendingPathComponent("valid/sample.flac"))
        #expect(
            hasher.sha256(of: sample.metadata.artwork, in: sampleFile)
                == (try await sample.metadata.artwork.asyncMap { SHA256.hex(try await $0.data()) }))
    }
}
