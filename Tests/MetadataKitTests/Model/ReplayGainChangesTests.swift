import Foundation
import Testing

@testable import MetadataKit

/// Fallback keys in ``MetadataChanges``: the year's (read, never written or
/// removed) and ReplayGain's ID3 `RVA2` (read, kept in step with the field).
@Suite struct ReplayGainChangesTests {
    func text(_ key: String, _ value: String) -> MetadataItem {
        MetadataItem(keySpace: .id3, key: key, value: .string(value), dataType: .latin1)
    }

    func volume(_ identification: String, steps: Int16, peak: UInt16?) -> MetadataItem {
        let raw = UInt16(bitPattern: steps)
        var payload = Array(identification.utf8) + [0, 1, UInt8(raw >> 8), UInt8(raw & 0xFF)]
        payload += peak.map { [16, UInt8($0 >> 8), UInt8($0 & 0xFF)] } ?? [0]
        return MetadataItem(keySpace: .id3, key: "RVA2:\(identification)", value: .data(Data(payload)), dataType: .binary)
    }

    func resolved(_ loaded: Metadata, _ edited: Metadata) throws -> [MetadataItem] {
        try MetadataChanges().resolvedItems(loaded: loaded, edited: edited, keySpaces: [.id3, .id3v1], derived: [.id3v1])
    }

    @Test func fallbackKeysPerField() {
        let changes = MetadataChanges()
        #expect(changes.fallbackKeys(of: .date).map(\.key) == ["TDRL", "TDOR", "TORY"])
        #expect(changes.fallbackKeys(of: .releaseDate).isEmpty && changes.fallbackKeys(of: .originalDate).isEmpty)
        #expect(changes.fallbackKeys(of: .replayGainTrackGain).map(\.key) == ["RVA2:track", "RVA2:TRACK", "RVA2:Track"])
        #expect(changes.fallbackKeys(of: .replayGainAlbumPeak).map(\.key) == ["RVA2:album", "RVA2:ALBUM", "RVA2:Album"])
        #expect(changes.fallbackKeys(of: .title).isEmpty)
    }

    @Test func settingAGainWritesTXXXAndUpdatesRVA2() throws {
        let album = volume("album", steps: 640, peak: 0x4000)
        let loaded = Metadata(items: [text("TIT2", "T"), volume("track", steps: -3328, peak: 0x7D70), album])
        #expect(loaded.replayGainTrackGain == "-6.50 dB" && loaded.replayGainAlbumGain == "+1.25 dB")
        var edited = loaded
        edited.replayGainTrackGain = "-4.25 dB"
        let items = try resolved(loaded, edited)
        #expect(items.map(\.key) == ["TIT2", "RVA2:track", "RVA2:album", "TXXX:REPLAYGAIN_TRACK_GAIN"])
        #expect(items[1] == volume("track", steps: -2176, peak: 0x7D70), "updated in place, the peak kept")
        #expect(items[2] == album, "the album frame is untouched")
        let saved = Metadata(items: items)
        #expect(saved.replayGainTrackGain == "-4.25 dB" && saved.replayGainTrackPeak == loaded.replayGainTrackPeak)

        // A peak: TXXX, and RVA2's peak as 16 bits.
        var peaked = saved
        peaked.replayGainTrackPeak = "0.5"
        let again = try resolved(saved, peaked)
        #expect(again.first { $0.key == "RVA2:track" } == volume("track", steps: -2176, peak: 0x4000))
        #expect(again.first { $0.key == "TXXX:REPLAYGAIN_TRACK_PEAK" }?.value == .string("0.5"))
    }

    @Test func removingAGainRemovesRVA2AndKeepsThePeak() throws {
        let loaded = Metadata(items: [volume("track", steps: -3328, peak: 0x7D70), volume("album", steps: 640, peak: nil)])
        let peak = try #require(loaded.replayGainTrackPeak)
        var edited = loaded
        edited.replayGainTrackGain = nil
        edited.replayGainAlbumGain = nil
        let items = try resolved(loaded, edited)
        #expect(items == [text("TXXX:REPLAYGAIN_TRACK_PEAK", peak).with(dataType: .utf8)], "\(items)")
        let saved = Metadata(items: items)
        #expect(saved.replayGainTrackGain == nil && saved.replayGainTrackPeak == peak && saved.replayGainAlbumPeak == nil)

        // Both removed: nothing is left.
        var both = loaded
        both.replayGainTrackGain = nil
        both.replayGainTrackPeak = nil
        #expect(try resolved(loaded, both).map(\.key) == ["RVA2:album"])
    }

    @Test func aValueThatIsNoGainIsRefused() throws {
        let loaded = Metadata(items: [volume("track", steps: -3328, peak: 0x7D70), text("TXXX:REPLAYGAIN_TRACK_PEAK", "0.97")])
        for gain in ["very loud", "-70 dB"] {
            var edited = loaded
            edited.replayGainTrackGain = gain
            #expect {
                try resolved(loaded, edited)
            } throws: { error in
                "\(error)".contains("replayGainTrackGain '\(gain)' is not a gain in dB")
            }
        }
    }

    @Test func newValuesNeverAddRVA2() throws {
        let loaded = Metadata(items: [text("TIT2", "T")])
        var edited = loaded
        edited.replayGainAlbumGain = "-1.00 dB"
        edited.replayGainAlbumPeak = "0.9"
        let items = try resolved(loaded, edited)
        #expect(items.map(\.key) == ["TIT2", "TXXX:REPLAYGAIN_ALBUM_GAIN", "TXXX:REPLAYGAIN_ALBUM_PEAK"])
    }

    @Test func theYearsFallbacksAreStillNeverTouched() throws {
        let loaded = Metadata(items: [text("TDRL", "2020-01-02"), text("TDOR", "1999")])
        #expect(loaded.date == "2020-01-02")
        var edited = loaded
        edited.date = "2024"
        #expect(try resolved(loaded, edited).map(\.key) == ["TDRL", "TDOR", "TDRC"])
        var removed = loaded
        removed.date = nil
        #expect(try resolved(loaded, removed).map(\.key) == ["TDRL", "TDOR"])
        var release = loaded
        release.releaseDate = "2021"
        #expect(try resolved(loaded, release).first { $0.key == "TDRL" }?.value == .string("2021"))
    }
}

extension MetadataItem {
    fileprivate func with(dataType: MetadataDataType) -> MetadataItem {
        var copy = self
        copy.dataType = dataType
        return copy
    }
}
