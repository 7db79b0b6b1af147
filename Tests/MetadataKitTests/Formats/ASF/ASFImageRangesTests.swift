import Foundation
import Testing

@testable import MetadataKit

private typealias B = ASFBuilder

/// A read leaves the images of big `WM/Picture` values in the file
/// (``ASFImageRanges``): the header is read around them, and everything it
/// gives is what reading the whole header gives, on whole and damaged files.
@Suite struct ASFImageRangesTests {
    /// Images of `count` seeded bytes (no run of zeros to confuse a search).
    static func image(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SplitMix64(state: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next() % 255 + 1) }
    }

    static let inContent = image(5000, seed: 1)
    static let inLibrary = image(70_000, seed: 2)
    static let small = image(4000, seed: 3)
    static let otherBytes = image(6000, seed: 4)

    /// A file with a big picture in the Extended Content Description and one
    /// in the Metadata Library, a picture below the size that is left out,
    /// a big byte value that is no picture, and a picture whose head is cut.
    static func file() -> [UInt8] {
        B.file([
            B.fileProperties(), B.audioStream(),
            B.extendedContent([
                ("WM/AlbumTitle", 0, B.utf16("Älbum")),
                (ASFAttribute.pictureName, 1, B.picture(mime: "image/jpeg", description: "front", image: inContent)),
                ("WM/Other", 1, otherBytes),
                (ASFAttribute.pictureName, 1, B.picture(description: "small", image: small)),
                // A picture whose image is longer than its value: read as bytes.
                (ASFAttribute.pictureName, 1, [3] + B.le32(9000) + B.utf16("image/png") + B.utf16("") + image(4500, seed: 5)),
            ]),
            B.headerExtension([
                B.metadata([(0, 0, "WM/Composer", 0, B.utf16("Cömposer"))], library: false),
                B.metadata(
                    [
                        (0, 0, "WM/Mood", 0, B.utf16("calm")),
                        (0, 0, ASFAttribute.pictureName, 1, B.picture(type: 4, description: "back ü", image: inLibrary)),
                    ], library: true),
            ]),
            B.padding(64),
        ])
    }

    /// What a header gives a read: its items, warnings, objects and sizes.
    static func summary(_ header: ASFHeader, _ source: FileSource, _ url: URL) -> [String] {
        let items = ASFTests.summary(header.attributes.map { $0.item(languages: header.languages, source: source, url: url) })
        return items + header.warnings.map { "warning \($0)" } + header.objects.map { "object \($0.guid) \($0.offset)" }
            + header.extensionObjects.map { "inner \($0.guid) \($0.offset)" } + ["size \(header.size) intact \(header.isIntact)"]
    }

    @Test func bigPicturesAreLeftInTheFileAndTheRestReadsAsTheWholeHeader() async throws {
        let bytes = Self.file()
        let url = try B.write(bytes)
        defer { B.remove(url) }
        let source = try FileSource(url: url)
        let whole = try ASFHeader(parsing: source)
        let ranges = ASFImageRanges.find(in: source, from: 30, to: whole.size)
        let expected = [Self.inContent, Self.inLibrary].map { image in
            let start = Int64(bytes.firstRange(of: image)!.lowerBound)
            return start..<start + Int64(image.count)
        }
        #expect(ranges == expected)
        let lazy = try ASFHeader(parsing: source, readingImages: false)
        #expect(Self.summary(lazy, source, url) == Self.summary(whole, source, url))
        // The objects hold the file's bytes but for the images, which are zeros.
        var zeroed = bytes
        for range in ranges {
            zeroed.replaceSubrange(Int(range.lowerBound)..<Int(range.upperBound), with: repeatElement(0, count: range.count))
        }
        for object in lazy.objects {
            let start = Int(object.offset)
            #expect(object.bytes[...] == zeroed[start..<start + object.bytes.count])
        }
        // The pictures read their images from the file.
        let parsed = try ASFParser.parse(source, url)
        var images: [[UInt8]] = []
        for item in parsed.items {
            guard case .picture(let artwork) = item.value else { continue }
            images.append([UInt8](try await artwork.data()))
        }
        #expect(images == [Self.inContent, Self.small, Self.inLibrary])
    }

    /// Random bytes of the header set to random or extreme values, and
    /// files cut short: the read that leaves images out gives what the whole
    /// header gives, and every range it leaves out lies in the header.
    @Test func randomDamageReadsAsTheWholeHeader() throws {
        let original = Self.file()
        let url = try B.write(original)
        defer { B.remove(url) }
        let headerSize = Int(try ASFHeader(parsing: FileSource(url: url)).size)
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var generator = SplitMix64(state: seed)
        let extremes: [UInt8] = [0, 0xFF, 0x7F, 0x80, 1, 0x10]
        var leftOut = 0
        for round in 0..<300 {
            var bytes = original
            for _ in 0..<Int(generator.next() % 4 + 1) {
                // Mostly the heads (objects, attributes, picture heads), not the images.
                let at = 30 + Int(generator.next() % UInt64(generator.next() % 3 == 0 ? headerSize - 30 : 700))
                let at2 = generator.next() % 2 == 0 ? at : headerSize - 1 - Int(generator.next() % 400)
                bytes[at2] = generator.next() % 2 == 0 ? extremes[Int(generator.next() % 6)] : UInt8(truncatingIfNeeded: generator.next())
            }
            if generator.next() % 8 == 0 { bytes = Array(bytes.prefix(Int(generator.next() % UInt64(headerSize)))) }
            try Data(bytes).write(to: url)
            let source = try FileSource(url: url)
            let whole = Result { try ASFHeader(parsing: source) }
            let lazy = Result { try ASFHeader(parsing: source, readingImages: false) }
            switch (whole, lazy) {
            case (.success(let whole), .success(let lazy)):
                #expect(Self.summary(lazy, source, url) == Self.summary(whole, source, url), "seed \(seed), round \(round)")
                let ranges = ASFImageRanges.find(in: source, from: 30, to: whole.size)
                leftOut += ranges.count
                #expect(ranges.allSatisfy { $0.lowerBound >= 30 && $0.upperBound <= whole.size }, "seed \(seed), round \(round)")
            case (.failure(let a), .failure(let b)):
                #expect("\(a)" == "\(b)", "seed \(seed), round \(round)")
            default:
                Issue.record("seed \(seed), round \(round): one read failed, the other did not: \(whole) \(lazy)")
            }
        }
        // Most damage misses the pictures: they are still left out.
        #expect(leftOut > 300, "seed \(seed)")
    }
}
