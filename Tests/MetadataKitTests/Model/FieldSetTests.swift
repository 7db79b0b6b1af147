import Foundation
import Testing

@testable import MetadataKit

/// The fields beyond the original fifteen: converters, lists, the key map
/// rows of every format, and the registry-made field list of `mdkit fields`.
@Suite struct FieldSetTests {
    func item(_ space: MetadataKeySpace, _ key: String, _ value: MetadataValue, language: String? = nil) -> MetadataItem {
        MetadataItem(keySpace: space, key: key, value: value, dataType: .utf8, language: language)
    }

    @Test func theNamesScriptsRelyOnExist() {
        let names = [
            "titleSort", "artistSort", "albumSort", "albumArtistSort", "composerSort", "compilation", "lyrics", "isrc", "label",
            "catalogNumber", "barcode", "conductor", "lyricist", "remixer", "mood", "copyright", "encodedBy", "releaseDate",
            "originalDate", "musicBrainzRecordingId", "musicBrainzReleaseTrackId", "musicBrainzReleaseId",
            "musicBrainzReleaseGroupId", "musicBrainzArtistId", "musicBrainzAlbumArtistId", "musicBrainzWorkId", "acoustId",
            "replayGainTrackGain", "replayGainTrackPeak", "replayGainAlbumGain", "replayGainAlbumPeak",
        ]
        for name in names { #expect(MetadataField(rawValue: name) != nil, "\(name)") }
        #expect(MetadataField.isCompilation.kind == .boolean && MetadataField.rating.kind == .integer)
    }

    @Test func aFieldsPositionIsItsIndexInDeclarationOrder() {
        #expect(MemoryLayout<MetadataField>.size == 1)
        for (index, field) in MetadataField.ordered.enumerated() {
            #expect(field.position == index, "\(field)")
        }
        #expect(MetadataField.discCount.isCore && !MetadataField.titleSort.isCore)
        // Hashed by position: every field its own bucket key, as a set of all of them shows.
        #expect(Set(MetadataField.allCases).count == MetadataField.allCases.count)
        #expect(Set(MetadataField.allCases.map(\.hashValue)).count == MetadataField.allCases.count)
    }

    /// Production-sound fields: only Broadcast WAV chunks hold them.
    static let broadcastWAVFields: Set<MetadataField> = Set(MetadataKeyMap.broadcastWAVKeys.keys)

    @Test func differingFieldsAreTheFieldsWhoseValuesDiffer() {
        var before = Metadata()
        before.title = "A"
        before.artist = "B"
        before[.composer] = .texts(["C", "D"])
        before[.mood] = .text("calm")
        before[.rating] = .integer(60)
        before.trackNumber = 3
        var after = before
        after.title = "A2" // changed
        after.artist = nil // removed
        after[.composer] = .texts(["C", "E"]) // a list changed
        after[.conductor] = .text("F") // added (extended)
        after[.mood] = nil // removed (extended)
        var expected: [MetadataField] = []
        for field in MetadataField.allCases where before[field] != after[field] { expected.append(field) }
        #expect(expected.count == 5)
        #expect(after.differingFields(from: before) == expected)
        #expect(before.differingFields(from: before).isEmpty)
        #expect(Metadata().differingFields(from: after) == MetadataField.allCases.filter { after[$0] != nil })
    }

    @Test func theRoleSwitchAgreesWithTheRoleTable() {
        for field in MetadataField.allCases {
            #expect(
                InvolvedPeopleMetadataConverter.isRole(field) == (InvolvedPeopleMetadataConverter.roles[field] != nil), "\(field)")
        }
    }

