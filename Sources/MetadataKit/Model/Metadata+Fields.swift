/// Typed accessors of the fields added after the original fifteen. Each
/// reads and writes ``Metadata/subscript(_:)``; text fields that a file holds
/// several times show them joined by "; " here and one by one in the `…List`
/// accessors and ``values(of:)``.
extension Metadata {
    /// Every value of a text field: several when the file holds a list
    /// (ID3v2.4 null-separated, repeated Vorbis fields, MP4 `data` atoms).
    public func values(of field: MetadataField) -> [String] {
        self[field]?.texts ?? []
    }

    /// Sets a text field to several values (one value, or none, as for a single text).
    public mutating func setValues(_ values: [String], for field: MetadataField) {
        self[field] = DisplayValue.list(values)
    }

    /// The track's artists one by one: Picard's `artists` tag (ID3
    /// `TXXX:ARTISTS`, MP4 `----:com.apple.iTunes:ARTISTS`, Vorbis `ARTISTS`),
    /// or, when the file has none, the values of ``artist`` (several in
    /// ID3v2.4 `TPE1`, repeated Vorbis `ARTIST`, MP4 `©ART` data atoms).
    /// Setting it sets the `artists` tag; set ``artist`` through
    /// ``setValues(_:for:)``.
    public var artists: [String] {
        get {
            let tagged = values(of: .artists)
            return tagged.isEmpty ? values(of: .artist) : tagged
        }
        set { setValues(newValue, for: .artists) }
    }

    /// The album artists one by one.
    public var albumArtists: [String] {
        get { values(of: .albumArtist) }
        set { setValues(newValue, for: .albumArtist) }
    }

    /// The composers one by one.
    public var composers: [String] {
        get { values(of: .composer) }
        set { setValues(newValue, for: .composer) }
    }

    /// The genres one by one, by name as stored.
    public var genres: [String] {
        get { self[.genre].map { $0.texts.isEmpty ? [$0.genre?.name].compactMap { $0 } : $0.texts } ?? [] }
        set { setValues(newValue, for: .genre) }
    }

    /// The performers, each "Name (role)" (ID3 `TMCL` pairs, Vorbis `PERFORMER`).
    public var performers: [String] {
        get { values(of: .performers) }
        set { setValues(newValue, for: .performers) }
    }

    /// The MusicBrainz artist IDs one by one.
    public var musicBrainzArtistIDs: [String] {
        get { values(of: .musicBrainzArtistID) }
        set { setValues(newValue, for: .musicBrainzArtistID) }
    }

    /// The MusicBrainz album artist IDs one by one.
    public var musicBrainzAlbumArtistIDs: [String] {
        get { values(of: .musicBrainzAlbumArtistID) }
        set { setValues(newValue, for: .musicBrainzAlbumArtistID) }
    }

    /// The MusicBrainz artist ID (several joined by "; ").
    public var musicBrainzArtistID: String? {
        get { self[.musicBrainzArtistID]?.text }
        set { self[.musicBrainzArtistID] = newValue.map(DisplayValue.text) }
    }

    /// The MusicBrainz album artist ID (several joined by "; ").
    public var musicBrainzAlbumArtistID: String? {
        get { self[.musicBrainzAlbumArtistID]?.text }
        set { self[.musicBrainzAlbumArtistID] = newValue.map(DisplayValue.text) }
    }

    /// The title as sorted (ID3 `TSOT`, MP4 `sonm`, Vorbis `TITLESORT`).
    public var titleSort: String? {
        get { self[.titleSort]?.text }
        set { self[.titleSort] = newValue.map(DisplayValue.text) }
    }

    /// The artist as sorted (`TSOP`, `soar`, `ARTISTSORT`).
    public var artistSort: String? {
        get { self[.artistSort]?.text }
        set { self[.artistSort] = newValue.map(DisplayValue.text) }
    }

    /// The album as sorted (`TSOA`, `soal`, `ALBUMSORT`).
    public var albumSort: String? {
        get { self[.albumSort]?.text }
        set { self[.albumSort] = newValue.map(DisplayValue.text) }
    }

    /// The album artist as sorted (`TSO2`, `soaa`, `ALBUMARTISTSORT`).
    public var albumArtistSort: String? {
        get { self[.albumArtistSort]?.text }
        set { self[.albumArtistSort] = newValue.map(DisplayValue.text) }
    }

    /// The composer as sorted (`TSOC`, `soco`, `COMPOSERSORT`).
    public var composerSort: String? {
        get { self[.composerSort]?.text }
        set { self[.composerSort] = newValue.map(DisplayValue.text) }
    }

