import Foundation

@testable import MetadataKit

extension TestSupport {
    /// `count` files `file0.bin`… in a new temporary folder, each holding
    /// `bytes`, with the snapshot a save expects.
    static func makeFiles(_ count: Int, holding bytes: [UInt8]) throws -> [(URL, FileSnapshot)] {
        let directory = try makeTemporaryDirectory()
        return try (0..<count).map { index in
            let url = directory.appendingPathComponent("file\(index).bin")
            try Data(bytes).write(to: url)
            return (url, try FileSource(url: url).snapshot)
        }
    }
}
