#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MediaItem {
    /// The item for the file at `url`, loaded: the one-step form of
    /// ``init(url:)`` and ``load()``, for code that keeps items in `let`s or
    /// in an actor's or observable model's properties. The file is read on
    /// a thread outside Swift's cooperative pool, as ``load()`` reads it.
    ///
    /// ```swift
    /// let item = try await MediaItem(contentsOf: url)
    /// print(item.metadata.title ?? "untitled")
    /// ```
    public init(contentsOf url: URL) async throws(MediaError) {
        self.init(url: url)
        try await load()
    }

    /// The item for the file at `url`, loaded through `schema`: its custom
    /// fields read, and its saves writing through it (see ``init(url:schema:)``).
    /// The file is read on a thread outside Swift's cooperative pool, as
    /// ``load()`` reads it.
    public init(contentsOf url: URL, schema: MetadataSchema) async throws {
        self.init(url: url, schema: schema)
        try await load()
    }

    /// The item read from `data`, the contents of a file named `filename`,
    /// loaded (see ``init(data:filename:)``).
    public init(loading data: Data, filename: String) async throws(MediaError) {
        self.init(data: data, filename: filename)
        try await load()
    }

    /// The item read from `source`, the bytes of a file named `filename`,
    /// loaded (see ``init(source:filename:)``).
    public init(loading source: any ByteSource, filename: String) async throws(MediaError) {
        self.init(source: source, filename: filename)
        try await load()
    }

    /// Saves the changes (as ``save(options:)``) and returns the item as
    /// saved; this value is left as it was. For an item held where a
    /// mutating call can't reach it across a suspension (an actor's or a
    /// `@MainActor` model's property): `model.item = try await model.item.saving()`.
    public func saving(options: SaveOptions = SaveOptions()) async throws(MediaError) -> MediaItem {
        var saved = self
        try await saved.save(options: options)
        return saved
    }

    /// Carries out `plan` (as ``save(_:)``) and returns the item as saved;
    /// this value is left as it was.
    public func saving(_ plan: SavePlan) async throws(MediaError) -> MediaItem {
        var saved = self
        try await saved.save(plan)
        return saved
    }
}
