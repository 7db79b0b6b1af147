#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// ProTracker-family MOD module.
    public static let mod = FileType(identifier: "mod", mimeType: "audio/x-mod")
    /// Scream Tracker 3 module.
    public static let s3m = FileType(identifier: "s3m", mimeType: "audio/x-s3m")
    /// FastTracker 2 extended module.
    public static let xm = FileType(identifier: "xm", mimeType: "audio/x-xm")
    /// Impulse Tracker module.
    public static let it = FileType(identifier: "it", mimeType: "audio/x-it")
}

extension MediaFormat {
    /// A tracker module format: the title and comment as `module` items
    /// (``TrackerModule``), written in place (``TrackerEditPlanner``); the
    /// tracker's own properties in ``MediaProperties/module``.
    private static func tracker(
        _ fileType: FileType, name: String, extensions: [String], mimeTypes: [String],
        recognizes: @escaping @Sendable (FormatProbe) throws -> Bool, read: @escaping @Sendable (FileSource) throws -> TrackerModule
    ) -> MediaFormat {
        MediaFormat(
            identifier: fileType.identifier, name: name, extensions: extensions, mimeTypes: mimeTypes, keySpaces: [.module],
            keyTables: [.module], recognizes: recognizes,
            parse: { source, _ in try TrackerModule.parsed(read(source), source: source, fileType: fileType) },
            planEdit: TrackerEditPlanner.planner(read))
    }

    /// 31-instrument MOD (``ProTrackerModule``), recognised by its tag at 1080.
    static let mod = tracker(
        .mod, name: "MOD (ProTracker module)", extensions: ["mod"], mimeTypes: [FileType.mod.mimeType, "audio/mod"],
        recognizes: ProTrackerModule.recognizes, read: ProTrackerModule.read)
    /// S3M (``ScreamTracker3Module``), recognised by "SCRM" at 44.
    static let s3m = tracker(
        .s3m, name: "S3M (Scream Tracker 3 module)", extensions: ["s3m"], mimeTypes: [FileType.s3m.mimeType, "audio/s3m"],
        recognizes: ScreamTracker3Module.recognizes, read: ScreamTracker3Module.read)
    /// XM (``FastTrackerModule``), recognised by "Extended Module: ".
    static let xm = tracker(
        .xm, name: "XM (FastTracker 2 module)", extensions: ["xm"], mimeTypes: [FileType.xm.mimeType, "audio/xm"],
        recognizes: FastTrackerModule.recognizes, read: FastTrackerModule.read)
    /// IT (``ImpulseTrackerModule``), recognised by "IMPM".
    static let it = tracker(
        .it, name: "IT (Impulse Tracker module)", extensions: ["it"], mimeTypes: [FileType.it.mimeType, "audio/it"],
        recognizes: ImpulseTrackerModule.recognizes, read: ImpulseTrackerModule.read)
}
