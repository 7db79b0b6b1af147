// The names of 0.2, kept for one release so that callers get a fix-it to the
// new name (CHANGELOG.md, 0.3.0). The fields' raw values, which `mdkit`,
// JSON output and catalogs use, did not change.

extension MetadataField {
    /// The recording date (raw value `year`).
    @available(*, deprecated, renamed: "date")
    public static var year: MetadataField { .date }

    /// The field ``isCompilation`` (raw value `compilation`).
    @available(*, deprecated, renamed: "isCompilation")
    public static var compilation: MetadataField { .isCompilation }

    /// The field ``isGapless`` (raw value `gapless`).
    @available(*, deprecated, renamed: "isGapless")
    public static var gapless: MetadataField { .isGapless }

    /// The field ``isPodcast`` (raw value `podcast`).
    @available(*, deprecated, renamed: "isPodcast")
    public static var podcast: MetadataField { .isPodcast }

    /// The field ``showsMovement`` (raw value `showMovement`).
    @available(*, deprecated, renamed: "showsMovement")
    public static var showMovement: MetadataField { .showsMovement }

    /// The field ``musicBrainzRecordingID`` (raw value `musicBrainzRecordingId`).
    @available(*, deprecated, renamed: "musicBrainzRecordingID")
    public static var musicBrainzRecordingId: MetadataField { .musicBrainzRecordingID }

    /// The field ``musicBrainzReleaseTrackID`` (raw value `musicBrainzReleaseTrackId`).
    @available(*, deprecated, renamed: "musicBrainzReleaseTrackID")
    public static var musicBrainzReleaseTrackId: MetadataField { .musicBrainzReleaseTrackID }

    /// The field ``musicBrainzReleaseID`` (raw value `musicBrainzReleaseId`).
    @available(*, deprecated, renamed: "musicBrainzReleaseID")
    public static var musicBrainzReleaseId: MetadataField { .musicBrainzReleaseID }

    /// The field ``musicBrainzReleaseGroupID`` (raw value `musicBrainzReleaseGroupId`).
    @available(*, deprecated, renamed: "musicBrainzReleaseGroupID")
    public static var musicBrainzReleaseGroupId: MetadataField { .musicBrainzReleaseGroupID }

    /// The field ``musicBrainzArtistID`` (raw value `musicBrainzArtistId`).
    @available(*, deprecated, renamed: "musicBrainzArtistID")
    public static var musicBrainzArtistId: MetadataField { .musicBrainzArtistID }

    /// The field ``musicBrainzAlbumArtistID`` (raw value `musicBrainzAlbumArtistId`).
    @available(*, deprecated, renamed: "musicBrainzAlbumArtistID")
    public static var musicBrainzAlbumArtistId: MetadataField { .musicBrainzAlbumArtistID }

    /// The field ``musicBrainzWorkID`` (raw value `musicBrainzWorkId`).
    @available(*, deprecated, renamed: "musicBrainzWorkID")
    public static var musicBrainzWorkId: MetadataField { .musicBrainzWorkID }

    /// The field ``musicBrainzDiscID`` (raw value `musicBrainzDiscId`).
    @available(*, deprecated, renamed: "musicBrainzDiscID")
    public static var musicBrainzDiscId: MetadataField { .musicBrainzDiscID }

    /// The field ``musicBrainzTRMID`` (raw value `musicBrainzTRMId`).
    @available(*, deprecated, renamed: "musicBrainzTRMID")
    public static var musicBrainzTRMId: MetadataField { .musicBrainzTRMID }

    /// The field ``musicBrainzOriginalReleaseID`` (raw value `musicBrainzOriginalReleaseId`).
    @available(*, deprecated, renamed: "musicBrainzOriginalReleaseID")
    public static var musicBrainzOriginalReleaseId: MetadataField { .musicBrainzOriginalReleaseID }

    /// The field ``acoustID`` (raw value `acoustId`).
    @available(*, deprecated, renamed: "acoustID")
    public static var acoustId: MetadataField { .acoustID }

    /// The field ``acoustIDFingerprint`` (raw value `acoustIdFingerprint`).
    @available(*, deprecated, renamed: "acoustIDFingerprint")
    public static var acoustIdFingerprint: MetadataField { .acoustIDFingerprint }
}

extension Metadata {
    /// ``isCompilation``.
    @available(*, deprecated, renamed: "isCompilation")
    public var compilation: Bool? {
        get { isCompilation }
        set { isCompilation = newValue }
    }

