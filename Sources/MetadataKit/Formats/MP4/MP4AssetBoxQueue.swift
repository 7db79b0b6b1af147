#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The 3GPP asset boxes a save writes (``MP4AssetBoxes``), matched against
/// the boxes `udta` holds: each box of the file takes the next group of
/// items of its type (``MP4AssetBoxes/groups(_:)``) and is copied when they
/// read the same, re-encoded (its trailing bytes kept) when they changed,
/// and dropped when no group is left for it; groups no box took are new
/// boxes at the end of `udta`.
struct MP4AssetBoxQueue {
    private var groups: [[MetadataItem]]
    private var taken: [Bool]
    /// The indices in ``groups`` of each box type, in order, not yet taken.
    private var pending: [FourCC: [Int]] = [:]

    init(_ items: [MetadataItem]) {
        groups = MP4AssetBoxes.groups(items)
        taken = Array(repeating: false, count: groups.count)
        for (index, group) in groups.enumerated() {
            guard let type = MP4AssetBoxes.boxType(of: group[0].key) else { continue }
            pending[type, default: []].append(index)
        }
    }

    /// The node of an asset box of the file: nil when the box can't be read
    /// (the caller keeps it as it is), `.some(nil)` when it is removed.
    mutating func node(for header: MP4BoxHeader, source: FileSource) throws -> MP4Node?? {
        guard MP4AssetBoxes.types.contains(header.type), let loaded = MP4AssetBoxes.parse(header, source: source) else {
            return nil
        }
        guard var queue = pending[header.type], !queue.isEmpty else { return .some(nil) }
        let index = queue.removeFirst()
        pending[header.type] = queue
        taken[index] = true
        if loaded.items.isStoredLike(groups[index]) { return .original(header) }
        return .bytes(try MP4AssetBoxes.box(groups[index], trailer: loaded.trailer))
    }

    /// The boxes of the groups no box of the file took, in item order.
    func remainingBoxes() throws -> [[UInt8]] {
        try groups.indices.filter { !taken[$0] }.map { try MP4AssetBoxes.box(groups[$0]) }
    }
}
