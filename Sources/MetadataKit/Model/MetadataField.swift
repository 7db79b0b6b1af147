#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The normalized fields every format maps onto.
///
/// A field's `rawValue` is its stable name: the one `mdkit` takes in
/// `--set`/`--remove` and prints in `read --json`, and the one catalogs
/// store, in lowerCamelCase after MusicBrainz Picard's internal tag names
/// (`musicbrainz_albumid` is `musicBrainzReleaseId`). A few case names
/// follow the Swift API guidelines instead and differ from it: ``date`` is
/// `year`, the flags read as assertions (``isCompilation`` is
/// `compilation`), and identifiers spell `ID` (``musicBrainzReleaseID`` is
/// `musicBrainzReleaseId`); ``init(name:)`` accepts both. Which raw key
/// holds each field in each format is the key map (``MetadataKeyMap``; the
/// table is `docs/FIELDS.md` and `mdkit fields`).
public enum MetadataField: String, CaseIterable, Sendable, Hashable {
    // The fields of the original design (their order is part of the output of `mdkit read`).
    /// The track or work title (ID3v2 `TIT2`, Vorbis `TITLE`, MP4 `©nam`).
    case title
    /// The track artist as one display string (`TPE1`, `ARTIST`, `©ART`).
    case artist
    /// The release's artist, for grouping compilations (`TPE2`, `ALBUMARTIST`, `aART`).
    case albumArtist
    /// The release title (`TALB`, `ALBUM`, `©alb`).
    case album
    /// A content group above the track, such as a piece's set (`TIT1`/`GRP1`, `GROUPING`, `©grp`).
    case grouping
    /// The composer (`TCOM`, `COMPOSER`, `©wrt`).
    case composer
    /// A free-text comment (ID3 `COMM`, Vorbis `COMMENT`, MP4 `©cmt`).
    case comments
    /// Embedded pictures (ID3 `APIC`, FLAC/Vorbis `METADATA_BLOCK_PICTURE`, MP4 `covr`); see ``Artwork``.
    case artwork
    /// The genre name; ID3v1/ID3v2 and MP4 `gnre` numbers are shown as their names.
    case genre
    /// The recording date as stored: a year or an ISO 8601 date such as `2021-03-04` (`TDRC`/`TYER`, `DATE`, `©day`).
    case date = "year"
    /// Tempo in beats per minute, a whole number (`TBPM`, `BPM`, `tmpo`).
    case bpm
    /// The track's position on its disc, from 1 (`TRCK`, `TRACKNUMBER`, `trkn`).
    case trackNumber
    /// How many tracks the disc has (the `/total` of `TRCK`, `TRACKTOTAL`, `trkn`).
    case trackCount
    /// The disc's position in the release, from 1 (`TPOS`, `DISCNUMBER`, `disk`).
    case discNumber
    /// How many discs the release has (the `/total` of `TPOS`, `DISCTOTAL`, `disk`).
    case discCount

