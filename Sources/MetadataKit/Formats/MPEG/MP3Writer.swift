import Foundation

/// Writes the ID3 tags of an MP3. Placeholder, replaced by the ID3 writer.
enum MP3Writer {
    static func plan(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions) throws -> FileEditPlan {
        throw MediaError(.unsupportedFeature, "MP3 writing is not implemented yet")
    }
}
