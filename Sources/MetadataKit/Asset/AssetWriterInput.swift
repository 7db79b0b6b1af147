#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The description of one track to write, and the way to feed it samples.
///
/// Sample descriptions are complete `stsd` entries (ISO/IEC 14496-12
/// §8.5.2), usually copied from a source track (`init(copying:)`).
/// Edit list segment durations are in the writer's movie timescale; track
/// reference IDs name tracks of the file being written.
public final class AssetWriterInput: @unchecked Sendable {
    /// What the track carries.
    public let mediaType: AssetMediaType
    /// The `hdlr` handler type; the media type's own by default.
    public let handlerType: FourCC
    /// The `hdlr` name; nil writes an empty one.
    public let handlerName: String?
    /// The complete `stsd` entries, each with its size and type; samples
    /// refer to them by index from 1.
    public let sampleDescriptions: [[UInt8]]
    /// The `stsd` version (0 in nearly every file).
    public let sampleDescriptionVersion: UInt8
    /// The track's media timescale (`mdhd`), in ticks per second.
    public let timescale: UInt32
    /// The `mdhd` language, ISO 639-2/T (`und` when unknown).
    public let language: String
    /// The edit list written as `edts/elst`; empty for none.
    public let editList: [EditListEntry]
    /// Track references written as `tref`, by output track ID.
    public let references: [TrackReference]
    /// The track ID wanted in the output (the next free ID when nil or taken).
    public let preferredTrackID: UInt32?
    /// Video: the `tkhd` width in pixels; nil for other media.
    public let width: Int?
    /// Video: the `tkhd` height in pixels; nil for other media.
    public let height: Int?
    /// The `tkhd` alternate group: tracks of one group are alternatives
    /// (0: none).
    public let alternateGroup: Int16
    /// `tkhd` flags: enabled (1) and in movie (2) by default.
    public let trackFlags: UInt32

    private let lock = Lock()
    private var writer: AssetWriter?
    private var assignedID: UInt32 = 0

    /// An input for a track of `mediaType` with these sample descriptions in
    /// `timescale` ticks per second; the other parameters set the properties of
    /// the same names.
    public init(
        mediaType: AssetMediaType, sampleDescriptions: [[UInt8]], timescale: UInt32,
        handlerType: FourCC? = nil, handlerName: String? = nil, sampleDescriptionVersion: UInt8 = 0,
        language: String = "und", editList: [EditListEntry] = [], references: [TrackReference] = [],
        preferredTrackID: UInt32? = nil, width: Int? = nil, height: Int? = nil,
        alternateGroup: Int16 = 0, trackFlags: UInt32 = 3
    ) {
        self.mediaType = mediaType
        self.handlerType = handlerType ?? mediaType.handler
        self.handlerName = handlerName
        self.sampleDescriptions = sampleDescriptions
        self.sampleDescriptionVersion = sampleDescriptionVersion
        self.timescale = timescale
        self.language = language
        self.editList = editList
        self.references = references
        self.preferredTrackID = preferredTrackID
        self.width = width
        self.height = height
        self.alternateGroup = alternateGroup
        self.trackFlags = trackFlags
    }

    /// An input that writes a track like `track`: same sample descriptions,
    /// timescale, language, handler, size, track ID. The edit list and
    /// references are copied unless given.
    public convenience init(copying track: AssetTrack, editList: [EditListEntry]? = nil, references: [TrackReference]? = nil) {
        self.init(
            mediaType: track.mediaType, sampleDescriptions: track.sampleDescriptions, timescale: track.timescale,
            handlerType: track.handlerType, handlerName: track.handlerName,
            sampleDescriptionVersion: track.sampleDescriptionVersion, language: track.language ?? "und",
            editList: editList ?? track.editList, references: references ?? track.references,
            preferredTrackID: track.id, width: track.width, height: track.height,
            alternateGroup: track.alternateGroup, trackFlags: track.flags == 0 ? 3 : track.flags)
    }

    /// The track ID in the output (0 until added to a writer).
    public var trackID: UInt32 { lock.withLock { assignedID } }

    func attach(to writer: AssetWriter, id: UInt32) throws {
        try lock.withLock {
            guard self.writer == nil else { throw MediaError(.invalidValue, "the input was already added to a writer") }
            self.writer = writer
            assignedID = id
        }
    }

    private var attachedWriter: AssetWriter {
        get throws {
            guard let writer = lock.withLock({ writer }) else {
                throw MediaError(.invalidValue, "add the input to a writer before appending")
            }
            return writer
        }
    }

    /// Appends a sample (its data read now, with ``Sample/data()``).
    ///
    /// Times are in this input's timescale and decode times must not go back.
    /// The written decode times (`stts`, ISO/IEC 14496-12 §8.6.1.2) are the
    /// running sum of the durations from 0, so give each sample the duration
    /// up to the next one; the composition offset (`ctts`, §8.6.1.3) is kept
    /// as presentation minus decode time. Suspends while the writer works.
    public func append(_ sample: Sample) async throws {
        try await attachedWriter.append([sample], to: self)
    }

    /// Appends consecutive samples of this input in one step (cheaper than
    /// one ``append(_:)`` each for many small samples, such as PCM frames).
    public func append(contentsOf samples: [Sample]) async throws {
        try await attachedWriter.append(samples, to: self)
    }

    /// Declares that no more samples come for this input.
    public func markAsFinished() async throws {
        try await attachedWriter.markAsFinished(self)
    }
}
