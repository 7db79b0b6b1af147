#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MetadataKeySpace {
    /// The Broadcast Wave `bext` chunk (EBU Tech 3285); keys are the
    /// specification's field names: `Description`, `Originator`,
    /// `OriginatorReference`, `OriginationDate`, `OriginationTime`,
    /// `TimeReference` (samples since midnight), `Version`, `UMID`,
    /// `LoudnessValue`, `LoudnessRange`, `MaxTruePeakLevel`,
    /// `MaxMomentaryLoudness`, `MaxShortTermLoudness` (version 2, in LUFS, LU
    /// or dBTP with two decimals) and `CodingHistory`.
    public static let bext = MetadataKeySpace(rawValue: "bext")
}

/// The `bext` chunk of a Broadcast Wave file (EBU Tech 3285 v2 §2.3,
/// "Broadcast audio extension chunk"), little-endian:
///
///     Description           256  ASCII, NUL-padded
///     Originator             32
///     OriginatorReference    32
///     OriginationDate        10  yyyy-mm-dd
///     OriginationTime         8  hh:mm:ss
///     TimeReferenceLow        4  first sample's count since midnight (64 bits in two halves)
///     TimeReferenceHigh       4
///     Version                 2  0, 1 or 2
///     UMID                   64  SMPTE 330M (version ≥ 1)
///     LoudnessValue           2  Int16, hundredths of LUFS (version 2; 0x7FFF unset)
///     LoudnessRange           2  hundredths of LU
///     MaxTruePeakLevel        2  hundredths of dBTP
///     MaxMomentaryLoudness    2  hundredths of LUFS
///     MaxShortTermLoudness    2  hundredths of LUFS
///     Reserved              180  zero
///     CodingHistory           …  ASCII to the chunk's end
///
/// Read and written by ``BroadcastRecord``: the time reference is one
/// `TimeReference` item (decimal samples), the UMID hexadecimal, loudness
/// read from version 2 chunks only (setting one in an older chunk raises its
/// version to 2).
enum BroadcastExtension {
    static let record = BroadcastRecord(
        id: "bext", keySpace: .bext, fixedLength: 602,
        fields: [
            .init(key: "Description", offset: 0, length: 256, kind: .text),
            .init(key: "Originator", offset: 256, length: 32, kind: .text),
            .init(key: "OriginatorReference", offset: 288, length: 32, kind: .text),
            .init(key: "OriginationDate", offset: 320, length: 10, kind: .text),
            .init(key: "OriginationTime", offset: 330, length: 8, kind: .text),
            .init(key: "TimeReference", offset: 338, length: 8, kind: .unsigned),
            .init(key: "Version", offset: 346, length: 2, kind: .version),
            .init(key: "UMID", offset: 348, length: 64, kind: .hex),
            .init(key: "LoudnessValue", offset: 412, length: 2, kind: .hundredths, minimumVersion: 2),
            .init(key: "LoudnessRange", offset: 414, length: 2, kind: .hundredths, minimumVersion: 2),
            .init(key: "MaxTruePeakLevel", offset: 416, length: 2, kind: .hundredths, minimumVersion: 2),
            .init(key: "MaxMomentaryLoudness", offset: 418, length: 2, kind: .hundredths, minimumVersion: 2),
            .init(key: "MaxShortTermLoudness", offset: 420, length: 2, kind: .hundredths, minimumVersion: 2),
        ],
        versionKey: "Version", tailKey: "CodingHistory", newChunkDefaults: ["Version": "1"])
}
