#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Artwork {
    /// The file the image bytes lie in and the offset of their first byte
    /// (``byteCount`` of them), when the picture was read from a file and
    /// not loaded; nil for a picture in memory. For the catalog
    /// (MetadataKitCatalog), which hashes the pictures of many files through
    /// one reusable buffer per reading thread instead of ``data()``'s new
    /// file handle and arrays per picture.
    package var fileLocation: (url: URL, offset: Int64)? {
        switch storage {
        case .bytes, .base64: return nil
        case .file(let url, let offset): return (url, offset)
        }
    }
}