    @Test func everyFieldHasAKeyInTheFormatsThatCanHoldIt() {
        let keys = MetadataKeyMap.standard.keys
        for field in MetadataField.allCases
        where ![.isGapless, .isPodcast, .podcastURL, .podcastCategory].contains(field) && !Self.broadcastWAVFields.contains(field) {
            #expect(keys[field]?.contains { $0.keySpace == .vorbis } ?? false, "\(field) has a Vorbis key")
        }
        for field in MetadataField.allCases
        where ![.performers, .r128TrackGain, .r128AlbumGain, .isGapless].contains(field)
            && ![.arranger, .engineer, .producer, .djMixer, .mixer].contains(field) && !Self.broadcastWAVFields.contains(field)
        {
            #expect(keys[field]?.contains { $0.keySpace == .id3 } ?? false, "\(field) has an ID3 key")
        }
        // No key holds two fields in one key space, except the shared number/count items.
        var owner: [MetadataKeyMap.RawKey: MetadataField] = [:]
        let shared: Set<String> = [
            "TRCK", "TRK", "TPOS", "TPA", "MVIN", "MVI", "trkn", "disk", "track", "disc", "TRACKNUMBER", "DISCNUMBER", "ITRK", "IPRT",
            "TIPL", "IPLS", "IPL", "WM/TrackNumber", "WM/PartOfSet", "TRACK", "DISC", "PART_NUMBER",
        ]
        for field in MetadataField.allCases {
            for key in keys[field] ?? [] where !shared.contains(key.key) && !(key.key.hasPrefix("com.apple.quicktime.")) {
                if let other = owner[key], other != field, !(MetadataKeyMap.standard.fallbackKeys.contains(key)) {
                    Issue.record("\(key) holds both \(other) and \(field)")
                }
                owner[key] = field
            }
        }
    }

    @Test func listsShowJoinedAndOneByOne() {
        let metadata = Metadata(items: [
            item(.vorbis, "ARTIST", .strings(["Ann", "Bob"])),
            item(.vorbis, "MUSICBRAINZ_ARTISTID", .strings(["id-1", "id-2"])),
            item(.vorbis, "GENRE", .strings(["Jazz", "Funk"])),
            item(.vorbis, "TITLE", .string("One")),
        ])
        #expect(metadata.artist == "Ann; Bob" && metadata.values(of: .artist) == ["Ann", "Bob"])
        #expect(metadata[.artist] == .texts(["Ann", "Bob"]) && metadata[.title] == .text("One"))
        #expect(metadata.musicBrainzArtistIDs == ["id-1", "id-2"] && metadata.musicBrainzArtistID == "id-1; id-2")
        #expect(metadata.genres == ["Jazz", "Funk"] && metadata.genre?.name == "Jazz; Funk")
        #expect(metadata.artists == ["Ann", "Bob"], "no ARTISTS tag: the artist values")
        var edited = metadata
        edited.artist = "Ann; Bob"
        #expect(edited[.artist] == .texts(["Ann", "Bob"]), "setting the shown text keeps the list")
        edited.artist = "Cleo"
        #expect(edited[.artist] == .text("Cleo") && edited.values(of: .artist) == ["Cleo"])
        edited.setValues(["X", "Y"], for: .artist)
        #expect(edited.artist == "X; Y" && edited[.artist] == .texts(["X", "Y"]))
    }

    @Test func listsAreWrittenAsSeveralStrings() throws {
        let loaded = Metadata(items: [item(.vorbis, "TITLE", .string("t"))])
        var edited = loaded
        edited.setValues(["Ann", "Bob"], for: .composer)
        edited.performers = ["Ann (piano)", "Bob (drums)"]
        let items = try MetadataChanges().resolvedItems(loaded: loaded, edited: edited, keySpaces: [.vorbis])
        #expect(items.first { $0.key == "COMPOSER" }?.value == .strings(["Ann", "Bob"]))
        #expect(items.first { $0.key == "PERFORMER" }?.value == .strings(["Ann (piano)", "Bob (drums)"]))
        let comment = try VorbisComment(vendor: "v").updated(for: items, picturesAsFields: false).comment
        #expect(comment.fields.filter { $0.name == "COMPOSER" }.map(\.value) == ["Ann", "Bob"], "repeated fields")
    }

