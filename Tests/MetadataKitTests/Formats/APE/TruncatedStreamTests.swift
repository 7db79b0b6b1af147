import Foundation
import Testing

@testable import MetadataKit

/// Streams cut short (an interrupted copy) in the formats whose tags follow
/// the stream: Musepack SV8 (`mpcenc`), WavPack (`wavpack`), TrueAudio, raw
/// AAC (ADTS) and AC-3 (ffmpeg); Monkey's Audio 3.99, Musepack SV7, TAK,
/// OptimFROG and DSF hand-built (no encoder here). A cut file reads with a
/// `truncated` warning at the cut; a save is refused and leaves it byte for
/// byte (a tag after the cut would be decoded as the rest of the cut packet:
/// ffmpeg takes an APE tag after a cut SV8 stream for an audio packet). An
/// intact file still saves, its decoded audio unchanged.
@Suite(
    .enabled(
        if: TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("mpcenc") && TestSupport.hasTool("wavpack")
            && TestSupport.hasPythonModule("mutagen"), "needs ffmpeg, mpcenc, wavpack and python3 mutagen"))
struct TruncatedStreamTests {
    /// An encoder's output: (file name, how it is made from a WAV file).
    static let encoded: [(String, [String])] = [
        ("s.mpc", ["mpcenc", "--silent", "IN", "OUT"]),
        ("s.wv", ["wavpack", "-q", "-y", "IN", "-o", "OUT"]),
        ("s.tta", ["ffmpeg", "-nostdin", "-v", "error", "-i", "IN", "-c:a", "tta", "OUT"]),
        ("s.aac", ["ffmpeg", "-nostdin", "-v", "error", "-i", "IN", "-c:a", "aac", "OUT"]),
        ("s.ac3", ["ffmpeg", "-nostdin", "-v", "error", "-i", "IN", "-c:a", "ac3", "OUT"]),
    ]

