import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitBytes

/// The output file of the asset writer: gathered writes and copies from
/// other files (spliced through a pipe, `copy_file_range`, or read and
/// written) land where they belong.
@Suite struct OutputFileTests {
    /// Copies of every length (a byte, runs shorter and longer than the
    /// pipe, one past the direct-copy size), in an order unlike the source's,
    /// with written bytes and a patch among them.
    @Test(arguments: [true, false])
    func copiesAndWritesLandInOrder(kernelCopies: Bool) throws {
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var generator = SystemRandomNumberGenerator()
        let size = 3 << 20
        let input = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let inputURL = directory.appendingPathComponent("in.bin")
        try Data(input).write(to: inputURL)
        let source = try SampleDataSource(path: inputURL.path)

        var pieces: [(offset: Int, count: Int)] = [(5, 1), (100, 7), (4096, 3000), (7096, 100)] // the last two follow each other
        pieces += (0..<600).map { index in (10_000 + index * 1711 % 900_000, 1 + index * 37 % 5000) }
        pieces += [(1 << 20, (1 << 20) + 1), (17, 300_000), (2_500_000, 500_000), (0, size)]
        pieces.shuffle(using: &generator)

        let outputURL = directory.appendingPathComponent("out.bin")
        let file = try OutputFile(path: outputURL.path, kernelCopies: kernelCopies)
        var expected: [UInt8] = []
        for (index, piece) in pieces.enumerated() {
            try file.copy(from: source, offset: Int64(piece.offset), count: Int64(piece.count))
            expected += input[piece.offset..<piece.offset + piece.count]
            if index % 50 == 0 {
                let bytes = [UInt8](repeating: UInt8(index % 256), count: index % 7 + 1)
                try file.write(bytes)
                expected += bytes
            }
        }
        #expect(file.position == Int64(expected.count))
        try file.write([1, 2, 3], at: 10)
        expected.replaceSubrange(10..<13, with: [1, 2, 3])
        try file.close()
        #expect(try Data(contentsOf: outputURL) == Data(expected))
    }

    #if os(Linux)
        /// An output that can't be spliced into (one opened for appending): what
        /// the pipe holds is read back and written.
        @Test func pipeIsReadBackWhenTheOutputRefusesSplices() throws {
            let directory = try MP4Tools.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let input = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 251) }
            let inputURL = directory.appendingPathComponent("in.bin")
            try Data(input).write(to: inputURL)
            let source = try SampleDataSource(path: inputURL.path)
            let outputPath = directory.appendingPathComponent("out.bin").path
            let output = open(outputPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            try #require(output >= 0)
            defer { closeDescriptor(output) }
            let pipe = try #require(SplicePipe())
            var expected: [UInt8] = []
            for index in 0..<40 {
                let offset = (index * 48_611) % 190_000, length = 1 + (index * 1009) % 10_000
                let added = try pipe.add(
                    from: source.descriptor, offset: Int64(offset), length: Int64(length),
                    to: Int64(expected.count), output: output, path: outputPath)
                #expect(added == Int64(length))
                expected += input[offset..<offset + length]
            }
            try pipe.drain(into: output, path: outputPath)
            #expect(pipe.count == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: outputPath)) == Data(expected))
        }
    #endif

    @Test func copiesPastTheEndOfTheSourceFail() throws {
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputURL = directory.appendingPathComponent("in.bin")
        try Data(count: 100).write(to: inputURL)
        let source = try SampleDataSource(path: inputURL.path)
        let file = try OutputFile(path: directory.appendingPathComponent("out.bin").path)
        #expect(throws: MediaError.self) { try file.copy(from: source, offset: 50, count: 51) }
        file.closeAndRemove()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["in.bin"])
    }
}
