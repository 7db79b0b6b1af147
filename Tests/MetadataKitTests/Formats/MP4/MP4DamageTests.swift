import Foundation
import Testing

@testable import MetadataKit

private typealias B = MP4Builder

/// Damaged MP4 files: what is read around (with warnings), and whether
/// `isEditable` predicts the save — refused before a byte is written, or
/// made with the damaged bytes kept.
@Suite struct MP4DamageTests {
    static func list(_ title: String) -> [UInt8] {
        B.box("udta", children: [B.meta(handler: "mdir", [B.box("ilst", children: [B.item("©nam", B.text(title))])])])
    }

    /// A fragmented movie: `mvex` in `moov`, then a `moof` whose `tfhd` has a base data offset.
    static func fragmented(tfhd: [UInt8]? = nil, mdat: [UInt8]) -> [UInt8] {
        let head = B.ftyp("iso6", ["iso6", "mp41"])
        let moov = B.audioMovie(extra: [
            B.box("mvex", children: [B.fullBox("trex", B.u32(1) + [UInt8](repeating: 0, count: 16))]),
            list("Fragments"),
        ])
        let base = head.count + moov.count
        let header = tfhd ?? B.fullBox("tfhd", flags: 1, B.u32(1) + B.u64(UInt64(base)))
        let moof = B.box("moof", children: [B.fullBox("mfhd", B.u32(1)), B.box("traf", children: [header])])
        return head + moov + moof + mdat
    }

    /// A `moov` whose last child, `udta`, claims 6 bytes more than `moov` holds.
    static var longUserData: [UInt8] {
        var udta = list("Longer")
        udta.replaceSubrange(0..<4, with: B.u32(udta.count + 6))
        return B.audioMovie(extra: [udta])
    }

    /// A sound track whose `stco` claims more entries than it holds.
    static var badChunkOffsets: [UInt8] {
        let entry = B.audioEntry("mp4a", children: [B.esds(averageBitrate: 128_000)])
        let stbl = B.box(
            "stbl",
            children: [
                B.stsd([entry]), B.fullBox("stsz", B.u32(0) + B.u32(0)),
                B.fullBox("stco", B.u32(1000) + B.u32(40)),
            ])
        let trak = B.box(
            "trak",
            children: [
                B.fullBox("tkhd", flags: 3, [UInt8](repeating: 0, count: 80)),
                B.box("mdia", children: [B.mdhd(timescale: 44100, duration: 44100), B.hdlr("soun"), B.box("minf", children: [stbl])]),
            ])
        return B.ftyp() + B.box("moov", children: [B.mvhd(timescale: 1000, duration: 1000), trak, list("Offsets")])
            + B.box("mdat", [UInt8](repeating: 7, count: 32))
    }

    /// Files a save must refuse, each with the code of its refusal.
    static let refused: [(name: String, bytes: [UInt8], code: MediaError.Code)] = {
        let movie = B.ftyp() + B.box("mdat", [1, 2, 3, 4]) + B.audioMovie(extra: [list("Cut short")])
        let strayBytes = B.box("moov", Array(B.audioMovie(extra: [list("Stray")]).dropFirst(8)) + [9, 9, 9, 9, 9])
        return [
            ("fragmented movie, cut mdat", fragmented(mdat: B.box("mdat", [1, 2, 3], declaredSize: 1000)), .truncated),
            ("moov cut by the end of the file", Array(movie.dropLast(6)), .truncated),
            ("stray bytes in moov", B.ftyp() + strayBytes + B.box("mdat", [1]), .malformed),
            ("udta longer than moov", B.ftyp() + longUserData + B.box("mdat", [1, 2]), .sizeOutOfRange),
            ("stco count past its box", badChunkOffsets, .sizeOutOfRange),
            (
                "tfhd too small for its base offset", fragmented(tfhd: B.fullBox("tfhd", flags: 1, B.u32(1)), mdat: B.box("mdat", [5])),
                .truncated
            ),
        ]
    }()

    @Test(arguments: 0..<refused.count)
    func notEditableFilesAreRefusedBeforeWriting(index: Int) async throws {
        let (name, bytes, code) = Self.refused[index]
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("damaged.mp4")
        try Data(bytes).write(to: url)
        var item = try await MediaItem.loaded(url)
        #expect(!item.isEditable, "\(name)")
        let reason = item.warnings.first { $0.message.hasPrefix("not editable") }
        #expect(reason?.code == code, "\(name): \(item.warnings)")
        #expect(reason?.offset != nil)
        item.metadata.title = "A new title that is longer than the old one, so the movie box grows"
        let error = await #expect(throws: MediaError.self, "\(name)") { try await item.save() }
        #expect(error?.code == code)
        #expect([UInt8](try Data(contentsOf: url)) == bytes, "\(name): not a byte written")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["damaged.mp4"])
    }