    /// The subtitle (`TIT3`).
    public var subtitle: String? {
        get { self[.subtitle]?.text }
        set { self[.subtitle] = newValue.map(DisplayValue.text) }
    }

    /// The disc's subtitle (`TSST`).
    public var discSubtitle: String? {
        get { self[.discSubtitle]?.text }
        set { self[.discSubtitle] = newValue.map(DisplayValue.text) }
    }

    /// The work (`TXXX:WORK`, MP4 `©wrk`, `WORK`).
    public var work: String? {
        get { self[.work]?.text }
        set { self[.work] = newValue.map(DisplayValue.text) }
    }

    /// The movement's name (`MVNM`, `©mvn`, `MOVEMENTNAME`).
    public var movementName: String? {
        get { self[.movementName]?.text }
        set { self[.movementName] = newValue.map(DisplayValue.text) }
    }

    /// The conductor (`TPE3`).
    public var conductor: String? {
        get { self[.conductor]?.text }
        set { self[.conductor] = newValue.map(DisplayValue.text) }
    }

    /// The lyricist (`TEXT`).
    public var lyricist: String? {
        get { self[.lyricist]?.text }
        set { self[.lyricist] = newValue.map(DisplayValue.text) }
    }

    /// The remixer (`TPE4`).
    public var remixer: String? {
        get { self[.remixer]?.text }
        set { self[.remixer] = newValue.map(DisplayValue.text) }
    }

    /// The arranger.
    public var arranger: String? {
        get { self[.arranger]?.text }
        set { self[.arranger] = newValue.map(DisplayValue.text) }
    }

    /// The engineer.
    public var engineer: String? {
        get { self[.engineer]?.text }
        set { self[.engineer] = newValue.map(DisplayValue.text) }
    }

    /// The producer.
    public var producer: String? {
        get { self[.producer]?.text }
        set { self[.producer] = newValue.map(DisplayValue.text) }
    }

    /// The DJ mixer.
    public var djMixer: String? {
        get { self[.djMixer]?.text }
        set { self[.djMixer] = newValue.map(DisplayValue.text) }
    }

    /// The mixing engineer.
    public var mixer: String? {
        get { self[.mixer]?.text }
        set { self[.mixer] = newValue.map(DisplayValue.text) }
    }

    /// The original artist (`TOPE`).
    public var originalArtist: String? {
        get { self[.originalArtist]?.text }
        set { self[.originalArtist] = newValue.map(DisplayValue.text) }
    }

    /// The original album (`TOAL`).
    public var originalAlbum: String? {
        get { self[.originalAlbum]?.text }
        set { self[.originalAlbum] = newValue.map(DisplayValue.text) }
    }

    /// The record label (`TPUB`, `LABEL`).
    public var label: String? {
        get { self[.label]?.text }
        set { self[.label] = newValue.map(DisplayValue.text) }
    }

    /// The catalogue number.
    public var catalogNumber: String? {
        get { self[.catalogNumber]?.text }
        set { self[.catalogNumber] = newValue.map(DisplayValue.text) }
    }

    /// The release's barcode.
    public var barcode: String? {
        get { self[.barcode]?.text }
        set { self[.barcode] = newValue.map(DisplayValue.text) }
    }

    /// The recording's ISRC (`TSRC`, `ISRC`).
    public var isrc: String? {
        get { self[.isrc]?.text }
        set { self[.isrc] = newValue.map(DisplayValue.text) }
    }

    /// The Amazon identifier.
    public var asin: String? {
        get { self[.asin]?.text }
        set { self[.asin] = newValue.map(DisplayValue.text) }
    }

    /// The medium (`TMED`: "CD", "Digital Media").
    public var media: String? {
        get { self[.media]?.text }
        set { self[.media] = newValue.map(DisplayValue.text) }
    }

    /// The MusicBrainz release type ("album", "single").
    public var releaseType: String? {
        get { self[.releaseType]?.text }
        set { self[.releaseType] = newValue.map(DisplayValue.text) }
    }

    /// The MusicBrainz release status ("official").
    public var releaseStatus: String? {
        get { self[.releaseStatus]?.text }
        set { self[.releaseStatus] = newValue.map(DisplayValue.text) }
    }

    /// The release country (ISO 3166-1).
    public var releaseCountry: String? {
        get { self[.releaseCountry]?.text }
        set { self[.releaseCountry] = newValue.map(DisplayValue.text) }
    }

    /// The script of the track list (ISO 15924: "Latn").
    public var script: String? {
        get { self[.script]?.text }
        set { self[.script] = newValue.map(DisplayValue.text) }
    }

    /// The language of the lyrics (ISO 639-3: "eng").
    public var language: String? {
        get { self[.language]?.text }
        set { self[.language] = newValue.map(DisplayValue.text) }
    }

