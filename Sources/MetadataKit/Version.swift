/// The version of MetadataKit (and of `mdkit`, which prints it for
/// `--version`). Follows Semantic Versioning; CHANGELOG.md lists the releases.
public enum MetadataKitVersion {
    /// "MAJOR.MINOR.PATCH", with a pre-release suffix between releases.
    public static let current = "0.3.0-dev"
}