    /// A `moov` a few bytes longer than the file: read up to the end, with a warning.
    @Test func moovCutByTheEndOfTheFileIsRead() async throws {
        let movie =
            B.ftyp() + B.box("mdat", [1, 2, 3, 4])
            + B.audioMovie(extra: [Self.list("Cut short"), B.box("free", [UInt8](repeating: 0, count: 8))])
        let item = try await B.load(Array(movie.dropLast(6)))
        #expect(item.metadata.title == "Cut short")
        #expect(item.properties.duration == 10)
        #expect(item.warnings.first?.code == .truncated)
        #expect(item.warnings.first?.offset == Int64(B.ftyp().count + 12))
        // A udta a few bytes longer than its moov is read up to the end of moov.
        let long = try await B.load(B.ftyp() + Self.longUserData + B.box("mdat", [1, 2]))
        #expect(long.metadata.title == "Longer")
        #expect(long.warnings.first?.code == .sizeOutOfRange)
        #expect(!long.isEditable)
    }

    /// A cut `mdat` in a movie that is not fragmented: editable; the save
    /// keeps the cut tail byte for byte and moves the chunk offsets.
    @Test(arguments: [false, true])
    func cutMediaDataStaysEditable(grow: Bool) async throws {
        let payload = [UInt8]((0..<40).map { UInt8($0) })
        let tail = B.box("mdat", payload, declaredSize: 1000)
        let bytes = B.ftyp() + B.audioMovie(extra: [Self.list("Old")]) + tail
        let url = try B.write(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.isEditable)
        #expect(item.warnings.map(\.code) == [.truncated])
        #expect(item.warnings.first?.offset == Int64(bytes.count - tail.count))
        item.metadata.title = grow ? String(repeating: "Longer title ", count: 20) : "New"
        try await item.save()
        let saved = [UInt8](try Data(contentsOf: url))
        #expect(Array(saved.suffix(tail.count)) == tail)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == item.metadata.title)
        #expect(reread.isEditable)
    }

    /// A bad child of `udta` and a bad item atom of `ilst`: read around,
    /// editable, and their bytes survive a save.
    @Test func badMetadataBoxesAreKeptBySaves() async throws {
        let badChild = B.box("©cmt", B.userDataText("x"), declaredSize: 400)
        let badItem = B.item("©day", B.box("data", [0, 0, 0, 1]))
        let ilst = B.box("ilst", children: [B.item("©nam", B.text("Old")), badItem, B.item("©alb", B.text("Album"))])
        let udta = B.box("udta", children: [B.box("©ART", B.userDataText("Artist")), B.meta(handler: "mdir", [ilst]), badChild])
        let url = try B.write(B.ftyp() + B.audioMovie(extra: [udta]) + B.box("mdat", [1, 2, 3]))
        defer { try? FileManager.default.removeItem(at: url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.isEditable)
        #expect(Set(item.warnings.map(\.code)) == [.sizeOutOfRange, .malformed])
        #expect(item.metadata.album == "Album")
        #expect(item.metadata.artist == "Artist")
        item.metadata.title = String(repeating: "A longer title ", count: 10)
        item.metadata.composer = "New composer"
        try await item.save()
        let saved = [UInt8](try Data(contentsOf: url))
        #expect(saved.firstRange(of: badChild) != nil, "the bad udta child is kept")
        #expect(saved.firstRange(of: badItem) != nil, "the bad ilst item is kept")
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == item.metadata.title)
        #expect(reread.metadata.composer == "New composer")
        #expect(reread.metadata.album == "Album")
        #expect(reread.warnings.count == item.warnings.count)
    }

    /// A bad item atom that a new item of its type replaces is dropped.
    @Test func aBadItemIsReplacedByANewOneOfItsType() async throws {
        let badItem = B.item("©day", B.box("data", [0, 0, 0, 1]))
        let ilst = B.box("ilst", children: [B.item("©nam", B.text("Old")), badItem])
        let url = try B.write(B.ftyp() + B.audioMovie(extra: [B.box("udta", children: [B.meta(handler: "mdir", [ilst])])]))
        defer { try? FileManager.default.removeItem(at: url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.date = "2024"
        try await item.save()
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.date == "2024")
        #expect(reread.warnings.isEmpty)
        #expect([UInt8](try Data(contentsOf: url)).firstRange(of: badItem) == nil)
    }
}