    /// The mood (`TMOO`).
    public var mood: String? {
        get { self[.mood]?.text }
        set { self[.mood] = newValue.map(DisplayValue.text) }
    }

    /// The musical key (`TKEY`: "Am").
    public var initialKey: String? {
        get { self[.initialKey]?.text }
        set { self[.initialKey] = newValue.map(DisplayValue.text) }
    }

    /// The copyright message (`TCOP`, `cprt`).
    public var copyright: String? {
        get { self[.copyright]?.text }
        set { self[.copyright] = newValue.map(DisplayValue.text) }
    }

    /// The license (URL or text).
    public var license: String? {
        get { self[.license]?.text }
        set { self[.license] = newValue.map(DisplayValue.text) }
    }

    /// Who or what encoded the file (`TENC`).
    public var encodedBy: String? {
        get { self[.encodedBy]?.text }
        set { self[.encodedBy] = newValue.map(DisplayValue.text) }
    }

    /// The encoder and its settings (`TSSE`).
    public var encoderSettings: String? {
        get { self[.encoderSettings]?.text }
        set { self[.encoderSettings] = newValue.map(DisplayValue.text) }
    }

    /// The artist's or release's website (`WOAR`).
    public var website: String? {
        get { self[.website]?.text }
        set { self[.website] = newValue.map(DisplayValue.text) }
    }

    /// The podcast's feed URL (`WFED`, MP4 `purl`).
    public var podcastURL: String? {
        get { self[.podcastURL]?.text }
        set { self[.podcastURL] = newValue.map(DisplayValue.text) }
    }

    /// The podcast's category (`TCAT`, MP4 `catg`).
    public var podcastCategory: String? {
        get { self[.podcastCategory]?.text }
        set { self[.podcastCategory] = newValue.map(DisplayValue.text) }
    }

    /// The release date as stored (ID3v2.4 `TDRL`, `RELEASEDATE`).
    public var releaseDate: String? {
        get { self[.releaseDate]?.text }
        set { self[.releaseDate] = newValue.map(DisplayValue.text) }
    }

    /// The original release date as stored (ID3v2.4 `TDOR`, v2.3 `TORY`, `ORIGINALDATE`).
    public var originalDate: String? {
        get { self[.originalDate]?.text }
        set { self[.originalDate] = newValue.map(DisplayValue.text) }
    }

    /// The original release year as stored (`ORIGINALYEAR`).
    public var originalYear: String? {
        get { self[.originalYear]?.text }
        set { self[.originalYear] = newValue.map(DisplayValue.text) }
    }

    /// The unsynchronised lyrics (ID3 `USLT`, MP4 `©lyr`, Vorbis `LYRICS`).
    public var lyrics: String? {
        get { self[.lyrics]?.text }
        set { self[.lyrics] = newValue.map(DisplayValue.text) }
    }

    /// The MusicBrainz recording ID (ID3 `UFID:http://musicbrainz.org`, MP4 `MusicBrainz Track Id`, Vorbis `MUSICBRAINZ_TRACKID`).
    public var musicBrainzRecordingID: String? {
        get { self[.musicBrainzRecordingID]?.text }
        set { self[.musicBrainzRecordingID] = newValue.map(DisplayValue.text) }
    }

    /// The MusicBrainz release track ID.
    public var musicBrainzReleaseTrackID: String? {
        get { self[.musicBrainzReleaseTrackID]?.text }
        set { self[.musicBrainzReleaseTrackID] = newValue.map(DisplayValue.text) }
    }

    /// The MusicBrainz release ID (Picard's `musicbrainz_albumid`).
    public var musicBrainzReleaseID: String? {
        get { self[.musicBrainzReleaseID]?.text }
        set { self[.musicBrainzReleaseID] = newValue.map(DisplayValue.text) }
    }

    /// The MusicBrainz release group ID.
    public var musicBrainzReleaseGroupID: String? {
        get { self[.musicBrainzReleaseGroupID]?.text }
        set { self[.musicBrainzReleaseGroupID] = newValue.map(DisplayValue.text) }
    }

    /// The MusicBrainz work ID.
    public var musicBrainzWorkID: String? {
        get { self[.musicBrainzWorkID]?.text }
        set { self[.musicBrainzWorkID] = newValue.map(DisplayValue.text) }
    }

    /// The MusicBrainz disc ID.
    public var musicBrainzDiscID: String? {
        get { self[.musicBrainzDiscID]?.text }
        set { self[.musicBrainzDiscID] = newValue.map(DisplayValue.text) }
    }

