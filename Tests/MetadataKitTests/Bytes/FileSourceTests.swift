import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitBytes
@testable import MetadataKitSaving

/// `FileSource` reads through three reused windows: every read gives the
/// file's bytes, and a region read again while it is still in a window costs
/// no read from the file.
@Suite struct FileSourceTests {
    /// A file of `count` seeded random bytes in a new temporary folder.
    private func randomFile(_ count: Int, seed: UInt64) throws -> (URL, [UInt8]) {
        var generator = SplitMix64(state: seed)
        let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent("random.bin")
        try Data(bytes).write(to: url)
        return (url, bytes)
    }

    /// `holds(_:at:)` compares a magic in place: true only for the very
    /// bytes, at the start, the end and across a window's edge; `truncated`
    /// when the file ends first, as `getBytes` throws.
    @Test func holdsComparesTheBytesAtAnOffset() throws {
        var bytes = [UInt8](repeating: 0x41, count: 70_000)
        let magic: [UInt8] = Array("APETAGEX".utf8)
        for offset in [0, 65_530, 70_000 - 8] { bytes.replaceSubrange(offset..<offset + 8, with: magic) }
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent("magic.bin")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try Data(bytes).write(to: url)
        let source = try FileSource(url: url)
        for offset in [0, 65_530, 70_000 - 8] {
            #expect(try source.holds("APETAGEX", at: Int64(offset)), "at \(offset)")
            #expect(try source.holds("APE", at: Int64(offset)))
            #expect(try !source.holds("APETAGEY", at: Int64(offset)))
            if offset + 9 <= bytes.count { #expect(try !source.holds("APETAGEX", at: Int64(offset + 1))) }
        }
        #expect(try source.holds("AAAA", at: 1000))
        let error = try #require(throws: MediaError.self) { try source.holds("APETAGEX", at: 70_000 - 7) }
        #expect(error.code == .truncated)
    }

    @Test func aReadWithHolesGivesTheFileBytesAndZerosInTheHoles() throws {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var generator = SplitMix64(state: seed)
        let (url, bytes) = try randomFile(40_000, seed: seed)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let source = try FileSource(url: url)
        for round in 0..<500 {
            // Some reads start inside a window the previous ones filled (the
            // pieces then come from it), some far from any.
            let count = Int(generator.next() % 20_000) + 1
            let offset = Int(generator.next() % UInt64(bytes.count - count + 1))
            if generator.next() % 2 == 0 { _ = try source.getBytes(at: Int64(offset), count: min(count, 16)) }
            var holes: [Range<Int64>] = []
            var position = offset
            while position < offset + count, generator.next() % 4 != 0 {
                let start = position + Int(generator.next() % UInt64(offset + count - position))
                let end = start + Int(generator.next() % UInt64(offset + count - start + 1))
                holes.append(Int64(start)..<Int64(end))
                position = end
            }
            var expected = Array(bytes[offset..<offset + count])
            for hole in holes {
                expected.replaceSubrange(
                    Int(hole.lowerBound) - offset..<Int(hole.upperBound) - offset, with: repeatElement(0, count: hole.count))
            }
            let read = try source.getBytes(at: Int64(offset), count: count, zeroing: holes)
            #expect(read == expected, "seed \(seed), round \(round): \(count) bytes at \(offset), holes \(holes)")
        }
        #expect(throws: MediaError.self) { try source.getBytes(at: Int64(bytes.count - 3), count: 4, zeroing: []) }
    }

    @Test func randomReadsGiveTheFileBytes() throws {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var generator = SplitMix64(state: seed)
        let (url, bytes) = try randomFile(50_000, seed: seed)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let source = try FileSource(url: url)
        for round in 0..<3000 {
            // Mostly small reads near a few hot spots (as parsers read), some large.
            let spots: [Int] = [0, 20_000, bytes.count - 10]
            let large = generator.next() % 10 == 0
            let count = Int(generator.next() % (large ? 9000 : 600)) + 1
            let near = spots[Int(generator.next() % 3)] + Int(generator.next() % 5000) - 2500
            let offset = max(0, min(bytes.count - count, near))
            let read = try source.getBytes(at: Int64(offset), count: count)
            #expect(read[...] == bytes[offset..<offset + count], "seed \(seed), round \(round): \(count) bytes at \(offset)")
            if count <= FileSource.windowSize / 2 {
                let viewed = try source.withBytes(at: Int64(offset), count: count) { Array($0) }
                #expect(viewed == read, "seed \(seed), round \(round)")
            }
        }
        #expect(throws: MediaError.self) { try source.getBytes(at: Int64(bytes.count - 3), count: 4) }
    }

    @Test func threeRegionsStayInTheWindows() throws {
        let (url, _) = try randomFile(200_000, seed: 7)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let source = try FileSource(url: url)
        // The start, the end and a middle region, as an APE tag read walks
        // them (header, footer, items), then the start again for the codec
        // header: three fills, not four.
        _ = try source.getBytes(at: 0, count: 32)
        _ = try source.getBytes(at: 199_968, count: 32)
        _ = try source.getBytes(at: 150_000, count: 64)
        _ = try source.getBytes(at: 16, count: 64)
        _ = try source.getBytes(at: 199_990, count: 10)
        #expect(source.windowFills == 3)
        // A fourth region replaces the least recently used one (the middle).
        _ = try source.getBytes(at: 100_000, count: 8)
        #expect(source.windowFills == 4)
        _ = try source.getBytes(at: 0, count: 8)
        _ = try source.getBytes(at: 199_999, count: 1)
        #expect(source.windowFills == 4)
        _ = try source.getBytes(at: 150_010, count: 8)
        #expect(source.windowFills == 5)
    }

    /// A FIFO where a media file is expected (a path argument, a file
    /// replaced since a walk) is refused at once: opening it for reading
    /// must not wait for a writer. From three seconds on, a helper thread
    /// keeps opening its write end, so that a reader stuck in `open` fails
    /// this test instead of hanging it.
    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("song.mp3")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let path = fifo.path
        let finished = TestFlag()
        defer { finished.set() }
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 3)
            while !finished.isSet {
                let writer = open(path, O_WRONLY | O_NONBLOCK) // succeeds only while a reader waits in open
                if writer >= 0 { close(writer) }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        let start = ContinuousClock.now
        #expect {
            _ = try FileSource(url: fifo)
        } throws: { error in
            (error as? MediaError)?.reason.contains("not a regular file") == true
        }
        // Timed on this thread: load() would add its waits for threads (MediaItem.loadedOnThisThread).
        #expect(throws: MediaError.self) { try MediaItem.loadedOnThisThread(fifo) }
        #expect(ContinuousClock.now - start < .seconds(3), "an open waited for a writer")
        var item = MediaItem(url: fifo)
        await #expect(throws: MediaError.self) { try await item.load() }
    }
}

/// A flag one thread sets and another reads.
private final class TestFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
