import Foundation
import Testing

@testable import MetadataKit

/// ReplayGain in ID3v2.4 `RVA2` frames made by mutagen (as QuodLibet and
/// mutagen's EasyID3 write them), read by MetadataKit, changed with
/// `mdkit write`, and read back by mutagen.
@Suite struct ID3ReplayGainInteropTests {
    static let toolsPresent = ToolCheck.has("ffmpeg") && ToolCheck.has("python3:mutagen")

    /// Adds frames with mutagen: `RVA2 desc gain peak` and `TXXX desc text` arguments.
    static let mutagenTagger = """
        import sys
        from mutagen.id3 import ID3, RVA2, TXXX, TIT2
        tags = ID3(sys.argv[1])
        tags.add(TIT2(encoding=3, text=["Gain"]))
        args = sys.argv[2:]
        while args:
            if args[0] == "RVA2":
                tags.add(RVA2(desc=args[1], channel=1, gain=float(args[2]), peak=float(args[3])))
                args = args[4:]
            else:
                tags.add(TXXX(encoding=3, desc=args[1], text=[args[2]]))
                args = args[3:]
        tags.save(sys.argv[1], v2_version=4)
        """

    /// Prints what mutagen sees: RVA2 gain/peak per identification, the TXXX values.
    static let mutagenReader = """
        import sys, json
        from mutagen.id3 import ID3
        tags = ID3(sys.argv[1])
        out = {}
        for frame in tags.getall("RVA2"):
            out["RVA2:" + frame.desc] = [frame.channel, frame.gain, frame.peak]
        for frame in tags.getall("TXXX"):
            out["TXXX:" + frame.desc] = [str(t) for t in frame.text]
        print(json.dumps(out))
        """

    static func tagged(_ arguments: [String]) throws -> URL {
        let url = try MP3WriteInteropTests.makeMP3()
        try TestSupport.runChecked("python3", ["-c", mutagenTagger, url.path] + arguments)
        return url
    }

    static func mutagen(_ url: URL) throws -> [String: [Any]] {
        let data = try TestSupport.runChecked("python3", ["-c", mutagenReader, url.path]).standardOutput
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: [Any]])
    }

    static func number(_ text: String?) -> Double? {
        text.flatMap { ID3RelativeVolume.gain(fromText: $0) }
    }

    @Test(.enabled(if: toolsPresent))
    func mutagensRVA2ReadsAsReplayGain() async throws {
        let url = try Self.tagged(["RVA2", "track", "-6.5", "0.98", "RVA2", "album", "1.25", "0.5"])
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let seen = try Self.mutagen(url)
        let metadata = try await MediaItem.loaded(url).metadata
        for (identification, gain, peak) in [
            ("track", metadata.replayGainTrackGain, metadata.replayGainTrackPeak),
            ("album", metadata.replayGainAlbumGain, metadata.replayGainAlbumPeak),
        ] {
            let frame = try #require(seen["RVA2:\(identification)"])
            let theirGain = try #require(frame[1] as? Double), theirPeak = try #require(frame[2] as? Double)
            #expect(gain == ID3RelativeVolume.gainText(theirGain), "\(identification): \(String(describing: gain)) vs \(theirGain)")
            let ours = try #require(peak.flatMap(Double.init))
            #expect(abs(ours - theirPeak) < 1e-6, "\(identification) peak: \(ours) vs \(theirPeak)")
        }
        #expect(metadata.replayGainTrackGain == "-6.50 dB" && metadata.replayGainAlbumGain == "+1.25 dB")
    }

    @Test(.enabled(if: toolsPresent))
    func txxxWinsOverRVA2() async throws {
        let url = try Self.tagged(["RVA2", "track", "-6.5", "0.98", "TXXX", "REPLAYGAIN_TRACK_GAIN", "-3.10 dB"])
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let metadata = try await MediaItem.loaded(url).metadata
        #expect(metadata.replayGainTrackGain == "-3.10 dB")
        #expect(Self.number(metadata.replayGainTrackPeak).map { abs($0 - 0.98) < 1e-4 } == true, "the peak from RVA2")
    }

    @Test(.enabled(if: toolsPresent && Capabilities.mdkit, "needs ffmpeg, mutagen and the mdkit binary"))
    func writesThatMutagenSeesConsistently() async throws {
        let url = try Self.tagged(["RVA2", "track", "-6.5", "0.98", "RVA2", "album", "1.25", "0.5"])
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let mdkit = try #require(TestSupport.mdkitExecutable)
        let before = try Self.mutagen(url)

        // Setting the track gain: TXXX written, the RVA2 "track" frame updated, its peak and the album frame kept.
        let set = try TestSupport.run(mdkit.path, ["write", url.path, "--set", "replayGainTrackGain=-4.25 dB"])
        #expect(set.status == 0, "\(set.standardError)")
        var seen = try Self.mutagen(url)
        #expect(seen["TXXX:REPLAYGAIN_TRACK_GAIN"] as? [String] == ["-4.25 dB"])
        let track = try #require(seen["RVA2:track"])
        #expect(track[0] as? Int == 1 && track[1] as? Double == -4.25)
        #expect(track[2] as? Double == before["RVA2:track"]?[2] as? Double, "the peak is kept")
        #expect(seen["RVA2:album"]?.description == before["RVA2:album"]?.description)
        var metadata = try await MediaItem.loaded(url).metadata
        #expect(metadata.replayGainTrackGain == "-4.25 dB" && metadata.replayGainAlbumGain == "+1.25 dB")
        let peak = metadata.replayGainTrackPeak

        // Removing it: no TXXX gain and no RVA2 "track"; the peak stays readable (moved to TXXX).
        let removed = try TestSupport.run(mdkit.path, ["write", url.path, "--remove", "replayGainTrackGain"])
        #expect(removed.status == 0, "\(removed.standardError)")
        seen = try Self.mutagen(url)
        #expect(seen["TXXX:REPLAYGAIN_TRACK_GAIN"] == nil && seen["RVA2:track"] == nil)
        #expect(seen["TXXX:REPLAYGAIN_TRACK_PEAK"] as? [String] == peak.map { [$0] })
        metadata = try await MediaItem.loaded(url).metadata
        #expect(metadata.replayGainTrackGain == nil && metadata.replayGainTrackPeak == peak)

        // An album peak: RVA2's peak (16 bits) and TXXX agree within mutagen's rounding.
        let album = try TestSupport.run(mdkit.path, ["write", url.path, "--set", "replayGainAlbumPeak=0.75"])
        #expect(album.status == 0, "\(album.standardError)")
        seen = try Self.mutagen(url)
        #expect(seen["TXXX:REPLAYGAIN_ALBUM_PEAK"] as? [String] == ["0.75"])
        let albumPeak = try #require(seen["RVA2:album"]?[2] as? Double)
        #expect(abs(albumPeak - 0.75) < 1e-6 && seen["RVA2:album"]?[1] as? Double == 1.25)
    }
}
