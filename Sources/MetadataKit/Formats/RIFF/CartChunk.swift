#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MetadataKeySpace {
    /// The AES46 `cart` chunk of a WAV file (radio traffic data); keys are the
    /// standard's field names: `Version`, `Title`, `Artist`, `CutID`,
    /// `ClientID`, `Category`, `Classification`, `OutCue`, `StartDate`,
    /// `StartTime`, `EndDate`, `EndTime`, `ProducerAppID`,
    /// `ProducerAppVersion`, `UserDef`, `LevelReference`, `PostTimer1`…`PostTimer8`
    /// (`USAGE=samples`, e.g. `SEGs=441000`), `URL` and `TagText`.
    public static let cart = MetadataKeySpace(rawValue: "cart")
}

/// The `cart` chunk (AES46-2002 §5, "Cart chunk"), little-endian:
///
///     Version               4  "0101"
///     Title, Artist, CutID, ClientID, Category, Classification, OutCue
///                          64 each, ASCII, NUL-padded
///     StartDate, StartTime 10, 8   yyyy-mm-dd, hh:mm:ss
///     EndDate, EndTime     10, 8
///     ProducerAppID        64
///     ProducerAppVersion   64
///     UserDef              64
///     LevelReference        4  Int32, sample value of 0 dBFS
///     PostTimer         8 × 8  FOURCC usage (SEGs, INTs, AUDs, …) + UInt32 sample offset
///     Reserved            276
///     URL                1024
///     TagText               …  to the chunk's end
///
/// Read and written by ``BroadcastRecord``; each post timer is one item
/// `PostTimerN` whose text is `USAGE=samples` (see ``PostTimer``).
enum CartChunk {
    static let record: BroadcastRecord = {
        var fields: [BroadcastRecord.Field] = [.init(key: "Version", offset: 0, length: 4, kind: .text)]
        var offset = 4
        for key in ["Title", "Artist", "CutID", "ClientID", "Category", "Classification", "OutCue"] {
            fields.append(.init(key: key, offset: offset, length: 64, kind: .text))
            offset += 64
        }
        for (key, length) in [("StartDate", 10), ("StartTime", 8), ("EndDate", 10), ("EndTime", 8)] {
            fields.append(.init(key: key, offset: offset, length: length, kind: .text))
            offset += length
        }
        for key in ["ProducerAppID", "ProducerAppVersion", "UserDef"] {
            fields.append(.init(key: key, offset: offset, length: 64, kind: .text))
            offset += 64
        }
        fields.append(.init(key: "LevelReference", offset: offset, length: 4, kind: .signed))
        offset += 4
        for index in 1...8 {
            fields.append(.init(key: "PostTimer\(index)", offset: offset, length: 8, kind: .postTimer))
            offset += 8
        }
        offset += 276
        fields.append(.init(key: "URL", offset: offset, length: 1024, kind: .text))
        return BroadcastRecord(
            id: "cart", keySpace: .cart, fixedLength: offset + 1024, fields: fields, tailKey: "TagText",
            newChunkDefaults: ["Version": "0101"])
    }()
}
