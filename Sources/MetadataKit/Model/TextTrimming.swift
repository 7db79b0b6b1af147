extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    ///
    /// Cheaper than Foundation's `trimmingCharacters(in:)`, which bridges
    /// through `NSString`; this runs for every track number and MIME type read.
    var trimmingSpaces: Substring {
        let scalars = unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, scalars[start] == " " || scalars[start] == "\t" { start = scalars.index(after: start) }
        while end > start {
            let before = scalars.index(before: end)
            guard scalars[before] == " " || scalars[before] == "\t" else { break }
            end = before
        }
        return Substring(self[start..<end])
    }
}
