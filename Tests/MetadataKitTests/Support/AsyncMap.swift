extension Sequence {
    /// `map` with an async transform, in order (for the async accessors such
    /// as `Artwork.data()` and `Sample.data()`).
    func asyncMap<Value>(_ transform: (Element) async throws -> Value) async rethrows -> [Value] {
        var values: [Value] = []
        for element in self { values.append(try await transform(element)) }
        return values
    }
}
