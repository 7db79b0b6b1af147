#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The check after every save that nothing was lost or altered behind the
/// user's back: each raw item the save was asked to write must read back from
/// the written file with the same key, language and value (pictures by MIME
/// type, picture type, description and size, since their bytes move).
///
/// The writers are built to keep what they don't touch byte for byte; this is
/// the net under them. A save that fails it is rolled back
/// (`verificationFailed`) and the original file is left as it was.
enum ItemSurvival {
    /// The items of `expected` with no counterpart in `actual` (each item of
    /// `actual` answers for one expected item), leaving out the key spaces in
    /// `exempt` (those a writer rebuilds or renames, such as ID3v1, or ID3v2
    /// when its version changes).
    static func missing(expected: [MetadataItem], actual: [MetadataItem], exempt: Set<MetadataKeySpace>) -> [MetadataItem] {
        if actual.count > 256 { return missingByKey(expected: expected, actual: actual, exempt: exempt) }
        // Each expected item takes the first unused matching item, looked
        // for from just after the last one taken: a save keeps the items'
        // order, so this is one walk (no key strings made and hashed).
        // Matching items are interchangeable (`matches` is an equivalence).
        var used = [Bool](repeating: false, count: actual.count)
        var hint = 0
        var missing: [MetadataItem] = []
        for item in expected where !exempt.contains(item.keySpace) {
            var found: Int?
            for step in 0..<actual.count {
                let index = (hint + step) % actual.count
                let candidate = actual[index]
                if !used[index], candidate.keySpace == item.keySpace, candidate.key == item.key, matches(item, candidate) {
                    found = index
                    break
                }
            }
            if let found {
                used[found] = true
                hint = found + 1
            } else {
                missing.append(item)
            }
        }
        return missing
    }

    /// ``missing(expected:actual:exempt:)`` through a table by key: for
    /// files of many items, where a walk per item would not do.
    private static func missingByKey(expected: [MetadataItem], actual: [MetadataItem], exempt: Set<MetadataKeySpace>) -> [MetadataItem] {
        var pool: [String: [MetadataItem]] = [:]
        for item in actual where !exempt.contains(item.keySpace) {
            pool[item.keySpace.rawValue + "\u{0}" + item.key, default: []].append(item)
        }
        var missing: [MetadataItem] = []
        for item in expected where !exempt.contains(item.keySpace) {
            let slot = item.keySpace.rawValue + "\u{0}" + item.key
            if let index = pool[slot]?.firstIndex(where: { matches(item, $0) }) {
                pool[slot]!.remove(at: index)
            } else {
                missing.append(item)
            }
        }
        return missing
    }

    /// Same language and value; a picture by what it is, not where it is stored.
    private static func matches(_ expected: MetadataItem, _ actual: MetadataItem) -> Bool {
        guard expected.language == actual.language else { return false }
        if let mine = expected.value.picture, let theirs = actual.value.picture {
            return mine.mimeType == theirs.mimeType && mine.byteCount == theirs.byteCount
                && mine.pictureType == theirs.pictureType && mine.description == theirs.description
        }
        return expected.value == actual.value
    }

    /// "id3:TALB", for an error message naming at most a few items.
    static func describe(_ items: [MetadataItem]) -> String {
        let names = items.prefix(5).map { "\($0.keySpace.rawValue):\($0.key)" }
        return names.joined(separator: ", ") + (items.count > 5 ? " and \(items.count - 5) more" : "")
    }
}