    // Sort names.
    /// The title as it sorts (`TSOT`, `TITLESORT`, `sonm`).
    case titleSort
    /// The artist as it sorts, such as "Beatles, The" (`TSOP`, `ARTISTSORT`, `soar`).
    case artistSort
    /// The album as it sorts (`TSOA`, `ALBUMSORT`, `soal`).
    case albumSort
    /// The album artist as it sorts (`TSO2`, `ALBUMARTISTSORT`, `soaa`).
    case albumArtistSort
    /// The composer as it sorts (`TSOC`, `COMPOSERSORT`, `soco`).
    case composerSort
    // Titles and works.
    /// A subtitle or description refining the title (`TIT3`, `SUBTITLE`).
    case subtitle
    /// The title of this disc of a set (`TSST`, `DISCSUBTITLE`).
    case discSubtitle
    /// The musical work the recording performs (`TXXX:WORK`, `WORK`, `©wrk`).
    case work
    /// The movement's name within the work (`MVNM`, `MOVEMENTNAME`, `©mvn`).
    case movementName
    /// The movement's number within the work, from 1 (`MVIN`, `MOVEMENT`, `©mvi`).
    case movementNumber
    /// How many movements the work has (`MVIN`, `MOVEMENTTOTAL`, `©mvc`).
    case movementCount
    /// Whether players show work and movement instead of the title (`SHOWMOVEMENT`, MP4 `shwm`).
    case showsMovement = "showMovement"
    // People.
    /// Every track artist as separate values, where ``artist`` is one display string (`TXXX:ARTISTS`, `ARTISTS`).
    case artists
    /// The conductor (`TPE3`, `CONDUCTOR`).
    case conductor
    /// The lyricist or text writer (`TEXT`, `LYRICIST`).
    case lyricist
    /// The remixer or modifier (`TPE4`, `REMIXER`).
    case remixer
    /// The arranger (ID3v2.4 `TIPL` role `arranger`, `ARRANGER`).
    case arranger
    /// The recording engineer (`TIPL` role `engineer`, `ENGINEER`, RIFF `IENG`).
    case engineer
    /// The producer (`TIPL` role `producer`, `PRODUCER`).
    case producer
    /// The DJ who mixed the release (`TIPL` role `DJ-mix`, `DJMIXER`).
    case djMixer
    /// The mixing engineer (`TIPL` role `mix`, `MIXER`).
    case mixer
    /// Performers with their instrument or role, as `role: name` values (ID3v2.4 `TMCL`, Vorbis `PERFORMER`).
    case performers
    /// The artist of the original recording, for a cover (`TOPE`, `ORIGINALARTIST`).
    case originalArtist
    /// The album of the original recording (`TOAL`, `ORIGINALALBUM`).
    case originalAlbum
    // Release.
    /// The record label or publisher (`TPUB`, `LABEL`).
    case label
    /// The label's catalog number of the release (`TXXX:CATALOGNUMBER`, `CATALOGNUMBER`).
    case catalogNumber
    /// The release's barcode, EAN or UPC digits (`TXXX:BARCODE`, `BARCODE`).
    case barcode
    /// The recording's International Standard Recording Code, 12 characters without hyphens (ISO 3901; `TSRC`, `ISRC`).
    case isrc
    /// The Amazon Standard Identification Number of the release (`TXXX:ASIN`, `ASIN`).
    case asin
    /// The medium the release came on, such as "CD" or "Digital Media" (`TMED`, `MEDIA`).
    case media
    /// The MusicBrainz release type, such as "album" or "single" (`TXXX:MusicBrainz Album Type`, `RELEASETYPE`).
    case releaseType
    /// The MusicBrainz release status, such as "official" (`TXXX:MusicBrainz Album Status`, `RELEASESTATUS`).
    case releaseStatus
    /// The country of the release, an ISO 3166 code such as "GB" (`RELEASECOUNTRY`).
    case releaseCountry
    /// The script of the track listing, an ISO 15924 code such as "Latn" (`TXXX:SCRIPT`, `SCRIPT`).
    case script
    /// The language of the lyrics or speech, an ISO 639-2 code such as "eng" (`TLAN`, `LANGUAGE`).
    case language
    /// The mood, free text (`TMOO`, `MOOD`).
    case mood
    /// The musical key the track starts in, such as "Am" (`TKEY`, Vorbis `KEY`).
    case initialKey
    /// The copyright message (`TCOP`, `COPYRIGHT`, `cprt`).
    case copyright
    /// The licence, text or URL (`TXXX:LICENSE`/`WCOP`, `LICENSE`).
    case license
    /// Who or what encoded the file (`TENC`, `ENCODEDBY`, `©too`).
    case encodedBy
    /// The encoder software and its settings (`TSSE`, `ENCODERSETTINGS`, RIFF `ISFT`).
    case encoderSettings
    /// The artist's web page (`WOAR`, `WEBSITE`).
    case website
    // Flags.
    /// Whether the release is a compilation of several artists (`TCMP`, `COMPILATION`, `cpil`).
    case isCompilation = "compilation"
    /// Whether the track plays gaplessly into the next (MP4 `pgap` only).
    case isGapless = "gapless"
    /// Whether the file is a podcast episode (`PCST`, MP4 `pcst`).
    case isPodcast = "podcast"
    /// The podcast's feed URL (`WFED`, MP4 `purl`).
    case podcastURL
    /// The podcast's category (`TCAT`, MP4 `catg`).
    case podcastCategory
    // Dates.
    /// The release date of this release, `yyyy`, `yyyy-MM` or `yyyy-MM-dd` (`TDRL`, `RELEASEDATE`).
    case releaseDate
    /// The date of the original release, `yyyy`, `yyyy-MM` or `yyyy-MM-dd` (`TDOR`, `ORIGINALDATE`).
    case originalDate
    /// The year of the original release, four digits (`TXXX:ORIGINALYEAR`, `ORIGINALYEAR`).
    case originalYear
    // Lyrics.
    /// Unsynchronised lyrics as text (`USLT`, `LYRICS`, `©lyr`); timed lyrics are `Metadata.timedLyrics(secondsPerFrame:)`.
    case lyrics
    // MusicBrainz and AcoustID.
    /// The MusicBrainz recording ID, a UUID (Picard's `musicbrainz_recordingid`; ID3 `UFID:http://musicbrainz.org`).
    case musicBrainzRecordingID = "musicBrainzRecordingId"
    /// The MusicBrainz track ID of this track on this release, a UUID (Picard's `musicbrainz_trackid`).
    case musicBrainzReleaseTrackID = "musicBrainzReleaseTrackId"
    /// The MusicBrainz release ID, a UUID (Picard's `musicbrainz_albumid`).
    case musicBrainzReleaseID = "musicBrainzReleaseId"
    /// The MusicBrainz release group ID, a UUID.
    case musicBrainzReleaseGroupID = "musicBrainzReleaseGroupId"
    /// The MusicBrainz artist IDs of the track artists, UUIDs.
    case musicBrainzArtistID = "musicBrainzArtistId"
    /// The MusicBrainz artist IDs of the release artists, UUIDs.
    case musicBrainzAlbumArtistID = "musicBrainzAlbumArtistId"
    /// The MusicBrainz work ID, a UUID.
    case musicBrainzWorkID = "musicBrainzWorkId"
    /// The MusicBrainz disc ID computed from the CD's table of contents (not a UUID).
    case musicBrainzDiscID = "musicBrainzDiscId"
    /// The legacy MusicBrainz TRM acoustic fingerprint ID.
    case musicBrainzTRMID = "musicBrainzTRMId"
    /// The MusicBrainz release ID of the original release, a UUID.
    case musicBrainzOriginalReleaseID = "musicBrainzOriginalReleaseId"
    /// The AcoustID of the recording, a UUID.
    case acoustID = "acoustId"
    /// The Chromaprint fingerprint AcoustID looks up, as its base64 text.
    case acoustIDFingerprint = "acoustIdFingerprint"
    // Loudness.
    /// ReplayGain track gain, as text in dB such as "-6.50 dB" (`REPLAYGAIN_TRACK_GAIN`; ID3 `RVA2` too).
    case replayGainTrackGain
    /// ReplayGain track peak, a linear sample amplitude where 1 is full scale, such as "0.988525".
    case replayGainTrackPeak
    /// ReplayGain album gain, as text in dB (`REPLAYGAIN_ALBUM_GAIN`).
    case replayGainAlbumGain
    /// ReplayGain album peak, a linear sample amplitude where 1 is full scale.
    case replayGainAlbumPeak
    /// The loudness the ReplayGain gains aim at, in dB or LUFS (`REPLAYGAIN_REFERENCE_LOUDNESS`).
    case replayGainReferenceLoudness
    /// Opus track gain: a whole number of 1/256 dB relative to the output gain (RFC 7845 §5.2.1, `R128_TRACK_GAIN`).
    case r128TrackGain
    /// Opus album gain: a whole number of 1/256 dB relative to the output gain (RFC 7845 §5.2.1, `R128_ALBUM_GAIN`).
    case r128AlbumGain
    // Rating.
    /// A rating from 0 to 100 (ID3 `POPM`'s 0–255 and other scales are converted).
    case rating
    // Production sound: Broadcast WAV `bext` and `iXML` (see `MetadataKeyMap.broadcastWAVKeys`).
    /// The `bext` description of the sound, up to 256 characters (EBU Tech 3285).
    case description
    /// The `bext` originator: who or what made the file, up to 32 characters.
    case originator
    /// The `bext` originator's unique reference for the file, up to 32 characters.
    case originatorReference
    /// The `bext` origination date, `yyyy-mm-dd`.
    case originationDate
    /// The `bext` origination time, `hh:mm:ss`.
    case originationTime
    /// The `bext` time reference: the first sample's count since midnight, in samples.
    case timeReference
    /// The iXML `PROJECT`: the production's name.
    case project
    /// The iXML `SCENE`: the scene recorded.
    case scene
    /// The iXML `TAKE`: the take's number or name.
    case take
    /// The iXML `TAPE`: the tape or roll name.
    case tape
    /// The iXML `CIRCLED`: whether the take was marked as a good one (`TRUE` or `FALSE`).
    case circled
    /// The iXML `NOTE`: the sound recordist's note on the take.
    case note