    /// The (retired) MusicBrainz TRM ID.
    public var musicBrainzTRMID: String? {
        get { self[.musicBrainzTRMID]?.text }
        set { self[.musicBrainzTRMID] = newValue.map(DisplayValue.text) }
    }

    /// The MusicBrainz ID of the original release.
    public var musicBrainzOriginalReleaseID: String? {
        get { self[.musicBrainzOriginalReleaseID]?.text }
        set { self[.musicBrainzOriginalReleaseID] = newValue.map(DisplayValue.text) }
    }

    /// The AcoustID.
    public var acoustID: String? {
        get { self[.acoustID]?.text }
        set { self[.acoustID] = newValue.map(DisplayValue.text) }
    }

    /// The AcoustID fingerprint.
    public var acoustIDFingerprint: String? {
        get { self[.acoustIDFingerprint]?.text }
        set { self[.acoustIDFingerprint] = newValue.map(DisplayValue.text) }
    }

    /// The ReplayGain track gain as stored ("-6.50 dB").
    public var replayGainTrackGain: String? {
        get { self[.replayGainTrackGain]?.text }
        set { self[.replayGainTrackGain] = newValue.map(DisplayValue.text) }
    }

    /// The ReplayGain track peak as stored ("0.988").
    public var replayGainTrackPeak: String? {
        get { self[.replayGainTrackPeak]?.text }
        set { self[.replayGainTrackPeak] = newValue.map(DisplayValue.text) }
    }

    /// The ReplayGain album gain as stored.
    public var replayGainAlbumGain: String? {
        get { self[.replayGainAlbumGain]?.text }
        set { self[.replayGainAlbumGain] = newValue.map(DisplayValue.text) }
    }

    /// The ReplayGain album peak as stored.
    public var replayGainAlbumPeak: String? {
        get { self[.replayGainAlbumPeak]?.text }
        set { self[.replayGainAlbumPeak] = newValue.map(DisplayValue.text) }
    }

    /// The ReplayGain reference loudness as stored ("89.0 dB").
    public var replayGainReferenceLoudness: String? {
        get { self[.replayGainReferenceLoudness]?.text }
        set { self[.replayGainReferenceLoudness] = newValue.map(DisplayValue.text) }
    }

    /// Opus `R128_TRACK_GAIN` as stored (Q7.8 dB relative to the output gain, RFC 7845 §5.2.1).
    public var r128TrackGain: String? {
        get { self[.r128TrackGain]?.text }
        set { self[.r128TrackGain] = newValue.map(DisplayValue.text) }
    }

    /// Opus `R128_ALBUM_GAIN` as stored.
    public var r128AlbumGain: String? {
        get { self[.r128AlbumGain]?.text }
        set { self[.r128AlbumGain] = newValue.map(DisplayValue.text) }
    }

    /// The movement's number (`MVIN`, `©mvi`, `MOVEMENT`).
    public var movementNumber: Int? {
        get { self[.movementNumber]?.integer }
        set { self[.movementNumber] = newValue.map(DisplayValue.integer) }
    }

    /// The number of movements (`MVIN`'s count, `©mvc`, `MOVEMENTTOTAL`).
    public var movementCount: Int? {
        get { self[.movementCount]?.integer }
        set { self[.movementCount] = newValue.map(DisplayValue.integer) }
    }

    /// The rating from 0 to 100 (ID3 `POPM` 0–255 scaled, MP4 `rate`, Vorbis `RATING`); the raw item keeps the stored value.
    public var rating: Int? {
        get { self[.rating]?.integer }
        set { self[.rating] = newValue.map(DisplayValue.integer) }
    }

    /// Whether the track is part of a compilation (`TCMP` "1", MP4 `cpil`, `COMPILATION=1`).
    public var isCompilation: Bool? {
        get { self[.isCompilation]?.boolean }
        set { self[.isCompilation] = newValue.map { .integer($0 ? 1 : 0) } }
    }

    /// Whether the album plays without gaps (MP4 `pgap`).
    public var isGapless: Bool? {
        get { self[.isGapless]?.boolean }
        set { self[.isGapless] = newValue.map { .integer($0 ? 1 : 0) } }
    }

    /// Whether the file is a podcast episode (ID3 `PCST`, MP4 `pcst`).
    public var isPodcast: Bool? {
        get { self[.isPodcast]?.boolean }
        set { self[.isPodcast] = newValue.map { .integer($0 ? 1 : 0) } }
    }

    /// Whether players show the work and movement instead of the title (`TXXX:SHOWMOVEMENT`, MP4 `shwm`).
    public var showsMovement: Bool? {
        get { self[.showsMovement]?.boolean }
        set { self[.showsMovement] = newValue.map { .integer($0 ? 1 : 0) } }
    }
}
