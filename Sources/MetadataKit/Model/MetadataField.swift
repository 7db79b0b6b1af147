#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The normalized fields every format maps onto.
///
/// The names are the ones `mdkit` takes in `--set`/`--remove` and prints in
/// `read --json`, in lowerCamelCase after MusicBrainz Picard's internal tag
/// names (`musicbrainz_albumid` is ``musicBrainzReleaseId``). Which raw key
/// holds each field in each format is the key map (``MetadataKeyMap``; the
/// table is `docs/FIELDS.md` and `mdkit fields`).
public enum MetadataField: String, CaseIterable, Sendable, Hashable {
    // The fields of the original design (their order is part of the output of `mdkit read`).
    case title, artist, albumArtist, album, grouping, composer, comments
    case artwork, genre, year, bpm, trackNumber, trackCount, discNumber, discCount

    // Sort names.
    case titleSort, artistSort, albumSort, albumArtistSort, composerSort
    // Titles and works.
    case subtitle, discSubtitle, work, movementName, movementNumber, movementCount, showMovement
    // People.
    case artists, conductor, lyricist, remixer, arranger, engineer, producer, djMixer, mixer, performers
    case originalArtist, originalAlbum
    // Release.
    case label, catalogNumber, barcode, isrc, asin, media, releaseType, releaseStatus, releaseCountry
    case script, language, mood, initialKey, copyright, license, encodedBy, encoderSettings, website
    // Flags.
    case compilation, gapless, podcast
    case podcastURL, podcastCategory
    // Dates.
    case releaseDate, originalDate, originalYear
    // Lyrics.
    case lyrics
    // MusicBrainz and AcoustID.
    case musicBrainzRecordingId, musicBrainzReleaseTrackId, musicBrainzReleaseId, musicBrainzReleaseGroupId
    case musicBrainzArtistId, musicBrainzAlbumArtistId, musicBrainzWorkId, musicBrainzDiscId, musicBrainzTRMId
    case musicBrainzOriginalReleaseId
    case acoustId, acoustIdFingerprint
    // Loudness.
    case replayGainTrackGain, replayGainTrackPeak, replayGainAlbumGain, replayGainAlbumPeak
    case replayGainReferenceLoudness, r128TrackGain, r128AlbumGain
    // Rating.
    case rating
    // Production sound: Broadcast WAV `bext` and `iXML` (see `MetadataKeyMap.broadcastWAVKeys`).
    case description, originator, originatorReference, originationDate, originationTime, timeReference
    case project, scene, take, tape, circled, note

    /// Every field, in declaration order (`allCases` makes a new array each time).
    static let ordered = allCases

    /// The field's index in ``ordered``: a case without a payload is stored
    /// as its declaration index (one byte below 256 cases), read here in
    /// constant time. Looking it up in a dictionary hashed the raw value, a
    /// string, for every field of every file read (FieldSetTests checks the
    /// two agree).
    var position: Int { Int(unsafeBitCast(self, to: UInt8.self)) }

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
        case .compilation, .gapless, .podcast, .showMovement: return .boolean
        default: return .text
        }
    }

    /// Whether the field belongs to the original design, whose values are
    /// stored properties of ``Metadata`` (the others live in one dictionary).
    var isCore: Bool { position <= MetadataField.discCount.position }
}
