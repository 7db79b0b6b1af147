import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a catalog stores for one file: its status on disk and either what
/// was read from it or why it could not be read. Made by the reading workers
/// of a scan (hashing the artwork there), written by the catalog's writer.
public struct CatalogRecord: Sendable {
    /// One raw item's value as stored: a text (strings one row each) or, for
    /// binary data and pictures, only a byte count.
    public struct Item: Sendable, Equatable {
        /// The item's key space (`MetadataKeySpace` raw value: `id3`, `itunes`, `vorbis`, …).
        public var keySpace: String
        /// The item's key as the format spells it (`TIT2`, `©nam`, `TITLE`).
        public var key: String
        /// The item's values as text, one per value (numbers written out); one nil for binary data or a picture.
        public var values: [String?]
        /// The byte count of a binary value or picture; nil for text.
        public var byteCount: Int?
        /// How the value was stored (`MetadataDataType` raw value: `UTF-8`, `UTF-16`, …).
        public var type: String
        /// The item's language (an ID3 `COMM` or `USLT` language code), if it has one.
        public var language: String?
    }

    /// One picture: its description and a hash of its bytes (not the bytes).
    public struct Picture: Sendable, Equatable {
        /// The picture type's name (`Artwork.PictureType.name`).
        public var pictureType: String
        /// The picture's MIME type.
        public var mimeType: String
        /// The picture's description, as stored.
        public var description: String
        /// The picture's size in bytes.
        public var byteCount: Int
        /// The image's width in pixels, from its header; nil when unknown.
        public var width: Int?
        /// The image's height in pixels, from its header; nil when unknown.
        public var height: Int?
        /// Lowercase hex SHA-256 of the picture's bytes; nil when they could not be read.
        public var sha256: String?
    }

    /// Absolute path.
    public var path: String
    /// The file's size, modification time and identity when it was read.
    public var status: FileStatus
    /// When the file was read (seconds since 1970).
    public var scannedAt: Double
    /// The format's name (`MediaFormat.name`); nil when the file could not be read.
    public var format: String?
    /// The file's MIME type; nil when the file could not be read.
    public var mimeType: String?
    /// Whether MetadataKit can write the file's metadata; nil when it could not be read.
    public var editable: Bool?
    /// Duration, bit rate, sample rate, channels, codec.
    public var properties = MediaProperties()
    /// Every normalized field but artwork, by `MetadataField` raw value, as text.
    public var fields: [(field: String, value: String)] = []
    /// Every raw item of the file, in file order.
    public var items: [Item] = []
    /// The file's pictures, hashed.
    public var pictures: [Picture] = []
    /// Local damage the read went around.
    public var warnings: [MediaWarning] = []
    /// What `MediaItem.check()` found (docs/CHECK.md); empty when the check could not run.
    public var findings: [Finding] = []
    /// Why the file could not be read (nil when it was).
    public var error: MediaError?
    /// The values of its `files` row (``SQLCatalog/fileValues(_:)``, the
    /// lists encoded among them), made ahead by a scan's reading worker (in
    /// parallel with the others); nil: the writer makes them.
    var fileValues: [SQLValue]?

    /// The record of a file read by `item` (`load()` done), or that failed with `error`.
    public init(path: String, status: FileStatus, result: Result<MediaItem, any Error>, scannedAt: Double = Date().timeIntervalSince1970) {
        self.init(path: path, status: status, result: result, scannedAt: scannedAt, hashing: nil)
    }

    /// The record as ``init(path:status:result:scannedAt:)`` makes it, the
    /// artwork hashed by `hashing`'s hasher (a scan's reading worker's)
    /// through the open file the item was loaded from, when given.
    init(
        path: String, status: FileStatus, result: Result<MediaItem, any Error>, scannedAt: Double,
        hashing: (hasher: PictureHasher, file: FileSource)?
    ) {
        self.path = path
        self.status = status
        self.scannedAt = scannedAt
        switch result {
        case .failure(let failure):
            error = (failure as? MediaError) ?? MediaError(.io, String(describing: failure))
        case .success(let item):
            format = item.fileType?.identifier
            mimeType = item.fileType?.mimeType
            editable = item.isEditable
            properties = item.properties
            warnings = item.warnings
            findings = (try? hashing.map { try item.check(reading: $0.file) } ?? item.check()) ?? []
            for field in MetadataField.allCases {
                switch item.metadata[field] {
                case nil: continue
                case .artwork(let list)?:
                    let hashes =
                        hashing.map { $0.hasher.sha256(of: list, in: $0.file) } ?? list.map { (try? $0.readBytes()).map { SHA256.hex($0) } }
                    pictures = zip(list, hashes).map { Self.picture($0, sha256: $1) }
                case let value?: if let text = value.text { fields.append((field.rawValue, text)) }
                }
            }
            items = item.metadata.items.map(Self.item)
        }
    }

    /// The record with only what a catalog's writer reads once
    /// ``fileValues`` are made (its path, status and those values): a scan's
    /// reading worker hands this on, so that the lists' arrays and texts are
    /// freed on its thread, in parallel, not one by one on the writer's
    /// (which spent a fifth of its time freeing them).
    func keepingFileValuesOnly() -> CatalogRecord {
        var lean = CatalogRecord(path: path, status: status, scannedAt: scannedAt)
        lean.fileValues = SQLCatalog.fileValues(self) // the values made ahead, when they were
        return lean
    }

    private init(path: String, status: FileStatus, scannedAt: Double) {
        self.path = path
        self.status = status
        self.scannedAt = scannedAt
    }

    /// A field's text, by `MetadataField`.
    public func field(_ field: MetadataField) -> String? {
        fields.first { $0.field == field.rawValue }?.value
    }

    static func picture(_ artwork: Artwork, sha256: String?) -> Picture {
        Picture(
            pictureType: artwork.pictureType.name, mimeType: artwork.mimeType, description: artwork.description,
            byteCount: artwork.byteCount, width: artwork.width, height: artwork.height, sha256: sha256)
    }

    static func item(_ item: MetadataItem) -> Item {
        var values: [String?] = []
        var byteCount: Int?
        switch item.value {
        case .string(let text): values = [text]
        case .strings(let texts): values = texts.isEmpty ? [""] : texts
        case .integer(let number): values = [String(number)]
        case .double(let number): values = [String(number)]
        case .numberPair(let number, let total): values = [total.map { "\(number)/\($0)" } ?? String(number)]
        case .picture(let picture):
            values = [nil]
            byteCount = picture.byteCount
        case .data(let data):
            values = [nil]
            byteCount = data.count
        }
        return Item(
            keySpace: item.keySpace.rawValue, key: item.key, values: values, byteCount: byteCount, type: item.dataType.rawValue,
            language: item.language)
    }
}