    /// ``isGapless``.
    @available(*, deprecated, renamed: "isGapless")
    public var gapless: Bool? {
        get { isGapless }
        set { isGapless = newValue }
    }

    /// ``isPodcast``.
    @available(*, deprecated, renamed: "isPodcast")
    public var podcast: Bool? {
        get { isPodcast }
        set { isPodcast = newValue }
    }

    /// ``showsMovement``.
    @available(*, deprecated, renamed: "showsMovement")
    public var showMovement: Bool? {
        get { showsMovement }
        set { showsMovement = newValue }
    }

    /// ``musicBrainzArtistIDs``.
    @available(*, deprecated, renamed: "musicBrainzArtistIDs")
    public var musicBrainzArtistIds: [String] {
        get { musicBrainzArtistIDs }
        set { musicBrainzArtistIDs = newValue }
    }

    /// ``musicBrainzAlbumArtistIDs``.
    @available(*, deprecated, renamed: "musicBrainzAlbumArtistIDs")
    public var musicBrainzAlbumArtistIds: [String] {
        get { musicBrainzAlbumArtistIDs }
        set { musicBrainzAlbumArtistIDs = newValue }
    }

    /// ``musicBrainzRecordingID``.
    @available(*, deprecated, renamed: "musicBrainzRecordingID")
    public var musicBrainzRecordingId: String? {
        get { musicBrainzRecordingID }
        set { musicBrainzRecordingID = newValue }
    }

    /// ``musicBrainzReleaseTrackID``.
    @available(*, deprecated, renamed: "musicBrainzReleaseTrackID")
    public var musicBrainzReleaseTrackId: String? {
        get { musicBrainzReleaseTrackID }
        set { musicBrainzReleaseTrackID = newValue }
    }

    /// ``musicBrainzReleaseID``.
    @available(*, deprecated, renamed: "musicBrainzReleaseID")
    public var musicBrainzReleaseId: String? {
        get { musicBrainzReleaseID }
        set { musicBrainzReleaseID = newValue }
    }

    /// ``musicBrainzReleaseGroupID``.
    @available(*, deprecated, renamed: "musicBrainzReleaseGroupID")
    public var musicBrainzReleaseGroupId: String? {
        get { musicBrainzReleaseGroupID }
        set { musicBrainzReleaseGroupID = newValue }
    }

    /// ``musicBrainzArtistID``.
    @available(*, deprecated, renamed: "musicBrainzArtistID")
    public var musicBrainzArtistId: String? {
        get { musicBrainzArtistID }
        set { musicBrainzArtistID = newValue }
    }

    /// ``musicBrainzAlbumArtistID``.
    @available(*, deprecated, renamed: "musicBrainzAlbumArtistID")
    public var musicBrainzAlbumArtistId: String? {
        get { musicBrainzAlbumArtistID }
        set { musicBrainzAlbumArtistID = newValue }
    }

    /// ``musicBrainzWorkID``.
    @available(*, deprecated, renamed: "musicBrainzWorkID")
    public var musicBrainzWorkId: String? {
        get { musicBrainzWorkID }
        set { musicBrainzWorkID = newValue }
    }

    /// ``musicBrainzDiscID``.
    @available(*, deprecated, renamed: "musicBrainzDiscID")
    public var musicBrainzDiscId: String? {
        get { musicBrainzDiscID }
        set { musicBrainzDiscID = newValue }
    }

    /// ``musicBrainzTRMID``.
    @available(*, deprecated, renamed: "musicBrainzTRMID")
    public var musicBrainzTRMId: String? {
        get { musicBrainzTRMID }
        set { musicBrainzTRMID = newValue }
    }

    /// ``musicBrainzOriginalReleaseID``.
    @available(*, deprecated, renamed: "musicBrainzOriginalReleaseID")
    public var musicBrainzOriginalReleaseId: String? {
        get { musicBrainzOriginalReleaseID }
        set { musicBrainzOriginalReleaseID = newValue }
    }

    /// ``acoustID``.
    @available(*, deprecated, renamed: "acoustID")
    public var acoustId: String? {
        get { acoustID }
        set { acoustID = newValue }
    }

    /// ``acoustIDFingerprint``.
    @available(*, deprecated, renamed: "acoustIDFingerprint")
    public var acoustIdFingerprint: String? {
        get { acoustIDFingerprint }
        set { acoustIDFingerprint = newValue }
    }
}

/// The converter of ``MetadataField/date``.
@available(*, deprecated, renamed: "DateMetadataConverter")
public typealias YearMetadataConverter = DateMetadataConverter