    func encode(_ name: String, _ command: [String], in directory: URL) throws -> URL {
        let wav = directory.appendingPathComponent("in.wav")
        if !FileManager.default.fileExists(atPath: wav.path) {
            try TestSupport.runChecked(
                "ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-ac", "2", wav.path])
        }
        let url = directory.appendingPathComponent(name)
        let arguments = command.dropFirst().map { $0 == "IN" ? wav.path : $0 == "OUT" ? url.path : $0 }
        try TestSupport.runChecked(command[0], Array(arguments))
        return url
    }

    /// Loads the cut file, expects the warning at the cut, and a refused save
    /// that leaves every byte.
    func expectCut(_ url: URL, at cut: Int64, _ label: String) async throws {
        let before = try Data(contentsOf: url)
        var item = try await MediaItem.loaded(url)
        #expect(
            item.warnings.contains { $0.code == .truncated && $0.offset == cut }, "\(label): \(item.warnings.map(\.message))")
        #expect(!item.isEditable, "\(label)")
        item.metadata.title = "After the cut"
        do {
            try await item.save()
            Issue.record("\(label): the save of a cut stream was not refused")
        } catch {
            #expect(error.code == .truncated && error.reason.contains("decoded as"), "\(label): \(error)")
        }
        #expect(try Data(contentsOf: url) == before, "\(label): the file changed")
    }

    @Test(arguments: encoded.map(\.0))
    func aCutStreamWarnsAndIsNotWritten(name: String) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let command = try #require(Self.encoded.first { $0.0 == name }?.1)
        let whole = try Data(contentsOf: try encode(name, command, in: directory))
        // Cuts inside the stream, away from its first bytes (a few headers).
        for fraction in [0.3, 0.55, 0.8, 0.97] {
            let cut = Int(Double(whole.count) * fraction)
            let url = directory.appendingPathComponent("cut-\(cut)-\(name)")
            try whole.prefix(cut).write(to: url)
            try await expectCut(url, at: Int64(cut), "\(name) cut at \(cut) of \(whole.count)")
        }
    }

    /// Cuts where a packet, block or table ends: an SV8 stream without its
    /// stream-end packet, WavPack blocks that hold fewer samples than the
    /// header says, a TTA file cut inside its seek table.
    @Test func cutsAtABoundary() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mpc = try Data(contentsOf: try encode("s.mpc", Self.encoded[0].1, in: directory))
        #expect(mpc.suffix(3) == Data("SE".utf8 + [3]), "mpcenc ends the stream with an 'SE' packet")
        let wavPack = try Data(contentsOf: try encode("s.wv", Self.encoded[1].1, in: directory))
        let firstBlock = 8 + Int(wavPack[4]) | Int(wavPack[5]) << 8 | Int(wavPack[6]) << 16 | Int(wavPack[7]) << 24
        let tta = try Data(contentsOf: try encode("s.tta", Self.encoded[2].1, in: directory))
        for (name, bytes, cut) in [("mpc", mpc, mpc.count - 3), ("wv", wavPack, firstBlock), ("tta", tta, 30)] {
            let url = directory.appendingPathComponent("boundary.\(name)")
            try bytes.prefix(cut).write(to: url)
            try await expectCut(url, at: Int64(cut), "\(name) cut at \(cut)")
        }
    }

    /// Raw streams longer than the frame walk's 4 MiB (ffmpeg's AAC at
    /// 256 kbit/s and AC-3 at 640 kbit/s, 10 s repeated: raw frames join):
    /// the cut is found from the last frames; the whole file has no warning.
    @Test(arguments: [("long.aac", ["-c:a", "aac", "-b:a", "256k"]), ("long.ac3", ["-c:a", "ac3", "-b:a", "640k"])])
    func aLongRawStreamCutPastTheWalk(name: String, codec: [String]) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent(name)
        try TestSupport.runChecked(
            "ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=10", "-ac", "2"] + codec + [url.path])
        let part = try Data(contentsOf: url)
        let whole = (0..<(Int(ElementaryStreamScanner.walkLimit) / part.count + 2)).reduce(Data()) { data, _ in data + part }
        try whole.write(to: url)
        #expect(whole.count > Int(ElementaryStreamScanner.walkLimit) + 100_000)
        #expect(!(try await MediaItem.loaded(url)).warnings.contains { $0.code == .truncated })
        for cut in [whole.count - 100, whole.count - 5000] {
            let cutURL = directory.appendingPathComponent("cut-\(cut)-\(name)")
            try whole.prefix(cut).write(to: cutURL)
            try await expectCut(cutURL, at: Int64(cut), "\(name) cut at \(cut) of \(whole.count)")
        }
    }

    /// The state the old save left: an APE tag (here by mutagen) right after
    /// the cut. The cut is still found, before the tag.
    @Test func aCutMusepackStreamWithATagAfterTheCut() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let whole = try Data(contentsOf: try encode("s.mpc", Self.encoded[0].1, in: directory))
        let cut = whole.count / 2
        let url = directory.appendingPathComponent("tagged.mpc")
        try whole.prefix(cut).write(to: url)
        try TestSupport.runChecked(
            "python3",
            ["-c", "import sys\nfrom mutagen.apev2 import APEv2\nt = APEv2()\nt['Title'] = 'Old'\nt.save(sys.argv[1])", url.path])
        try await expectCut(url, at: Int64(cut), "tagged SV8 cut at \(cut)")
    }

    @Test(arguments: encoded.map(\.0))
    func anIntactStreamSavesWithItsAudioUnchanged(name: String) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let command = try #require(Self.encoded.first { $0.0 == name }?.1)
        let url = try encode(name, command, in: directory)
        let audio = try MediaChecks.decodedMD5(url)
        var item = try await MediaItem.loaded(url)
        #expect(!item.warnings.contains { $0.code == .truncated }, "\(item.warnings)")
        item.metadata.title = "Whole"
        try await item.save()
        #expect(try await MediaItem.loaded(url).metadata.title == "Whole")
        #expect(try MediaChecks.decodedMD5(url) == audio)
    }

    /// Formats with no encoder here, hand-built as their encoders lay them
    /// out (the same checks find the cuts in mutagen's test files
    /// `click.mpc`, `silence-44-s.tak`, `silence-2s-44100-16.ofr` and
    /// `mac-399.ape`, and none in the whole files): Monkey's Audio 3.99 (the
    /// descriptor's byte counts), Musepack SV7 (the frames' lengths), TAK
    /// (the LAST_FRAME object), OptimFROG (the chunks).
    @Test(arguments: ["ape", "mpc", "tak", "ofr"])
    func handBuiltStreams(pathExtension: String) async throws {
        let built = [
            "ape": APEBuilder.monkeysAudio(), "mpc": APEBuilder.musepackSV7(), "tak": APEBuilder.takWithLastFrame(),
            "ofr": APEBuilder.optimFROGChunks(),
        ]
        let whole = try #require(built[pathExtension])
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let intact = directory.appendingPathComponent("whole.\(pathExtension)")
        try Data(whole).write(to: intact)
        var item = try await MediaItem.loaded(intact)
        #expect(!item.warnings.contains { $0.code == .truncated } && item.isEditable, "\(item.warnings)")
        item.metadata.title = "Whole"
        try await item.save()
        #expect(try await MediaItem.loaded(intact).metadata.title == "Whole")
        for cut in [60, whole.count / 2, whole.count - 1] {
            let url = directory.appendingPathComponent("cut-\(cut).\(pathExtension)")
            try Data(whole.prefix(cut)).write(to: url)
            try await expectCut(url, at: Int64(cut), "\(pathExtension) cut at \(cut) of \(whole.count)")
        }
    }

    /// DSF (hand-built): a file cut inside its 'data' chunk.
    @Test func aCutDSFStream() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let whole = DSDBuilder.dsf(tag: DSDBuilder.id3([("TIT2", "Old")]))
        let url = directory.appendingPathComponent("cut.dsf")
        try Data(whole.prefix(5000)).write(to: url)
        let before = try Data(contentsOf: url)
        var item = try await MediaItem.loaded(url)
        #expect(item.warnings.contains { $0.code == .truncated } && !item.isEditable, "\(item.warnings)")
        item.metadata.title = "After the cut"
        await #expect(throws: MediaError.self) { try await item.save() }
        #expect(try Data(contentsOf: url) == before)
    }
}
