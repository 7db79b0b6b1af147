import Foundation
import Testing

@testable import MetadataKit

/// The Swift names of the fields (``MetadataField/date``, the flags as
/// assertions, `ID`) beside their stable raw names, which `mdkit`, JSON
/// output and catalogs keep using; and the derived ``Metadata/year``.
struct FieldNameTests {
    /// Every case whose Swift name differs from its raw value, with that raw value.
    static let renamed: [(MetadataField, String)] = [
        (.date, "year"), (.isCompilation, "compilation"), (.isGapless, "gapless"), (.isPodcast, "podcast"),
        (.showsMovement, "showMovement"), (.musicBrainzRecordingID, "musicBrainzRecordingId"),
        (.musicBrainzReleaseTrackID, "musicBrainzReleaseTrackId"), (.musicBrainzReleaseID, "musicBrainzReleaseId"),
        (.musicBrainzReleaseGroupID, "musicBrainzReleaseGroupId"), (.musicBrainzArtistID, "musicBrainzArtistId"),
        (.musicBrainzAlbumArtistID, "musicBrainzAlbumArtistId"), (.musicBrainzWorkID, "musicBrainzWorkId"),
        (.musicBrainzDiscID, "musicBrainzDiscId"), (.musicBrainzTRMID, "musicBrainzTRMId"),
        (.musicBrainzOriginalReleaseID, "musicBrainzOriginalReleaseId"), (.acoustID, "acoustId"),
        (.acoustIDFingerprint, "acoustIdFingerprint"),
    ]

    @Test func theRawNamesStayAndTheSwiftNamesAreAcceptedToo() throws {
        for (field, raw) in Self.renamed {
            #expect(field.rawValue == raw)
            #expect(MetadataField(rawValue: raw) == field && MetadataField(name: raw) == field)
            let swiftName = String(describing: field)
            #expect(swiftName != raw && MetadataField(name: swiftName) == field, "\(swiftName)")
            #expect(MetadataField(rawValue: swiftName) == nil, "the raw value is the stable name only")
        }
        // The table covers every case whose Swift name differs from its raw value.
        let differing = MetadataField.allCases.filter { String(describing: $0) != $0.rawValue }
        #expect(Set(differing) == Set(Self.renamed.map(\.0)))
        #expect(MetadataField(name: "title") == .title && MetadataField(name: "Date") == nil && MetadataField(name: "") == nil)
        // The flags are the boolean fields, each an assertion.
        #expect(MetadataField.allCases.filter { $0.kind == .boolean } == [.showsMovement, .isCompilation, .isGapless, .isPodcast])
    }

    @Test func yearIsTheDatesYearNumber() {
        let cases: [(String?, Int?)] = [
            ("2024-05-01", 2024), ("2024", 2024), ("1999-12-31T23:59:59", 1999), ("0712", 712), (nil, nil),
            ("Oct 3, 1995", nil), ("20245", nil), ("199", nil), ("", nil), ("２０２４", nil), ("2024/05", 2024),
        ]
        for (date, year) in cases {
            var metadata = Metadata()
            metadata.date = date
            #expect(metadata.year == year, "\(date ?? "nil")")
            #expect(metadata[.date] == date.map(DisplayValue.text))
        }
    }

    @Test func theDateReadsFromEachFormatsDateKey() {
        let items = [
            MetadataItem(keySpace: .id3, key: "TDRC", value: .string("2021-03-04"), dataType: .utf8),
            MetadataItem(
                keySpace: .vorbis, key: "MUSICBRAINZ_ALBUMID", value: .string("0b0f1a8e-5f1c-4d3b-9b8e-2c1d0e9f8a7b"), dataType: .utf8),
            MetadataItem(keySpace: .vorbis, key: "COMPILATION", value: .string("1"), dataType: .utf8),
        ]
        let metadata = Metadata(items: items)
        #expect(metadata.date == "2021-03-04" && metadata.year == 2021)
        #expect(metadata.musicBrainzReleaseID == "0b0f1a8e-5f1c-4d3b-9b8e-2c1d0e9f8a7b")
        #expect(metadata.isCompilation == true && metadata.isGapless == nil)
    }
}

/// `mdkit write` takes a field by its raw name or its Swift name; `read
/// --json` keeps printing the raw names.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests")) struct CLIFieldNameTests {
    @Test func swiftNamesSetTheFieldAndJSONKeepsTheRawNames() async throws {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        let folder = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for fixture in ["sample.mp3", "sample.flac"] {
            let url = folder.appendingPathComponent(fixture)
            try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/\(fixture)"), to: url)
            let id = "0b0f1a8e-5f1c-4d3b-9b8e-2c1d0e9f8a7b"
            let written = try TestSupport.run(
                executable.path,
                ["write", url.path, "--set", "date=2021-03-04", "--set", "isCompilation=1", "--set", "musicBrainzReleaseID=\(id)"])
            #expect(written.status == 0, "\(fixture): \(written.standardError)")
            let read = try TestSupport.run(executable.path, ["read", "--json", url.path])
            let objects = try #require(try JSONSerialization.jsonObject(with: read.standardOutput) as? [[String: Any]])
            let metadata = try #require(objects.first?["metadata"] as? [String: Any])
            #expect(metadata["year"] as? String == "2021-03-04" && metadata["date"] == nil, "\(fixture)")
            #expect(metadata["compilation"] as? Bool == true && metadata["musicBrainzReleaseId"] as? String == id, "\(fixture)")
            // The old names keep working, for --remove too.
            let removed = try TestSupport.run(executable.path, ["write", url.path, "--remove", "year", "--remove", "isCompilation"])
            #expect(removed.status == 0, "\(removed.standardError)")
            let item = try await MediaItem.loaded(url).metadata
            #expect(item.date == nil && item.isCompilation == nil && item.musicBrainzReleaseID == id, "\(fixture)")
        }
    }
}
