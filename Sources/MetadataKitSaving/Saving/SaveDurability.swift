import MetadataKitBytes

/// How hard a save works to survive a crash or power loss.
public enum SaveDurability: Sendable {
    /// fsync the data, the journal and the directory (the default).
    case full
    /// Same steps, no fsync: as safe against a crashed process, not against power loss.
    case noSync
}