    @Test func flagsReadEveryStoredFormAndWriteTheFormatsOwn() throws {
        for (space, key, value, expected) in [
            (MetadataKeySpace.id3, "TCMP", MetadataValue.string("1"), true), (.id3, "TCMP", .string("0"), false),
            (.iTunes, "cpil", .integer(1), true), (.iTunes, "cpil", .integer(0), false),
            (.vorbis, "COMPILATION", .string("true"), true), (.vorbis, "COMPILATION", .string("No"), false),
            (.id3, "PCST", .data(Data([0, 0, 0, 1])), true),
        ] as [(MetadataKeySpace, String, MetadataValue, Bool)] {
            let metadata = Metadata(items: [item(space, key, value)])
            let field: MetadataField = key == "PCST" ? .isPodcast : .isCompilation
            #expect(metadata[field]?.boolean == expected, "\(space):\(key) \(value)")
        }
        let converter = BooleanMetadataConverter()
        let mp4 = try converter.items(for: .isCompilation, value: .text("yes"), key: .init(.iTunes, "cpil"), existing: [])
        #expect(mp4.first?.value == .integer(1) && mp4.first?.dataType == .signedInteger)
        let id3 = try converter.items(for: .isCompilation, value: .integer(1), key: .init(.id3, "TCMP"), existing: [])
        #expect(id3.first?.value == .string("1"))
        #expect(throws: MediaError.self) {
            try converter.items(for: .isCompilation, value: .text("maybe"), key: .init(.id3, "TCMP"), existing: [])
        }
    }

    @Test func ratingIsZeroToHundredWithTheRawKept() throws {
        #expect(Metadata(items: [item(.id3, "POPM:Windows Media Player 9 Series", .integer(196))]).rating == 77)
        #expect(Metadata(items: [item(.id3, "POPM:users@musicbrainz.org", .integer(255))]).rating == 100)
        #expect(Metadata(items: [item(.vorbis, "RATING", .string("80"))]).rating == 80)
        #expect(Metadata(items: [item(.vorbis, "RATING", .string("0.6"))]).rating == 60)
        #expect(Metadata(items: [item(.iTunes, "rate", .string("40"))]).rating == 40)
        #expect(Metadata(items: [item(.vorbis, "RATING", .string("500"))]).rating == nil, "out of range: no rating")
        let converter = RatingMetadataConverter()
        for value in 0...100 {
            let raw = try converter.items(for: .rating, value: .integer(value), key: .init(.id3, "POPM:x"), existing: [])
            #expect(converter.displayValue(for: .rating, from: raw) == .integer(value), "\(value) survives POPM's 0–255")
        }
        #expect(throws: MediaError.self) {
            try converter.items(for: .rating, value: .integer(101), key: .init(.vorbis, "RATING"), existing: [])
        }
    }

    @Test func movementNumberAndCountShareMVIN() throws {
        let loaded = Metadata(items: [item(.id3, "MVIN", .string("2/7"))])
        #expect(loaded.movementNumber == 2 && loaded.movementCount == 7)
        var edited = loaded
        edited.movementNumber = 3
        var items = try MetadataChanges().resolvedItems(loaded: loaded, edited: edited, keySpaces: [.id3])
        #expect(items.first { $0.key == "MVIN" }?.value == .string("3/7"))
        edited.movementNumber = nil
        items = try MetadataChanges().resolvedItems(loaded: loaded, edited: edited, keySpaces: [.id3])
        #expect(items.first { $0.key == "MVIN" }?.value == .string("/7"), "the count stays")
        let mp4 = Metadata(items: [item(.iTunes, "\u{A9}mvi", .integer(4)), item(.iTunes, "\u{A9}mvc", .integer(8))])
        #expect(mp4.movementNumber == 4 && mp4.movementCount == 8)
        var noNumber = mp4
        noNumber.movementNumber = nil
        items = try MetadataChanges().resolvedItems(loaded: mp4, edited: noNumber, keySpaces: [.iTunes])
        #expect(items.map(\.key) == ["\u{A9}mvc"], "MP4 keeps them apart")
    }

    @Test func musicBrainzRecordingIdIsTheUFIDText() throws {
        let metadata = Metadata(items: [
            MetadataItem(keySpace: .id3, key: "UFID:http://musicbrainz.org", value: .data(Data("5b11f4ce-a62d".utf8)), dataType: .binary)
        ])
        #expect(metadata.musicBrainzRecordingID == "5b11f4ce-a62d")
        let written = try DefaultMetadataConverter().items(
            for: .musicBrainzRecordingID, value: .text("abc"), key: .init(.id3, "UFID:http://musicbrainz.org"), existing: [])
        #expect(written.first?.value == .data(Data("abc".utf8)))
        let payload = try ID3v2FrameEncoder.payload(id: "UFID", item: written[0], version: 4)
        #expect(payload == Array("http://musicbrainz.org".utf8) + [0] + Array("abc".utf8), "ID3v2.4.0 frames §4.1")
    }

    @Test func datesKeepTheirOwnFieldsAndYearItsMeaning() throws {
        let metadata = Metadata(items: [
            item(.id3, "TDRL", .string("2021-03-04")), item(.id3, "TDOR", .string("1999-01-02")),
            item(.id3, "TXXX:ORIGINALYEAR", .string("1999")),
        ])
        #expect(metadata.releaseDate == "2021-03-04" && metadata.originalDate == "1999-01-02" && metadata.originalYear == "1999")
        #expect(metadata.date == "2021-03-04", "year still falls back to the release date")
        var edited = metadata
        edited.originalDate = "1998"
        let items = try MetadataChanges().resolvedItems(loaded: metadata, edited: edited, keySpaces: [.id3])
        #expect(items.first { $0.key == "TDOR" }?.value == .string("1998") && items.contains { $0.key == "TDRL" })
    }

    @Test func iTunesTextFramesAreTextInBothVersions() throws {
        for version: UInt8 in [3, 4] {
            for id in ["GRP1", "MVNM", "MVIN"] {
                let item = MetadataItem(keySpace: .id3, key: id, value: .string("x ü"), dataType: .utf8)
                let payload = try ID3v2FrameEncoder.payload(id: id, item: item, version: version)
                #expect(ID3v2FrameDecoder.item(id: id, payload: payload).value == .string("x ü"), "\(id) v2.\(version)")
            }
        }
        #expect(Metadata(items: [item(.id3, "GRP1", .string("g"))]).grouping == "g")
    }

    @Test func peopleByRoleShareTheirID3Frame() throws {
        let loaded = Metadata(items: [
            item(.id3, "TIPL", .strings(["producer", "Pat", "arranger", "Ann", "DJ-mix", "Dee", "mix", "Max", "engineer", "Eve"])),
            item(.id3, "TMCL", .strings(["piano", "Ann", "vocals", "Bob"])),
        ])
        #expect(loaded.producer == "Pat" && loaded.arranger == "Ann" && loaded.djMixer == "Dee" && loaded.mixer == "Max")
        #expect(loaded.engineer == "Eve" && loaded.performers == ["Ann (piano)", "Bob (vocals)"])
        var edited = loaded
        edited.setValues(["Al", "Bo"], for: .arranger)
        edited.producer = nil
        edited.performers = ["Cy (drums)"]
        let items = try MetadataChanges().resolvedItems(loaded: loaded, edited: edited, keySpaces: [.id3])
        #expect(
            items.first { $0.key == "TIPL" }?.value
                == .strings(["DJ-mix", "Dee", "mix", "Max", "engineer", "Eve", "arranger", "Al", "arranger", "Bo"]))
        #expect(items.first { $0.key == "TMCL" }?.value == .strings(["drums", "Cy"]))
        let reread = Metadata(items: items)
        #expect(reread.values(of: .arranger) == ["Al", "Bo"] && reread.producer == nil && reread.engineer == "Eve")
        // v2.3's IPLS holds both kinds; the pairs stay null-separated in v2.3.
        let ipls = Metadata(items: [item(.id3, "IPLS", .strings(["producer", "Pat", "guitar", "Gus"]))])
        #expect(ipls.producer == "Pat" && ipls.performers == ["Gus (guitar)"])
        let frame = MetadataItem(keySpace: .id3, key: "TIPL", value: .strings(["producer", "Pat"]), dataType: .utf8)
        #expect(
            try ID3v2FrameEncoder.payload(id: "TIPL", item: frame, version: 3) == [0] + Array("producer".utf8) + [0] + Array("Pat".utf8))
    }
}