    /// The field called `name`: its `rawValue` (`year`, `compilation`,
    /// `musicBrainzReleaseId`) or, where it differs, its Swift case name
    /// (`date`, `isCompilation`, `musicBrainzReleaseID`); nil for any other
    /// text. Names are case-sensitive.
    public init?(name: String) {
        guard let field = MetadataField(rawValue: name) ?? Self.caseNames[name] else { return nil }
        self = field
    }

    /// The Swift case names that differ from the raw value.
    static let caseNames: [String: MetadataField] = [
        "date": .date, "isCompilation": .isCompilation, "isGapless": .isGapless, "isPodcast": .isPodcast,
        "showsMovement": .showsMovement, "musicBrainzRecordingID": .musicBrainzRecordingID,
        "musicBrainzReleaseTrackID": .musicBrainzReleaseTrackID, "musicBrainzReleaseID": .musicBrainzReleaseID,
        "musicBrainzReleaseGroupID": .musicBrainzReleaseGroupID, "musicBrainzArtistID": .musicBrainzArtistID,
        "musicBrainzAlbumArtistID": .musicBrainzAlbumArtistID, "musicBrainzWorkID": .musicBrainzWorkID,
        "musicBrainzDiscID": .musicBrainzDiscID, "musicBrainzTRMID": .musicBrainzTRMID,
        "musicBrainzOriginalReleaseID": .musicBrainzOriginalReleaseID, "acoustID": .acoustID,
        "acoustIDFingerprint": .acoustIDFingerprint,
    ]

    /// Every field, in declaration order (`allCases` makes a new array each time).
    static let ordered = allCases

    /// The field's index in ``ordered``: a case without a payload is stored
    /// as its declaration index (one byte below 256 cases), read here in
    /// constant time. Looking it up in a dictionary hashed the raw value, a
    /// string, for every field of every file read (FieldSetTests checks the
    /// two agree).
    var position: Int { Int(unsafeBitCast(self, to: UInt8.self)) }

    /// Hashes the field's position, one byte, instead of its raw value (a
    /// string, which `RawRepresentable` would hash): fields key the
    /// dictionaries and sets of every read and save. Equal fields have equal
    /// positions, so this agrees with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(UInt8(truncatingIfNeeded: position))
    }

    /// What a field's value is.
    public enum Kind: String, Sendable {
        /// Text; a file may hold several values (a JSON array then).
        case text
        /// A whole number.
        case integer
        /// True or false (stored as "1"/"0", an integer atom, …).
        case boolean
        /// A genre name (ID3 and MP4 also store genre numbers).
        case genre
        /// Pictures.
        case artwork
    }

    /// The kind of value the field holds.
    public var kind: Kind {
        switch self {
        case .artwork: return .artwork
        case .genre: return .genre
        case .bpm, .trackNumber, .trackCount, .discNumber, .discCount, .movementNumber, .movementCount, .rating:
            return .integer
        case .isCompilation, .isGapless, .isPodcast, .showsMovement: return .boolean
        default: return .text
        }
    }

    /// Whether the field belongs to the original design, whose values are
    /// stored properties of ``Metadata`` (the others live in one dictionary).
    var isCore: Bool { position <= MetadataField.discCount.position }
}
